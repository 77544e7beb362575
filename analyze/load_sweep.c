/* SPDX-License-Identifier: MIT */
/*
 * Loading a resource-specification sweep (`gpumix sweep --run DIR`,
 * doc/gpumix-sweep.md) into the results database: DIR/points.csv
 * becomes rows of the sweep table and DIR/cliffs.csv of sweep_cliffs,
 * each program's device read from its base run (DIR/runs/NAME.base, the
 * program named in its manifest). A database holds one sweep per
 * device, program and kernel: a program loaded again replaces its rows
 * in both tables (doc/database.md, "sweep").
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fs.h"
#include "loader_int.h"
#include "run_reader.h"
#include "strbuf.h"
#include "sweep_points.h"
#include "sweep_report.h"

int gm_sweep_dir_is(const char *dir)
{
	char *pts = gm_path_join(dir, "points.csv");
	char *cl = gm_path_join(dir, "cliffs.csv");
	int is = gm_path_exists(pts) && gm_path_exists(cl);

	free(pts);
	free(cl);
	return is;
}

struct device {
	char *program, *name;
	int64_t sms;
};

/* The devices of the base runs under @dir/runs, by program. */
static int read_devices(const char *dir, struct device **out, size_t *nr)
{
	char *runs = gm_path_join(dir, "runs");
	DIR *d = opendir(runs);
	struct dirent *de;
	size_t alloc = 0;
	int ret = 0;

	if (!d) {
		ret = gm_error_errno("cannot read '%s'", runs);
		free(runs);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct gm_run_dir run;
		char *path;
		if (len < 6 || strcmp(de->d_name + len - 5, ".base")) {
			continue;
		}
		path = gm_path_join(runs, de->d_name);
		if (gm_run_dir_read(&run, path) == 0 && run.nr_programs == 1) {
			GM_ALLOC_GROW(*out, *nr + 1, alloc);
			(*out)[*nr].program = gm_xstrdup(run.programs[0].name);
			(*out)[*nr].name = gm_xstrdup(run.device_name ?
						      run.device_name : "");
			(*out)[*nr].sms = run.sm_count;
			(*nr)++;
		} else {
			ret = gm_error("cannot read the base run '%s'", path);
		}
		gm_run_dir_release(&run);
		free(path);
	}
	closedir(d);
	free(runs);
	return ret;
}

static const struct device *device_of(const struct device *d, size_t nr,
				      const char *program)
{
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(d[i].program, program)) {
			return &d[i];
		}
	}
	return NULL;
}

static int num(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end ? 0 : -1;
}

