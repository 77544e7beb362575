/* SPDX-License-Identifier: MIT */
/*
 * Run-directory loader (gm_loader_load_run(), loader_int.h) and the
 * primitives the loaders of the other directories use (stepping a
 * statement, the workloads); loader_dispatch.c picks the loader for a
 * directory. Prepared statements, bound by position, stepped once per
 * record, all inside one BEGIN IMMEDIATE ... COMMIT: SQLite writes each
 * page once at commit, which is what keeps a million-record run within
 * seconds.
 */
#include "loader.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demangle.h"
#include "error.h"
#include "instance_name.h"
#include "loader_int.h"
#include "loader_parts.h"
#include "occupancy.h"
#include "run_reader.h"
#include "sharing_scenario.h"
#include "stats.h"
#include "strbuf.h"
#include "string_ids.h"
#include "strmap.h"
#include "variant.h"

enum {
	ST_FIND_HASH,
	ST_FIND_SLOT,
	ST_FIND_WORKLOAD,
	ST_INS_WORKLOAD,
	ST_INS_RUN,
	ST_INS_PROGRAM,
	ST_INS_REPLAY,
	ST_INS_KERNEL,
	ST_INS_MEMCPY,
	ST_INS_MEMSET,
	ST_INS_API,
	ST_SET_COUNTS,
	ST_SET_ELASTIC,
	NR_ST
};

/* "elasticPlannedLaunches = ?, ...": the counters are ?1 .. ?N, the run ?N+1 */
#define SET_COUNTER_(id, key, column, title) column " = ?, "

static const char *const st_sql[NR_ST] = {
	[ST_FIND_HASH] = "SELECT id, path FROM runs WHERE hash = ?1",
	[ST_FIND_SLOT] = "SELECT r.id, r.path, r.hash FROM runs r"
		" JOIN workloads w ON w.id = r.workloadId"
		" WHERE w.name = ?1 AND r.variant = ?2 AND r.policy = ?3"
		" AND r.repetition = ?4 AND r.oneShot = ?5 AND r.openLoop = ?6",
	[ST_FIND_WORKLOAD] = "SELECT id, programCount FROM workloads"
		" WHERE name = ?1",
	[ST_INS_WORKLOAD] = "INSERT INTO workloads (name, programCount)"
		" VALUES (?1, ?2)",
	[ST_INS_RUN] = "INSERT INTO runs (hash, path, workloadId, variant,"
		" policy, status, failure, deviceName, computeCapability,"
		" smCount, maxThreadsPerSm, maxBlocksPerSm, regsPerSm,"
		" smemPerSm, driverVersion, runtimeVersion,"
		" cudaDeviceMaxConnections, streams, minReplays,"
		" gpumixVersion, startedAt, finishedAt, droppedRecords,"
		" loadedAt, elastic, timesliceUs, copyChunk,"
		" hostname, gpu, repetition, gpuStartSmClockMhz, gpuStartTempC,"
		" gpuStartThrottle, gpuEndSmClockMhz, gpuEndTempC,"
		" gpuEndThrottle, oneShot, openLoop, kernelCount, memcpyCount,"
		" memsetCount, apiCount)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		" ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,"
		" ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35,"
		" ?36, ?37, ?38, 0, 0, 0, 0)",
	[ST_INS_PROGRAM] = "INSERT INTO programs (runId, idx, name, bundle,"
		" deterministic, highPriority, replayCv, hostTime, maxHostGap,"
		" hostGapCount, hostGapTime, hostErrorMedianUs, hostErrorP99Us,"
		" hostErrorMaxUs, hostOrderLateCount, hostOrderLateTime)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16)",
	[ST_INS_REPLAY] = "INSERT INTO replays (programId, runId, replay,"
		" start, end, io, kept) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_INS_KERNEL] = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
	[ST_INS_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
		" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_INS_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES"
		" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_INS_API] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
		" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_SET_ELASTIC] = "UPDATE runs SET "
		GM_ELASTIC_COUNTERS(SET_COUNTER_) "id = id WHERE id = ?",
	[ST_SET_COUNTS] = "UPDATE runs SET kernelCount = ?2, memcpyCount = ?3,"
		" memsetCount = ?4, apiCount = ?5 WHERE id = ?1",
};

/* Tables holding a runId column, children first. */
static const char *const run_tables[] = {
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
	"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
	"probe_blocks", "probe_launches", "probe_runs", "drivercalls",
	"drivercalls_slow", "requests", "open_loop", "replays",
	"program_metrics", "run_metrics", "programs",
};

const char gm_loader_orphan_workloads_sql[] =
	"DELETE FROM workloads WHERE id NOT IN (SELECT workloadId FROM runs)"
	" AND id NOT IN (SELECT workloadId FROM coruns);";

int gm_loader_init(struct gm_loader *l, struct gm_db *db)
{
	memset(l, 0, sizeof(*l));
	l->db = db;
	for (int i = 0; i < NR_ST; i++) {
		if (gm_db_prepare(db, &l->st[i], st_sql[i])) {
			return -1;
		}
	}
	return 0;
}

void gm_loader_release(struct gm_loader *l)
{
	for (int i = 0; i < NR_ST; i++) {
		sqlite3_finalize(l->st[i]);
		l->st[i] = NULL;
	}
}

void gm_load_info_release(struct gm_load_info *info)
{
	free(info->label);
	free(info->previous_path);
	memset(info, 0, sizeof(*info));
}

int gm_loader_step(struct gm_loader *l, sqlite3_stmt *st)
{
	int rc = GM_SQL(l->db->sql, sqlite3_step(st));

	sqlite3_reset(st);
	return rc < 0 ? -1 : 0;
}

int gm_loader_delete_run(struct gm_loader *l, int64_t id)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < sizeof(run_tables) / sizeof(run_tables[0]); i++) {
		strbuf_addf(&sb, "DELETE FROM %s WHERE runId = %" PRId64 ";",
			    run_tables[i], id);
	}
	strbuf_addf(&sb, "DELETE FROM runs WHERE id = %" PRId64 ";%s", id,
		    gm_loader_orphan_workloads_sql);
	ret = gm_db_exec(l->db, sb.buf);
	strbuf_release(&sb);
	return ret;
}

