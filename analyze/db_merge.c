/* SPDX-License-Identifier: MIT */
/*
 * Results-database merge (see db_merge.h). Each input is ATTACHed to the
 * temporary output and copied in one transaction by INSERT ... SELECT:
 * ids are the output's own, so every column that holds an id of another
 * row (runId, programId, workloadId, the StringIds references) goes
 * through a map from the input's ids to the output's, kept in temporary
 * tables. Co-runs (coruns, corun_sections) are copied like runs, by
 * hash, with their sections. The copy statements are built from the schema itself
 * (pragma_table_info), so a column added to a table is copied without a
 * change here; a new table must have a runId column (it is then copied
 * with its run) or a row in the roles table below, and a new column that
 * holds an id of another row a row in the remaps table.
 */
#include "db_merge.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "error.h"
#include "file_lock.h"
#include "fs.h"
#include "run_reader.h"
#include "schema.h"
#include "strbuf.h"
#include "tmp_name.h"

enum role {
	R_SKIP,		/* not copied */
	R_STRINGS,	/* by value */
	R_WORKLOADS,	/* by name */
	R_RUNS,		/* the runs the output lacks, by hash */
	R_PROGRAMS,	/* the programs of those runs */
	R_CHILD,	/* rows of those runs (a runId column) */
	R_CORUNS,	/* the co-runs the output lacks, by hash */
	R_CORUN_CHILD,	/* rows of those co-runs (a corunId column) */
	R_STRETCH,	/* SM-stretch points the output lacks, by key */
	R_SWEEP,	/* sweep points the output lacks, by key */
	R_SWEEP_CLIFFS,	/* sweep cliffs the output lacks, by key */
};

/* Every table that is not R_CHILD, in the order they are copied. */
static const struct {
	const char *table;
	enum role role;
} roles[] = {
	{ "gpumix_meta", R_SKIP },		/* the output's own */
	{ "ENUM_CUDA_MEMCPY_OPER", R_SKIP },	/* constant rows of the schema */
	{ "StringIds", R_STRINGS },
	{ "workloads", R_WORKLOADS },
	{ "runs", R_RUNS },
	{ "programs", R_PROGRAMS },
	{ "coruns", R_CORUNS },
	{ "corun_sections", R_CORUN_CHILD },
	{ "stretch", R_STRETCH },
	{ "sweep", R_SWEEP },
	{ "sweep_cliffs", R_SWEEP_CLIFFS },
	{ "intervals", R_SKIP },		/* derived: info->finish */
	{ "run_metrics", R_SKIP },		/* derived, the same */
	{ "program_metrics", R_SKIP },		/* derived, the same */
};

/* Columns that hold the id of another row, and the map that translates it. */
static const struct {
	const char *column, *map;
} remaps[] = {
	{ "workloadId", "wmap" },
	{ "runId", "rmap" },
	{ "programId", "pmap" },
	{ "mangledName", "smap" },
	{ "demangledName", "smap" },
	{ "shortName", "smap" },
	{ "nameId", "smap" },
	{ "corunId", "cmap" },
};

static const char maps_sql[] =
	"CREATE TEMP TABLE smap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
	"CREATE TEMP TABLE wmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
	"CREATE TEMP TABLE newruns (id INTEGER PRIMARY KEY);"
	"CREATE TEMP TABLE rmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
	"CREATE TEMP TABLE pmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
	"CREATE TEMP TABLE newcoruns (id INTEGER PRIMARY KEY);"
	"CREATE TEMP TABLE cmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);";

static const char drop_maps_sql[] =
	"DROP TABLE IF EXISTS temp.smap; DROP TABLE IF EXISTS temp.wmap;"
	"DROP TABLE IF EXISTS temp.newruns; DROP TABLE IF EXISTS temp.rmap;"
	"DROP TABLE IF EXISTS temp.pmap; DROP TABLE IF EXISTS temp.newcoruns;"
	"DROP TABLE IF EXISTS temp.cmap;";

