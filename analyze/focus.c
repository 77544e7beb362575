/* SPDX-License-Identifier: MIT */
/*
 * The kernel and run that Fig. 7 and the timeline show (see
 * analysis_priv.h): --kernel (a short, demangled or mangled name) or the
 * kernel with the most instances in the concurrent runs; --run or the run
 * with the most instances of it. That run's kernels are then read again
 * and classified, for the figures.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "strbuf.h"

/* Resolve --kernel to a shortName id. Returns 0, or -1 when unknown. */
static int resolve_kernel(struct gm_analysis *a, struct gm_db *db,
			  const char *name, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t sid = -1;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT id FROM StringIds WHERE value = ?1")) {
		return -1;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = GM_SQL(db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		sid = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	for (size_t i = 0; sid >= 0 && i < a->nruns; i++) {
		for (size_t j = 0; j < a->runs[i].nnames; j++) {
			if (a->runs[i].names[j][0] == sid) {
				*id = sid;
				return 0;
			}
		}
	}
	if (sid >= 0) {
		if (gm_db_prepare(db, &st, "SELECT shortName FROM"
				  " CUPTI_ACTIVITY_KIND_KERNEL WHERE"
				  " demangledName = ?1 OR mangledName = ?1 LIMIT 1")) {
			return -1;
		}
		sqlite3_bind_int64(st, 1, sid);
		rc = GM_SQL(db->sql, sqlite3_step(st));
		if (rc == SQLITE_ROW) {
			*id = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW) {
			return 0;
		}
		if (rc < 0) {
			return -1;
		}
	}
	gm_error("no kernel called '%s' in '%s'", name, db->path);
	gm_error_hint("name it as the resource table shows it (its short name),"
		      " or give the demangled or mangled name");
	return -1;
}

static int64_t name_count(const struct gm_an_run *r, int64_t id)
{
	for (size_t j = 0; j < r->nnames; j++) {
		if (r->names[j][0] == id) {
			return r->names[j][1];
		}
	}
	return 0;
}

/* The focus run's replays, for the timeline's window. */
static int load_replays(struct gm_analysis *a, struct gm_db *db,
			const struct gm_an_run *r)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT programId, replay, start, end FROM"
			  " replays WHERE runId = ?1 ORDER BY programId, replay") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_replay p = { 0, 0, 0, 0 };
		int64_t pid = sqlite3_column_int64(st, 0);
		for (size_t i = 0; i < r->nprog; i++) {
			if (r->progs[i].id == pid) {
				p.program = (int)i;
			}
		}
		p.replay = sqlite3_column_int64(st, 1);
		p.start = sqlite3_column_int64(st, 2);
		p.end = sqlite3_column_int64(st, 3);
		GM_ALLOC_GROW(a->focus_replays, a->nfocus_replays + 1, alloc);
		a->focus_replays[a->nfocus_replays++] = p;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int gm_an_choose_focus(struct gm_analysis *a, struct gm_db *db,
			const struct gm_analysis_options *opt)
{
	int64_t kid = -1;
	const struct gm_an_run *run = NULL;
	struct gm_an_krow *k = NULL;
	size_t n, no_ts;

	if (opt->run) {
		for (size_t i = 0; i < a->nruns; i++) {
			if (!strcmp(a->runs[i].label, opt->run)) {
				run = &a->runs[i];
			}
		}
		if (!run) {
			gm_error("no run '%s' in '%s'", opt->run, db->path);
			gm_error_hint("runs are named workload.variant[.policy];"
				      " the runs table lists them");
			return -1;
		}
	}
	if (opt->kernel) {
		if (resolve_kernel(a, db, opt->kernel, &kid)) {
			return -1;
		}
	} else {
		/* The kernel with the most instances in concurrent runs. */
		int64_t (*tot)[2] = NULL;
		size_t ntot = 0;
		for (int pass = 0; pass < 2 && !ntot; pass++) {
			for (size_t i = 0; i < a->nruns; i++) {
				const struct gm_an_run *r = &a->runs[i];
				if (!r->ok || (run && r != run) ||
				    (pass == 0 && r->alone)) {
					continue;
				}
				for (size_t j = 0; j < r->nnames; j++) {
					size_t t;
					for (t = 0; t < ntot && tot[t][0] != r->names[j][0]; t++) {
					}
					if (t == ntot) {
						tot = gm_xrealloc(tot, (ntot + 1) * sizeof(*tot));
						tot[ntot][0] = r->names[j][0];
						tot[ntot++][1] = 0;
					}
					tot[t][1] += r->names[j][1];
				}
			}
		}
		int64_t most = 0;
		for (size_t t = 0; t < ntot; t++) {
			/* Ties: the name stored first (smallest id). */
			if (tot[t][1] > most ||
			    (tot[t][1] == most && tot[t][0] < kid)) {
				most = tot[t][1];
				kid = tot[t][0];
			}
		}
		free(tot);
	}
	if (kid < 0) {
		return 0;
	}
	if (!run) {
		int64_t best = 0;
		for (int pass = 0; pass < 2 && !run; pass++) {
			for (size_t i = 0; i < a->nruns; i++) {
				const struct gm_an_run *r = &a->runs[i];
				int64_t c = name_count(r, kid);
				if (r->ok && (pass || !r->alone) && c > best) {
					best = c;
					run = r;
				}
			}
		}
	}
	sqlite3_stmt *st;
	if (gm_db_prepare(db, &st, "SELECT value FROM StringIds WHERE id = ?1")) {
		return -1;
	}
	a->focus_kernel = gm_an_string(st, kid);
	sqlite3_finalize(st);
	if (!run) {
		gm_an_note(a, "no run has instances of kernel '%s': no Fig. 7",
			 a->focus_kernel);
		return 0;
	}
	a->focus_run = run;
	if (gm_an_load_kernels(db, run, &k, &n, &no_ts)) {
		return -1;
	}
	struct gm_interval *iv = gm_xmalloc((n ? n : 1) * sizeof(*iv));
	unsigned char *cat = gm_xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		iv[i].start = k[i].start;
		iv[i].end = k[i].end;
	}
	gm_overlap_classify(iv, n, cat);
	a->focus = gm_xcalloc(n ? n : 1, sizeof(*a->focus));
	a->nfocus = n;
	for (size_t i = 0; i < n; i++) {
		a->focus[i].start = k[i].start;
		a->focus[i].end = k[i].end;
		a->focus[i].program = k[i].program;
		a->focus[i].stream = k[i].stream;
		a->focus[i].category = cat[i];
		a->focus[i].chosen = k[i].name == kid;
		a->focus_instances += k[i].name == kid;
	}
	free(iv);
	free(cat);
	free(k);
	return load_replays(a, db, run);
}
