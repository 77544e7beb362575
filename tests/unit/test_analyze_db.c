/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the database side of the analyzer: schema creation and
 * version checks, the loader's transactions (reload skipped, forced
 * reload, a corrupt log or an interrupted load leaves nothing), the
 * analysis on the hand-computed study, table rendering (Markdown and CSV
 * escaping) and the report writer's failure paths. Run from the
 * repository root: it reads tests/data/runs.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analysis.h"
#include "analyze/db.h"
#include "analyze/loader.h"
#include "analyze/report.h"
#include "analyze/report_tables.h"
#include "analyze/schema.h"
#include "analyze/table.h"
#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "test.h"

#define STUDY "tests/data/runs/good/study"

static char scratch[] = "/tmp/gpumix-unit-db.XXXXXX";

static int64_t count(struct gm_db *db, const char *table)
{
	char sql[128];
	int64_t n = -1;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	gm_db_query_int(db, sql, -1, &n);
	return n;
}

static int stop_at_once(void *data, const struct gm_activity_reader *r)
{
	(void)data;
	(void)r;
	return 1;
}

static void test_db(void)
{
	struct gm_db db = GM_DB_INIT;
	char *path = gm_path_join(scratch, "t.db");
	int64_t v;

	CHECK_INT(gm_db_open(&db, path, GM_DB_READ), -1, "read a missing database");
	gm_error_clear();
	CHECK_INT(gm_db_open(&db, path, GM_DB_WRITE), 0, "create a database");
	CHECK(db.created, "created the schema");
	gm_db_query_int(&db, "PRAGMA user_version", 0, &v);
	CHECK_INT(v, GM_SCHEMA_VERSION, "user_version");
	gm_db_query_int(&db, "PRAGMA application_id", 0, &v);
	CHECK_INT(v, GM_APPLICATION_ID, "application_id");
	CHECK_INT(count(&db, "ENUM_CUDA_MEMCPY_OPER"), 11, "copy kinds listed");
	CHECK_INT(gm_db_exec(&db, "SELECT * FROM no_such_table"), -1, "checked exec");
	CHECK(strstr(gm_error_message(), "no such table") != NULL,
	      "SQLite's message is kept");
	gm_error_clear();
	sqlite3_stmt *st = NULL;
	CHECK_INT(gm_db_prepare(&db, &st, "SELEKT 1"), -1, "checked prepare");
	CHECK(strstr(gm_error_cause(1), "cannot prepare a statement") != NULL,
	      "GM_SQL records the operation");
	gm_error_clear();

	/* Load, reload, force. */
	struct gm_loader l;
	struct gm_load_info info;
	CHECK_INT(gm_loader_init(&l, &db), 0, "loader");
	CHECK_INT(gm_loader_load(&l, STUDY "/a+b.cuda", &info), 0, "load a run");
	CHECK(info.outcome == GM_LOAD_LOADED && info.kernels == 11 && info.apis == 10,
	      "loaded 11 kernels and 10 launch calls");
	CHECK_STR(info.label, "a+b.cuda", "label");
	gm_load_info_release(&info);
	CHECK_INT(gm_loader_load(&l, STUDY "/a+b.cuda", &info), 0, "load it again");
	CHECK(info.outcome == GM_LOAD_SKIPPED, "skipped");
	gm_load_info_release(&info);
	CHECK_INT(count(&db, "CUPTI_ACTIVITY_KIND_KERNEL"), 11, "not duplicated");
	l.force = 1;
	CHECK_INT(gm_loader_load(&l, STUDY "/a+b.cuda", &info), 0, "forced reload");
	CHECK(info.outcome == GM_LOAD_REPLACED, "replaced");
	gm_load_info_release(&info);
	CHECK_INT(count(&db, "CUPTI_ACTIVITY_KIND_KERNEL"), 11, "still not duplicated");
	CHECK_INT(count(&db, "runs"), 1, "one run");
	l.force = 0;

	/* A corrupt log and an interrupted load leave nothing behind. */
	CHECK_INT(gm_loader_load(&l, "tests/data/runs/bad/activity-number", &info), -1,
		  "corrupt log");
	CHECK(strstr(gm_error_cause(1), "activity.tsv:4: gridX") != NULL,
	      "the cause names file and line");
	CHECK(strstr(gm_error_message(), "nothing of it was loaded") != NULL,
	      "the headline says nothing was loaded");
	gm_error_clear();
	gm_load_info_release(&info);
	CHECK_INT(count(&db, "runs"), 1, "corrupt run not loaded");
	CHECK_INT(count(&db, "CUPTI_ACTIVITY_KIND_KERNEL"), 11, "none of its kernels");
	l.progress = stop_at_once;
	CHECK_INT(gm_loader_load(&l, STUDY "/a+b.single", &info), 0,
		  "a short log never reaches the progress callback");
	gm_load_info_release(&info);
	char *big = gm_path_join(scratch, "big");
	gm_mkdir_p(big, 0755);
	{
		/* A run with more records than one progress step. */
		struct strbuf sb = STRBUF_INIT;
		char *p;
		gm_read_file(STUDY "/a+b.nss/manifest", &sb);
		p = gm_path_join(big, "manifest");
		gm_write_file_atomic(p, sb.buf, sb.len, 1);
		free(p);
		strbuf_reset(&sb);
		gm_read_file(STUDY "/a+b.nss/replays.tsv", &sb);
		p = gm_path_join(big, "replays.tsv");
		gm_write_file_atomic(p, sb.buf, sb.len, 1);
		free(p);
		strbuf_reset(&sb);
		for (int i = 0; i < 20000; i++) {
			strbuf_addf(&sb, "API\ta\t%d\t%d\t%d\tdriver\t1\tcuX\t1\n", i, i, i + 1);
		}
		strbuf_addstr(&sb, "END\t20000\n");
		p = gm_path_join(big, "activity.tsv");
		gm_write_file_atomic(p, sb.buf, sb.len, 1);
		free(p);
		strbuf_release(&sb);
	}
	CHECK_INT(gm_loader_load(&l, big, &info), -1, "interrupted load fails");
	CHECK(info.interrupted, "and says it was interrupted");
	gm_error_clear();
	gm_load_info_release(&info);
	CHECK_INT(count(&db, "runs"), 2, "interrupted run rolled back");
	CHECK_INT(count(&db, "CUPTI_ACTIVITY_KIND_RUNTIME"), 14, "none of its calls");
	l.progress = NULL;
	CHECK_INT(gm_loader_load(&l, big, &info), 0, "the same run loads uninterrupted");
	CHECK_INT(info.apis, 20000, "all its records");
	gm_load_info_release(&info);
	free(big);
	gm_loader_release(&l);
	gm_db_close(&db);

	/* Version checks on reopen. */
	CHECK_INT(gm_db_open(&db, path, GM_DB_READ), 0, "reopen read-only");
	gm_db_close(&db);
	char *old = gm_path_join(scratch, "old.db");
	sqlite3 *raw;
	sqlite3_open(old, &raw);
	sqlite3_exec(raw, "PRAGMA application_id = 1735227441; CREATE TABLE runs (id);",
		     NULL, NULL, NULL);
	sqlite3_close(raw);
	CHECK_INT(gm_db_open(&db, old, GM_DB_WRITE), -1, "an older schema is refused");
	CHECK(strstr(gm_error_message(), "schema version 0, older than version 17") != NULL,
	      "clear message");
	gm_error_clear();
	free(old);
	free(path);
}

