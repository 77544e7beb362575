/* SPDX-License-Identifier: MIT */
/* gpumix trace diff (trace_diff.c). */
#ifndef GM_CLI_TRACE_DIFF_H
#define GM_CLI_TRACE_DIFF_H

/* Compare the results of bundles @a and @b; returns the exit status. */
int trace_diff(const char *a, const char *b);

#endif
