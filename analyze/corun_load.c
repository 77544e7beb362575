/* SPDX-License-Identifier: MIT */
/*
 * Loading a corun directory into the results database: one row of
 * coruns, one of corun_sections per program and run (doc/database.md).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corun_reader.h"
#include "error.h"
#include "loader_int.h"
#include "strbuf.h"

/* The co-run that holds @sql's ?1 (a hash or a workload) and ?2 (its
 * repetition, when the statement has it), or -1. */
static int find(struct gm_loader *l, const char *sql, const char *key,
		int64_t rep, int64_t *id, char **path)
{
	sqlite3_stmt *st;
	int rc;

	*id = -1;
	if (gm_db_prepare(l->db, &st, sql) || BIND_TEXT(l, st, 1, key) < 0 ||
	    (sqlite3_bind_parameter_count(st) > 1 &&
	     BIND_INT(l, st, 2, rep) < 0)) {
		sqlite3_finalize(st);
		return -1;
	}
	rc = GM_SQL(l->db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		free(*path);
		*path = gm_xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int gm_loader_delete_corun(struct gm_loader *l, int64_t id)
{
	char *sql = gm_xasprintf("DELETE FROM corun_sections WHERE corunId = "
				 "%" PRId64 "; DELETE FROM coruns WHERE id = "
				 "%" PRId64 ";%s", id, id,
				 gm_loader_orphan_workloads_sql);
	int ret = gm_db_exec(l->db, sql);

	free(sql);
	return ret;
}

/* As check_existing() of loader.c: 1 skip, 0 go on, -1 error. */
static int check_existing(struct gm_loader *l, const struct gm_corun_dir *c,
			  struct gm_load_info *info)
{
	int64_t old;

	if (find(l, "SELECT id, path FROM coruns WHERE hash = ?1", c->hash, 0,
		 &old, &info->previous_path)) {
		return -1;
	}
	if (old >= 0) {
		if (!l->force) {
			info->outcome = GM_LOAD_SKIPPED;
			info->run_id = old;
			return 1;
		}
		info->outcome = GM_LOAD_REPLACED;
		if (gm_loader_delete_corun(l, old)) {
			return -1;
		}
	}
	if (find(l, "SELECT c.id, c.path FROM coruns c JOIN workloads w"
		 " ON w.id = c.workloadId WHERE w.name = ?1 AND c.repetition = ?2",
		 c->workload, c->repetition, &old, &info->previous_path)) {
		return -1;
	}
	if (old >= 0) {
		if (!l->force) {
			return gm_error("the database already holds another co-run "
					"'%s' (loaded from '%s')", info->label,
					info->previous_path);
		}
		info->outcome = GM_LOAD_REPLACED;
		if (gm_loader_delete_corun(l, old)) {
			return -1;
		}
	}
	return 0;
}

static int bind_opt(struct gm_loader *l, sqlite3_stmt *st, int i,
		    const char *v)
{
	return v ? BIND_TEXT(l, st, i, v)
		 : GM_SQL(l->db->sql, sqlite3_bind_null(st, i));
}

static int insert(struct gm_loader *l, const struct gm_corun_dir *c,
		  int64_t wid, int64_t *id)
{
	sqlite3_stmt *st = NULL;
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	int ret = -1;

	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gm_db_prepare(l->db, &st, "INSERT INTO coruns (hash, path,"
			  " workloadId, repeats, mechanisms, skipped, status,"
			  " failure, deviceName, hostname, gpu, barrierTimeoutS,"
			  " gpumixVersion, startedAt, finishedAt, loadedAt,"
			  " repetition) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
			  " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)") ||
	    BIND_TEXT(l, st, 1, c->hash) < 0 || BIND_TEXT(l, st, 2, c->path) < 0 ||
	    BIND_INT(l, st, 3, wid) < 0 || BIND_INT(l, st, 4, c->repeats) < 0 ||
	    BIND_TEXT(l, st, 5, c->mechanisms) < 0 ||
	    bind_opt(l, st, 6, c->skipped) < 0 ||
	    BIND_TEXT(l, st, 7, c->status) < 0 ||
	    bind_opt(l, st, 8, c->failure) < 0 ||
	    BIND_TEXT(l, st, 9, c->device_name) < 0 ||
	    bind_opt(l, st, 10, c->hostname) < 0 ||
	    bind_opt(l, st, 11, c->gpu) < 0 ||
	    GM_SQL(l->db->sql, sqlite3_bind_double(st, 12,
						   c->barrier_timeout_s)) < 0 ||
	    BIND_TEXT(l, st, 13, c->gpumix_version) < 0 ||
	    BIND_TEXT(l, st, 14, c->started_at) < 0 ||
	    BIND_TEXT(l, st, 15, c->finished_at) < 0 ||
	    BIND_TEXT(l, st, 16, now) < 0 ||
	    BIND_INT(l, st, 17, c->repetition) < 0 || gm_loader_step(l, st)) {
		goto out;
	}
	*id = sqlite3_last_insert_rowid(l->db->sql);
	sqlite3_finalize(st);
	st = NULL;
	if (gm_db_prepare(l->db, &st, "INSERT INTO corun_sections (corunId,"
			  " mode, repeat, idx, program, start, end, ops,"
			  " processes, firstOp, lastOp) VALUES (?1, ?2, ?3, ?4,"
			  " ?5, ?6, ?7, ?8, ?9, ?10, ?11)")) {
		goto out;
	}
	for (size_t i = 0; i < c->nr_sections; i++) {
		const struct gm_corun_section *s = &c->sections[i];
		if (BIND_INT(l, st, 1, *id) < 0 || BIND_TEXT(l, st, 2, s->mode) < 0 ||
		    BIND_INT(l, st, 3, s->repeat) < 0 ||
		    BIND_INT(l, st, 4, (int64_t)s->program) < 0 ||
		    BIND_TEXT(l, st, 5, c->programs[s->program]) < 0 ||
		    BIND_INT(l, st, 6, s->start) < 0 ||
		    BIND_INT(l, st, 7, s->end) < 0 ||
		    BIND_INT(l, st, 8, s->ops) < 0 ||
		    BIND_INT(l, st, 9, s->processes) < 0 ||
		    BIND_TEXT(l, st, 10, s->first_op) < 0 ||
		    BIND_TEXT(l, st, 11, s->last_op) < 0 || gm_loader_step(l, st)) {
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

int gm_loader_load_corun(struct gm_loader *l, const char *dir,
			 struct gm_load_info *info)
{
	struct gm_corun_dir c;
	int64_t wid, id;
	int ret = -1, in_tx = 0, rc;

	if (gm_corun_dir_read(&c, dir)) {
		goto out;
	}
	info->label = c.repetition ? gm_xasprintf("%s.corun.r%" PRId64,
						  c.workload, c.repetition)
				   : gm_xasprintf("%s.corun", c.workload);
	info->corun = 1;
	info->sections = c.nr_sections;
	if (gm_db_begin(l->db)) {
		goto out;
	}
	in_tx = 1;
	rc = check_existing(l, &c, info);
	if (rc) {
		ret = rc > 0 ? 0 : -1;
		goto out;
	}
	if (gm_loader_workload(l, c.workload, c.nr_programs, &wid) ||
	    insert(l, &c, wid, &id) || gm_db_commit(l->db)) {
		goto out;
	}
	in_tx = 0;
	info->run_id = id;
	ret = 0;
out:
	if (in_tx) {
		gm_db_rollback(l->db);
	}
	if (ret) {
		gm_error("cannot load co-run '%s' (nothing of it was loaded)",
			 dir);
	}
	gm_corun_dir_release(&c);
	return ret;
}
