/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto native trace format (.pftrace), written by hand in the
 * protobuf wire format from the format's definition (perfetto's
 * protos/perfetto/trace/trace.proto and track_event protos): a Trace
 * message, that is a sequence of field 1 (TracePacket), each packet a
 * TrackDescriptor (a process, or a named track under one) or a
 * TrackEvent (slice begin/end, instant) on one trusted sequence. Only
 * the fields below are used; their numbers are the definition's:
 *
 *   TracePacket      timestamp 8, trusted_packet_sequence_id 10,
 *                    track_event 11, sequence_flags 13,
 *                    track_descriptor 60
 *   TrackDescriptor  uuid 1, name 2, process 3, parent_uuid 5
 *   ProcessDescriptor pid 1, process_name 6
 *   TrackEvent       debug_annotations 4, type 9 (1 begin, 2 end,
 *                    3 instant), track_uuid 11, categories 22, name 23,
 *                    flow_ids 47, terminating_flow_ids 48 (fixed64)
 *   DebugAnnotation  bool 2, int 4, double 5, string 6, name 10
 *
 * Timestamps are nanoseconds relative to the writer's origin, as the
 * JSON's are microseconds. Binary, with no JSON parser's size limits;
 * names and categories are written in every event, not interned, so a
 * file is about 80% of its JSON's size (doc/timeline.md). Used through trace_json.h
 * (GM_TRACE_PERFETTO); not an API of its own.
 */
#ifndef GM_TRACE_PERFETTO_H
#define GM_TRACE_PERFETTO_H

#include <stdint.h>

struct strbuf;

/* A process track (@pid's, named @name). */
void gm_pf_process(struct strbuf *sb, int64_t pid, const char *name);

/* A track named @name under process @pid's (@tid > 0 names it). */
void gm_pf_thread(struct strbuf *sb, int64_t pid, int64_t tid,
		  const char *name);

/*
 * An event on track @pid/@tid (@tid 0: the process's track) at @ts
 * (ns from the origin): @type 1 slice begin, 2 slice end, 3 instant.
 * @cat and @name may be NULL (an end has neither); @args is the text of
 * a flat JSON object's members (trace_json.h's gm_tj_arg_*), each
 * written as a debug annotation; @flow and @end_flow, when not 0, start
 * or end the flow arrow of that id here.
 */
void gm_pf_event(struct strbuf *sb, int type, int64_t pid, int64_t tid,
		 int64_t ts, const char *cat, const char *name,
		 const char *args, uint64_t flow, uint64_t end_flow);

#endif
