/* SPDX-License-Identifier: MIT */
/*
 * A run directory's open-loop requests (doc/run-directory.md,
 * requests.tsv, and the manifest's arrivals.* and program.I.arrivals /
 * .requests keys): each request's program, number, arrival, start and
 * end. Reading checks the header, the field counts, that the program is
 * an open-loop one of the manifest, that the numbers are integers with
 * arrival <= start <= end, and that the requests of a program are
 * numbered 0, 1, ... in order and as many as the manifest says, naming
 * file:line for the first thing that is wrong. A run without open-loop
 * programs has no file, which is not an error; a manifest that names one
 * and no file is.
 */
#ifndef GM_REQUESTS_READER_H
#define GM_REQUESTS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "run_reader.h"

struct gm_request {
	size_t program;		/* index into the run's programs */
	int64_t request;
	int64_t arrival, start, end;	/* ns, the run's clock */
};

/* One open-loop program of the run (its manifest keys). */
struct gm_open_loop_program {
	size_t program;
	const char *arrivals;	/* "poisson:50" (borrowed: the manifest) */
	int64_t requests;
};

struct gm_requests_data {
	size_t nr;
	struct gm_request *v;		/* by program, then request */
	size_t nprog;
	struct gm_open_loop_program *progs;	/* in program order */
	int64_t seed;			/* arrivals.seed */
	const char *slo;		/* arrivals.slo (borrowed), or NULL */
};

/*
 * Read @run's requests (nothing, 0, without open-loop programs). Returns
 * 0 or -1 (cause recorded); release @d either way.
 */
int gm_requests_read(struct gm_requests_data *d, const struct gm_run_dir *run);
void gm_requests_data_release(struct gm_requests_data *d);

#endif
