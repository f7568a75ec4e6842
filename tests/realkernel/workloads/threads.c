/* threads - three threads, each with its own chain, making syscalls, so
 * that samples of several tids interleave (and migrate between CPUs):
 *   thr_one_entry   -> thr_one_outer   -> thr_one_leaf   (write /dev/null)
 *   thr_two_entry   -> thr_two_outer   -> thr_two_leaf   (getppid)
 *   thr_three_entry -> thr_three_outer -> thr_three_leaf (read /dev/zero)
 * The main thread waits in thr_main_wait -> pthread_join.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include "common.h"

volatile unsigned long rk_sink;
static int fd_null, fd_zero;
static double end;

NOINLINE void thr_one_leaf(char *buf)
{
	rk_account(rk_syscall3(SYS_write, fd_null, (long)buf, 2048));
}

NOINLINE void thr_two_leaf(void)
{
	rk_account(rk_syscall3(SYS_getppid, 0, 0, 0));
}

NOINLINE void thr_three_leaf(char *buf)
{
	rk_account(rk_syscall3(SYS_read, fd_zero, (long)buf, 2048));
}

NOINLINE void thr_one_outer(char *buf)
{
	for (int i = 0; i < 100; i++)
		thr_one_leaf(buf);
}

NOINLINE void thr_two_outer(void)
{
	for (int i = 0; i < 100; i++)
		thr_two_leaf();
}

NOINLINE void thr_three_outer(char *buf)
{
	for (int i = 0; i < 100; i++)
		thr_three_leaf(buf);
}

NOINLINE void *thr_one_entry(void *arg)
{
	char buf[2048] = { 0 };

	do
		thr_one_outer(buf);
	while (rk_now() < end);
	return arg;
}

NOINLINE void *thr_two_entry(void *arg)
{
	do
		thr_two_outer();
	while (rk_now() < end);
	return arg;
}

NOINLINE void *thr_three_entry(void *arg)
{
	char buf[2048];

	do
		thr_three_outer(buf);
	while (rk_now() < end);
	return arg;
}

NOINLINE void thr_main_wait(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	void *(*entry[3])(void *) = { thr_one_entry, thr_two_entry, thr_three_entry };
	pthread_t t[3];

	fd_null = open("/dev/null", O_WRONLY);
	fd_zero = open("/dev/zero", O_RDONLY);
	if (fd_null < 0 || fd_zero < 0) {
		perror("open");
		return 1;
	}
	end = rk_now() + rk_seconds(argc, argv);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, entry[i], NULL)) {
			perror("pthread_create");
			return 1;
		}
	thr_main_wait(t, 3);
	printf("threads: done\n");
	return 0;
}
