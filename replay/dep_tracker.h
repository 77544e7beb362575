/* SPDX-License-Identifier: MIT */
/*
 * The dependency tracker of the nss scheduler (the paper's section 5):
 * NSS issues a program's memory operations and its kernels on two CUDA
 * streams of their own, so CUDA no longer sees the program's streams,
 * events and legacy-stream rules; this tracker keeps them instead. Pure
 * bookkeeping, no CUDA: it numbers commands in program order and tells,
 * for each, which earlier commands it must follow.
 *
 * The rules are the captured program's own:
 *   - same captured stream: in order;
 *   - legacy default stream (captured stream 0): an operation on it
 *     follows the work of every blocking stream, and an operation on a
 *     blocking stream follows the legacy stream's work;
 *   - cuEventRecord(e, s) captures what an operation on s would follow
 *     now; cuStreamWaitEvent(s, e) adds that to s; an event never
 *     recorded is complete.
 * Because a command is only issued once its dependencies are met, its
 * completion implies theirs, so a stream's "tail" (what its next
 * operation follows) stays a small set of command numbers.
 *
 * A command may be issued once each dependency is done, or was issued
 * earlier to the same queue (CUDA keeps one stream in order). Commands
 * retire in prefix order once done; numbers below the retired prefix
 * count as done.
 */
#ifndef GM_DEP_TRACKER_H
#define GM_DEP_TRACKER_H

#include <stddef.h>
#include <stdint.h>

/* The CUDA streams of an NSS program. */
enum gm_dep_queue {
	GM_DEP_MEM,		/* copies and memsets */
	GM_DEP_KERNEL,		/* kernel launches */
	GM_DEP_NR_QUEUES
};

enum gm_dep_state {
	GM_DEP_QUEUED,		/* known, not handed to CUDA yet */
	GM_DEP_ISSUED,		/* every CUDA call of it was made */
	GM_DEP_DONE,		/* the GPU finished it */
};

/* A set of command numbers (small: usually one). */
struct gm_dep_set {
	uint64_t *seq;
	uint32_t nr, alloc;
};

struct gm_dep_tracker {
	uint32_t nr_streams, nr_events;
	uint8_t *blocking;		/* per captured stream (0 for s == 0) */
	struct gm_dep_set *tail;	/* per stream: what its next op follows */
	struct gm_dep_set *event;	/* per event: what it was recorded after */
	uint64_t base, next;		/* live commands: [base, next) */
	uint8_t *state, *queue;		/* ring, indexed seq & (cap - 1) */
	size_t cap;
	struct gm_dep_set scratch;
};

/*
 * Start a tracker for a program with @nr_streams captured streams (flags
 * as in struct gm_stream_desc; @blocking[s] nonzero for a blocking
 * stream s > 0) and @nr_events events. The tracker copies @blocking.
 */
void gm_dep_init(struct gm_dep_tracker *t, uint32_t nr_streams,
		 const uint8_t *blocking, uint32_t nr_events);
void gm_dep_release(struct gm_dep_tracker *t);

/* Forget the streams' and events' history (a new replay); command
 * numbering goes on. Every command must be done. */
void gm_dep_reset(struct gm_dep_tracker *t);

/*
 * A new command on captured stream @s for @queue: its dependencies go to
 * @deps (replacing its content, done ones left out), the stream's tail
 * becomes the command. Returns its number.
 */
uint64_t gm_dep_add(struct gm_dep_tracker *t, uint32_t s,
		    enum gm_dep_queue queue, struct gm_dep_set *deps);

/* What an operation on stream @s would follow now (legacy rules
 * included): borrowed, valid until the next call. For a stream
 * synchronize. */
const struct gm_dep_set *gm_dep_stream(struct gm_dep_tracker *t, uint32_t s);

/* cuEventRecord(@e, @s) and cuStreamWaitEvent(@s, @e). */
void gm_dep_record(struct gm_dep_tracker *t, uint32_t s, uint32_t e);
void gm_dep_wait(struct gm_dep_tracker *t, uint32_t s, uint32_t e);

/* What event @e stands for (borrowed). */
const struct gm_dep_set *gm_dep_event(const struct gm_dep_tracker *t,
				      uint32_t e);

/* State changes of command @seq (must be live, and not go back). */
void gm_dep_issued(struct gm_dep_tracker *t, uint64_t seq);
void gm_dep_done(struct gm_dep_tracker *t, uint64_t seq);

enum gm_dep_state gm_dep_state_of(const struct gm_dep_tracker *t,
				  uint64_t seq);

/* 1 when a command with dependencies @deps may be issued on @queue. */
int gm_dep_ready(const struct gm_dep_tracker *t, const struct gm_dep_set *deps,
		 enum gm_dep_queue queue);

/* 1 when every command of @set is done. */
int gm_dep_all_done(const struct gm_dep_tracker *t,
		    const struct gm_dep_set *set);

/* 1 when every command so far is done. */
int gm_dep_idle(const struct gm_dep_tracker *t);

void gm_dep_set_release(struct gm_dep_set *set);

#endif
