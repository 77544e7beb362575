/* SPDX-License-Identifier: MIT */
/*
 * Open-loop programs in the replay runtime (see open_loop.h).
 */
#include "open_loop.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrivals.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "process_board.h"
#include "replay_int.h"
#include "strbuf.h"

int gm_open_loop_setup(struct gm_run *run, const char *const *all,
		       unsigned nr_all)
{
	const struct gm_replay_opts *o = &run->opt;

	if (!o->nr_arrivals) {
		return 0;
	}
	run->open_loop = gm_xcalloc(run->w->nr_programs,
				    sizeof(*run->open_loop));
	for (unsigned a = 0; a < o->nr_arrivals; a++) {
		struct gm_arrival_spec spec;
		unsigned in_all = nr_all, i;

		if (gm_arrival_spec_parse(&spec, o->arrivals[a]) < 0) {
			return -1;
		}
		for (i = 0; i < nr_all; i++) {
			if (!strcmp(all[i], spec.program)) {
				in_all = i;
			}
		}
		if (in_all == nr_all) {
			gm_error("--arrivals: the workload has no program '%s'",
				 spec.program);
			gm_arrival_spec_release(&spec);
			return -1;
		}
		for (i = 0; i < run->w->nr_programs; i++) {
			struct gm_open_loop *ol = &run->open_loop[i];
			if (strcmp(run->w->programs[i]->name, spec.program)) {
				continue;
			}
			if (spec.kind == GM_ARRIVALS_LOAD &&
			    (!o->alone_dir ?
			     gm_error("--arrivals %s=load:%g needs --alone (the "
				      "run directory of its alone times)",
				      spec.program, spec.load) :
			     gm_arrivals_at_load(&spec, o->alone_dir)) < 0) {
				gm_arrival_spec_release(&spec);
				return -1;
			}
			ol->load = spec.load;
			ol->alone_s = spec.alone_s;
			if (gm_arrivals_generate(&spec, o->arrival_seed,
						 o->requests, &ol->times,
						 &ol->nr) < 0) {
				gm_error("the arrivals of program '%s'",
					 spec.program);
				gm_arrival_spec_release(&spec);
				return -1;
			}
			ol->spec = gm_arrival_spec_format(&spec);
		}
		gm_arrival_spec_release(&spec);
	}
	return 0;
}

void gm_open_loop_release(struct gm_run *run)
{
	for (unsigned i = 0; run->open_loop && i < run->w->nr_programs; i++) {
		free(run->open_loop[i].times);
		free(run->open_loop[i].spec);
	}
	free(run->open_loop);
	run->open_loop = NULL;
	free(run->requests);
	run->requests = NULL;
	run->nr_requests = run->alloc_requests = 0;
}

void gm_open_loop_groups(struct gm_run *run)
{
	for (unsigned i = 0; run->open_loop && i < run->w->nr_programs; i++) {
		struct gm_prog *p = &run->progs[i];
		if (run->open_loop[i].times) {
			gm_repeat_set_fixed(p->group, p->group_index,
					 run->open_loop[i].nr);
		}
	}
}

void gm_open_loop_board(struct gm_run *run, struct gm_process_board *board)
{
	for (unsigned i = 0; run->open_loop && i < run->w->nr_programs; i++) {
		if (run->open_loop[i].times) {
			gm_process_board_set_fixed(board, i,
						   run->open_loop[i].nr);
		}
	}
}

/* The open-loop state of @p, or NULL for a batch program. */
static const struct gm_open_loop *of(const struct gm_prog *p)
{
	const struct gm_open_loop *ol =
		p->run->open_loop ? &p->run->open_loop[p->index] : NULL;

	return ol && ol->times ? ol : NULL;
}

/* Sleep most of the wait, spin its last SPIN_NS (a sleep overshoots by
 * tens of us), never SLICE_NS at once, so that a stopping run (or a
 * stopped board) is noticed. */
#define SPIN_NS 200000u
#define SLICE_NS 50000000u

int gm_open_loop_wait(struct gm_prog *p)
{
	const struct gm_open_loop *ol = of(p);
	struct gm_run *run = p->run;
	uint64_t due;

	if (!ol) {
		return 0;
	}
	if (!p->ol_origin) {
		p->ol_origin = gm_now();
	}
	if (p->replay >= ol->nr) {
		return 1;	/* (the controller stops it before) */
	}
	due = p->ol_origin + ol->times[p->replay];
	p->ol_arrival = due;
	/* Waiting for a request is not a hang. */
	watchdog_set_active(p->wd, 0);
	for (;;) {
		uint64_t now = gm_now();
		if (now >= due) {
			return 0;
		}
		if (atomic_load_explicit(&run->stop, memory_order_relaxed) ||
		    (run->board && gm_process_board_stopped(run->board))) {
			return 1;
		}
		if (due - now > SPIN_NS) {
			uint64_t nap = due - now - SPIN_NS;
			struct timespec ts;
			if (nap > SLICE_NS) {
				nap = SLICE_NS;
			}
			ts.tv_sec = 0;
			ts.tv_nsec = (long)nap;
			nanosleep(&ts, NULL);
		}
	}
}

void gm_open_loop_ended(struct gm_prog *p, uint64_t start_ns,
			uint64_t end_ns)
{
	struct gm_run *run = p->run;

	if (!of(p)) {
		return;
	}
	GM_ALLOC_GROW(run->requests, run->nr_requests + 1,
		      run->alloc_requests);
	run->requests[run->nr_requests++] = (struct run_request_rec){
		.program = p->d->name,
		.request = p->replay,
		.arrival_ns = p->ol_arrival,
		.start_ns = start_ns,
		.end_ns = end_ns,
	};
}

int gm_open_loop_write(struct gm_run *run)
{
	struct run_request_rec *r;
	size_t nr;
	int ret;

	if (!run->open_loop) {
		return 0;
	}
	pthread_mutex_lock(&run->lock);
	nr = run->nr_requests;
	r = gm_xcalloc(nr + 1, sizeof(*r));
	if (nr) {
		memcpy(r, run->requests, nr * sizeof(*r));
	}
	pthread_mutex_unlock(&run->lock);
	ret = gm_run_write_requests(run->opt.run_dir, r, nr);
	free(r);
	return ret;
}

void gm_open_loop_manifest(struct gm_run *run, struct kvfile *kv)
{
	if (!run->open_loop || run->board) {
		/* A replay process's manifest is merged: the parent's has
		 * the whole workload's keys. */
		return;
	}
	kvfile_set_u64(kv, "arrivals.seed", run->opt.arrival_seed);
	kvfile_set(kv, "arrivals.slo", run->opt.slo ? run->opt.slo :
		   GM_DEFAULT_SLO);
	if (run->opt.arrivals_label) {
		kvfile_set(kv, "arrivals.label", run->opt.arrivals_label);
	}
	for (unsigned i = 0; i < run->w->nr_programs; i++) {
		const struct gm_open_loop *ol = &run->open_loop[i];
		char key[64];
		if (!ol->times) {
			continue;
		}
		snprintf(key, sizeof(key), "program.%u.arrivals", i);
		kvfile_set(kv, key, ol->spec);
		snprintf(key, sizeof(key), "program.%u.requests", i);
		kvfile_set_u64(kv, key, ol->nr);
		if (ol->load > 0) {
			snprintf(key, sizeof(key), "program.%u.load", i);
			kvfile_setf(kv, key, "%.17g", ol->load);
			snprintf(key, sizeof(key), "program.%u.alone_s", i);
			kvfile_setf(kv, key, "%.9g", ol->alone_s);
		}
	}
}