static void test_analysis(void)
{
	struct gm_db db = GM_DB_INIT;
	struct gm_loader l;
	struct gm_load_info info;
	struct gm_analysis a;
	struct gm_analysis_options opt = { 0 };
	char *path = gm_path_join(scratch, "study.db");
	const char *runs[] = { "a+b.single", "a+b.cuda", "a+b.nss", "a+c.cuda",
			       "a+c.elastic.median" };

	gm_db_open(&db, path, GM_DB_WRITE);
	gm_loader_init(&l, &db);
	for (size_t i = 0; i < 5; i++) {
		char *dir = gm_xasprintf("%s/%s", STUDY, runs[i]);
		CHECK_INT(gm_loader_load(&l, dir, &info), 0, runs[i]);
		gm_load_info_release(&info);
		free(dir);
	}
	gm_loader_release(&l);
	CHECK_INT(gm_analysis_compute(&a, &db, &opt), 0, "analyse the study");
	CHECK_INT(a.nruns, 5, "5 runs");
	CHECK_STR(a.variants[0].label, "single", "variants in the paper's order");
	CHECK_STR(a.variants[1].label, "cuda", "cuda second");
	const struct gm_an_run *cuda = NULL, *ac = NULL;
	for (size_t i = 0; i < a.nruns; i++) {
		if (!strcmp(a.runs[i].label, "a+b.cuda")) {
			cuda = &a.runs[i];
		}
		if (!strcmp(a.runs[i].label, "a+c.cuda")) {
			ac = &a.runs[i];
		}
	}
	CHECK(cuda && ac, "runs found");
	CHECK_NEAR(cuda->stp, 1.3, 1e-12, "STP");
	CHECK_NEAR(cuda->antt, 1.625, 1e-12, "ANTT");
	CHECK_NEAR(cuda->running, 0.8, 1e-12, "running kernels");
	CHECK_NEAR(cuda->util[GM_UTIL_THREADS], 0.1, 1e-12, "thread utilization");
	CHECK_NEAR(cuda->wait.p95, 95500, 1e-6, "p95 waiting time (ns)");
	CHECK_NEAR(cuda->cat_ns[GM_OVERLAP_RESTRICTED], 300000, 0, "RESTRICTED time");
	CHECK(isnan(ac->stp), "no baseline for c: no STP");
	CHECK_NEAR(ac->mtspeedup, 1, 1e-12, "cuda against itself: 1");
	CHECK_STR(a.focus_kernel, "kernelA", "Fig. 7 default: most instances");
	CHECK_STR(a.focus_run->label, "a+b.cuda", "in the run with most of them");
	CHECK_INT(a.focus_instances, 5, "5 instances");
	CHECK_INT(a.nnotes, 4, "4 notes");

	struct gm_table *t = gm_xcalloc(gm_report_table_count, sizeof(*t));
	gm_report_tables(&a, t);
	CHECK_INT(t[gm_report_table_find("resources")].nrows, 3, "two kernels and the average row");

	/* Report writer: an existing output is refused, a bad parent fails. */
	struct gm_report_options ro = { .db_path = "study.db", .gnuplot = "gnuplot",
					.version = "test" };
	struct gm_report_result res;
	ro.out_dir = scratch;
	CHECK_INT(gm_report_write(&a, t, &ro, &res), -1, "existing directory refused");
	gm_error_clear();
	char *file = gm_path_join(scratch, "file");
	gm_write_file_atomic(file, "x", 1, 1);
	char *under = gm_path_join(file, "rep");
	ro.out_dir = under;
	CHECK_INT(gm_report_write(&a, t, &ro, &res), -1, "parent is a file: fails");
	gm_error_clear();
	char *ok = gm_path_join(scratch, "rep");
	ro.out_dir = ok;
	CHECK_INT(gm_report_write(&a, t, &ro, &res), 0, "tables-only report");
	CHECK_INT(res.tables, gm_report_table_count, "every table written");
	char *idx = gm_path_join(ok, "index.md");
	CHECK(gm_path_exists(idx), "index.md");
	free(idx);
	free(ok);
	free(under);
	free(file);

	gm_report_tables_release(t);
	free(t);
	gm_analysis_release(&a);

	opt.kernel = "nope";
	CHECK_INT(gm_analysis_compute(&a, &db, &opt), -1, "unknown --kernel");
	gm_error_clear();
	gm_analysis_release(&a);
	opt.kernel = "_Z7kernelBPf";
	opt.run = "a+b.cuda";
	CHECK_INT(gm_analysis_compute(&a, &db, &opt), 0, "--kernel by mangled name");
	CHECK_STR(a.focus_kernel, "kernelB", "resolved to its short name");
	CHECK_INT(a.focus_instances, 6, "its 6 instances");
	gm_analysis_release(&a);
	gm_db_close(&db);
	free(path);
}

