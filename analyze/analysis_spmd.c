/* SPDX-License-Identifier: MIT */
/*
 * Li et al.'s model against the measurement (see analysis.h, struct
 * gm_an_spmd, and doc/spmd-model.md): for every ok run of N copies of one
 * program (N = 1 too) outside the alone variant, the time the execution
 * models predict (common/spmd_model.h) from the program's alone run and
 * its kernels' T(k) (the stretch table, same device), beside the
 * measured time, the slowest copy's mean kept replay time.
 *
 * From the alone run (the baseline its programs' STP uses), per kept
 * replay: Tin and Tout, the durations of its host-to-device and
 * device-to-host copies; per kernel (mangled name) Tcomp, its GPU time,
 * and of its most launched shape the grid and blocks per SM (the
 * occupancy calculator on the run's device, the hardware cap in) and
 * its launches per replay (the round model is one launch's: each adds
 * its stretch); alone, a launch is one round of N1 = ceil(Nblks / N_SM)
 * blocks per SM, so where T(k) stops at N1 - 1 (a grid too small for N1
 * on every SM; no point at all for a grid of no more blocks than SMs)
 * the kernel's mean launch is T(N1). What
 * the alone replay time holds beyond Tin + Tcomp + Tout (host time,
 * launch gaps; negative where a copy's own copies and kernels overlap)
 * is added to every prediction once: the copies' threads spend it side
 * by side, and one copy predicts exactly its alone time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "instance_name.h"
#include "spmd_model.h"
#include "strbuf.h"

/* The program of an alone run as the model takes it. */
struct spmd_input {
	struct gm_spmd_program p;
	struct gm_spmd_kernel *k;
	double **rounds;
	char **names;		/* mangled, per kernel */
	size_t nk;
	double extra_ms;	/* alone time - (Tin + Tcomp + Tout) */
};

static void input_release(struct spmd_input *in)
{
	for (size_t i = 0; i < in->nk; i++) {
		free(in->rounds[i]);
		free(in->names[i]);
	}
	free(in->rounds);
	free(in->names);
	free(in->k);
	memset(in, 0, sizeof(*in));
}

/* T(1), T(2), ... of kernel @name of @program on @device, consecutive
 * from k = 1, into *@out (NULL: none). */