/* What to run before and after the generated copy of each role. */
static const char *const before_sql[] = {
	[R_STRINGS] = "",
	[R_WORKLOADS] = "",
	[R_RUNS] = "INSERT INTO newruns SELECT id FROM src.runs"
		" WHERE hash NOT IN (SELECT hash FROM main.runs);",
	[R_PROGRAMS] = "",
	[R_CHILD] = "",
	[R_CORUNS] = "INSERT INTO newcoruns SELECT id FROM src.coruns"
		" WHERE hash NOT IN (SELECT hash FROM main.coruns);",
	[R_CORUN_CHILD] = "",
	[R_STRETCH] = "",
	[R_SWEEP] = "",
	[R_SWEEP_CLIFFS] = "",
};

static const char *const after_sql[] = {
	[R_STRINGS] = "INSERT INTO smap SELECT s.id, m.id FROM src.StringIds s"
		" JOIN main.StringIds m ON m.value = s.value;",
	[R_WORKLOADS] = "INSERT INTO wmap SELECT s.id, m.id FROM src.workloads s"
		" JOIN main.workloads m ON m.name = s.name;",
	[R_RUNS] = "INSERT INTO rmap SELECT s.id, m.id FROM src.runs s"
		" JOIN newruns n ON n.id = s.id JOIN main.runs m ON m.hash = s.hash;",
	[R_PROGRAMS] = "INSERT INTO pmap SELECT s.id, m.id FROM src.programs s"
		" JOIN rmap r ON r.old = s.runId"
		" JOIN main.programs m ON m.runId = r.new AND m.idx = s.idx;",
	[R_CHILD] = "",
	[R_CORUNS] = "INSERT INTO cmap SELECT s.id, m.id FROM src.coruns s"
		" JOIN newcoruns n ON n.id = s.id JOIN main.coruns m"
		" ON m.hash = s.hash;",
	[R_CORUN_CHILD] = "",
	[R_STRETCH] = "",
	[R_SWEEP] = "",
	[R_SWEEP_CLIFFS] = "",
};

/* Which input rows of a table are copied. */
static const char *const where_sql[] = {
	[R_STRINGS] = " WHERE t.value NOT IN (SELECT value FROM main.StringIds)",
	[R_WORKLOADS] = " WHERE t.name NOT IN (SELECT name FROM main.workloads)",
	[R_RUNS] = " WHERE t.id IN (SELECT id FROM newruns)",
	[R_PROGRAMS] = " WHERE t.runId IN (SELECT old FROM rmap)",
	[R_CHILD] = " WHERE t.runId IN (SELECT old FROM rmap)",
	[R_CORUNS] = " WHERE t.id IN (SELECT id FROM newcoruns)",
	[R_CORUN_CHILD] = " WHERE t.corunId IN (SELECT old FROM cmap)",
	[R_STRETCH] = " WHERE NOT EXISTS (SELECT 1 FROM main.stretch m"
		" WHERE m.deviceName = t.deviceName AND m.program = t.program"
		" AND m.kernel = t.kernel AND m.k = t.k)",
	[R_SWEEP] = " WHERE NOT EXISTS (SELECT 1 FROM main.sweep m"
		" WHERE m.deviceName = t.deviceName AND m.program = t.program"
		" AND m.kernel = t.kernel AND m.axis = t.axis"
		" AND m.value = t.value)",
	[R_SWEEP_CLIFFS] = " WHERE NOT EXISTS (SELECT 1 FROM main.sweep_cliffs m"
		" WHERE m.deviceName = t.deviceName AND m.program = t.program"
		" AND m.kernel = t.kernel AND m.axis = t.axis"
		" AND m.fromValue = t.fromValue)",
};

static enum role role_of(const char *table, int has_run_id)
{
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (!strcmp(roles[i].table, table)) {
			return roles[i].role;
		}
	}
	return has_run_id ? R_CHILD : R_SKIP;
}

static const char *map_of(const char *column)
{
	for (size_t i = 0; i < sizeof(remaps) / sizeof(remaps[0]); i++) {
		if (!strcmp(remaps[i].column, column)) {
			return remaps[i].map;
		}
	}
	return NULL;
}

/*
 * Append to @sql the statement that copies table @table (role @role) from
 * src to main: its columns but the key of a table whose ids are the
 * output's own, each id column through its map.
 */