/* Write a run directory @name under the scratch directory. */
static char *write_run(const char *name, const char *programs,
		       const char *replays, const char *activity)
{
	char *dir = gm_path_join(scratch, name);
	struct strbuf sb = STRBUF_INIT;
	char *p;

	gm_mkdir_p(dir, 0755);
	strbuf_addf(&sb, "format = gpumix-run 1\nworkload = %s\nvariant = cuda\n"
		    "policy = none\n%sdevice.name = H100\ndevice.cc = 9.0\n"
		    "device.sm_count = 132\ndevice.max_threads_per_sm = 2048\n"
		    "device.max_blocks_per_sm = 32\ndevice.regs_per_sm = 65536\n"
		    "device.smem_per_sm = 233472\ndriver_version = 1\n"
		    "runtime_version = 1\ncuda_device_max_connections = 8\n"
		    "streams = 1\nmin_replays = 1\ngpumix_version = t\n"
		    "started_at = x\nfinished_at = y\nstatus = ok\n"
		    "cupti.dropped_records = 0\n", name, programs);
	p = gm_path_join(dir, "manifest");
	gm_write_file_atomic(p, sb.buf, sb.len, 1);
	free(p);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "program\treplay\tstart_ns\tend_ns\tio_ns\tkept\n%s", replays);
	p = gm_path_join(dir, "replays.tsv");
	gm_write_file_atomic(p, sb.buf, sb.len, 1);
	free(p);
	p = gm_path_join(dir, "activity.tsv");
	gm_write_file_atomic(p, activity, strlen(activity), 1);
	free(p);
	strbuf_release(&sb);
	return dir;
}