/*
 * Apply the identity rules. Returns 1 when the run must be skipped, 0 to
 * go on loading (after deleting what it replaces), -1 on error.
 */
static int check_existing(struct gm_loader *l, const struct gm_run_dir *run,
			  struct gm_load_info *info)
{
	sqlite3_stmt *st = l->st[ST_FIND_HASH];
	int64_t old = -1;
	int rc;

	if (BIND_TEXT(l, st, 1, run->hash) < 0) {
		return -1;
	}
	rc = GM_SQL(l->db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		old = sqlite3_column_int64(st, 0);
		info->previous_path =
			gm_xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_reset(st);
	if (rc < 0) {
		return -1;
	}
	if (old >= 0) {
		if (!l->force) {
			info->outcome = GM_LOAD_SKIPPED;
			info->run_id = old;
			return 1;
		}
		info->outcome = GM_LOAD_REPLACED;
		if (gm_loader_delete_run(l, old)) {
			return -1;
		}
	}

	st = l->st[ST_FIND_SLOT];
	if (BIND_TEXT(l, st, 1, run->workload) < 0 ||
	    BIND_TEXT(l, st, 2, run->variant) < 0 ||
	    BIND_TEXT(l, st, 3, run->policy) < 0 ||
	    BIND_INT(l, st, 4, run->repetition) < 0 ||
	    BIND_INT(l, st, 5, run->one_shot) < 0 ||
	    BIND_TEXT(l, st, 6, run->open_loop) < 0) {
		return -1;
	}
	rc = GM_SQL(l->db->sql, sqlite3_step(st));
	old = -1;
	if (rc == SQLITE_ROW) {
		old = sqlite3_column_int64(st, 0);
		free(info->previous_path);
		info->previous_path =
			gm_xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_reset(st);
	if (rc < 0) {
		return -1;
	}
	if (old >= 0) {
		if (!l->force) {
			gm_error("the database already holds another run of '%s'"
				 " (loaded from '%s')", info->label,
				 info->previous_path);
			gm_error_hint("use --force to replace it; a further"
				      " repetition of it says so in its manifest"
				      " (run.repetition: gpumix replay"
				      " --repetition)");
			return -1;
		}
		info->outcome = GM_LOAD_REPLACED;
		if (gm_loader_delete_run(l, old)) {
			return -1;
		}
	}
	return 0;
}

int gm_loader_workload(struct gm_loader *l, const char *name, size_t nprog,
		       int64_t *id)
{
	sqlite3_stmt *st = l->st[ST_FIND_WORKLOAD];
	int64_t count = -1;
	int rc;

	if (BIND_TEXT(l, st, 1, name) < 0) {
		return -1;
	}
	rc = GM_SQL(l->db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		count = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (rc < 0) {
		return -1;
	}
	if (count >= 0) {
		if ((size_t)count != nprog) {
			return gm_error("workload '%s' has %zu programs here"
					" but %" PRId64 " in what is already loaded",
					name, nprog, count);
		}
		return 0;
	}
	st = l->st[ST_INS_WORKLOAD];
	if (BIND_TEXT(l, st, 1, name) < 0 ||
	    BIND_INT(l, st, 2, (int64_t)nprog) < 0 ||
	    gm_loader_step(l, st)) {
		return -1;
	}
	*id = sqlite3_last_insert_rowid(l->db->sql);
	return 0;
}

/* A GPU state's three columns from @i on: NULL for what is absent. */
static int bind_gpu(struct gm_loader *l, sqlite3_stmt *st, int *i,
		    const struct gm_run_gpu *g)
{
	const int64_t v[2] = { g->sm_clock_mhz, g->temp_c };

	for (int k = 0; k < 2; k++) {
		if ((v[k] < 0 ? GM_SQL(l->db->sql, sqlite3_bind_null(st, (*i)++))
			      : BIND_INT(l, st, (*i)++, v[k])) < 0) {
			return -1;
		}
	}
	return BIND_TEXT(l, st, (*i)++, g->throttle);
}

/* Run @id's elastic launch counters (NULL where the manifest has none:
 * a run of another variant, whose columns stay as inserted). */
static int set_elastic_counters(struct gm_loader *l, const struct gm_run_dir *run,
				int64_t id)
{
	sqlite3_stmt *st = l->st[ST_SET_ELASTIC];
	int c, any = 0;

	for (c = 0; c < GM_ELASTIC_COUNTERS_NR; c++) {
		any |= run->elastic_counters[c] >= 0;
	}
	if (!any) {
		return 0;
	}
	for (c = 0; c < GM_ELASTIC_COUNTERS_NR; c++) {
		int64_t v = run->elastic_counters[c];
		if ((v < 0 ? GM_SQL(l->db->sql, sqlite3_bind_null(st, c + 1))
			   : BIND_INT(l, st, c + 1, v)) < 0) {
			return -1;
		}
	}
	if (BIND_INT(l, st, c + 1, id) < 0) {
		return -1;
	}
	return gm_loader_step(l, st);
}

static int insert_run(struct gm_loader *l, const struct gm_run_dir *run,
		      int64_t wid, int64_t *id)
{
	sqlite3_stmt *st = l->st[ST_INS_RUN];
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	int i = 1;

	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (BIND_TEXT(l, st, i++, run->hash) < 0 ||
	    BIND_TEXT(l, st, i++, run->path) < 0 ||
	    BIND_INT(l, st, i++, wid) < 0 ||
	    BIND_TEXT(l, st, i++, run->variant) < 0 ||
	    BIND_TEXT(l, st, i++, run->policy) < 0 ||
	    BIND_TEXT(l, st, i++, run->status) < 0 ||
	    BIND_TEXT(l, st, i++, run->failure) < 0 ||
	    BIND_TEXT(l, st, i++, run->device_name) < 0 ||
	    BIND_TEXT(l, st, i++, run->device_cc) < 0 ||
	    BIND_INT(l, st, i++, run->sm_count) < 0 ||
	    BIND_INT(l, st, i++, run->max_threads_per_sm) < 0 ||
	    BIND_INT(l, st, i++, run->max_blocks_per_sm) < 0 ||
	    BIND_INT(l, st, i++, run->regs_per_sm) < 0 ||
	    BIND_INT(l, st, i++, run->smem_per_sm) < 0 ||
	    BIND_TEXT(l, st, i++, run->driver_version) < 0 ||
	    BIND_TEXT(l, st, i++, run->runtime_version) < 0 ||
	    BIND_INT(l, st, i++, run->max_connections) < 0 ||
	    BIND_INT(l, st, i++, run->streams) < 0 ||
	    BIND_INT(l, st, i++, run->min_replays) < 0 ||
	    BIND_TEXT(l, st, i++, run->gpumix_version) < 0 ||
	    BIND_TEXT(l, st, i++, run->started_at) < 0 ||
	    BIND_TEXT(l, st, i++, run->finished_at) < 0 ||
	    BIND_INT(l, st, i++, run->dropped_records) < 0 ||
	    BIND_TEXT(l, st, i++, now) < 0 ||
	    BIND_TEXT(l, st, i++, run->elastic) < 0 ||
	    (isnan(run->timeslice_us)
	     ? GM_SQL(l->db->sql, sqlite3_bind_null(st, i++))
	     : GM_SQL(l->db->sql, sqlite3_bind_double(st, i++,
						     run->timeslice_us))) < 0 ||
	    (run->copy_chunk < 0
	     ? GM_SQL(l->db->sql, sqlite3_bind_null(st, i++))
	     : BIND_INT(l, st, i++, run->copy_chunk)) < 0 ||
	    BIND_TEXT(l, st, i++, run->hostname) < 0 ||
	    BIND_TEXT(l, st, i++, run->gpu) < 0 ||
	    BIND_INT(l, st, i++, run->repetition) < 0 ||
	    bind_gpu(l, st, &i, &run->gpu_start) < 0 ||
	    bind_gpu(l, st, &i, &run->gpu_end) < 0 ||
	    BIND_INT(l, st, i++, run->one_shot) < 0 ||
	    BIND_TEXT(l, st, i++, run->open_loop) < 0) {
		return -1;
	}
	/* SQLITE_STATIC text must outlive the step: it does (run, now). */
	if (gm_loader_step(l, st)) {
		return -1;
	}
	*id = sqlite3_last_insert_rowid(l->db->sql);
	return set_elastic_counters(l, run, *id);
}

/*
 * The coefficient of variation of program @prog's kept replay times
 * (replay time minus trace I/O): the spread inside one replay process,
 * a noise diagnostic (doc/database.md, "Noise"). NAN below 2.
 */
static double replay_cv(const struct gm_run_dir *run, size_t prog)
{
	double *t = gm_xmalloc((run->nr_replays + 1) * sizeof(*t)), cv;
	size_t n = 0;

	for (size_t i = 0; i < run->nr_replays; i++) {
		const struct gm_replay *r = &run->replays[i];
		if (r->program == prog && r->kept) {
			t[n++] = (double)(r->end - r->start - r->io);
		}
	}
	cv = gm_cv(t, n);
	free(t);
	return cv;
}

/* Bind @v at @i, NULL for NAN (or for a negative integer, absent). */
static int bind_real(struct gm_loader *l, sqlite3_stmt *st, int i, double v)
{
	return isnan(v) ? GM_SQL(l->db->sql, sqlite3_bind_null(st, i))
			: GM_SQL(l->db->sql, sqlite3_bind_double(st, i, v));
}

static int bind_count(struct gm_loader *l, sqlite3_stmt *st, int i, int64_t v)
{
	return v < 0 ? GM_SQL(l->db->sql, sqlite3_bind_null(st, i))
		     : BIND_INT(l, st, i, v);
}

/* A program's captured host time, from parameter 8 on (schema.c). */
static int bind_host_time(struct gm_loader *l, sqlite3_stmt *st,
			  const struct gm_run_program *p)
{
	if (BIND_TEXT(l, st, 8, p->host_time) < 0 ||
	    bind_real(l, st, 9, p->max_host_gap_s) < 0 ||
	    bind_count(l, st, 10, p->host_gaps) < 0 ||
	    bind_real(l, st, 11, p->host_gap_s) < 0 ||
	    bind_real(l, st, 12, p->host_error_median_us) < 0 ||
	    bind_real(l, st, 13, p->host_error_p99_us) < 0 ||
	    bind_real(l, st, 14, p->host_error_max_us) < 0 ||
	    bind_count(l, st, 15, p->host_order_late) < 0 ||
	    bind_real(l, st, 16, p->host_order_late_s) < 0) {
		return -1;
	}
	return 0;
}

static int insert_programs(struct gm_loader *l, const struct gm_run_dir *run,
			   int64_t rid, int64_t *pids)
{
	sqlite3_stmt *st = l->st[ST_INS_PROGRAM];

	for (size_t i = 0; i < run->nr_programs; i++) {
		const struct gm_run_program *p = &run->programs[i];
		double cv = replay_cv(run, i);
		if (BIND_INT(l, st, 1, rid) < 0 ||
		    BIND_INT(l, st, 2, (int64_t)i) < 0 ||
		    BIND_TEXT(l, st, 3, p->name) < 0 ||
		    BIND_TEXT(l, st, 4, p->bundle) < 0 ||
		    BIND_INT(l, st, 5, p->deterministic) < 0 ||
		    BIND_INT(l, st, 6, run->high_priority == (long)i) < 0 ||
		    (isnan(cv) ? GM_SQL(l->db->sql, sqlite3_bind_null(st, 7))
			       : GM_SQL(l->db->sql, sqlite3_bind_double(st, 7, cv))) < 0 ||
		    bind_host_time(l, st, p) < 0 ||
		    gm_loader_step(l, st)) {
			return -1;
		}
		pids[i] = sqlite3_last_insert_rowid(l->db->sql);
	}
	st = l->st[ST_INS_REPLAY];
	for (size_t i = 0; i < run->nr_replays; i++) {
		const struct gm_replay *r = &run->replays[i];
		if (BIND_INT(l, st, 1, pids[r->program]) < 0 ||
		    BIND_INT(l, st, 2, rid) < 0 ||
		    BIND_INT(l, st, 3, r->replay) < 0 ||
		    BIND_INT(l, st, 4, r->start) < 0 ||
		    BIND_INT(l, st, 5, r->end) < 0 ||
		    BIND_INT(l, st, 6, r->io) < 0 ||
		    BIND_INT(l, st, 7, r->kept) < 0 ||
		    gm_loader_step(l, st)) {
			return -1;
		}
	}
	return 0;
}

/* Per-load state for the activity records. */
struct load_ctx {
	struct gm_loader *l;
	struct gm_string_ids ids;
	struct gm_strmap kernel_names;	/* mangled -> index into names[] */
	int64_t (*names)[3];		/* mangled, demangled, short ids */
	size_t nr_names, alloc_names;
	int64_t run_id;
	const int64_t *pids;
	/* The scenario column: the run's device and, per program, the
	 * copies of its program that ran together (1 in an alone run). */
	struct gm_device_limits dev;
	unsigned *copies;
	size_t nr_programs;
};

/* The sharing scenario of kernel record @a (common/sharing_scenario.h):
 * its blocks per SM on the run's device, its grid, and the copies of its
 * program in the run; NULL when one block does not fit. */
static const char *kernel_scenario(const struct load_ctx *c,
				   const struct gm_activity *a)
{
	struct gm_kernel_usage k = {
		.threads_per_block = (int)(a->block[0] * a->block[1] *
					   a->block[2]),
		.regs_per_thread = (int)a->regs_per_thread,
		.smem_per_block = (size_t)(a->static_smem + a->dynamic_smem),
	};
	struct gm_occupancy occ;
	enum gm_scenario sc;

	if ((size_t)a->program >= c->nr_programs ||
	    gm_occupancy_compute(&c->dev, &k, &occ) < 0) {
		return NULL;
	}
	sc = gm_scenario_classify((uint64_t)a->grid[0] * a->grid[1] *
				  a->grid[2], c->copies[a->program],
				  (unsigned)occ.blocks_per_sm,
				  (unsigned)c->dev.sm_count);
	return sc == GM_SCENARIO_NONE ? NULL : gm_scenario_name(sc);
}

static int kernel_name_ids(struct load_ctx *c, const char *mangled,
			   int64_t **out)
{
	int64_t idx;

	if (!gm_strmap_get(&c->kernel_names, mangled, &idx)) {
		char *dem = gm_demangle(mangled);
		char *shrt = gm_short_name(dem);
		int64_t ids[3];
		int ret = gm_string_ids_get(&c->ids, mangled, &ids[0]) ||
			  gm_string_ids_get(&c->ids, dem, &ids[1]) ||
			  gm_string_ids_get(&c->ids, shrt, &ids[2]);
		free(dem);
		free(shrt);
		if (ret) {
			return -1;
		}
		GM_ALLOC_GROW(c->names, c->nr_names + 1, c->alloc_names);
		memcpy(c->names[c->nr_names], ids, sizeof(ids));
		idx = (int64_t)c->nr_names++;
		gm_strmap_put(&c->kernel_names, mangled, idx);
	}
	*out = c->names[idx];
	return 0;
}

static int insert_record(struct load_ctx *c, const struct gm_activity *a)
{
	struct gm_loader *l = c->l;
	sqlite3 *sql = l->db->sql;
	sqlite3_stmt *st;
	int64_t *names, name_id;
	int i = 1;

#define B(v) sqlite3_bind_int64(st, i++, (v))
	switch (a->kind) {
	case GM_ACT_KERNEL:
		if (kernel_name_ids(c, a->name, &names)) {
			return -1;
		}
		st = l->st[ST_INS_KERNEL];
		B(c->run_id); B(c->pids[a->program]); B(a->correlation_id);
		B(a->start); B(a->end); B(a->queued); B(a->submitted);
		B(a->device_id); B(a->context_id); B(a->stream_id);
		B(a->grid[0]); B(a->grid[1]); B(a->grid[2]);
		B(a->block[0]); B(a->block[1]); B(a->block[2]);
		B(a->regs_per_thread); B(a->static_smem); B(a->dynamic_smem);
		B(names[0]); B(names[1]); B(names[2]);
		{
			const char *sc = kernel_scenario(c, a);
			if (sc) {
				sqlite3_bind_text(st, i++, sc, -1,
						  SQLITE_STATIC);
			} else {
				sqlite3_bind_null(st, i++);
			}
		}
		break;
	case GM_ACT_MEMCPY:
		st = l->st[ST_INS_MEMCPY];
		B(c->run_id); B(c->pids[a->program]); B(a->correlation_id);
		B(a->start); B(a->end); B(a->copy_kind); B(a->bytes);
		B(a->stream_id);
		break;
	case GM_ACT_MEMSET:
		st = l->st[ST_INS_MEMSET];
		B(c->run_id); B(c->pids[a->program]); B(a->correlation_id);
		B(a->start); B(a->end); B(a->bytes); B(a->value);
		B(a->stream_id);
		break;
	case GM_ACT_API:
		if (gm_string_ids_get(&c->ids, a->name, &name_id)) {
			return -1;
		}
		st = l->st[ST_INS_API];
		B(c->run_id); B(c->pids[a->program]); B(a->correlation_id);
		B(a->start); B(a->end);
		sqlite3_bind_text(st, i++, a->domain == GM_API_RUNTIME
				  ? "runtime" : "driver", -1, SQLITE_STATIC);
		B(a->cbid); B(name_id); B(a->thread_id);
		break;
	default:
		return gm_error("internal: activity kind %d", (int)a->kind);
	}
#undef B
	/* Binding integers to valid indexes cannot fail; stepping can. */
	int rc = GM_SQL(sql, sqlite3_step(st));
	sqlite3_reset(st);
	return rc < 0 ? -1 : 0;
}

static int load_activity(struct gm_loader *l, const struct gm_run_dir *run,
			 int64_t rid, const int64_t *pids,
			 struct gm_load_info *info)
{
	struct gm_activity_reader r;
	struct gm_activity a;
	struct load_ctx c;
	int ret = -1, got;

	memset(&c, 0, sizeof(c));
	c.l = l;
	c.run_id = rid;
	c.pids = pids;
	gm_device_limits_for_run(&c.dev, run->device_name, run->device_cc,
				 run->sm_count, run->max_threads_per_sm,
				 run->max_blocks_per_sm, run->regs_per_sm,
				 run->smem_per_sm);
	c.nr_programs = run->nr_programs;
	c.copies = gm_xcalloc(run->nr_programs + 1, sizeof(*c.copies));
	for (size_t i = 0; i < run->nr_programs; i++) {
		const char *n = run->programs[i].name;
		size_t len = gm_instance_program_len(n);
		int alone = gm_variant_is(run->variant, GM_VARIANT_ALONE);
		for (size_t j = 0; j < run->nr_programs; j++) {
			const char *m = run->programs[j].name;
			c.copies[i] += alone ? i == j :
				gm_instance_program_len(m) == len &&
				!strncmp(m, n, len);
		}
	}
	if (gm_string_ids_init(&c.ids, l->db) ||
	    gm_activity_reader_open(&r, run)) {
		goto out;
	}
	while ((got = gm_activity_reader_next(&r, &a)) > 0) {
		if (insert_record(&c, &a)) {
			gm_error("%s:%lu: cannot store the record", r.path,
				 r.lineno);
			goto out;
		}
		switch (a.kind) {
		case GM_ACT_KERNEL: info->kernels++; break;
		case GM_ACT_MEMCPY: info->memcpys++; break;
		case GM_ACT_MEMSET: info->memsets++; break;
		case GM_ACT_API: info->apis++; break;
		}
		if (l->progress && !(r.records & 0x3fff) &&
		    l->progress(l->progress_data, &r)) {
			info->interrupted = 1;
			gm_error("interrupted at %s:%lu", r.path, r.lineno);
			goto out;
		}
	}
	if (got < 0) {
		goto out;
	}
	ret = 0;
out:
	gm_activity_reader_close(&r);
	gm_string_ids_release(&c.ids);
	gm_strmap_clear(&c.kernel_names);
	free(c.names);
	free(c.copies);
	return ret;
}

int gm_loader_load_run(struct gm_loader *l, const char *dir,
		       struct gm_load_info *info)
{
	struct gm_run_dir run;
	int64_t wid, rid, *pids = NULL;
	int ret = -1, in_tx = 0, rc;

	if (gm_run_dir_read(&run, dir)) {
		goto out;
	}
	info->label = gm_run_label_open(run.workload, run.variant, run.policy,
					run.open_loop, run.one_shot,
					run.repetition);
	info->replays = run.nr_replays;
	if (gm_db_begin(l->db)) {
		goto out;
	}
	in_tx = 1;
	rc = check_existing(l, &run, info);
	if (rc) {
		ret = rc > 0 ? 0 : -1;
		goto out;
	}
	pids = gm_xcalloc(run.nr_programs + 1, sizeof(*pids));
	if (gm_loader_workload(l, run.workload, run.nr_programs, &wid) || insert_run(l, &run, wid, &rid) ||
	    insert_programs(l, &run, rid, pids) ||
	    load_activity(l, &run, rid, pids, info) ||
	    gm_load_probe(l->db, &run, rid, pids, &info->probe_blocks) ||
	    gm_load_drivercalls(l->db, &run, rid, pids) ||
	    gm_load_requests(l->db, &run, rid, pids)) {
		goto out;
	}
	sqlite3_stmt *st = l->st[ST_SET_COUNTS];
	if (BIND_INT(l, st, 1, rid) < 0 ||
	    BIND_INT(l, st, 2, (int64_t)info->kernels) < 0 ||
	    BIND_INT(l, st, 3, (int64_t)info->memcpys) < 0 ||
	    BIND_INT(l, st, 4, (int64_t)info->memsets) < 0 ||
	    BIND_INT(l, st, 5, (int64_t)info->apis) < 0 ||
	    gm_loader_step(l, st) || gm_db_commit(l->db)) {
		goto out;
	}
	in_tx = 0;
	info->run_id = rid;
	ret = 0;
out:
	/* Failed, or skipped with nothing written: end the transaction. */
	if (in_tx) {
		gm_db_rollback(l->db);
	}
	for (int i = 0; i < NR_ST; i++) {
		if (l->st[i]) {
			sqlite3_clear_bindings(l->st[i]);
		}
	}
	if (ret) {
		gm_error("cannot load run '%s'%s", dir,
			 info->interrupted ? "" : " (nothing of it was loaded)");
	}
	gm_run_dir_release(&run);
	free(pids);
	return ret;
}
