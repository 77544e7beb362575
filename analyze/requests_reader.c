/* SPDX-License-Identifier: MIT */
/*
 * Reader of requests.tsv and the open-loop manifest keys (see
 * requests_reader.h).
 */
#include "requests_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "strbuf.h"
#include "tsv.h"

static const char header[] = "program\trequest\tarrival_ns\tstart_ns\tend_ns";

/* The open-loop program of index @p in @d, or NULL. */
static const struct gm_open_loop_program *find(const struct gm_requests_data *d,
					       size_t p)
{
	for (size_t i = 0; i < d->nprog; i++) {
		if (d->progs[i].program == p) {
			return &d->progs[i];
		}
	}
	return NULL;
}

static int read_manifest(struct gm_requests_data *d,
			 const struct gm_run_dir *run, const char *mpath)
{
	for (size_t i = 0; i < run->nr_programs; i++) {
		char key[64];
		const char *spec, *n;
		int64_t v;
		snprintf(key, sizeof(key), "program.%zu.arrivals", i);
		spec = kvfile_get(&run->manifest, key);
		if (!spec) {
			continue;
		}
		snprintf(key, sizeof(key), "program.%zu.requests", i);
		n = kvfile_get(&run->manifest, key);
		if (!n || gm_tsv_int(n, 1, INT64_MAX, &v)) {
			return gm_error("%s: '%s' is missing or not a positive "
					"integer", mpath, key);
		}
		d->progs = gm_xrealloc(d->progs,
				       (d->nprog + 1) * sizeof(*d->progs));
		d->progs[d->nprog++] = (struct gm_open_loop_program){
			.program = i, .arrivals = spec, .requests = v,
		};
	}
	if (d->nprog) {
		const char *s = kvfile_get(&run->manifest, "arrivals.seed");
		if (!s || gm_tsv_int(s, 0, INT64_MAX, &d->seed)) {
			return gm_error("%s: 'arrivals.seed' is missing or not an "
					"integer", mpath);
		}
		d->slo = kvfile_get(&run->manifest, "arrivals.slo");
	}
	return 0;
}

static int parse_line(struct gm_requests_data *d, const struct gm_run_dir *run,
		      const char *path, unsigned long line, char **f, size_t n,
		      struct gm_request *r)
{
	long p;

	if (n != 5) {
		return gm_tsv_error(path, line, "%zu fields, expected 5", n);
	}
	if (gm_tsv_unescape(f[0])) {
		return gm_tsv_error(path, line, "bad escape in the program's name");
	}
	p = gm_run_dir_find_program(run, f[0], strlen(f[0]));
	if (p < 0 || !find(d, (size_t)p)) {
		return gm_tsv_error(path, line, "program '%.64s' is not an "
				    "open-loop program of the manifest", f[0]);
	}
	r->program = (size_t)p;
	if (gm_tsv_int(f[1], 0, INT64_MAX, &r->request) ||
	    gm_tsv_int(f[2], 0, INT64_MAX, &r->arrival) ||
	    gm_tsv_int(f[3], 0, INT64_MAX, &r->start) ||
	    gm_tsv_int(f[4], 0, INT64_MAX, &r->end)) {
		return gm_tsv_error(path, line, "request, arrival_ns, start_ns "
				    "and end_ns must be non-negative integers");
	}
	if (r->start < r->arrival || r->end < r->start) {
		return gm_tsv_error(path, line, "request %" PRId64 " does not "
				    "arrive, start and end in that order",
				    r->request);
	}
	return 0;
}

int gm_requests_read(struct gm_requests_data *d, const struct gm_run_dir *run)
{
	char *path = gm_path_join(run->path, "requests.tsv");
	char *mpath = gm_path_join(run->path, "manifest");
	struct strbuf text = STRBUF_INIT;
	unsigned long line = 0;
	size_t alloc = 0;
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (read_manifest(d, run, mpath)) {
		goto out;
	}
	if (!d->nprog) {
		ret = 0;
		goto out;
	}
	if (!gm_path_exists(path)) {
		gm_error("%s: missing (the manifest names open-loop programs)",
			 path);
		goto out;
	}
	if (gm_read_file(path, &text)) {
		goto out;
	}
	if (!text.len || text.buf[text.len - 1] != '\n' ||
	    memchr(text.buf, '\0', text.len)) {
		gm_tsv_error(path, 1, "truncated or not text");
		goto out;
	}
	for (char *p = text.buf, *end = text.buf + text.len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *f[6];
		size_t n;
		*nl = '\0';
		line++;
		if (line == 1) {
			if (strcmp(p, header)) {
				gm_tsv_error(path, 1, "the header is not '%s'",
					     "program<TAB>request<TAB>arrival_ns"
					     "<TAB>start_ns<TAB>end_ns");
				goto out;
			}
		} else {
			struct gm_request *r, *prev;
			n = gm_tsv_split(p, f, 6);
			GM_ALLOC_GROW(d->v, d->nr + 1, alloc);
			r = &d->v[d->nr];
			if (parse_line(d, run, path, line, f, n, r)) {
				goto out;
			}
			prev = d->nr && d->v[d->nr - 1].program == r->program ?
				       &d->v[d->nr - 1] : NULL;
			if (r->request != (prev ? prev->request + 1 : 0)) {
				gm_tsv_error(path, line, "request %" PRId64
					     " of '%s' is out of order",
					     r->request, f[0]);
				goto out;
			}
			d->nr++;
		}
		p = nl + 1;
	}
	/* (A failed or hung run stopped before serving every request.) */
	for (size_t i = 0; run->status && !strcmp(run->status, "ok") &&
			   i < d->nprog; i++) {
		int64_t n = 0;
		for (size_t k = 0; k < d->nr; k++) {
			n += d->v[k].program == d->progs[i].program;
		}
		if (n != d->progs[i].requests) {
			gm_error("%s: %" PRId64 " requests of '%s', the manifest "
				 "says %" PRId64, path, n,
				 run->programs[d->progs[i].program].name,
				 d->progs[i].requests);
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&text);
	free(path);
	free(mpath);
	return ret;
}

void gm_requests_data_release(struct gm_requests_data *d)
{
	free(d->v);
	free(d->progs);
	memset(d, 0, sizeof(*d));
}
