/* SPDX-License-Identifier: MIT */
/*
 * Loading the block probe's files (see loader_parts.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "loader_parts.h"
#include "probe_reader.h"
#include "strbuf.h"
#include "string_ids.h"

struct corr_start {
	int64_t corr, start;
};

static int cmp_corr(const void *x, const void *y)
{
	const struct corr_start *a = x, *b = y;

	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* The run's KERNEL records' starts by correlation id, sorted. */
static int kernel_starts(struct gm_db *db, int64_t rid, struct corr_start **out,
			 size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (gm_db_prepare(db, &st, "SELECT correlationId, start FROM"
			  " CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1"
			  " AND start > 0") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, rid)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[*n].corr = sqlite3_column_int64(st, 0);
		(*out)[(*n)++].start = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	if (*n) {
		qsort(*out, *n, sizeof(**out), cmp_corr);
	}
	return 0;
}

/*
 * The shift from the GPU's %globaltimer to CUPTI's clock: the median over
 * the probed launches with a KERNEL record of (its start - its first
 * block's start). 0 and *@known 0 when there is none.
 */
static int clock_offset(struct gm_db *db, int64_t rid,
			const struct gm_probe_data *pd, int64_t *offset,
			int *known)
{
	struct corr_start *ks;
	int64_t *d;
	size_t nk, nd = 0;

	*offset = 0;
	*known = 0;
	if (kernel_starts(db, rid, &ks, &nk)) {
		return -1;
	}
	d = gm_xmalloc((pd->nr_launches + 1) * sizeof(*d));
	for (size_t i = 0; i < pd->nr_launches; i++) {
		const struct gm_probe_launch *l = &pd->launches[i];
		struct corr_start key = { l->correlation_id, 0 }, *k;
		uint64_t first = UINT64_MAX;
		if (!l->records || !l->correlation_id || !nk) {
			continue;
		}
		k = bsearch(&key, ks, nk, sizeof(*ks), cmp_corr);
		if (!k) {
			continue;
		}
		for (int64_t b = 0; b < l->records; b++) {
			uint64_t s = pd->blocks[l->first + b].start;
			first = s < first ? s : first;
		}
		d[nd++] = k->start - (int64_t)first;
	}
	if (nd) {
		qsort(d, nd, sizeof(*d), cmp_i64);
		*offset = d[nd / 2];
		*known = 1;
	}
	free(d);
	free(ks);
	return 0;
}

static const char ins_launch[] =
	"INSERT INTO probe_launches VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
	" ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)";
static const char ins_block[] =
	"INSERT INTO probe_blocks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char ins_run[] =
	"INSERT INTO probe_runs VALUES (?1, ?2, ?3, ?4, ?5)";

static int step(struct gm_db *db, sqlite3_stmt *st)
{
	int rc = GM_SQL(db->sql, sqlite3_step(st));

	sqlite3_reset(st);
	return rc < 0 ? -1 : 0;
}

static int store(struct gm_db *db, const struct gm_run_dir *run, int64_t rid,
		 const int64_t *pids, const struct gm_probe_data *pd,
		 int64_t offset, int known)
{
	sqlite3_stmt *sl = NULL, *sb = NULL, *sr = NULL;
	struct gm_string_ids ids;
	uint64_t probed = 0;
	int ret = -1;

	(void)run;
	memset(&ids, 0, sizeof(ids));
	if (gm_string_ids_init(&ids, db) ||
	    gm_db_prepare(db, &sl, ins_launch) ||
	    gm_db_prepare(db, &sb, ins_block) ||
	    gm_db_prepare(db, &sr, ins_run)) {
		goto out;
	}
	for (size_t i = 0; i < pd->nr_launches; i++) {
		const struct gm_probe_launch *l = &pd->launches[i];
		int64_t name, seq = (int64_t)i + 1, pid = pids[l->program];
		const int64_t v[] = {
			rid, pid, seq, l->replay, l->correlation_id, l->host_ns,
			0, l->grid[0], l->grid[1], l->grid[2], l->block[0],
			l->block[1], l->block[2], l->phys[0], l->phys[1],
			l->phys[2], l->offset, l->blocks, l->records,
		};
		if (gm_string_ids_get(&ids, l->kernel, &name)) {
			goto out;
		}
		for (int k = 0; k < 19; k++) {
			sqlite3_bind_int64(sl, k + 1, k == 6 ? name : v[k]);
		}
		if (l->not_probed) {
			sqlite3_bind_text(sl, 20, l->not_probed, -1, SQLITE_STATIC);
		} else {
			sqlite3_bind_null(sl, 20);
		}
		if (step(db, sl)) {
			goto out;
		}
		probed += l->records > 0;
		for (int64_t b = 0; b < l->records; b++) {
			const struct gm_probe_block *r = &pd->blocks[l->first + b];
			int64_t start = (int64_t)r->start + offset;
			sqlite3_bind_int64(sb, 1, rid);
			sqlite3_bind_int64(sb, 2, pid);
			sqlite3_bind_int64(sb, 3, seq);
			sqlite3_bind_int64(sb, 4, l->offset + b);
			sqlite3_bind_int64(sb, 5, r->sm);
			sqlite3_bind_int64(sb, 6, start);
			sqlite3_bind_int64(sb, 7, start + (int64_t)r->dur);
			if (step(db, sb)) {
				goto out;
			}
		}
	}
	sqlite3_bind_int64(sr, 1, rid);
	if (known) {
		sqlite3_bind_int64(sr, 2, offset);
	} else {
		sqlite3_bind_null(sr, 2);
	}
	sqlite3_bind_int64(sr, 3, (int64_t)pd->nr_launches);
	sqlite3_bind_int64(sr, 4, (int64_t)probed);
	sqlite3_bind_int64(sr, 5, (int64_t)pd->nr_blocks);
	if (step(db, sr)) {
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(sl);
	sqlite3_finalize(sb);
	sqlite3_finalize(sr);
	gm_string_ids_release(&ids);
	return ret;
}

int gm_load_probe(struct gm_db *db, const struct gm_run_dir *run, int64_t rid,
		  const int64_t *pids, uint64_t *blocks)
{
	struct gm_probe_data pd;
	int64_t offset;
	int known, ret = -1;

	*blocks = 0;
	if (gm_probe_data_read(&pd, run)) {
		goto out;
	}
	if (!pd.present) {
		ret = 0;
		goto out;
	}
	if (clock_offset(db, rid, &pd, &offset, &known) ||
	    store(db, run, rid, pids, &pd, offset, known)) {
		goto out;
	}
	*blocks = pd.nr_blocks;
	ret = 0;
out:
	gm_probe_data_release(&pd);
	return ret;
}
