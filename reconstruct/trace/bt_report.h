/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's failures in gpumix's words, for the trace reader
 * (trace_reader.c): the causes of a babeltrace2 error recorded as
 * gpumix error causes (common/error.h) without the addresses that differ
 * from run to run, the trace file a failure comes from, and the same
 * from the log that a reading in a child process left when babeltrace2
 * ended that process (what babeltrace2 prints before it aborts).
 * Internal to reconstruct/.
 */
#ifndef GM_BT_REPORT_H
#define GM_BT_REPORT_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>

/*
 * What babeltrace2 error @err (may be NULL) comes from, or NULL: the
 * stream file where a cause names its stream (the ctf source names each
 * output port "UUID | CLASS | INSTANCE", the instance found in the
 * trace's indexes: gm_ctf_stream_file()), else the trace directory, with
 * a '/' at its end, of the source component that failed (the reader's
 * graph names the source of @traces[N] "source-N"; @nr traces). Newly
 * allocated.
 */
char *gm_bt_error_file(const bt_error *err, char *const *traces, size_t nr);

/*
 * Record the causes of babeltrace2 error @err (taken from the thread,
 * may be NULL; released here), the most specific printed last, the
 * generic "method failed" ones left out.
 */
void gm_bt_push_causes(const bt_error *err);

/* Record the error on the thread under @what; returns -1. */
int gm_bt_fail(const char *what);

/*
 * Record as causes the messages of babeltrace2 log @log (what a process
 * reading a trace printed: lines "DATE TIME PID TID LEVEL TAG
 * FUNC@FILE:LINE [COMPONENT] MESSAGE") that say what failed: errors and
 * fatal ones, without the lines that only frame a failed precondition,
 * the last 3 of them; lines of another form count as messages, whole
 * but for the picture babeltrace2 starts a failed assertion with.
 * Returns the trace directory of the last source component named
 * ("[source-N]": @traces[N]; borrowed), or NULL.
 */
const char *gm_bt_push_log(const char *log, char *const *traces, size_t nr);

#endif
