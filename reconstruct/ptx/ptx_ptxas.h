/* SPDX-License-Identifier: MIT */
/*
 * Running ptxas on PTX text and reading its resource report (-v): per
 * kernel, registers, barriers, static shared memory, constant bank 0,
 * stack frame and spills. This is the CPU-only check that a transformed
 * module still assembles, and where the registers before and after the
 * transformation come from.
 */
#ifndef GM_PTX_PTXAS_H
#define GM_PTX_PTXAS_H

#include <stddef.h>

struct strbuf;

struct gm_ptxas_func {
	char *name;
	int is_entry;
	int registers;
	int barriers;
	unsigned long smem;		/* static shared memory, bytes */
	unsigned long cmem0;		/* constant bank 0, bytes */
	unsigned long stack;		/* stack frame, bytes */
	unsigned long spill_stores;
	unsigned long spill_loads;
};

struct gm_ptxas_report {
	struct gm_ptxas_func *funcs;
	size_t nr, alloc;
	char *log;			/* everything ptxas printed */
};

/*
 * The ptxas to run: $CUDA_HOME/bin/ptxas when CUDA_HOME is set and it
 * exists, else the first ptxas on PATH, else /usr/local/cuda/bin/ptxas.
 * Returns a new string, or NULL with a recorded error when none exists.
 */
char *gm_ptxas_path(void);

/*
 * Assemble @len bytes of PTX for @arch ("sm_90") with "ptxas -v" and parse
 * the report into @out (initialise it with zeroes). Returns 0, or -1 with
 * a recorded error that quotes ptxas's first error lines; @out->log holds
 * the whole output either way. Release @out in both cases.
 */
int gm_ptxas_assemble(const char *ptx, size_t len, const char *arch,
		      struct gm_ptxas_report *out);

/*
 * gm_ptxas_assemble() that also appends the cubin ptxas wrote to @cubin
 * (when not NULL). A module that only assembles as a relocatable object
 * (-c: it calls external functions) leaves @cubin untouched. Same
 * returns and failures, plus an unreadable cubin.
 */
int gm_ptxas_assemble_cubin(const char *ptx, size_t len, const char *arch,
			    struct gm_ptxas_report *out, struct strbuf *cubin);

/* Parse the text of a "ptxas -v" report into @out (appended). */
void gm_ptxas_parse_report(const char *text, struct gm_ptxas_report *out);

/* The report entry of the function @name, or NULL. */
const struct gm_ptxas_func *gm_ptxas_report_find(const struct gm_ptxas_report *r,
						 const char *name);

/* Free everything @r holds and zero it. */
void gm_ptxas_report_release(struct gm_ptxas_report *r);

#endif
