/* exectarget - exec'd by execer (see there), at the same addresses; execs
 * execer again with ROUNDS - 1 until no round is left.
 *   main -> exb_outer -> exb_leaf  (getppid for 20 ms)
 *        -> exb_exec               (execve execer ROUNDS-1)
 */
#include <stdio.h>
#include <string.h>
#include "common.h"

volatile unsigned long rk_sink;

NOINLINE void exb_leaf(void)
{
	rk_account(rk_syscall3(SYS_getppid, 0, 0, 0));
}

NOINLINE void exb_outer(double end)
{
	do
		for (int i = 0; i < 50; i++)
			exb_leaf();
	while (rk_now() < end);
}

NOINLINE long exb_exec(const char *path, char *rounds)
{
	char *argv[] = { (char *)path, rounds, NULL };
	char *envp[] = { NULL };

	return rk_syscall3(SYS_execve, (long)path, (long)argv, (long)envp);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	char path[4096], arg[16];
	char *slash = strrchr(argv[0], '/');

	exb_outer(rk_now() + 0.02);
	if (rounds <= 1) {
		printf("exectarget: done\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%.*sexecer",
		 slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	snprintf(arg, sizeof(arg), "%d", rounds - 1);
	exb_exec(path, arg);
	perror("execve execer");
	return 1;
}
