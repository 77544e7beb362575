/* SPDX-License-Identifier: MIT */
/*
 * The model's streams and events (creation and destruction).
 */
#include "model_int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "instance_name.h"

#define STREAM_PER_THREAD_HANDLE 0x2	/* CU_STREAM_PER_THREAD */

/* ---- streams, events, synchronization ---- */

int model_add_stream(struct model_prog *p, uint64_t ev, uint64_t handle,
		     int non_blocking, int priority)
{
	uint32_t flags = non_blocking ? 0 : GM_STREAM_BLOCKING;
	size_t id;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (handle <= STREAM_PER_THREAD_HANDLE) {
		return gm_error("event %" PRIu64 ": stream handle 0x%" PRIx64
				" is reserved", ev, handle);
	}
	/* Reuse a destroyed stream of the same kind: streams are made at
	 * init, so the table holds as many as were ever live at once. */
	for (id = 1; id < p->nr_streams; id++) {
		struct model_stream *st = &p->streams[id];
		if (!st->live && st->d.flags == flags &&
		    st->d.priority == priority) {
			break;
		}
	}
	if (id == p->nr_streams) {
		if (id > UINT16_MAX) {
			return gm_error("event %" PRIu64 ": more than %u "
					"streams live at once", ev, UINT16_MAX);
		}
		GM_ALLOC_GROW(p->streams, p->nr_streams + 1, p->alloc_streams);
		p->streams[id].d.flags = flags;
		p->streams[id].d.priority = priority;
		p->nr_streams++;
	}
	p->streams[id].live = 1;
	handle_map_put(&p->stream_map, handle, (uint32_t)id);
	return 0;
}

int model_destroy_stream(struct model_prog *p, uint64_t ev, uint64_t handle)
{
	uint32_t id;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->stream_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": destroying unknown stream "
				"0x%" PRIx64, ev, handle);
	}
	handle_map_del(&p->stream_map, handle);
	p->streams[id].live = 0;
	return 0;
}

int model_add_event(struct model_prog *p, uint64_t ev, uint64_t handle,
		    unsigned flags)
{
	size_t id;

	if (model_check_open(p) < 0) {
		return -1;
	}
	flags &= 0x3;	/* BLOCKING_SYNC, DISABLE_TIMING; not INTERPROCESS */
	for (id = 0; id < p->nr_events; id++) {
		if (!p->events[id].live && p->events[id].flags == flags) {
			break;
		}
	}
	if (id == p->nr_events) {
		GM_ALLOC_GROW(p->events, p->nr_events + 1, p->alloc_events);
		p->events[id].flags = flags;
		p->nr_events++;
	}
	p->events[id].live = 1;
	handle_map_put(&p->event_map, handle, (uint32_t)id);
	return 0;
}

int model_destroy_event(struct model_prog *p, uint64_t ev, uint64_t handle)
{
	uint32_t id;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->event_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": destroying unknown CUDA "
				"event 0x%" PRIx64, ev, handle);
	}
	handle_map_del(&p->event_map, handle);
	p->events[id].live = 0;
	return 0;
}
