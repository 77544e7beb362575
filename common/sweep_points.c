/* SPDX-License-Identifier: MIT */
/*
 * A sweep's points.csv read, looked up, changed and written back (see
 * sweep_points.h): the one place its format is known.
 */
#include "sweep_points.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "error.h"
#include "strbuf.h"

static const char *const axes[] = { "smem", "regs", "blocks", NULL };

int gm_csv_fields(char *line, char **f, int n)
{
	int i = 0;

	for (char *p = line; i < n; i++) {
		f[i] = p;
		p = strchr(p, ',');
		if (!p) {
			return i == n - 1 ? 0 : -1;
		}
		*p++ = 0;
	}
	return -1;
}

static int is_axis(const char *s)
{
	for (int i = 0; axes[i]; i++) {
		if (!strcmp(s, axes[i])) {
			return 1;
		}
	}
	return 0;
}

/* The fields of one point line into @r (not yet owning its strings). */
static int parse_line(char *line, struct gm_sweep_row *r)
{
	char *f[7], *e1, *e2, *e3;

	if (gm_csv_fields(line, f, 7) < 0 || !*f[0] || !*f[1] || !is_axis(f[2]) ||
	    strchr(f[0], '"') || strchr(f[1], '"')) {
		return gm_error("not a point (program,kernel,axis,value,time_ms,"
				"blocks_per_sm,limiting; axis smem, regs or "
				"blocks)");
	}
	errno = 0;
	r->value = strtol(f[3], &e1, 10);
	r->time_ms = strtod(f[4], &e2);
	r->blocks_per_sm = (int)strtol(f[5], &e3, 10);
	if (errno || *e1 || !*f[3] || *e2 || !*f[4] || !(r->time_ms > 0) ||
	    *e3 || !*f[5] || r->blocks_per_sm < 0) {
		return gm_error("value, time_ms (> 0) and blocks_per_sm must be "
				"numbers");
	}
	r->program = f[0];
	r->kernel = f[1];
	r->axis = f[2];
	r->limiting = f[6];
	return 0;
}

int gm_sweep_points_read(struct gm_sweep_points *p, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t alloc = 0;
	unsigned long lineno = 0;
	int ret = 0;

	if (!f) {
		return gm_error_errno("cannot open '%s'", path);
	}
	while (!ret && getline(&line, &alloc, f) >= 0) {
		struct gm_sweep_row r;
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (lineno == 1) {
			if (strcmp(line, GM_SWEEP_POINTS_HEADER)) {
				ret = gm_error("%s:1: not the header '%s'", path,
					       GM_SWEEP_POINTS_HEADER);
			}
			continue;
		}
		if (!*line) {
			continue;
		}
		if (parse_line(line, &r) < 0) {
			char why[256];
			snprintf(why, sizeof(why), "%s", gm_error_message());
			gm_error_clear();
			ret = gm_error("%s:%lu: %s", path, lineno, why);
			break;
		}
		gm_sweep_points_set(p, &r);
	}
	if (!ret && ferror(f)) {
		ret = gm_error_errno("cannot read '%s'", path);
	}
	if (!ret && !lineno) {
		ret = gm_error("%s: empty (not even the header)", path);
	}
	free(line);
	fclose(f);
	return ret;
}

struct gm_sweep_row *gm_sweep_points_find(const struct gm_sweep_points *p,
					  const char *program,
					  const char *kernel, const char *axis,
					  long value)
{
	for (size_t i = 0; i < p->nr; i++) {
		struct gm_sweep_row *r = &p->rows[i];
		if (r->value == value && !strcmp(r->axis, axis) &&
		    !strcmp(r->kernel, kernel) && !strcmp(r->program, program)) {
			return r;
		}
	}
	return NULL;
}

static void row_free(struct gm_sweep_row *r)
{
	free(r->program);
	free(r->kernel);
	free(r->axis);
	free(r->limiting);
}

void gm_sweep_points_set(struct gm_sweep_points *p,
			 const struct gm_sweep_row *row)
{
	struct gm_sweep_row *r = gm_sweep_points_find(p, row->program,
						      row->kernel, row->axis,
						      row->value);

	if (r) {
		row_free(r);
	} else {
		GM_ALLOC_GROW(p->rows, p->nr + 1, p->alloc);
		r = &p->rows[p->nr++];
	}
	r->program = gm_xstrdup(row->program);
	r->kernel = gm_xstrdup(row->kernel);
	r->axis = gm_xstrdup(row->axis);
	r->value = row->value;
	r->time_ms = row->time_ms;
	r->blocks_per_sm = row->blocks_per_sm;
	r->limiting = gm_xstrdup(row->limiting ? row->limiting : "");
}

void gm_sweep_points_write(const struct gm_sweep_points *p, FILE *f)
{
	fprintf(f, "%s\n", GM_SWEEP_POINTS_HEADER);
	for (size_t i = 0; i < p->nr; i++) {
		const struct gm_sweep_row *r = &p->rows[i];
		/* (%.6f: a microsecond's thousandth, as the runs measure) */
		fprintf(f, "%s,%s,%s,%ld,%.6f,%d,%s\n", r->program, r->kernel,
			r->axis, r->value, r->time_ms, r->blocks_per_sm,
			r->limiting);
	}
}

int gm_sweep_points_save(const struct gm_sweep_points *p, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f) {
		return gm_error_errno("cannot write '%s'", path);
	}
	gm_sweep_points_write(p, f);
	fclose(f);
	ret = gm_write_file_atomic(path, buf, len, 1);
	free(buf);
	return ret;
}

void gm_sweep_points_release(struct gm_sweep_points *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		row_free(&p->rows[i]);
	}
	free(p->rows);
	memset(p, 0, sizeof(*p));
}
