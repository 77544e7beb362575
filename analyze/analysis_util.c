/* SPDX-License-Identifier: MIT */
/*
 * What the pieces of the study analysis share (see analysis_priv.h):
 * column and string-id reads, notes for the reader, a run's kernels with
 * their timestamps and the waiting-time statistics. analysis.c,
 * run_metrics.c and focus.c call these; these call none of them.
 */
#include "analysis_priv.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_util.h"
#include "stats.h"
#include "strbuf.h"

char *gm_an_col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return gm_xstrdup(t ? (const char *)t : "");
}

void gm_an_note(struct gm_analysis *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	size_t alloc = a->nnotes;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	a->notes = gm_xrealloc(a->notes, (alloc + 1) * sizeof(*a->notes));
	a->notes[a->nnotes++] = strbuf_detach(&sb, NULL);
}

char *gm_an_string(sqlite3_stmt *st, int64_t id)
{
	char *s = NULL;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		s = gm_an_col_str(st, 0);
	}
	sqlite3_reset(st);
	return s ? s : gm_xasprintf("#%" PRId64, id);
}

int gm_an_load_kernels(struct gm_db *db, const struct gm_an_run *r,
			struct gm_an_krow **out, size_t *n, size_t *no_ts)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	*no_ts = 0;
	if (gm_db_prepare(db, &st,
			  "SELECT programId, start, end, queued, submitted,"
			  " correlationId, gridX * gridY * gridZ,"
			  " blockX * blockY * blockZ, registersPerThread,"
			  " staticSharedMemory + dynamicSharedMemory, shortName,"
			  " streamId"
			  " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_krow k;
		int64_t pid = sqlite3_column_int64(st, 0);
		k.start = sqlite3_column_int64(st, 1);
		k.end = sqlite3_column_int64(st, 2);
		if (!k.start && !k.end) {
			(*no_ts)++;
			continue;
		}
		k.queued = sqlite3_column_int64(st, 3);
		k.submitted = sqlite3_column_int64(st, 4);
		k.corr = sqlite3_column_int64(st, 5);
		k.shape.grid_blocks = sqlite3_column_int64(st, 6);
		k.shape.threads_per_block = sqlite3_column_int64(st, 7);
		k.shape.regs_per_thread = sqlite3_column_int64(st, 8);
		k.shape.smem_per_block = sqlite3_column_int64(st, 9);
		k.name = sqlite3_column_int64(st, 10);
		k.stream = sqlite3_column_int64(st, 11);
		k.program = 0;
		for (size_t i = 0; i < r->nprog; i++) {
			if (r->progs[i].id == pid) {
				k.program = (int)i;
				break;
			}
		}
		GM_ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = k;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

void gm_an_wait_stats(struct gm_wait_stats *w, double *v, size_t n,
		       const double *split_sum, size_t split_n)
{
	gm_sort_doubles(v, n);
	w->n = n;
	w->mean = gm_mean(v, n);
	w->median = gm_percentile_sorted(v, n, 50);
	w->p95 = gm_percentile_sorted(v, n, 95);
	w->split_n = split_n;
	for (int k = 0; k < GM_WAIT_SPLITS; k++) {
		w->split_mean[k] = split_n ? split_sum[k] / (double)split_n : NAN;
	}
}
