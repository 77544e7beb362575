/* SPDX-License-Identifier: MIT */
/*
 * A program's GPU section, as the co-run interposer (corun/inject.c)
 * measures it in each process of a program and `gpumix corun` reads it:
 * from the entry of its first GPU operation (common/api.h,
 * gm_api_gpu_op) to the return of its last, on CLOCK_MONOTONIC, with the
 * start barrier's outcome. One key = value file per process
 * (common/kvfile.h), "section.PID" in the directory the command names in
 * GPUMIX_CORUN_OUT; doc/gpumix-corun.md lists the keys.
 *
 * The environment the command gives the interposer is named here, once.
 */
#ifndef GM_CORUN_SECTION_H
#define GM_CORUN_SECTION_H

#include <stdint.h>

/* Where each process writes its section file (a directory): without it
 * the interposer stays out of the program's way. */
#define GM_CORUN_ENV_OUT "GPUMIX_CORUN_OUT"
/* The directory of the start barrier's file (GM_BARRIER_FILE); none:
 * no barrier (a program run alone). */
#define GM_CORUN_ENV_BARRIER "GPUMIX_CORUN_BARRIER"
/* The program's slot in the barrier (0-based). */
#define GM_CORUN_ENV_SLOT "GPUMIX_CORUN_SLOT"
/* Seconds a program waits at the barrier for its partners (default
 * GM_CORUN_DEFAULT_TIMEOUT_S). */
#define GM_CORUN_ENV_TIMEOUT "GPUMIX_CORUN_TIMEOUT"
#define GM_CORUN_DEFAULT_TIMEOUT_S 120.0

#define GM_CORUN_SECTION_FORMAT "gpumix-corun-section 1"

/* How the program left the start barrier. */
enum corun_barrier {
	CORUN_BARRIER_NONE,	/* there was none */
	CORUN_BARRIER_GO,	/* every partner arrived */
	CORUN_BARRIER_TIMEOUT,	/* a partner did not arrive in time */
	CORUN_BARRIER_GAVE_UP,	/* the command broke it (a partner ended) */
	CORUN_BARRIER_ERROR,	/* it could not be opened */
};

struct corun_section {
	uint64_t pid;
	uint64_t ops;		/* GPU operations completed in the section */
	uint64_t arrive_ns;	/* entry of the first GPU operation */
	uint64_t start_ns;	/* leaving the barrier: the section starts */
	uint64_t end_ns;	/* return of the last GPU operation */
	char first_op[64], last_op[64];	/* driver call names */
	char device[128];	/* the GPU of its first GPU operation */
	enum corun_barrier barrier;
	unsigned arrived;	/* parties arrived when it stopped waiting */
	char missing[256];	/* slots not arrived then: "1,3" */
	char error[256];	/* what kept it from measuring, or "" */
};

/* "none", "go", "timeout", "gave-up", "error". */
const char *corun_barrier_name(enum corun_barrier b);

/*
 * Write @s to @path atomically (kvfile). Returns 0 or -1 with the cause
 * recorded.
 */
int corun_section_write(const struct corun_section *s, const char *path);

/*
 * Read the section file @path into @s. Returns 0, or -1 with a cause
 * naming the file when it is missing, malformed or of another format.
 */
int corun_section_read(struct corun_section *s, const char *path);

#endif