/* The rows of cliffs.csv under @dir into sweep_cliffs. */
static int load_cliffs(struct gm_loader *l, const char *dir,
		       const struct device *dev, size_t nd, const char *now)
{
	char *path = gm_path_join(dir, "cliffs.csv");
	FILE *f = fopen(path, "r");
	sqlite3_stmt *ins = NULL;
	char *line = NULL;
	size_t alloc = 0;
	unsigned long lineno = 0;
	int ret = -1;

	if (!f) {
		gm_error_errno("cannot open '%s'", path);
		goto out;
	}
	if (gm_db_prepare(l->db, &ins, "INSERT INTO sweep_cliffs (deviceName,"
			  " program, kernel, axis, fromValue, toValue, fromMs,"
			  " toMs, jumpPct, fromBlocksPerSm, toBlocksPerSm,"
			  " binding, path, loadedAt) VALUES (?1, ?2, ?3, ?4,"
			  " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)")) {
		goto out;
	}
	while (getline(&line, &alloc, f) >= 0) {
		char *fl[11];
		double v[7];
		const struct device *d;
		int bad = 0;
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (lineno == 1) {
			if (strcmp(line, GM_SWEEP_CLIFFS_HEADER)) {
				gm_error("%s:1: not the header '%s'", path,
					 GM_SWEEP_CLIFFS_HEADER);
				goto out;
			}
			continue;
		}
		if (!*line) {
			continue;
		}
		bad = gm_csv_fields(line, fl, 11) < 0;
		for (int i = 0; !bad && i < 7; i++) {
			bad = num(fl[3 + i], &v[i]) < 0;
		}
		if (bad) {
			gm_error("%s:%lu: not a cliff (%s)", path, lineno,
				 GM_SWEEP_CLIFFS_HEADER);
			goto out;
		}
		if (!(d = device_of(dev, nd, fl[0]))) {
			gm_error("%s:%lu: program '%s' has no base run in "
				 "'%s/runs'", path, lineno, fl[0], dir);
			goto out;
		}
		if (BIND_TEXT(l, ins, 1, d->name) < 0 ||
		    BIND_TEXT(l, ins, 2, fl[0]) < 0 ||
		    BIND_TEXT(l, ins, 3, fl[1]) < 0 ||
		    BIND_TEXT(l, ins, 4, fl[2]) < 0 ||
		    BIND_INT(l, ins, 5, (int64_t)v[0]) < 0 ||
		    BIND_INT(l, ins, 6, (int64_t)v[1]) < 0 ||
		    GM_SQL(l->db->sql, sqlite3_bind_double(ins, 7, v[2])) < 0 ||
		    GM_SQL(l->db->sql, sqlite3_bind_double(ins, 8, v[3])) < 0 ||
		    GM_SQL(l->db->sql, sqlite3_bind_double(ins, 9, v[4])) < 0 ||
		    BIND_INT(l, ins, 10, (int64_t)v[5]) < 0 ||
		    BIND_INT(l, ins, 11, (int64_t)v[6]) < 0 ||
		    BIND_TEXT(l, ins, 12, fl[10]) < 0 ||
		    BIND_TEXT(l, ins, 13, dir) < 0 ||
		    BIND_TEXT(l, ins, 14, now) < 0 || gm_loader_step(l, ins)) {
			gm_error("%s:%lu: cannot store the cliff (twice?)", path,
				 lineno);
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(ins);
	if (f) {
		fclose(f);
	}
	free(line);
	free(path);
	return ret;
}

int gm_loader_load_sweep(struct gm_loader *l, const char *dir,
			 struct gm_load_info *info)
{
	char *path = gm_path_join(dir, "points.csv");
	struct gm_sweep_points p = GM_SWEEP_POINTS_INIT;
	struct device *dev = NULL;
	size_t nd = 0;
	sqlite3_stmt *del = NULL, *delc = NULL, *ins = NULL;
	int ret = -1, in_tx = 0;
	char now[32];
	struct tm tm;
	time_t t = time(NULL);

	info->label = gm_xstrdup("sweep");
	info->sweep = 1;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gm_sweep_points_read(&p, path) < 0 ||
	    read_devices(dir, &dev, &nd) < 0) {
		goto out;
	}
	if (gm_db_begin(l->db)) {
		goto out;
	}
	in_tx = 1;
	if (gm_db_prepare(l->db, &del, "DELETE FROM sweep WHERE deviceName"
			  " = ?1 AND program = ?2") ||
	    gm_db_prepare(l->db, &delc, "DELETE FROM sweep_cliffs WHERE"
			  " deviceName = ?1 AND program = ?2") ||
	    gm_db_prepare(l->db, &ins, "INSERT INTO sweep (deviceName,"
			  " smCount, program, kernel, axis, value, timeMs,"
			  " blocksPerSm, limiting, path, loadedAt) VALUES (?1,"
			  " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")) {
		goto out;
	}
	/* Each program's rows replaced, for its device. */
	for (size_t i = 0; i < nd; i++) {
		for (int t2 = 0; t2 < 2; t2++) {
			sqlite3_stmt *st = t2 ? delc : del;
			if (BIND_TEXT(l, st, 1, dev[i].name) < 0 ||
			    BIND_TEXT(l, st, 2, dev[i].program) < 0 ||
			    gm_loader_step(l, st)) {
				goto out;
			}
		}
	}
	for (size_t i = 0; i < p.nr; i++) {
		const struct gm_sweep_row *r = &p.rows[i];
		const struct device *d = device_of(dev, nd, r->program);
		if (!d) {
			gm_error("%s: program '%s' has no base run in '%s/runs'",
				 path, r->program, dir);
			goto out;
		}
		if (BIND_TEXT(l, ins, 1, d->name) < 0 ||
		    BIND_INT(l, ins, 2, d->sms) < 0 ||
		    BIND_TEXT(l, ins, 3, r->program) < 0 ||
		    BIND_TEXT(l, ins, 4, r->kernel) < 0 ||
		    BIND_TEXT(l, ins, 5, r->axis) < 0 ||
		    BIND_INT(l, ins, 6, r->value) < 0 ||
		    GM_SQL(l->db->sql, sqlite3_bind_double(ins, 7, r->time_ms)) < 0 ||
		    BIND_INT(l, ins, 8, r->blocks_per_sm) < 0 ||
		    BIND_TEXT(l, ins, 9, r->limiting) < 0 ||
		    BIND_TEXT(l, ins, 10, dir) < 0 ||
		    BIND_TEXT(l, ins, 11, now) < 0 || gm_loader_step(l, ins)) {
			goto out;
		}
		info->kernels++;
	}
	if (load_cliffs(l, dir, dev, nd, now) < 0 || gm_db_commit(l->db)) {
		goto out;
	}
	in_tx = 0;
	ret = 0;
out:
	if (in_tx) {
		gm_db_rollback(l->db);
	}
	if (ret) {
		gm_error("cannot load the sweep '%s' (nothing of it was loaded)",
			 dir);
	}
	sqlite3_finalize(del);
	sqlite3_finalize(delc);
	sqlite3_finalize(ins);
	for (size_t i = 0; i < nd; i++) {
		free(dev[i].program);
		free(dev[i].name);
	}
	free(dev);
	gm_sweep_points_release(&p);
	free(path);
	return ret;
}
