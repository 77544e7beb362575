/* SPDX-License-Identifier: MIT */
/*
 * Reader of drivercalls.tsv (see drivercalls_reader.h).
 */
#include "drivercalls_reader.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "tsv.h"

/* The histogram @s: 25 counts that add up to @count. */
static int check_hist(const char *s, int64_t count)
{
	int64_t sum = 0;
	int n = 0;

	while (*s) {
		char *end;
		unsigned long long v;
		if (*s < '0' || *s > '9') {
			return -1;
		}
		v = strtoull(s, &end, 10);
		sum += (int64_t)v;
		n++;
		s = end;
		if (*s == ',') {
			s++;
			if (!*s) {
				return -1;
			}
		} else if (*s) {
			return -1;
		}
	}
	return n == GM_DRIVERCALLS_BUCKETS && sum == count ? 0 : -1;
}

static int parse_line(const struct gm_run_dir *run, const char *path,
		      unsigned long line, char **f, size_t n,
		      struct gm_drivercall *c)
{
	int slow = !strcmp(f[0], "SLOW");
	size_t want = slow ? 6 : 9;
	long p;

	if (!slow && strcmp(f[0], "CALLS")) {
		return gm_tsv_error(path, line, "unknown record kind '%.40s'", f[0]);
	}
	if (n != want) {
		return gm_tsv_error(path, line, "%s record has %zu fields, expected %zu",
			    f[0], n - 1, want - 1);
	}
	if (gm_tsv_unescape(f[1])) {
		return gm_tsv_error(path, line, "bad escape in the program's name");
	}
	p = gm_run_dir_find_program(run, f[1], strlen(f[1]));
	if (p < 0) {
		return gm_tsv_error(path, line, "program '%.64s' is not in the manifest",
			    f[1]);
	}
	c->slow = slow;
	c->program = (size_t)p;
	if (slow) {
		c->call = f[2];
		c->kind = f[3];
		if (gm_tsv_int(f[4], 0, INT64_MAX, &c->start) ||
		    gm_tsv_int(f[5], 0, INT64_MAX, &c->end) ||
		    c->end < c->start) {
			return gm_tsv_error(path, line, "bad start and end");
		}
	} else {
		if (strcmp(f[2], "setup") && strcmp(f[2], "replay")) {
			return gm_tsv_error(path, line, "phase '%.40s' is not setup or "
				    "replay", f[2]);
		}
		c->phase = !strcmp(f[2], "setup") ? "setup" : "replay";
		c->call = f[3];
		c->kind = f[4];
		if (gm_tsv_int(f[5], 1, INT64_MAX, &c->count) ||
		    gm_tsv_int(f[6], 0, INT64_MAX, &c->total_ns) ||
		    gm_tsv_int(f[7], 0, INT64_MAX, &c->max_ns) ||
		    c->max_ns > c->total_ns) {
			return gm_tsv_error(path, line, "bad count, total or maximum");
		}
		if (check_hist(f[8], c->count)) {
			return gm_tsv_error(path, line, "the histogram is not %d counts "
				    "adding up to the count",
				    GM_DRIVERCALLS_BUCKETS);
		}
		c->hist = f[8];
	}
	if (!*c->call || !*c->kind) {
		return gm_tsv_error(path, line, "empty call or kind");
	}
	return 0;
}

int gm_drivercalls_read(struct gm_drivercalls_data *d,
			const struct gm_run_dir *run)
{
	char *path = gm_path_join(run->path, "drivercalls.tsv");
	struct strbuf text = STRBUF_INIT;
	unsigned long line = 0;
	size_t alloc = 0;
	int ret = -1, ended = 0;

	memset(d, 0, sizeof(*d));
	if (!gm_path_exists(path)) {
		ret = 0;
		goto out;
	}
	d->present = 1;
	if (gm_read_file(path, &text)) {
		goto out;
	}
	if (text.len && text.buf[text.len - 1] != '\n') {
		gm_tsv_error(path, 1, "truncated (no newline at end of file)");
		goto out;
	}
	if (memchr(text.buf, '\0', text.len)) {
		gm_tsv_error(path, 1, "NUL byte in the file");
		goto out;
	}
	for (char *p = text.buf, *end = text.buf + text.len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *f[10];
		size_t n;
		*nl = '\0';
		line++;
		if (ended) {
			gm_tsv_error(path, line, "a line after the END line");
			goto out;
		}
		n = gm_tsv_split(p, f, 10);
		if (!strcmp(f[0], "END")) {
			int64_t want;
			if (n != 2 || gm_tsv_int(f[1], 0, INT64_MAX, &want) ||
			    (uint64_t)want != d->nr) {
				gm_tsv_error(path, line, "END does not count the %zu "
				     "lines before it", d->nr);
				goto out;
			}
			ended = 1;
		} else {
			GM_ALLOC_GROW(d->v, d->nr + 1, alloc);
			memset(&d->v[d->nr], 0, sizeof(d->v[d->nr]));
			if (parse_line(run, path, line, f, n, &d->v[d->nr])) {
				goto out;
			}
			d->nr++;
		}
		p = nl + 1;
	}
	if (!ended) {
		gm_tsv_error(path, line + 1, "unexpected end of file: no END line "
		     "(truncated)");
		goto out;
	}
	ret = 0;
out:
	d->text = strbuf_detach(&text, NULL);
	free(path);
	return ret;
}

void gm_drivercalls_data_release(struct gm_drivercalls_data *d)
{
	free(d->v);
	free(d->text);
	memset(d, 0, sizeof(*d));
}
