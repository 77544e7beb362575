/* SPDX-License-Identifier: MIT */
/*
 * Loading the SM-stretch curves of `gpumix scale --stretch` into the
 * results database: DIR/stretch.csv (analyze/stretch_curve.h) becomes
 * rows of the stretch table, each program's device name and SM count
 * read from its identity run (DIR/runs/PROGRAM.identity). A database
 * holds one curve per device, program and kernel: a program loaded
 * again replaces its rows (doc/database.md, "stretch").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fs.h"
#include "loader_int.h"
#include "run_reader.h"
#include "strbuf.h"

#define STRETCH_HEADER "program,kernel,k,launches,time_ms,round_ms," \
		       "stretch_ms,linear_ms"

int gm_stretch_dir_is(const char *dir)
{
	char *csv = gm_path_join(dir, "stretch.csv");
	int is = gm_path_exists(csv);

	free(csv);
	return is;
}

/* Split @line at commas into @f (8 fields exactly): 0 or -1. */
static int split(char *line, char *f[8])
{
	int n = 0;

	for (char *p = line;; p++) {
		if (n == 8) {
			return -1;
		}
		f[n++] = p;
		p = strchr(p, ',');
		if (!p) {
			break;
		}
		*p = 0;
	}
	return n == 8 ? 0 : -1;
}

static int num(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end ? 0 : -1;
}

/* The device of @program's identity run under @dir. */
static int device_of(const char *dir, const char *program, char **name,
		     int64_t *sms)
{
	char *path = gm_xasprintf("%s/runs/%s.identity", dir, program);
	struct gm_run_dir run;
	int ret = -1;

	if (gm_run_dir_read(&run, path) == 0) {
		free(*name);
		*name = gm_xstrdup(run.device_name ? run.device_name : "");
		*sms = run.sm_count;
		ret = 0;
	}
	gm_run_dir_release(&run);
	free(path);
	return ret;
}

int gm_loader_load_stretch(struct gm_loader *l, const char *dir,
			   struct gm_load_info *info)
{
	char *path = gm_path_join(dir, "stretch.csv");
	char *line = NULL, *dev = NULL, *prog = NULL, now[32];
	size_t alloc = 0;
	unsigned long lineno = 0;
	int64_t sms = 0;
	sqlite3_stmt *del = NULL, *ins = NULL;
	FILE *f = fopen(path, "r");
	int ret = -1, in_tx = 0;
	struct tm tm;
	time_t t = time(NULL);

	info->label = gm_xstrdup("stretch");
	info->stretch = 1;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!f) {
		gm_error_errno("cannot open '%s'", path);
		goto out;
	}
	if (getline(&line, &alloc, f) < 0 ||
	    strcmp(strtok(line, "\r\n") ? line : "", STRETCH_HEADER)) {
		gm_error("%s:1: not the header '%s'", path, STRETCH_HEADER);
		goto out;
	}
	lineno = 1;
	if (gm_db_begin(l->db)) {
		goto out;
	}
	in_tx = 1;
	if (gm_db_prepare(l->db, &del, "DELETE FROM stretch WHERE deviceName"
			  " = ?1 AND program = ?2") ||
	    gm_db_prepare(l->db, &ins, "INSERT INTO stretch (deviceName,"
			  " smCount, program, kernel, k, launches, timeMs,"
			  " roundMs, stretchMs, linearMs, path, loadedAt)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
			  " ?11, ?12)")) {
		goto out;
	}
	while (getline(&line, &alloc, f) >= 0) {
		char *fl[8];
		double k, launches, v[4] = { 0, 0, 0, 0 };
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (!*line) {
			continue;
		}
		if (split(line, fl) < 0 || !*fl[0] || !*fl[1] ||
		    num(fl[2], &k) < 0 || k < 1 || num(fl[3], &launches) < 0 ||
		    num(fl[4], &v[0]) < 0 || num(fl[5], &v[1]) < 0 ||
		    (*fl[6] && num(fl[6], &v[2]) < 0) ||
		    (*fl[7] && num(fl[7], &v[3]) < 0)) {
			gm_error("%s:%lu: not a stretch point (program,kernel,"
				 "k,launches,time_ms,round_ms,stretch_ms,"
				 "linear_ms)", path, lineno);
			goto out;
		}
		if (!prog || strcmp(prog, fl[0])) {
			free(prog);
			prog = gm_xstrdup(fl[0]);
			if (device_of(dir, prog, &dev, &sms) < 0) {
				gm_error("%s:%lu: program '%s' has no identity "
					 "run in '%s/runs'", path, lineno, prog,
					 dir);
				goto out;
			}
			if (BIND_TEXT(l, del, 1, dev) < 0 ||
			    BIND_TEXT(l, del, 2, prog) < 0 ||
			    gm_loader_step(l, del)) {
				goto out;
			}
		}
		if (BIND_TEXT(l, ins, 1, dev) < 0 || BIND_INT(l, ins, 2, sms) < 0 ||
		    BIND_TEXT(l, ins, 3, fl[0]) < 0 ||
		    BIND_TEXT(l, ins, 4, fl[1]) < 0 ||
		    BIND_INT(l, ins, 5, (int64_t)k) < 0 ||
		    BIND_INT(l, ins, 6, (int64_t)launches) < 0 ||
		    GM_SQL(l->db->sql, sqlite3_bind_double(ins, 7, v[0])) < 0 ||
		    GM_SQL(l->db->sql, sqlite3_bind_double(ins, 8, v[1])) < 0 ||
		    GM_SQL(l->db->sql, *fl[6] ? sqlite3_bind_double(ins, 9, v[2])
					      : sqlite3_bind_null(ins, 9)) < 0 ||
		    GM_SQL(l->db->sql, *fl[7] ? sqlite3_bind_double(ins, 10, v[3])
					      : sqlite3_bind_null(ins, 10)) < 0 ||
		    BIND_TEXT(l, ins, 11, dir) < 0 ||
		    BIND_TEXT(l, ins, 12, now) < 0 || gm_loader_step(l, ins)) {
			gm_error("%s:%lu: cannot store the point (a kernel's k "
				 "twice?)", path, lineno);
			goto out;
		}
		info->kernels++;
	}
	if (gm_db_commit(l->db)) {
		goto out;
	}
	in_tx = 0;
	ret = 0;
out:
	if (in_tx) {
		gm_db_rollback(l->db);
	}
	if (ret) {
		gm_error("cannot load the stretch curves of '%s' (nothing of "
			 "them was loaded)", dir);
	}
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	if (f) {
		fclose(f);
	}
	free(line);
	free(prog);
	free(dev);
	free(path);
	return ret;
}
