/* SPDX-License-Identifier: MIT */
/*
 * The bundle reader's bundle files: the manifest and the API table.
 */
#include "trace_reader_int.h"

#include <babeltrace2/babeltrace.h>
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "blob_store.h"
#include "bt_report.h"
#include "child_call.h"
#include "ctf_files.h"
#include "image.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

/* Are the manifest's @losses all unsupported calls (and allowed)? */
static int only_unsupported(struct trace_reader *r, const char *losses)
{
	const char *u = kvfile_get(&r->manifest, "loss.unsupported_calls");
	char *end;
	unsigned long long n, k;

	if (!(r->flags & GM_READER_ALLOW_UNSUPPORTED) || !losses || !u) {
		return 0;
	}
	n = strtoull(losses, &end, 10);
	if (*end || end == losses) {
		return 0;
	}
	k = strtoull(u, &end, 10);
	return !*end && end != u && n == k;
}

int trace_read_manifest(struct trace_reader *r)
{
	char *path = gm_path_join(r->dir, "manifest");
	const char *v;
	int ret = -1;

	if (!gm_path_exists(path)) {
		gm_error("'%s' is not a gpumix bundle (it has no manifest)", r->dir);
		if (gm_path_exists(r->dir) && !gm_is_dir(r->dir)) {
			gm_error_hint("a bundle is a directory made by 'gpumix capture'");
		}
		goto out;
	}
	if (kvfile_read(&r->manifest, path)) {
		gm_error("cannot read the manifest of bundle '%s'", r->dir);
		goto out;
	}
	v = kvfile_get(&r->manifest, "format");
	if (!v) {
		gm_error("manifest of '%s' has no format line", r->dir);
		goto out;
	}
	{
		size_t n = strlen(GM_BUNDLE_FORMAT_PREFIX);
		char *end;
		unsigned long f = 0;

		if (!strncmp(v, GM_BUNDLE_FORMAT_PREFIX, n) && v[n] >= '1' &&
		    v[n] <= '9') {
			f = strtoul(v + n, &end, 10);
			if (*end) {
				f = 0;
			}
		}
		if (f < GM_BUNDLE_FORMAT_MIN || f > GM_BUNDLE_FORMAT_VERSION) {
			gm_error("bundle '%s' has format '%s'; this gpumix reads "
				 "'%s%d' to '%s'", r->dir, v,
				 GM_BUNDLE_FORMAT_PREFIX, GM_BUNDLE_FORMAT_MIN,
				 GM_BUNDLE_FORMAT);
			gm_error_hint("use the gpumix version that made it, or "
				      "capture again");
			goto out;
		}
		r->format = (unsigned)f;
	}
	v = kvfile_get(&r->manifest, "complete");
	if ((!v || strcmp(v, "yes")) &&
	    !(r->flags & GM_READER_ALLOW_INCOMPLETE)) {
		const char *why = kvfile_get(&r->manifest, "incomplete");
		gm_error("bundle '%s' is incomplete: %s", r->dir,
			 why ? why : "the capture did not finish");
		gm_error_hint("capture again; 'gpumix trace info' shows what it holds");
		goto out;
	}
	v = kvfile_get(&r->manifest, "losses");
	uint64_t losses;
	if (v && kvfile_get_u64(&r->manifest, "losses", &losses, path)) {
		/* A damaged manifest, whatever the reader tolerates. */
		gm_error("the manifest of bundle '%s' is damaged", r->dir);
		goto out;
	}
	if ((!v || strcmp(v, "0")) && !(r->flags & GM_READER_ALLOW_LOSSY) &&
	    !only_unsupported(r, v)) {
		const char *why = kvfile_get(&r->manifest, "losses.summary");
		gm_error("bundle '%s' lost data: %s", r->dir,
			 why ? why : v ? v : "loss counters missing");
		gm_error_hint("'gpumix trace info' lists the losses; capture again");
		goto out;
	}
	ret = 0;
out:
	free(path);
	return ret;
}

/* api-table: "ID SIGNATURE" lines, SIGNATURE as gm_api_signature() writes. */
int trace_read_api_table(struct trace_reader *r)
{
	char *path = gm_path_join(r->dir, "api-table");
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	int ret = -1, lineno = 0;

	if (gm_read_file(path, &sb)) {
		gm_error("bundle '%s' has no readable api-table", r->dir);
		goto out;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end, *sig, *sp;
		unsigned long id;
		char own[1024];
		size_t namelen;
		int api;

		lineno++;
		if (!*line || *line == '#') {
			continue;
		}
		id = strtoul(line, &end, 10);
		if (end == line || *end != ' ' || id > 65535) {
			gm_error("%s:%d: malformed line", path, lineno);
			goto out;
		}
		sig = end + 1;
		sp = strchr(sig, ' ');
		namelen = sp ? (size_t)(sp - sig) : strlen(sig);
		if (id >= r->nr_api_map) {
			size_t n = id + 1;
			r->api_map = gm_xrealloc(r->api_map, n * sizeof(int));
			r->api_names = gm_xrealloc(r->api_names, n * sizeof(char *));
			for (size_t i = r->nr_api_map; i < n; i++) {
				r->api_map[i] = API_UNMAPPED;
				r->api_names[i] = NULL;
			}
			r->nr_api_map = n;
		}
		free(r->api_names[id]);
		r->api_names[id] = gm_xasprintf("%.*s", (int)namelen, sig);
		api = gm_api_lookup(r->api_names[id]);
		if (api < 0) {
			r->api_map[id] = API_UNKNOWN;
			continue;
		}
		gm_api_signature(api, own, sizeof(own));
		r->api_map[id] = strcmp(own, sig) ? API_CHANGED : api;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	free(path);
	return ret;
}
