/* SPDX-License-Identifier: MIT */
/*
 * Native against replayed slowdowns (doc/database.md, "Co-runs"): for
 * each co-run of a workload (gpumix corun) and each mechanism it ran,
 * every program's native slowdown (its GPU section together over its
 * alone sections, analyze/corun_slowdown.c) beside the replayed slowdown
 * of the one-shot replays of the same workload under the variant of the
 * same name (its one replay's time over its one-shot alone time, which
 * find_baseline() set), and their ratio. The repetitions of a study's
 * co-run pool their runs, each against its own alone sections.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
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

/* One co-run (a repetition of a study's), as loaded. */
struct corun {
	char *workload, *mechanisms;
	size_t nprog;
	char **names;		/* by program index */
	size_t ns, alloc;
	struct section {
		char *mode;
		size_t idx;
		double ns;
	} *s;
};

/* The sections of program @p of @c in mode @mode, into @out. */
static size_t sections_of(const struct corun *c, size_t p, const char *mode,
			  double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ns; i++) {
		if (c->s[i].idx == p && !strcmp(c->s[i].mode, mode)) {
			out[n++] = c->s[i].ns;
		}
	}
	return n;
}

/*
 * The rows of workload @c[0].workload, whose co-runs (repetitions) are
 * @c[0 .. @nc): per mechanism and program, the ratios of every co-run
 * against its own alone sections, pooled.
 */
static void add_rows(struct gm_analysis *a, const struct corun *c, size_t nc,
		     size_t *alloc)
{
	size_t room = 1, k;
	double *alone, *sec, *ratio, *rep;

	for (k = 0; k < nc; k++) {
		room += c[k].ns;
	}
	alone = gm_xcalloc(room, sizeof(double));
	sec = gm_xcalloc(room, sizeof(double));
	ratio = gm_xcalloc(room, sizeof(double));
	rep = gm_xcalloc(a->nruns + 1, sizeof(double));
	for (const char *m = c[0].mechanisms; *m;) {
		size_t len = strcspn(m, ",");
		char *mech = gm_xasprintf("%.*s", (int)len, m);
		for (size_t p = 0; p < c[0].nprog; p++) {
			struct gm_an_corun *row;
			size_t nr = 0, na_all = 0, nsec_all = 0;
			double alone_sum = 0, sec_sum = 0;
			for (k = 0; k < nc; k++) {
				size_t na = sections_of(&c[k], p, "alone", alone);
				size_t ns = sections_of(&c[k], p, mech, sec);
				for (size_t j = 0; j < na; j++) {
					alone_sum += alone[j];
				}
				for (size_t j = 0; j < ns; j++) {
					sec_sum += sec[j];
				}
				na_all += na;
				nsec_all += ns;
				nr += gm_corun_ratios(alone, na, sec, ns, ratio + nr);
			}
			GM_ALLOC_GROW(a->coruns, a->ncoruns + 1, *alloc);
			row = &a->coruns[a->ncoruns++];
			memset(row, 0, sizeof(*row));
			row->workload = gm_xstrdup(c[0].workload);
			row->mechanism = gm_xstrdup(mech);
			row->program = gm_xstrdup(c[0].names[p]);
			row->coruns = nc;
			gm_corun_summary(ratio, nr, &row->native);
			row->native.n_alone = na_all;
			row->native.alone_ns = na_all ? alone_sum / (double)na_all : NAN;
			row->native.corun_ns = nsec_all ? sec_sum / (double)nsec_all
							: NAN;
			nr = replayed(a, c[0].workload, mech, c[0].names[p], rep);
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
	free(sec);
	free(ratio);
	free(rep);
}

static void corun_release(struct corun *c)
{
	for (size_t k = 0; k < c->ns; k++) {
		free(c->s[k].mode);
	}
	for (size_t k = 0; k < c->nprog; k++) {
		free(c->names[k]);
	}
	free(c->s);
	free(c->names);
	free(c->workload);
	free(c->mechanisms);
}

/* The sections of co-run @id into @c; 0 or -1. */
static int load_sections(struct gm_db *db, sqlite3_stmt *ss, int64_t id,
			 struct corun *c)
{
	int rc;

	sqlite3_reset(ss);
	sqlite3_bind_int64(ss, 1, id);
	while ((rc = GM_SQL(db->sql, sqlite3_step(ss))) == SQLITE_ROW) {
		size_t idx = (size_t)sqlite3_column_int64(ss, 1);
		GM_ALLOC_GROW(c->s, c->ns + 1, c->alloc);
		c->s[c->ns].mode = gm_an_col_str(ss, 0);
		c->s[c->ns].idx = idx;
		c->s[c->ns].ns = (double)sqlite3_column_int64(ss, 3);
		c->ns++;
		if (idx >= c->nprog) {
			c->names = gm_xrealloc(c->names, (idx + 1) * sizeof(char *));
			for (size_t k = c->nprog; k <= idx; k++) {
				c->names[k] = NULL;
			}
			c->nprog = idx + 1;
		}
		if (!c->names[idx]) {
			c->names[idx] = gm_an_col_str(ss, 2);
		}
	}
	for (size_t k = 0; k < c->nprog; k++) {
		if (!c->names[k]) {
			c->names[k] = gm_xasprintf("#%zu", k);
		}
	}
	return rc < 0 ? -1 : 0;
}

int gm_an_coruns(struct gm_analysis *a, struct gm_db *db)
{
	sqlite3_stmt *st = NULL, *ss = NULL;
	struct corun *c = NULL;
	size_t nc = 0, calloc_ = 0, alloc = 0;
	int rc, ret = -1;

	if (gm_db_prepare(db, &st, "SELECT c.id, w.name, c.mechanisms,"
			  " c.status, c.failure, c.repetition FROM coruns c"
			  " JOIN workloads w ON w.id = c.workloadId"
			  " ORDER BY w.name, c.repetition") ||
	    gm_db_prepare(db, &ss, "SELECT mode, idx, program, end - start FROM"
			  " corun_sections WHERE corunId = ?1 ORDER BY idx, mode,"
			  " repeat")) {
		goto out;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct corun *k;
		GM_ALLOC_GROW(c, nc + 1, calloc_);
		k = &c[nc++];
		memset(k, 0, sizeof(*k));
		k->workload = gm_an_col_str(st, 1);
		k->mechanisms = gm_an_col_str(st, 2);
		if (strcmp((const char *)sqlite3_column_text(st, 3), "ok")) {
			char *why = gm_an_col_str(st, 4);
			int64_t r = sqlite3_column_int64(st, 5);
			char rep[48] = "";
			if (r) {
				snprintf(rep, sizeof(rep), " (repetition %" PRId64
					 ")", r);
			}
			gm_an_note(a, "co-run of '%s'%s failed (%s): its slowdowns "
				   "come from the runs measured before",
				   k->workload, rep, why);
			free(why);
		}
		if (load_sections(db, ss, sqlite3_column_int64(st, 0), k)) {
			goto out;
		}
	}
	if (rc < 0) {
		goto out;
	}
	for (size_t b = 0; b < nc;) {
		size_t e = b + 1;
		while (e < nc && !strcmp(c[e].workload, c[b].workload)) {
			e++;
		}
		add_rows(a, &c[b], e - b, &alloc);
		b = e;
	}
	ret = 0;
out:
	for (size_t k = 0; k < nc; k++) {
		corun_release(&c[k]);
	}
	free(c);
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
