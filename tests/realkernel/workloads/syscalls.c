/* syscalls - one thread making short syscalls in a loop:
 *   main -> sys_loop -> sys_outer -> sys_middle -> sys_leaf_{write,getppid,read}
 * Most cpu-clock samples land in the kernel, each asking for a deferred
 * user chain that the kernel writes on the way back to user space.
 */
#include <fcntl.h>
#include <stdio.h>
#include "common.h"

volatile unsigned long rk_sink;
static int fd_null, fd_zero;
static char buf[4096];

NOINLINE void sys_leaf_write(void)
{
	rk_account(rk_syscall3(SYS_write, fd_null, (long)buf, sizeof(buf)));
}

NOINLINE void sys_leaf_getppid(void)
{
	rk_account(rk_syscall3(SYS_getppid, 0, 0, 0));
}

NOINLINE void sys_leaf_read(void)
{
	rk_account(rk_syscall3(SYS_read, fd_zero, (long)buf, sizeof(buf)));
}

NOINLINE void sys_middle(int i)
{
	switch (i % 3) {
	case 0: sys_leaf_write(); break;
	case 1: sys_leaf_getppid(); break;
	default: sys_leaf_read(); break;
	}
	__asm__ volatile("" ::: "memory");
}

NOINLINE void sys_outer(int i)
{
	sys_middle(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE long sys_loop(double secs)
{
	double end = rk_now() + secs;
	long n = 0;

	do {
		for (int i = 0; i < 300; i++)
			sys_outer(i);
		n += 300;
	} while (rk_now() < end);
	return n;
}

int main(int argc, char **argv)
{
	fd_null = open("/dev/null", O_WRONLY);
	fd_zero = open("/dev/zero", O_RDONLY);
	if (fd_null < 0 || fd_zero < 0) {
		perror("open");
		return 1;
	}
	printf("syscalls: %ld calls\n", sys_loop(rk_seconds(argc, argv)));
	return 0;
}