static int has_note(const struct gm_analysis *a, const char *text)
{
	for (size_t i = 0; i < a->nnotes; i++) {
		if (strstr(a->notes[i], text)) {
			return 1;
		}
	}
	return 0;
}

/* Runs at the edges: no programs, no replays, untimed kernels. */
static void test_edges(void)
{
	struct gm_db db = GM_DB_INIT;
	struct gm_loader l;
	struct gm_load_info info;
	struct gm_analysis a;
	struct gm_analysis_options opt = { 0 };
	char *path = gm_path_join(scratch, "edges.db");
	char *empty = write_run("empty", "programs = 0\n", "", "END\t0\n");
	/* (a workload is named after its programs: "p") */
	char *edge = write_run("p",
		"programs = 1\nprogram.0.name = p\nprogram.0.bundle = b\n"
		"program.0.deterministic = 0\n", "",
		"KERNEL\tp\t1\t0\t0\t0\t0\t0\t1\t7\t1\t1\t1\t32\t1\t1\t16\t0\t0\tk\n"
		"KERNEL\tp\t2\t100\t200\t0\t0\t0\t1\t7\t1\t1\t1\t32\t1\t1\t16\t0\t0\tk\n"
		"KERNEL\tp\t3\t150\t250\t0\t0\t0\t1\t8\t1\t1\t1\t32\t1\t1\t16\t0\t0\tk\n"
		"END\t3\n");

	gm_db_open(&db, path, GM_DB_WRITE);
	gm_loader_init(&l, &db);
	CHECK_INT(gm_loader_load(&l, empty, &info), 0, "a run with no programs loads");
	gm_load_info_release(&info);
	CHECK_INT(gm_loader_load(&l, edge, &info), 0, "a run without replays loads");
	CHECK_INT(info.kernels, 3, "with its 3 kernels");
	gm_load_info_release(&info);
	gm_loader_release(&l);
	CHECK_INT(gm_analysis_compute(&a, &db, &opt), 0, "analyse the edge cases");
	const struct gm_an_run *e = NULL;
	for (size_t i = 0; i < a.nruns; i++) {
		if (!strcmp(a.runs[i].workload, "p")) {
			e = &a.runs[i];
		}
	}
	CHECK(e != NULL, "edge run found");
	CHECK_INT(e->no_ts, 1, "untimed kernel counted");
	CHECK_INT(e->cat_n[GM_OVERLAP_FULL] + e->cat_n[GM_OVERLAP_PARTIAL], 2,
		  "and left out of the overlap categories");
	CHECK_NEAR(e->running, 200.0 / 150, 1e-12,
		   "no replays: span of the kernels, 200 ns of kernels over 150");
	CHECK(isnan(e->stp) && isnan(e->wl_time_ns), "no replays: no STP, no workload time");
	CHECK(has_note(&a, "1 kernel has no timestamps"), "note: untimed kernel");
	CHECK(has_note(&a, "no kept replays of 'p'"), "note: no kept replays");
	CHECK(has_note(&a, "run 'empty.cuda' has no programs"), "note: no programs");
	CHECK(has_note(&a, "no `cuda` run") == 0, "there are cuda runs");
	struct gm_table *t = gm_xcalloc(gm_report_table_count, sizeof(*t));
	gm_report_tables(&a, t);
	CHECK_INT(t[gm_report_table_find("workloads")].nrows, 2, "both runs are listed");
	gm_report_tables_release(t);
	free(t);
	gm_analysis_release(&a);
	gm_db_close(&db);
	free(empty);
	free(edge);
	free(path);
}

