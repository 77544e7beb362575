/* SPDX-License-Identifier: MIT */
/*
 * From a bundle's events to the replay model: the table of
 * doc/replay-program.md ("captured call -> model call") as code. One
 * bundle_feed turns the decoded events of one bundle (trace_reader.h), in
 * the reader's order, into model_add_* calls on one program of the model
 * (model.h): handles, allocations, copies with their source data and
 * result hashes, launches with their argument bytes and layouts, module
 * images, globals, textures, streams, events and synchronizations.
 *
 * A call is turned into its model call at its exit (when its outputs and
 * its status are known) and named by the index of its entry event, the
 * number `gpumix trace dump` shows. Failed calls (non-zero status) did
 * nothing and are skipped. Calls of every thread of the process go to the
 * one program in trace order; a bundle whose calls come from more than one
 * process is refused. Calls that change no results but are not replayed
 * (cache preferences, limits) and skipped failed calls become warnings,
 * one per API; calls the model cannot replay become unsupported calls.
 */
#ifndef GM_BUNDLE_FEED_H
#define GM_BUNDLE_FEED_H

#include <stdint.h>

struct gm_event;
struct model;
struct model_prog;
struct trace_reader;

struct bundle_feed;

struct bundle_feed_stats {
	uint64_t events;	/* events fed */
	uint64_t calls;		/* driver calls (entry + exit pairs) */
	uint64_t replayed;	/* calls that reached the model */
	uint64_t failed;	/* calls that returned an error: skipped */
	uint64_t errors;	/* ... an error a working program does not
				 * meet (common/cu_result.h) */
	uint64_t first_error;	/* the first such call's entry event */
	int first_error_api;
	int32_t first_error_status;
	uint64_t unsupported;	/* calls the model cannot replay */
	unsigned threads;	/* threads that made calls */
};

/*
 * Feed bundle @r (open, strict) into program @p of model @m. Never fails
 * (aborts on OOM); free with bundle_feed_free().
 */
struct bundle_feed *bundle_feed_new(struct model *m, struct model_prog *p,
				    struct trace_reader *r);

/*
 * Feed the next event @ev of the reader. Returns 0, or -1 with a cause
 * that names the event ("event 18 (cuMemcpyHtoD_v2): ...").
 */
int bundle_feed_event(struct bundle_feed *f, const struct gm_event *ev);

/*
 * After the last event: calls still without an exit, asynchronous
 * results never hashed and the per-API warnings go to the model. Returns
 * 0 or -1 with a cause.
 */
int bundle_feed_finish(struct bundle_feed *f);

/*
 * 1 when calls of @api (enum gm_api_id) become model calls: the replay
 * kind cuda_api.def gives it has a handler. 0 for the kind NONE (recorded
 * but not replayed yet: reported as unsupported) and for a bad id.
 */
int bundle_feed_handles(int api);

/* What was fed so far. */
void bundle_feed_stats(const struct bundle_feed *f,
		       struct bundle_feed_stats *st);

void bundle_feed_free(struct bundle_feed *f);

#endif
