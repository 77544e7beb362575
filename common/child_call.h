/* SPDX-License-Identifier: MIT */
/*
 * Calling a function in a forked child process, so that a library which
 * may end the process (an abort on a failed precondition, a fault) ends
 * only the child: the caller learns how the child ended and reads what
 * it printed. The child sees this process's memory as it is at the call
 * and nothing it changes comes back; it is for a call made once to learn
 * whether the same call made here would survive (the trace reader's
 * check of a trace that babeltrace2 may abort on, reconstruct/
 * trace_reader.c). Not for multithreaded callers: only the calling
 * thread goes on in the child.
 */
#ifndef GM_CHILD_CALL_H
#define GM_CHILD_CALL_H

struct strbuf;

/* The most bytes of the child's output kept (its last ones). */
#define GM_CHILD_OUTPUT_MAX 4096

/*
 * Call @fn(@ctx) in a forked child (this process's stdio buffers flushed
 * first); the child exits with status 0 when @fn returns 0, 1 otherwise,
 * without running exit handlers. In the child the signals of a fault (SIGABRT,
 * SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS) take their default
 * action whatever handlers this process installed (a sanitizer's or a
 * fuzzer's would report the child's death as this process's), no core
 * is dumped, and SIGINT and SIGTERM end it. Its standard output and
 * error are appended to @out (at most GM_CHILD_OUTPUT_MAX bytes, the
 * last ones); its input is /dev/null. Returns the child's wait status
 * (>= 0), or -1 with a cause when it could not be forked or waited for.
 */
int gm_call_in_child(int (*fn)(void *ctx), void *ctx, struct strbuf *out);

/*
 * Whether wait status @status is a death by one of the fault signals
 * above (the called code crashed, as opposed to being stopped by SIGINT,
 * SIGTERM or SIGKILL).
 */
int gm_child_crashed(int status);

/*
 * @status in words, for messages: "exited with status 1", "was killed by
 * signal 6 (Aborted)". Static storage, valid until the next call.
 */
const char *gm_child_status(int status);

#endif
