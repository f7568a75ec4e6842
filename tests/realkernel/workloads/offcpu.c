/* offcpu - one thread off CPU for seconds while others switch often, for
 * recordings of sched:sched_switch: the blocked thread's sample waits
 * seconds for its deferred record (written when it returns to user space),
 * while thousands of other samples and records come in between.
 *
 *   blocker_entry -> blocker_outer -> blocker_read  (read of a pipe that
 *                    nobody writes until the end: blocks the whole run)
 *   ping_entry -> ping_outer -> ping_leaf  (pipe ping-pong with pong:
 *   pong_entry -> pong_outer -> pong_leaf   write, then block in read)
 *   nap_entry  -> nap_outer  -> nap_leaf   (nanosleep 200 us, sched_yield)
 *   main -> off_main_wake (write the blocker's pipe at the end)
 *        -> off_main_wait (pthread_join)
 *
 * argv[1]: seconds the blocker stays blocked (default 3).  Prints the
 * blocker's tid and the number of round trips and naps.
 */
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include "common.h"

volatile unsigned long rk_sink;
static int block_pipe[2], ping_pipe[2], pong_pipe[2];
static volatile int stop;
static long blocker_tid, round_trips, naps;

NOINLINE long blocker_read(void)
{
	char c;
	long ret = rk_syscall3(SYS_read, block_pipe[0], (long)&c, 1);

	rk_account(ret);
	return ret;
}

NOINLINE long blocker_outer(void)
{
	long ret = blocker_read();

	__asm__ volatile("" ::: "memory");
	return ret;
}

NOINLINE void *blocker_entry(void *arg)
{
	blocker_tid = rk_syscall3(SYS_gettid, 0, 0, 0);
	blocker_outer();
	return arg;
}

/* one round trip: write to the other side, block until it answers */
NOINLINE int ping_leaf(void)
{
	char c = 'p';

	rk_syscall3(SYS_write, ping_pipe[1], (long)&c, 1);
	return rk_syscall3(SYS_read, pong_pipe[0], (long)&c, 1) == 1 && c == 'p';
}

NOINLINE void ping_outer(void)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < 20 && ping_leaf(); i++)
		round_trips++;
	rk_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
}

NOINLINE void *ping_entry(void *arg)
{
	char c = 'q';

	while (!stop)
		ping_outer();
	rk_syscall3(SYS_write, ping_pipe[1], (long)&c, 1);
	return arg;
}

NOINLINE int pong_leaf(void)
{
	char c;

	if (rk_syscall3(SYS_read, ping_pipe[0], (long)&c, 1) != 1 || c == 'q')
		return 0;
	rk_syscall3(SYS_write, pong_pipe[1], (long)&c, 1);
	return 1;
}

NOINLINE void pong_outer(void)
{
	while (pong_leaf())
		rk_account(1);
}

NOINLINE void *pong_entry(void *arg)
{
	pong_outer();
	return arg;
}

NOINLINE void nap_leaf(void)
{
	struct timespec ts = { 0, 200000 };

	rk_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
	rk_syscall3(SYS_sched_yield, 0, 0, 0);
}

NOINLINE void nap_outer(void)
{
	for (int i = 0; i < 10; i++)
		nap_leaf();
	naps += 10;
}

NOINLINE void *nap_entry(void *arg)
{
	while (!stop)
		nap_outer();
	return arg;
}

NOINLINE void off_main_wake(void)
{
	char c = 'w';

	rk_syscall3(SYS_write, block_pipe[1], (long)&c, 1);
}

NOINLINE void off_main_wait(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	void *(*entry[4])(void *) = { blocker_entry, ping_entry, pong_entry, nap_entry };
	double secs = argc > 1 ? atof(argv[1]) : 3, end;
	struct timespec ts = { 0, 20000000 };
	pthread_t t[4];

	if (pipe(block_pipe) || pipe(ping_pipe) || pipe(pong_pipe)) {
		perror("pipe");
		return 1;
	}
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, entry[i], NULL)) {
			perror("pthread_create");
			return 1;
		}
	end = rk_now() + secs;
	while (rk_now() < end)
		rk_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
	stop = 1;
	off_main_wake();
	off_main_wait(t, 4);
	printf("offcpu: blocker tid %ld, %ld round trips, %ld naps\n", blocker_tid, round_trips, naps);
	return 0;
}
