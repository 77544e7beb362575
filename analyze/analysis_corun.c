/* SPDX-License-Identifier: MIT */
/*
 * Native against replayed slowdowns (doc/database.md, "Co-runs"): for
 * each co-run of a workload (gpumix corun) and each mechanism it ran,
 * every program's native slowdown (its GPU section together over its
 * alone sections, analyze/corun_slowdown.c) beside the replayed slowdown
 * of the one-shot replays of the same workload under the variant of the
 * same name (its one replay's time over its one-shot alone time, which
 * find_baseline() set), and their ratio.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "corun_slowdown.h"
#include "stats.h"
#include "strbuf.h"

/* The replayed slowdowns of program @prog of @wl under @variant: one per
 * ok one-shot run (repetition) that has both times. */
static size_t replayed(const struct gm_analysis *a, const char *wl,
		       const char *variant, const char *prog, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok || !r->one_shot || strcmp(r->workload, wl) ||
		    strcmp(r->variant, variant) || strcmp(r->policy, "none")) {
			continue;
		}
		for (size_t j = 0; j < r->nprog; j++) {
			const struct gm_an_program *p = &r->progs[j];
			if (!strcmp(p->name, prog) && p->kept &&
			    p->alone_ns > 0 && !isnan(p->mp_ns)) {
				out[n++] = p->mp_ns / p->alone_ns;
			}
		}
	}
	return n;
}

/* The rows of one co-run: @sections are (mode, idx, start, end). */
struct section {
	char *mode;
	int64_t idx, ns;
};

static void add_rows(struct gm_analysis *a, const char *wl,
		     const char *mechanisms, char **names, size_t nprog,
		     const struct section *s, size_t ns, size_t *alloc)
{
	double *alone = gm_xcalloc(ns + 1, sizeof(double));
	double *corun = gm_xcalloc(ns + 1, sizeof(double));
	double *rep = gm_xcalloc(a->nruns + 1, sizeof(double));

	for (const char *m = mechanisms; *m;) {
		size_t len = strcspn(m, ",");
		char *mech = gm_xasprintf("%.*s", (int)len, m);
		for (size_t p = 0; p < nprog; p++) {
			struct gm_an_corun *row;
			size_t na = 0, nc = 0, nr;
			for (size_t i = 0; i < ns; i++) {
				if (s[i].idx != (int64_t)p) {
					continue;
				}
				if (!strcmp(s[i].mode, "alone")) {
					alone[na++] = (double)s[i].ns;
				} else if (!strcmp(s[i].mode, mech)) {
					corun[nc++] = (double)s[i].ns;
				}
			}
			GM_ALLOC_GROW(a->coruns, a->ncoruns + 1, *alloc);
			row = &a->coruns[a->ncoruns++];
			memset(row, 0, sizeof(*row));
			row->workload = gm_xstrdup(wl);
			row->mechanism = gm_xstrdup(mech);
			row->program = gm_xstrdup(names[p]);
			gm_corun_slowdown(alone, na, corun, nc, &row->native);
			nr = replayed(a, wl, mech, names[p], rep);
			row->replays = nr;
			row->replayed = gm_mean(rep, nr);
			row->replayed_sd = gm_stddev(rep, nr);
			row->ratio = row->replayed / row->native.mean;
			row->differs = isfinite(row->ratio) &&
				       fabs(row->ratio - 1) > GM_CORUN_TOLERANCE;
		}
		free(mech);
		m += len + (m[len] == ',');
	}
	free(alone);
	free(corun);
	free(rep);
}

int gm_an_coruns(struct gm_analysis *a, struct gm_db *db)
{
	sqlite3_stmt *st = NULL, *ss = NULL;
	size_t alloc = 0;
	int rc, ret = -1;

	if (gm_db_prepare(db, &st, "SELECT c.id, w.name, c.mechanisms,"
			  " c.status, c.failure, c.path FROM coruns c"
			  " JOIN workloads w ON w.id = c.workloadId ORDER BY w.name") ||
	    gm_db_prepare(db, &ss, "SELECT mode, idx, program, end - start FROM"
			  " corun_sections WHERE corunId = ?1 ORDER BY idx, mode,"
			  " repeat")) {
		goto out;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		char *wl = gm_an_col_str(st, 1), *mechs = gm_an_col_str(st, 2);
		char *status = gm_an_col_str(st, 3);
		char **names = NULL;
		struct section *s = NULL;
		size_t ns = 0, salloc = 0, nprog = 0;
		int src;

		if (strcmp(status, "ok")) {
			char *why = gm_an_col_str(st, 4);
			gm_an_note(a, "co-run of '%s' failed (%s): its slowdowns come "
				   "from the runs measured before", wl, why);
			free(why);
		}
		sqlite3_reset(ss);
		sqlite3_bind_int64(ss, 1, sqlite3_column_int64(st, 0));
		while ((src = GM_SQL(db->sql, sqlite3_step(ss))) == SQLITE_ROW) {
			int64_t idx = sqlite3_column_int64(ss, 1);
			GM_ALLOC_GROW(s, ns + 1, salloc);
			s[ns].mode = gm_an_col_str(ss, 0);
			s[ns].idx = idx;
			s[ns].ns = sqlite3_column_int64(ss, 3);
			ns++;
			if ((size_t)idx >= nprog) {
				names = gm_xrealloc(names, (idx + 1) * sizeof(*names));
				for (size_t k = nprog; k <= (size_t)idx; k++) {
					names[k] = NULL;
				}
				nprog = (size_t)idx + 1;
			}
			if (!names[idx]) {
				names[idx] = gm_an_col_str(ss, 2);
			}
		}
		for (size_t k = 0; k < nprog; k++) {
			if (!names[k]) {
				names[k] = gm_xasprintf("#%zu", k);
			}
		}
		if (src >= 0) {
			add_rows(a, wl, mechs, names, nprog, s, ns, &alloc);
		}
		for (size_t k = 0; k < ns; k++) {
			free(s[k].mode);
		}
		for (size_t k = 0; k < nprog; k++) {
			free(names[k]);
		}
		free(names);
		free(s);
		free(wl);
		free(mechs);
		free(status);
		if (src < 0) {
			goto out;
		}
	}
	if (rc < 0) {
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ss);
	return ret;
}

void gm_an_coruns_release(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->ncoruns; i++) {
		free(a->coruns[i].workload);
		free(a->coruns[i].mechanism);
		free(a->coruns[i].program);
	}
	free(a->coruns);
	a->coruns = NULL;
	a->ncoruns = 0;
}
