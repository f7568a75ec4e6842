/* common.h - shared by the real-kernel harness workloads.
 *
 * Built static with frame pointers everywhere (see ../run.sh), so that the
 * kernel's frame pointer unwinder, deferred or not, sees complete user
 * chains: the user IP of a syscall lies inside the function that issues it
 * (raw "syscall" instruction, no libc wrapper without a frame), and every
 * function of ours has a frame and is noinline, so the chains hold their
 * names in a known caller order.
 */
#ifndef RK_COMMON_H
#define RK_COMMON_H
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static inline __attribute__((always_inline)) long
rk_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline __attribute__((always_inline)) long
rk_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* a real clock_gettime syscall, not the vDSO: no [vdso] frames to symbolise */
static inline double rk_now(void)
{
	struct timespec ts;

	rk_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* seconds to run: argv[1], default 0.5 */
static inline double rk_seconds(int argc, char **argv)
{
	return argc > 1 ? atof(argv[1]) : 0.5;
}

extern volatile unsigned long rk_sink;

/*
 * Out of line, so that the callers are not leaves: gcc 12 gives a leaf
 * function no frame even with -mno-omit-leaf-frame-pointer, and a sample in
 * a frameless function loses its caller from the chain.
 */
static void NOINLINE __attribute__((unused)) rk_account(long v)
{
	rk_sink += v;
	__asm__ volatile("" ::: "memory");
}
#endif
