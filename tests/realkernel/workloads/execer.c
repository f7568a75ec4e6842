/* execer - execs exectarget, another static non-PIE binary linked at the
 * same addresses (0x400000), which execs execer again, ROUNDS times each.
 * A sample taken inside execve gets its user stack unwound on the way back
 * to user space, after the exec: its user frame is the NEW program's
 * _start, its comm the new program's.
 *   main -> exa_outer -> exa_leaf  (getppid for 20 ms)
 *        -> exa_exec               (execve exectarget ROUNDS)
 * exa_pad, first in .text, moves all of execer's code 16 KiB up: the
 * addresses of exectarget's _start and functions fall inside exa_pad in
 * execer, and execer's inside glibc functions in exectarget, so that a
 * chain resolved against the old program's maps is visibly wrong.
 * argv[1]: rounds (default 8); exectarget is looked up next to argv[0].
 */
#include <stdio.h>
#include <string.h>
#include "common.h"

volatile unsigned long rk_sink;

__attribute__((used, noinline, section(".text.unlikely.exa_pad"))) void exa_pad(void)
{
	__asm__ volatile(".skip 16384, 0xcc");
}

NOINLINE void exa_leaf(void)
{
	rk_account(rk_syscall3(SYS_getppid, 0, 0, 0));
}

NOINLINE void exa_outer(double end)
{
	do
		for (int i = 0; i < 50; i++)
			exa_leaf();
	while (rk_now() < end);
}

NOINLINE long exa_exec(const char *path, char *rounds)
{
	char *argv[] = { (char *)path, rounds, NULL };
	char *envp[] = { NULL };

	return rk_syscall3(SYS_execve, (long)path, (long)argv, (long)envp);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 8;
	char path[4096], arg[16];
	char *slash = strrchr(argv[0], '/');

	exa_outer(rk_now() + 0.02);
	if (rounds <= 0)
		return 0;
	snprintf(path, sizeof(path), "%.*sexectarget",
		 slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	snprintf(arg, sizeof(arg), "%d", rounds);
	exa_exec(path, arg);
	perror("execve exectarget");
	return 1;
}