static int copy_statement(struct gm_db *db, const char *table, enum role role,
			  struct strbuf *sql)
{
	struct strbuf cols = STRBUF_INIT, vals = STRBUF_INIT;
	sqlite3_stmt *st;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT name, pk FROM pragma_table_info(?1)"
			  " ORDER BY cid") ||
	    GM_SQL(db->sql, sqlite3_bind_text(st, 1, table, -1,
					      SQLITE_STATIC)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		const char *map = map_of(c);
		/* An INTEGER PRIMARY KEY of its own: the output numbers it. */
		if (role != R_CHILD && !strcmp(c, "id") &&
		    sqlite3_column_int(st, 1)) {
			continue;
		}
		strbuf_addf(&cols, "%s\"%s\"", cols.len ? ", " : "", c);
		if (map) {
			strbuf_addf(&vals, "%s(SELECT new FROM %s WHERE old = t.\"%s\")",
				    vals.len ? ", " : "", map, c);
		} else {
			strbuf_addf(&vals, "%st.\"%s\"", vals.len ? ", " : "", c);
		}
	}
	sqlite3_finalize(st);
	if (rc >= 0) {
		strbuf_addf(sql, "%sINSERT INTO main.\"%s\" (%s) SELECT %s FROM"
			    " src.\"%s\" AS t%s ORDER BY t.rowid;%s",
			    before_sql[role], table, cols.buf, vals.buf, table,
			    where_sql[role], after_sql[role]);
	}
	strbuf_release(&cols);
	strbuf_release(&vals);
	return rc < 0 ? -1 : 0;
}

/*
 * The whole copy of one input, generated from the schema this gpumix
 * writes (created in memory, so that tables a user added to a database
 * are neither copied nor in the way).
 */
static int copy_sql(struct gm_db *db, struct strbuf *sql)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	char **children = NULL;
	size_t nchildren = 0;
	int rc, ret = -1;

	strbuf_addstr(sql, maps_sql);
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (roles[i].role != R_SKIP &&
		    copy_statement(db, roles[i].table, roles[i].role, sql)) {
			return -1;
		}
	}
	if (GM_SQL(NULL, sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE,
					 NULL)) < 0 ||
	    GM_SQL(ref, sqlite3_exec(ref, gm_schema_sql, NULL, NULL, NULL)) < 0 ||
	    GM_SQL(ref, sqlite3_prepare_v2(ref, "SELECT m.name, (SELECT count(*)"
					   " FROM pragma_table_info(m.name) WHERE"
					   " name = 'runId') FROM sqlite_master m"
					   " WHERE m.type = 'table' ORDER BY m.name",
					   -1, &st, NULL)) < 0) {
		goto out;
	}
	while ((rc = GM_SQL(ref, sqlite3_step(st))) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		int known = 0;
		for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
			known |= !strcmp(roles[i].table, t);
		}
		/* Loud, so that a new table cannot be dropped silently. */
		if (!known && !sqlite3_column_int(st, 1)) {
			gm_error("internal: the merge does not know how to copy"
				 " table '%s' (no runId column; see db_merge.c)", t);
			rc = -1;
			break;
		}
		if (role_of(t, sqlite3_column_int(st, 1)) == R_CHILD) {
			children = gm_xrealloc(children,
					       (nchildren + 1) * sizeof(*children));
			children[nchildren++] = gm_xstrdup(t);
		}
	}
	if (rc < 0) {
		goto out;
	}
	for (size_t i = 0; i < nchildren; i++) {
		if (copy_statement(db, children[i], R_CHILD, sql)) {
			goto out;
		}
	}
	strbuf_addstr(sql, drop_maps_sql);
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(ref);
	for (size_t i = 0; i < nchildren; i++) {
		free(children[i]);
	}
	free(children);
	return ret;
}

/*
 * Run @sql, which finds rows that break a rule; the first one (@ncols
 * text columns) goes to @row. Returns 1 when there is one, 0 when not,
 * -1 on error.
 */
static int find_row(struct gm_db *db, const char *sql, char **row, int ncols)
{
	sqlite3_stmt *st;
	int rc;

	if (gm_db_prepare(db, &st, sql)) {
		return -1;
	}
	rc = GM_SQL(db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++) {
			const unsigned char *v = sqlite3_column_text(st, i);
			row[i] = gm_xstrdup(v ? (const char *)v : "");
		}
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : rc == SQLITE_ROW;
}

