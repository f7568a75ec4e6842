/* userloop - a user-mode busy loop, no syscalls but the clock:
 *   main -> spin_loop -> spin_outer -> spin_middle -> spin_leaf
 * Samples are taken in user mode: with deferral even those carry only a
 * cookie ([USER_DEFERRED, cookie]) and get their chain at the next kernel
 * exit (the timer interrupt's return to user space).
 */
#include <stdio.h>
#include "common.h"

volatile unsigned long rk_sink;

NOINLINE unsigned long spin_leaf(unsigned long x)
{
	for (int i = 0; i < 200; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	rk_account(x);
	return x;
}

NOINLINE unsigned long spin_middle(unsigned long x)
{
	for (int i = 0; i < 20; i++)
		x = spin_leaf(x);
	return x;
}

NOINLINE unsigned long spin_outer(unsigned long x)
{
	for (int i = 0; i < 10; i++)
		x = spin_middle(x);
	return x;
}

NOINLINE long spin_loop(double secs)
{
	double end = rk_now() + secs;
	unsigned long x = 1;
	long n = 0;

	do {
		x = spin_outer(x);
		n++;
	} while (rk_now() < end);
	rk_sink = x;
	return n;
}

int main(int argc, char **argv)
{
	printf("userloop: %ld rounds\n", spin_loop(rk_seconds(argc, argv)));
	return 0;
}