static int load_rounds(struct gm_db *db, const char *device,
		       const char *program, const char *name, double **out,
		       unsigned *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (gm_db_prepare(db, &st, "SELECT k, roundMs FROM stretch WHERE"
			  " deviceName = ?1 AND program = ?2 AND kernel = ?3"
			  " ORDER BY k") ||
	    GM_SQL(db->sql, sqlite3_bind_text(st, 1, device, -1,
					      SQLITE_STATIC)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_text(st, 2, program, -1,
					      SQLITE_STATIC)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_text(st, 3, name, -1,
					      SQLITE_STATIC)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 0) != (int64_t)*n + 1) {
			break;	/* a gap: the points up to it */
		}
		GM_ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* The model's input from program @prog of alone run @r. */
static int load_input(struct gm_db *db, const struct gm_an_run *r,
		      const struct gm_an_program *prog, const char *program,
		      struct spmd_input *in)
{
	static const char kernels_sql[] =
		"SELECT s.value, k.gridX * k.gridY * k.gridZ,"
		" k.blockX * k.blockY * k.blockZ, k.registersPerThread,"
		" k.staticSharedMemory + k.dynamicSharedMemory,"
		" sum(k.end - k.start), count(*)"
		" FROM CUPTI_ACTIVITY_KIND_KERNEL k"
		" JOIN replays p ON p.programId = k.programId AND p.kept"
		"  AND k.start >= p.start AND k.end <= p.end"
		" JOIN StringIds s ON s.id = k.mangledName"
		" WHERE k.runId = ?1 AND k.programId = ?2"
		" GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 7 DESC, 2";
	static const char copies_sql[] =
		"SELECT sum(CASE WHEN m.copyKind = 1 THEN m.end - m.start"
		" ELSE 0 END), sum(CASE WHEN m.copyKind = 2 THEN m.end -"
		" m.start ELSE 0 END)"
		" FROM CUPTI_ACTIVITY_KIND_MEMCPY m"
		" JOIN replays p ON p.programId = m.programId AND p.kept"
		"  AND m.start >= p.start AND m.end <= p.end"
		" WHERE m.runId = ?1 AND m.programId = ?2";
	sqlite3_stmt *st;
	double kept = (double)prog->kept, comp = 0;
	size_t alloc = 0;
	int rc;

	memset(in, 0, sizeof(*in));
	if (!prog->kept) {
		return 0;
	}
	if (gm_db_prepare(db, &st, copies_sql) ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 2, prog->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	rc = GM_SQL(db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		in->p.t_in = sqlite3_column_double(st, 0) / 1e6 / kept;
		in->p.t_out = sqlite3_column_double(st, 1) / 1e6 / kept;
	}
	sqlite3_finalize(st);
	if (rc < 0 || gm_db_prepare(db, &st, kernels_sql) ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 2, prog->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		double ms = sqlite3_column_double(st, 5) / 1e6 / kept;
		struct gm_kernel_usage u = {
			.threads_per_block = sqlite3_column_int(st, 2),
			.regs_per_thread = sqlite3_column_int(st, 3),
			.smem_per_block = (size_t)sqlite3_column_int64(st, 4),
		};
		struct gm_occupancy occ;
		struct gm_spmd_kernel *k;
		unsigned n;

		comp += ms;
		/* rows of one kernel come together, its most launched
		 * shape first: later shapes add their time only */
		if (in->nk && !strcmp(in->names[in->nk - 1], name)) {
			in->k[in->nk - 1].t_comp += ms;
			continue;
		}
		GM_ALLOC_GROW(in->k, in->nk + 1, alloc);
		in->rounds = gm_xrealloc(in->rounds, alloc * sizeof(*in->rounds));
		in->names = gm_xrealloc(in->names, alloc * sizeof(*in->names));
		k = &in->k[in->nk];
		memset(k, 0, sizeof(*k));
		in->rounds[in->nk] = NULL;
		in->names[in->nk] = gm_xstrdup(name);
		in->nk++;
		k->grid_blocks = (uint64_t)sqlite3_column_int64(st, 1);
		k->t_comp = ms;
		k->launches = (unsigned)((double)sqlite3_column_int64(st, 6) /
					 kept + 0.5);
		if (gm_occupancy_compute(&r->dev, &u, &occ) == 0) {
			k->blocks_per_sm = (unsigned)occ.blocks_per_sm;
		}
		if (load_rounds(db, r->device_name, program, name,
				&in->rounds[in->nk - 1], &n) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		if (k->grid_blocks && r->dev.sm_count &&
		    n + 1 == (k->grid_blocks + r->dev.sm_count - 1) /
			     r->dev.sm_count) {
			/* alone, a launch is one round of N1 = ceil(Nblks /
			 * N_SM) blocks per SM: where the stretch stops just
			 * below N1 (a grid too small for N1 on every SM;
			 * with no point, one of no more blocks than SMs),
			 * its mean launch is T(N1), measured, not continued
			 * from the last stretch */
			in->rounds[in->nk - 1] = gm_xrealloc(
				in->rounds[in->nk - 1], (n + 1) * sizeof(double));
			in->rounds[in->nk - 1][n] =
				sqlite3_column_double(st, 5) / 1e6 /
				(double)sqlite3_column_int64(st, 6);
			n++;
		}
		k->t_round = in->rounds[in->nk - 1];
		k->nr_rounds = n;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	in->p.kernels = in->k;
	in->p.nr_kernels = (unsigned)in->nk;
	/* negative when one copy's own copies and kernels overlap */
	in->extra_ms = prog->mp_ns / 1e6 - (in->p.t_in + comp + in->p.t_out);
	return 0;
}

/* The program @r's programs are copies of, or NULL (two programs). */
static char *copies_of(const struct gm_an_run *r)
{
	size_t len;

	if (!r->nprog) {
		return NULL;
	}
	len = gm_instance_program_len(r->progs[0].name);
	for (size_t i = 1; i < r->nprog; i++) {
		if (gm_instance_program_len(r->progs[i].name) != len ||
		    strncmp(r->progs[i].name, r->progs[0].name, len)) {
			return NULL;
		}
	}
	return gm_xasprintf("%.*s", (int)len, r->progs[0].name);
}

int gm_an_spmd(struct gm_analysis *a, struct gm_db *db)
{
	size_t alloc = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		const struct gm_an_program *base = r->nprog ?
			r->progs[0].alone_prog : NULL;
		struct gm_spmd_device dev = {
			.sm_count = (unsigned)r->dev.sm_count,
			.max_blocks_per_sm = (unsigned)r->dev.max_blocks_per_sm,
			.copy_engines = GM_AN_SPMD_COPY_ENGINES,
		};
		struct spmd_input in;
		struct gm_an_spmd *row;
		char *program;
		double measured = 0;

		if (!r->ok || r->alone || !base || !r->progs[0].alone_run ||
		    !(program = copies_of(r))) {
			continue;
		}
		for (size_t p = 0; p < r->nprog; p++) {
			if (r->progs[p].mp_ns / 1e6 > measured) {
				measured = r->progs[p].mp_ns / 1e6;
			}
		}
		if (load_input(db, r->progs[0].alone_run, base, program,
			       &in) < 0) {
			free(program);
			return -1;
		}
		if (!in.nk || !(measured > 0)) {
			free(program);
			input_release(&in);
			continue;
		}
		GM_ALLOC_GROW(a->spmd, a->nspmd + 1, alloc);
		row = &a->spmd[a->nspmd++];
		memset(row, 0, sizeof(*row));
		row->run = r;
		row->program = program;
		row->copies = (unsigned)r->nprog;
		row->scenario = gm_scenario_name(gm_spmd_program_scenario(
			&in.p, row->copies, &dev));
		row->io_intensive = gm_spmd_io_intensive(&in.p);
		row->t_in = in.p.t_in;
		row->t_out = in.p.t_out;
		row->alone_ms = base->mp_ns / 1e6;
		row->measured_ms = measured;
		row->predicted_ms = gm_spmd_predict(&in.p, row->copies, &dev) +
				    in.extra_ms;
		row->deviation = fabs(row->predicted_ms - measured) / measured;
		for (size_t k = 0; k < in.nk; k++) {
			int ex = 0;
			struct gm_spmd_kernel *kern = &in.k[k];
			row->t_comp += kern->t_comp;
			if (!kern->nr_rounds) {
				row->no_stretch++;
				continue;
			}
			/* the largest blocks per SM the model reads */
			gm_spmd_round_time(kern, kern->blocks_per_sm <
						 dev.max_blocks_per_sm ?
						 kern->blocks_per_sm :
						 dev.max_blocks_per_sm, &ex);
			row->extrapolated += ex;
		}
		row->kernels = in.nk;
		input_release(&in);
	}
	return 0;
}

void gm_an_spmd_release(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->nspmd; i++) {
		free(a->spmd[i].program);
	}
	free(a->spmd);
	a->spmd = NULL;
	a->nspmd = 0;
}
