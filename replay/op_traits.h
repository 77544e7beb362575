/* SPDX-License-Identifier: MIT */
/*
 * What the replay runtime knows of each operation code beyond GM_OPS
 * (gpumix_replay.h): which executor runs it, which refuses it, whether
 * it touches host memory or yields a result to hash. One row per code in
 * op_traits.c; tests/unit/test_op_tables.c holds every code to a row.
 * A table of its own rather than a column of GM_OPS: the generated
 * programs and reconstruct/ expand GM_OPS and need none of this.
 */
#ifndef GM_OP_TRAITS_H
#define GM_OP_TRAITS_H

enum gm_op_trait {
	GM_OPT_KNOWN = 0x01,	/* the code has its row */
	GM_OPT_GRAPH = 0x02,	/* a graph operation: graph_ops.c runs it */
	GM_OPT_HOSTMEM = 0x04,	/* touches mapped or managed memory:
				   hostmem.c runs it */
	GM_OPT_RESULT = 0x08,	/* yields a result to hash (a check) */
	GM_OPT_NSS_REFUSED = 0x10,	/* the nss scheduler refuses it */
};

/* The GM_OPT_* of operation code @code (0: no such code). */
unsigned gm_op_traits(unsigned code);

#endif
