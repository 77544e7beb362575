/* SPDX-License-Identifier: MIT */
/*
 * CUDA graph operations (graph_ops.c): what the serial schedulers do with
 * the GM_GRAPH_OPS rows of gpumix_replay.h.
 */
#ifndef GM_REPLAY_GRAPH_OPS_H
#define GM_REPLAY_GRAPH_OPS_H

#include <stdint.h>

struct gm_prog;
struct gm_op;

/* 1 when @code is one of GM_GRAPH_OPS (its GM_OPS traits). */
int gm_graph_is_op(unsigned code);

/* 1 when gm_graph_op has a handler for @code (the unit test holds the
 * handlers to the rows). */
int gm_graph_handles(unsigned code);

/*
 * Execute graph operation @op (@index: its position, for results and
 * reports). The caller keeps stream ordering around GRAPH_LAUNCH. Returns
 * 0 or -1 with a recorded cause.
 */
int gm_graph_op(struct gm_prog *p, const struct gm_op *op, uint64_t index);

/* Destroy the program's graphs and executable graphs (cleanup). */
void gm_graphs_release(struct gm_prog *p);

#endif
