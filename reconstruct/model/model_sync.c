/* SPDX-License-Identifier: MIT */
/*
 * The model's event records and stream waits: the operation
 * (model_add_op()), and in a capturing stream the graph's node
 * (model_graph.c). Synchronizations need nothing more than their
 * operation: their callers add it with model_add_op() alone.
 */
#include "model_int.h"

int model_add_event_record(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t event, uint64_t stream)
{
	struct mop *op = model_add_op(p, ev, api, GM_OP_EVENT_RECORD, stream,
				      event);

	if (!op) {
		return -1;
	}
	model_graph_event_record(p, op->a, op->stream);
	return 0;
}

int model_add_stream_wait(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t stream, uint64_t event)
{
	struct mop *op = model_add_op(p, ev, api, GM_OP_STREAM_WAIT, stream,
				      event);

	if (!op) {
		return -1;
	}
	model_graph_stream_wait(p, op->stream, op->a);
	return 0;
}