/*
 * A database with no runs: every array of the analysis is empty (NULL),
 * which must not reach qsort (make check SANITIZE=1 reports that).
 */
static void test_no_runs(void)
{
	struct gm_db db = GM_DB_INIT;
	struct gm_analysis a;
	struct gm_analysis_options opt = { 0 };
	char *path = gm_path_join(scratch, "none.db");

	gm_db_open(&db, path, GM_DB_WRITE);
	CHECK_INT(gm_analysis_compute(&a, &db, &opt), 0, "analyse a database with no runs");
	CHECK_INT(a.nruns, 0, "... no runs");
	CHECK_INT(a.nresources, 0, "... no kernel resources");
	gm_analysis_release(&a);
	gm_db_close(&db);
	free(path);
}

/* A gpumix database with a table or a column gone is called damaged. */
static void test_damaged(void)
{
	struct gm_db db = GM_DB_INIT;
	char *path = gm_path_join(scratch, "damaged.db");
	char *want;

	gm_db_open(&db, path, GM_DB_WRITE);
	gm_db_exec(&db, "DROP TABLE replays");
	gm_db_close(&db);
	CHECK_INT(gm_db_open(&db, path, GM_DB_READ), -1, "a table gone: refused");
	want = gm_xasprintf("'%s' is a damaged gpumix database: table 'replays' "
			    "is missing", path);
	CHECK_STR(gm_error_message(), want, "... as damaged, naming the table");
	free(want);
	gm_error_clear();
	CHECK_INT(gm_db_open(&db, path, GM_DB_WRITE), -1, "... for writing too");
	gm_error_clear();

	unlink(path);
	gm_db_open(&db, path, GM_DB_WRITE);
	gm_db_exec(&db, "ALTER TABLE runs DROP COLUMN streams");
	gm_db_close(&db);
	CHECK_INT(gm_db_open(&db, path, GM_DB_READ), -1, "a column gone: refused");
	want = gm_xasprintf("'%s' is a damaged gpumix database: table 'runs' has "
			    "no column 'streams'", path);
	CHECK_STR(gm_error_message(), want, "... naming table and column");
	free(want);
	gm_error_clear();
	free(path);
}

static void test_tables(void)
{
	static const char *const cols[] = { "name", "value", NULL };
	struct gm_table t;
	struct strbuf sb = STRBUF_INIT;

	gm_table_init(&t, "x", "A | title", cols);
	gm_table_row(&t);
	gm_table_text(&t, 0, "o'brien \"q\", a|b");
	gm_table_num(&t, 1, 1.23456, 2);
	gm_table_row(&t);
	gm_table_text(&t, 0, "ünï\tcode_x *y* _z_");
	gm_table_num(&t, 1, NAN, 2);
	gm_table_csv(&t, &sb);
	CHECK_STR(sb.buf, "name,value\n\"o'brien \"\"q\"\", a|b\",1.23456\n"
		  "ünï\tcode_x *y* _z_,\n", "CSV: quotes doubled, n/a empty");
	strbuf_reset(&sb);
	gm_table_markdown(&t, &sb, 1);
	CHECK_STR(sb.buf, "## A \\| title\n\n| name | value |\n| --- | ---: |\n"
		  "| o'brien \"q\", a\\|b | 1.23 |\n"
		  "| ünï code_x \\*y\\* \\_z\\_ | n/a |\n",
		  "Markdown: pipes and emphasis escaped, tab to space, n/a");
	strbuf_reset(&sb);
	gm_table_json(&t, &sb);
	CHECK_STR(sb.buf, "{\"name\":\"x\",\"title\":\"A | title\",\"caption\":null,\n"
		  " \"columns\":[\"name\",\"value\"],\n \"labels\":[\"name\",\"value\"],\n"
		  " \"rows\":[\n  [\"o'brien \\\"q\\\", a|b\",1.2345600000000001],\n"
		  "  [\"ünï\\u0009code_x *y* _z_\",null]]}",
		  "JSON: strings escaped, numbers in full, n/a null");
	strbuf_reset(&sb);
	gm_table_html(&t, &sb);
	CHECK(strstr(sb.buf, "<th>value</th>") && !strstr(sb.buf, "Left out"),
	      "HTML: a column with a value is shown");
	gm_table_row(&t);
	gm_table_text(&t, 0, "z");
	gm_table_text(&t, 1, "n/a");
	t.cells[1].num = NAN;
	free(t.cells[1].text);
	t.cells[1].text = gm_xstrdup("");
	strbuf_reset(&sb);
	gm_table_html(&t, &sb);
	CHECK(!strstr(sb.buf, "<th>value</th>") &&
	      strstr(sb.buf, "Left out, n/a in every row: <code>value</code>"),
	      "HTML: a column n/a in every row is left out, and named");
	CHECK(strstr(sb.buf, "<div class=\"scroll\"><table>") != NULL,
	      "HTML: the table scrolls in its own box");
	strbuf_release(&sb);
	gm_table_release(&t);
}