/* The rules of one database, between the output so far and the input. */
static int check_conflicts(struct gm_db *db, const char *input)
{
	char *row[7] = { NULL };
	int rc, ret = -1;

	rc = find_row(db, "SELECT s.name, s.programCount, m.programCount"
		      " FROM src.workloads s JOIN main.workloads m"
		      " ON m.name = s.name WHERE s.programCount != m.programCount",
		      row, 3);
	if (rc > 0) {
		gm_error("workload '%s' has %s programs in '%s' but %s in the"
			 " databases merged before it", row[0], row[1], input,
			 row[2]);
	}
	if (rc) {
		goto out;
	}
	rc = find_row(db, "SELECT w.name, s.variant, s.policy, s.path, m.path,"
		      " s.repetition, s.oneShot"
		      " FROM src.runs s JOIN src.workloads w ON w.id = s.workloadId"
		      " JOIN main.runs m ON m.hash = s.hash"
		      " WHERE s.status != m.status OR s.kernelCount != m.kernelCount"
		      " OR s.memcpyCount != m.memcpyCount"
		      " OR s.memsetCount != m.memsetCount OR s.apiCount != m.apiCount"
		      " OR (SELECT count(*) FROM src.replays WHERE runId = s.id) !="
		      " (SELECT count(*) FROM main.replays WHERE runId = m.id)",
		      row, 7);
	if (rc > 0) {
		char *label = gm_run_label(row[0], row[1], row[2],
					   row[6][0] == '1',
					   strtoll(row[5], NULL, 10));
		gm_error("run '%s' (loaded from '%s') is in '%s' and in the"
			 " databases merged before it (loaded from '%s') with the"
			 " same manifest and replays but other records", label,
			 row[3], input, row[4]);
		gm_error_hint("load its run directory again into a fresh database");
		free(label);
	}
	if (rc) {
		goto out;
	}
	rc = find_row(db, "SELECT w.name, s.variant, s.policy, s.path, m.path,"
		      " s.repetition, s.oneShot"
		      " FROM src.runs s JOIN src.workloads w ON w.id = s.workloadId"
		      " JOIN main.workloads mw ON mw.name = w.name"
		      " JOIN main.runs m ON m.workloadId = mw.id"
		      " AND m.variant = s.variant AND m.policy = s.policy"
		      " AND m.repetition = s.repetition AND m.oneShot = s.oneShot"
		      " AND m.openLoop = s.openLoop"
		      " WHERE m.hash != s.hash", row, 7);
	if (rc > 0) {
		char *label = gm_run_label(row[0], row[1], row[2],
					   row[6][0] == '1',
					   strtoll(row[5], NULL, 10));
		gm_error("'%s' holds another run of '%s' (loaded from '%s') than"
			 " the databases merged before it (loaded from '%s')",
			 input, label, row[3], row[4]);
		gm_error_hint("a database holds one run per workload, variant,"
			      " policy and repetition: merge runs of the same"
			      " repetition of two studies into separate databases,"
			      " or replay them as further repetitions"
			      " (doc/gpumix-analyze.md)");
		free(label);
	}
	if (rc) {
		goto out;
	}
	rc = find_row(db, "SELECT w.name, s.path, m.path"
		      " FROM src.coruns s JOIN src.workloads w ON w.id = s.workloadId"
		      " JOIN main.workloads mw ON mw.name = w.name"
		      " JOIN main.coruns m ON m.workloadId = mw.id"
		      " AND m.repetition = s.repetition"
		      " WHERE m.hash != s.hash", row, 3);
	if (rc > 0) {
		gm_error("'%s' holds another co-run of '%s' (loaded from '%s') than"
			 " the databases merged before it (loaded from '%s')",
			 input, row[0], row[1], row[2]);
		gm_error_hint("a database holds one co-run per workload and"
			      " repetition");
	}
	if (rc) {
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < 7; i++) {
		free(row[i]);
	}
	return ret;
}

