/* SPDX-License-Identifier: MIT */
/*
 * Reading a corun directory (see corun_reader.h).
 */
#include "corun_reader.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "run_reader.h"
#include "strbuf.h"
#include "tsv.h"

static const char sections_header[] =
	"mode\trepeat\tprogram\tstart_ns\tend_ns\tops\tprocesses\tfirst_op"
	"\tlast_op";

int gm_corun_dir_is(const char *path)
{
	struct kvfile kv = KVFILE_INIT;
	char *m = gm_path_join(path, "manifest");
	const char *f;
	int yes = 0;

	if (!kvfile_read(&kv, m)) {
		f = kvfile_get(&kv, "format");
		yes = f && !strcmp(f, GM_CORUN_DIR_FORMAT);
	}
	gm_error_clear();
	kvfile_release(&kv);
	free(m);
	return yes;
}

static int get_str(struct gm_corun_dir *c, const char *key, const char **out,
		   const char *what)
{
	*out = kvfile_get(&c->manifest, key);
	if (!*out) {
		return gm_error("%s: missing key '%s'", what, key);
	}
	return 0;
}

/* 1 when @mode is "alone" or one of the manifest's mechanisms. */
static int known_mode(const struct gm_corun_dir *c, const char *mode)
{
	size_t n = strlen(mode);

	if (!strcmp(mode, GM_CORUN_ALONE)) {
		return 1;
	}
	for (const char *p = c->mechanisms; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, mode, n)) {
			return 1;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

static int read_manifest(struct gm_corun_dir *c, const char *what)
{
	struct strbuf skipped = STRBUF_INIT;
	const char *v;
	char key[64], *end;
	int64_t n;

	if (kvfile_read(&c->manifest, what)) {
		return -1;
	}
	v = kvfile_get(&c->manifest, "format");
	if (!v || strcmp(v, GM_CORUN_DIR_FORMAT)) {
		return gm_error("%s: format is '%s', not '%s'", what,
				v ? v : "(missing)", GM_CORUN_DIR_FORMAT);
	}
	if (get_str(c, "workload", &c->workload, what) ||
	    get_str(c, "mechanisms", &c->mechanisms, what) ||
	    get_str(c, "status", &c->status, what) ||
	    get_str(c, "device.name", &c->device_name, what) ||
	    get_str(c, "gpumix_version", &c->gpumix_version, what) ||
	    get_str(c, "started_at", &c->started_at, what) ||
	    get_str(c, "finished_at", &c->finished_at, what) ||
	    get_str(c, "barrier_timeout_s", &v, what)) {
		return -1;
	}
	c->barrier_timeout_s = strtod(v, &end);
	if (!*v || *end || !(c->barrier_timeout_s > 0)) {
		return gm_error("%s: 'barrier_timeout_s' is not a number above 0: "
				"'%s'", what, v);
	}
	if (strcmp(c->status, "ok") && strcmp(c->status, "failed")) {
		return gm_error("%s: status is '%s', not 'ok' or 'failed'", what,
				c->status);
	}
	c->failure = kvfile_get(&c->manifest, "failure");
	if (!strcmp(c->status, "failed") && !c->failure) {
		return gm_error("%s: a failed co-run without 'failure'", what);
	}
	c->hostname = kvfile_get(&c->manifest, "hostname");
	c->gpu = kvfile_get(&c->manifest, "device.visible");
	v = kvfile_get(&c->manifest, "repeats");
	if (!v || gm_tsv_int(v, 1, INT64_MAX, &c->repeats)) {
		return gm_error("%s: 'repeats' is not an integer >= 1: '%s'", what,
				v ? v : "(missing)");
	}
	v = kvfile_get(&c->manifest, "run.repetition");
	if (v && gm_tsv_int(v, 0, INT64_MAX, &c->repetition)) {
		return gm_error("%s: 'run.repetition' is not an integer >= 0: '%s'",
				what, v);
	}
	v = kvfile_get(&c->manifest, "programs");
	if (!v || gm_tsv_int(v, 2, 4096, &n)) {
		return gm_error("%s: 'programs' is not 2 to 4096: '%s'", what,
				v ? v : "(missing)");
	}
	c->nr_programs = (size_t)n;
	c->programs = gm_xcalloc(c->nr_programs, sizeof(*c->programs));
	c->bundles = gm_xcalloc(c->nr_programs, sizeof(*c->bundles));
	for (size_t i = 0; i < c->nr_programs; i++) {
		snprintf(key, sizeof(key), "program.%zu.name", i);
		if (get_str(c, key, &c->programs[i], what)) {
			return -1;
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(c->programs[j], c->programs[i])) {
				return gm_error("%s: programs %zu and %zu are both "
						"called '%s'", what, j, i,
						c->programs[i]);
			}
		}
		snprintf(key, sizeof(key), "program.%zu.bundle", i);
		if (get_str(c, key, &c->bundles[i], what)) {
			return -1;
		}
	}
	for (size_t i = 0; i < c->manifest.nr; i++) {
		if (!strncmp(c->manifest.keys[i], "skipped.", 8)) {
			strbuf_addf(&skipped, "%s%s: %s", skipped.len ? "; " : "",
				    c->manifest.keys[i] + 8, c->manifest.values[i]);
		}
	}
	c->skipped = skipped.len ? strbuf_detach(&skipped, NULL) : NULL;
	strbuf_release(&skipped);
	return 0;
}

