/* SPDX-License-Identifier: MIT */
/*
 * A program's descriptor checked before anything runs: the tables'
 * references and each operation's operands.
 */
#ifndef GPUMIX_REPLAY_PROG_CHECK_H
#define GPUMIX_REPLAY_PROG_CHECK_H

struct gm_run;
struct gm_program_desc;
struct gm_op;

/* Every table of @d (relocations, textures, ...) in range. 0 or -1. */
int gm_desc_check_tables(const struct gm_run *run,
			 const struct gm_program_desc *d);
/* @op's operands in range for its code. 0 or -1. */
int gm_desc_check_op(const struct gm_run *run, const struct gm_program_desc *d,
		     const struct gm_op *op);

#endif