/* Open @path as a gpumix database and run SQLite's quick_check on it. */
static int check_input(const char *path)
{
	struct gm_db db = GM_DB_INIT;
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	if (gm_db_open(&db, path, GM_DB_READ)) {
		return -1;
	}
	if (gm_db_prepare(&db, &st, "PRAGMA quick_check")) {
		goto out;
	}
	rc = GM_SQL(db.sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		if (!v || strcmp(v, "ok")) {
			gm_error("'%s' is damaged: %s", path, v ? v : "(no answer)");
			goto out;
		}
	} else if (rc >= 0) {
		gm_error("'%s' is damaged: quick_check gave no answer", path);
		goto out;
	} else {
		gm_error("'%s' is damaged", path);
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	gm_db_close(&db);
	return ret;
}

/* Copy the database @from into the new file @to (SQLite's backup API). */
static int copy_file(const char *from, const char *to)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *b;
	int ret = -1;

	if (GM_SQL(NULL, sqlite3_open_v2(from, &src, SQLITE_OPEN_READONLY,
					 NULL)) < 0 ||
	    GM_SQL(NULL, sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE |
					 SQLITE_OPEN_CREATE, NULL)) < 0) {
		goto out;
	}
	b = sqlite3_backup_init(dst, "main", src, "main");
	if (!b) {
		GM_SQL(dst, sqlite3_errcode(dst));
		goto out;
	}
	if (GM_SQL(dst, sqlite3_backup_step(b, -1)) != SQLITE_DONE) {
		sqlite3_backup_finish(b);
		goto out;
	}
	if (GM_SQL(dst, sqlite3_backup_finish(b)) < 0) {
		goto out;
	}
	ret = 0;
out:
	sqlite3_close(src);
	sqlite3_close(dst);
	if (ret) {
		gm_error("cannot copy '%s' to '%s'", from, to);
	}
	return ret;
}

static int64_t count_runs(struct gm_db *db, const char *schema)
{
	char *sql = gm_xasprintf("SELECT count(*) FROM %s.runs", schema);
	int64_t n = -1;

	if (gm_db_query_int(db, sql, 0, &n)) {
		n = -1;
	}
	free(sql);
	return n;
}

/* ATTACH @input to @db and copy it with @copy in one transaction. */
static int merge_one(struct gm_db *db, const char *input, const char *copy,
		     struct gm_merge_info *info)
{
	sqlite3_stmt *st = NULL;
	int64_t before, after, theirs;
	int attached = 0, ret = -1;

	if (gm_db_prepare(db, &st, "ATTACH DATABASE ?1 AS src") ||
	    GM_SQL(db->sql, sqlite3_bind_text(st, 1, input, -1,
					      SQLITE_STATIC)) < 0 ||
	    GM_SQL(db->sql, sqlite3_step(st)) < 0) {
		goto out;
	}
	attached = 1;
	if (gm_db_begin(db) || check_conflicts(db, input) ||
	    (before = count_runs(db, "main")) < 0 ||
	    (theirs = count_runs(db, "src")) < 0 ||
	    gm_db_exec(db, copy) ||
	    (after = count_runs(db, "main")) < 0 ||
	    gm_db_commit(db)) {
		gm_db_rollback(db);
		goto out;
	}
	info->runs += (size_t)(after - before);
	info->duplicates += (size_t)(theirs - (after - before));
	ret = 0;
out:
	sqlite3_finalize(st);
	/* Clean-up only: a failure here adds nothing to the cause. */
	if (attached) {
		sqlite3_exec(db->sql, drop_maps_sql, NULL, NULL, NULL);
		sqlite3_exec(db->sql, "DETACH DATABASE src", NULL, NULL, NULL);
	}
	return ret;
}