static long find_program(const struct gm_corun_dir *c, const char *name)
{
	for (size_t i = 0; i < c->nr_programs; i++) {
		if (!strcmp(c->programs[i], name)) {
			return (long)i;
		}
	}
	return -1;
}

static int parse_section(struct gm_corun_dir *c, char *line, const char *what,
			 unsigned lineno)
{
	char *f[9];
	struct gm_corun_section s = { 0 };
	long prog;

	if (gm_tsv_split(line, f, 9) != 9) {
		return gm_error("%s:%u: expected 9 tab-separated fields", what,
				lineno);
	}
	if (!known_mode(c, f[0])) {
		return gm_error("%s:%u: mode '%s' is neither '%s' nor one of the "
				"mechanisms (%s)", what, lineno, f[0],
				GM_CORUN_ALONE, c->mechanisms);
	}
	prog = find_program(c, f[2]);
	if (prog < 0) {
		return gm_error("%s:%u: program '%s' is not in the manifest", what,
				lineno, f[2]);
	}
	if (gm_tsv_int(f[1], 0, c->repeats - 1, &s.repeat) ||
	    gm_tsv_int(f[3], 0, INT64_MAX, &s.start) ||
	    gm_tsv_int(f[4], 0, INT64_MAX, &s.end) ||
	    gm_tsv_int(f[5], 1, INT64_MAX, &s.ops) ||
	    gm_tsv_int(f[6], 1, INT64_MAX, &s.processes)) {
		return gm_error("%s:%u: repeat must be below %" PRId64 ", start_ns "
				"and end_ns non-negative integers, ops and "
				"processes at least 1", what, lineno, c->repeats);
	}
	if (s.end < s.start) {
		return gm_error("%s:%u: the section ends before it starts", what,
				lineno);
	}
	for (size_t i = 0; i < c->nr_sections; i++) {
		const struct gm_corun_section *o = &c->sections[i];
		if (o->program == (size_t)prog && o->repeat == s.repeat &&
		    !strcmp(o->mode, f[0])) {
			return gm_error("%s:%u: %s run %" PRId64 " of '%s' appears "
					"twice", what, lineno, f[0], s.repeat, f[2]);
		}
	}
	s.program = (size_t)prog;
	s.mode = gm_xstrdup(f[0]);
	s.first_op = gm_xstrdup(f[7]);
	s.last_op = gm_xstrdup(f[8]);
	GM_ALLOC_GROW(c->sections, c->nr_sections + 1, c->alloc_sections);
	c->sections[c->nr_sections++] = s;
	return 0;
}

static int read_sections(struct gm_corun_dir *c, struct strbuf *text,
			 const char *what)
{
	char *p = text->buf, *end = text->buf + text->len;
	unsigned lineno = 0;

	if (memchr(text->buf, '\0', text->len)) {
		return gm_error("%s: contains NUL bytes", what);
	}
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		lineno++;
		if (!nl) {
			return gm_error("%s:%u: truncated line (no newline at end "
					"of file)", what, lineno);
		}
		*nl = '\0';
		if (lineno == 1) {
			if (strcmp(p, sections_header)) {
				return gm_error("%s:1: expected the header 'mode"
						"<TAB>repeat<TAB>program<TAB>...'",
						what);
			}
		} else if (parse_section(c, p, what, lineno)) {
			return -1;
		}
		p = nl + 1;
	}
	if (!lineno) {
		return gm_error("%s: empty file (expected at least the header)",
				what);
	}
	return 0;
}

int gm_corun_dir_read(struct gm_corun_dir *c, const char *path)
{
	struct strbuf manifest = STRBUF_INIT, sections = STRBUF_INIT;
	char *mpath, *spath;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	kvfile_init(&c->manifest);
	c->path = gm_xstrdup(path);
	mpath = gm_path_join(path, "manifest");
	spath = gm_path_join(path, "sections.tsv");
	if (read_manifest(c, mpath) || gm_read_file(mpath, &manifest) ||
	    gm_read_file(spath, &sections)) {
		goto out;
	}
	gm_dir_identity(&manifest, &sections, c->hash);
	if (read_sections(c, &sections, spath)) {
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&manifest);
	strbuf_release(&sections);
	free(mpath);
	free(spath);
	return ret;
}

void gm_corun_dir_release(struct gm_corun_dir *c)
{
	for (size_t i = 0; i < c->nr_sections; i++) {
		free(c->sections[i].mode);
		free(c->sections[i].first_op);
		free(c->sections[i].last_op);
	}
	free(c->sections);
	free(c->programs);
	free(c->bundles);
	free(c->skipped);
	free(c->path);
	kvfile_release(&c->manifest);
	memset(c, 0, sizeof(*c));
}