/* The keys programs read the columns by: the label's words, % as pct. */
static void test_table_keys(void)
{
	static const char *const cases[][2] = {
		{ "p50 (ms)", "p50_ms" }, { "ours / paper", "ours_paper" },
		{ "STP vs cuda", "stp_vs_cuda" }, { "SM-time %", "sm_time_pct" },
		{ "T_SP/T_MP", "t_sp_t_mp" }, { "differs > 5%", "differs_5_pct" },
		{ "API->queued (ms)", "api_queued_ms" }, { "T%", "t_pct" },
		{ "smem (B)", "smem_b" }, { "workload", "workload" },
	};
	static const char *const cols[] = { "STP geomean", "p99 (ms)", NULL };
	static const char *const ci[] = { "STP geomean", NULL };
	struct strbuf sb = STRBUF_INIT;
	struct gm_table t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		gm_table_key(cases[i][0], &sb);
		CHECK_STR(sb.buf, cases[i][1], "key of a label");
	}
	gm_table_init(&t, "x", "X", cols);
	gm_table_intervals(&t, ci);
	strbuf_reset(&sb);
	gm_table_csv(&t, &sb);
	CHECK_STR(sb.buf, "stp_geomean,p99_ms,stp_geomean_lo,stp_geomean_hi\n",
		  "CSV header: keys, the bounds' after the others");
	gm_table_release(&t);
	strbuf_release(&sb);
}

/* A failed SQLite call says what it was doing and on which file, never
 * where in gpumix's source it was made. */
static void test_sql_errors(void)
{
	sqlite3 *sql = NULL;
	char *path = gm_xasprintf("%s/errors.db", scratch);

	CHECK_INT(gm_sql_check(NULL, SQLITE_DONE, "sqlite3_step(st)"),
		  SQLITE_DONE, "SQLITE_DONE is no error");
	CHECK_INT(gm_sql_check(NULL, SQLITE_BUSY, "sqlite3_step(st)"), -1,
		  "SQLITE_BUSY is one");
	CHECK_STR(gm_error_message(), "sqlite: cannot run a statement: "
		  "database is locked (database is locked)",
		  "the operation, not a source location");
	gm_error_clear();
	CHECK_INT(sqlite3_open(path, &sql), SQLITE_OK, "open a database");
	GM_SQL(sql, sqlite3_exec(sql, "SELECT * FROM missing_table", NULL, NULL, NULL));
	char *want = gm_xasprintf("sqlite: cannot run SQL on '%s': no such "
				  "table: missing_table (SQL logic error)", path);
	CHECK_STR(gm_error_message(), want, "... and the database's file");
	CHECK(!strstr(gm_error_message(), ".c:"), "no source file in it");
	gm_error_clear();
	sqlite3_close(sql);
	free(want);
	free(path);
}

int main(void)
{
	if (!mkdtemp(scratch)) {
		printf("not ok 1 - cannot create a scratch directory\n");
		return 1;
	}
	test_db();
	test_analysis();
	test_edges();
	test_no_runs();
	test_damaged();
	test_tables();
	test_table_keys();
	test_sql_errors();
	gm_remove_tree(scratch);
	return test_done();
}
