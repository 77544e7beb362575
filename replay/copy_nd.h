/* SPDX-License-Identifier: MIT */
/*
 * 2-D and 3-D copies and CUDA arrays in the replay (COPY_IN, COPY_OUT,
 * COPY_DEV, ARRAY_CREATE and ARRAY_DESTROY of gpumix_replay.h), for
 * every scheduler: a program's arrays are made at init as it made them
 * and kept, live while the program had them; a copy is resolved into the
 * driver's descriptor when it is issued (its device ends through their
 * references, its host end in the blob or the host arena, rows packed)
 * and issued with the call the program used.
 */
#ifndef GM_REPLAY_COPY_ND_H
#define GM_REPLAY_COPY_ND_H

#include <cuda.h>
#include <stdint.h>

struct gm_prog;
struct gm_op;

/* A copy resolved for the driver: @call is GM_COPYCALL_*. */
struct gm_copy_nd {
	uint32_t call;
	CUDA_MEMCPY3D m;
};

/* Make program @p's arrays (init, untimed). 0 or -1 (cause recorded). */
int gm_arrays_init(struct gm_prog *p);

/* No array is live (a replay's start). */
void gm_arrays_reset(struct gm_prog *p);

/* Destroy them (cleanup; nothing may use them any more). */
void gm_arrays_release(struct gm_prog *p);

/* ARRAY_CREATE, ARRAY_DESTROY, an executor's handler (gm_exec_fn of
 * replay_int.h): 0 or -1 (cause recorded). */
int gm_array_op(struct gm_prog *p, const struct gm_op *op, uint64_t index);

/* The handle of live array @id, or NULL (cause recorded; ops.c). */
CUarray gm_array_live(struct gm_prog *p, uint32_t id);

/*
 * Resolve copy operation @op (COPY_IN, COPY_OUT, COPY_DEV) into @out:
 * its device ends must lie in live memory, its arrays be live. 0 or -1
 * (cause recorded).
 */
int gm_copy_nd_prepare(struct gm_prog *p, const struct gm_op *op,
		       struct gm_copy_nd *out);

/* Issue @c on @st (a 2-D unaligned copy is synchronous, as the program's
 * call was). 0 or -1 (cause recorded). */
int gm_copy_nd_issue(const struct gm_copy_nd *c, CUstream st);

/* Whether @code is one of the copies above. */
int gm_copy_nd_is_op(unsigned code);

#endif
