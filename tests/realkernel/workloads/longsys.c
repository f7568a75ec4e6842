/* longsys - long syscalls: several samples per kernel entry, which then
 * share one cookie and one deferred record:
 *   main -> long_loop -> long_outer -> long_read     (read 4 MiB of /dev/zero)
 *                                   -> long_populate (mmap 8 MiB MAP_POPULATE,
 *                                                     then munmap)
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include "common.h"

#define READ_SIZE (4UL << 20)
#define MAP_SIZE (8UL << 20)

volatile unsigned long rk_sink;
static int fd_zero;
static char *buf;

NOINLINE void long_read(void)
{
	rk_account(rk_syscall3(SYS_read, fd_zero, (long)buf, READ_SIZE));
}

NOINLINE void long_populate(void)
{
	long p = rk_syscall6(SYS_mmap, 0, MAP_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p > 0) {
		rk_account(((volatile char *)p)[4096]);
		rk_syscall3(SYS_munmap, p, MAP_SIZE, 0);
	}
}

NOINLINE void long_outer(int i)
{
	if (i & 1)
		long_populate();
	else
		long_read();
	__asm__ volatile("" ::: "memory");
}

NOINLINE long long_loop(double secs)
{
	double end = rk_now() + secs;
	long n = 0;

	do
		long_outer(n++);
	while (rk_now() < end);
	return n;
}

int main(int argc, char **argv)
{
	fd_zero = open("/dev/zero", O_RDONLY);
	buf = malloc(READ_SIZE);
	if (fd_zero < 0 || !buf) {
		perror("setup");
		return 1;
	}
	printf("longsys: %ld long calls\n", long_loop(rk_seconds(argc, argv)));
	return 0;
}
