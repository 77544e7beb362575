/* SPDX-License-Identifier: MIT */
/*
 * Running a helper program and keeping what it prints (lttng, ptxas): its
 * standard output and error together, its input /dev/null.
 */
#ifndef GM_RUN_OUTPUT_H
#define GM_RUN_OUTPUT_H

struct strbuf;

/*
 * Run @argv (NULL-terminated; argv[0] searched in PATH unless it has a
 * '/'), appending its stdout and stderr to @out, and wait for it. Its
 * wait status goes to *@status (127 as exit status when it cannot be
 * run, with the reason in @out). 0, or -1 when the pipe, fork or wait
 * failed (error recorded).
 */
int gm_run_output(char *const argv[], struct strbuf *out, int *status);

#endif