/* Make the rename of @path durable: fsync its directory. */
static void sync_dir(const char *path)
{
	char *dir = gm_xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd;

	if (slash) {
		slash[slash == dir] = '\0';
	}
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

static void remove_tmp(const char *tmp)
{
	char *journal = gm_xasprintf("%s-journal", tmp);

	unlink(tmp);
	unlink(journal);
	free(journal);
}

/* SQLite's progress callback: non-zero interrupts the statement. */
static int progress(void *data)
{
	struct gm_merge_info *info = data;

	if (info->stop()) {
		info->interrupted = 1;
		return 1;
	}
	return 0;
}

/*
 * 0 when the existing database @out (@st its stat) may be replaced by a
 * merge, else -1 with a cause: a merge writes a copy and renames it over
 * @out, which a directory's write permission allows even where @out
 * itself is read-only (the merge then succeeded, and the file changed
 * owner and mode). Read-only is a mode without write permission for
 * anyone (root may write anything) or a file this user cannot write.
 */
static int writable(const char *out, const struct stat *st)
{
	if (!(st->st_mode & 0222)) {
		return gm_error("'%s' is read-only (mode %04o): a merge would "
				"replace it", out, (unsigned)(st->st_mode & 07777));
	}
	if (access(out, W_OK)) {
		return gm_error_errno("cannot write '%s'", out);
	}
	return 0;
}

int gm_db_merge(const char *out, const char *const *inputs, size_t n,
		struct gm_merge_info *info)
{
	struct gm_db db = GM_DB_INIT;
	struct gm_file_lock lock = GM_FILE_LOCK_INIT;
	struct strbuf copy = STRBUF_INIT;
	char *tmp = gm_tmp_name(out, "tmp");
	const char *failed = NULL;	/* the input that failed, if one did */
	struct stat st;
	int64_t kept;
	int exists, ret = -1;

	struct gm_merge_info in = *info;
	struct gm_file_lock_wait w = { 1, in.waiting, in.waiting_arg };

	memset(info, 0, sizeof(*info));
	info->stop = in.stop;
	info->finish = in.finish;
	info->waiting = in.waiting;
	info->waiting_arg = in.waiting_arg;
	exists = !stat(out, &st) && (S_ISDIR(st.st_mode) || st.st_size > 0);
	/* Every input is checked before anything is written. */
	for (size_t i = 0; i < n; i++) {
		if (check_input(inputs[i])) {
			failed = inputs[i];
			goto out;
		}
	}
	/* From here to the rename, no other writer of @out. */
	if (gm_file_lock_take(&lock, out, 0, &w)) {
		info->interrupted = in.stop && in.stop();
		goto out;
	}
	/* (Another writer may have created it while we waited.) */
	exists = !stat(out, &st) && (S_ISDIR(st.st_mode) || st.st_size > 0);
	/* The lock excludes every other writer: any temporary copy of @out
	 * (and its journal) is a killed merge's. */
	if (gm_tmp_remove_stale(out, GM_TMP_ANY) < 0) {
		goto out;
	}
	remove_tmp(tmp);
	if (exists && writable(out, &st)) {
		goto out;
	}
	if (exists) {
		/* Adding to an existing database: it must be one of ours. */
		if (gm_db_open(&db, out, GM_DB_READ)) {
			goto out;
		}
		gm_db_close(&db);
		if (copy_file(out, tmp)) {
			goto fail;
		}
	}
	if (gm_db_open(&db, tmp, GM_DB_WRITE_TEMP) || copy_sql(&db, &copy) ||
	    (kept = count_runs(&db, "main")) < 0) {
		goto fail;
	}
	info->kept = (size_t)kept;
	if (info->stop) {
		sqlite3_progress_handler(db.sql, 10000, progress, info);
	}
	for (size_t i = 0; i < n; i++) {
		if (merge_one(&db, inputs[i], copy.buf, info)) {
			failed = inputs[i];
			goto fail;
		}
	}
	if (info->finish && info->finish(&db)) {
		goto fail;
	}
	gm_db_close(&db);
	/* The merged database takes the place, and the mode, of the old. */
	if (exists && chmod(tmp, st.st_mode & 07777)) {
		gm_error_errno("cannot set the mode of '%s'", tmp);
		goto fail;
	}
	if (rename(tmp, out)) {
		gm_error_errno("cannot rename '%s' to '%s'", tmp, out);
		goto fail;
	}
	sync_dir(out);
	ret = 0;
	goto out;
fail:
	gm_db_close(&db);
	remove_tmp(tmp);
out:
	if (ret && info->interrupted) {
		gm_error("interrupted: '%s' was %s", out,
			 exists ? "left as it was" : "not written");
	} else if (ret && failed) {
		gm_error("cannot merge '%s' into '%s' (%s)", failed, out,
			 exists ? "it was left as it was" : "it was not written");
	} else if (ret) {
		gm_error("cannot merge into '%s' (%s)", out,
			 exists ? "it was left as it was" : "it was not written");
	}
	gm_file_lock_release(&lock);
	strbuf_release(&copy);
	free(tmp);
	return ret;
}
