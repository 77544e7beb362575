/* SPDX-License-Identifier: MIT */
/*
 * The model's event records, stream waits and synchronizations (a
 * capturing stream's go to its graph, model_graph.c).
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

int model_add_event_record(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t event, uint64_t stream)
{
	uint32_t e;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_event_lookup(p, ev, api, event, &e) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	op = model_op_add(p, ev, api, GM_OP_EVENT_RECORD);
	op->a = e;
	op->stream = s;
	model_graph_event_record(p, e, s);
	return 0;
}

int model_add_stream_wait(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t stream, uint64_t event)
{
	uint32_t e;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_event_lookup(p, ev, api, event, &e) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	op = model_op_add(p, ev, api, GM_OP_STREAM_WAIT);
	op->a = e;
	op->stream = s;
	model_graph_stream_wait(p, s, e);
	return 0;
}

int model_add_event_sync(struct model_prog *p, uint64_t ev, const char *api,
			 uint64_t event)
{
	return model_add_op(p, ev, api, GM_OP_EVENT_SYNC, event) ? 0 : -1;
}

int model_add_stream_sync(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t stream)
{
	return model_add_op(p, ev, api, GM_OP_STREAM_SYNC, stream) ? 0 : -1;
}

int model_add_ctx_sync(struct model_prog *p, uint64_t ev, const char *api)
{
	return model_add_op(p, ev, api, GM_OP_CTX_SYNC) ? 0 : -1;
}
