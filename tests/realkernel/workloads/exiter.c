/* exiter - tasks that exit while a sample may be pending.
 * Each round starts a thread that makes one long syscall and exits at
 * once, and forks a child that loops on long syscalls until the parent
 * kills it (SIGKILL) 20 ms later: the child dies on its way back to user
 * space, after the signal, so a sample taken in its last syscall asks for
 * a deferred user chain that the kernel never writes.
 *   main -> exit_loop -> exit_round -> (thread) exit_thread_entry -> exit_thread_read
 *                                   -> (child)  exit_child -> exit_child_read
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

#define READ_SIZE (1UL << 20)

volatile unsigned long rk_sink;
static int fd_zero;
static char *buf, *child_buf;

NOINLINE void exit_thread_read(void)
{
	rk_account(rk_syscall3(SYS_read, fd_zero, (long)buf, READ_SIZE));
}

NOINLINE void *exit_thread_entry(void *arg)
{
	exit_thread_read();
	return arg;
}

NOINLINE void exit_child_read(void)
{
	rk_account(rk_syscall3(SYS_read, fd_zero, (long)child_buf, READ_SIZE));
}

NOINLINE void exit_child(void)
{
	for (;;)
		exit_child_read();
}

NOINLINE void exit_round(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	pthread_t t;
	pid_t pid;

	if (pthread_create(&t, NULL, exit_thread_entry, NULL) == 0)
		pthread_join(t, NULL);
	pid = fork();
	if (pid == 0)
		exit_child();
	if (pid > 0) {
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

NOINLINE long exit_loop(double secs)
{
	double end = rk_now() + secs;
	long n = 0;

	do {
		exit_round();
		n++;
	} while (rk_now() < end);
	return n;
}

int main(int argc, char **argv)
{
	fd_zero = open("/dev/zero", O_RDONLY);
	buf = malloc(READ_SIZE);
	child_buf = malloc(READ_SIZE);
	if (fd_zero < 0 || !buf || !child_buf) {
		perror("setup");
		return 1;
	}
	printf("exiter: %ld rounds\n", exit_loop(rk_seconds(argc, argv)));
	return 0;
}
