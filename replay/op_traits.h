/* SPDX-License-Identifier: MIT */
/*
 * What the replay runtime knows of each operation code beyond its
 * operands: which executor runs it, which refuses it, whether it touches
 * host memory or yields a result to hash. The traits are GM_OPS's fourth
 * column (enum gm_op_trait, gpumix_replay.h); this looks them up by code.
 */
#ifndef GM_OP_TRAITS_H
#define GM_OP_TRAITS_H

/* The GM_OPT_* of operation code @code (0: no such code). */
unsigned gm_op_traits(unsigned code);

#endif
