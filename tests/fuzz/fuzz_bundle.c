/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: the files of a bundle that gpumix parses itself (the CTF
 * trace is babeltrace2's): the manifest, api-table (reconstruct/
 * trace_reader.c) and one process's procs/PID.counts and procs/PID.names
 * (capture/counts.c, capture/bundle.c), as `gpumix trace check` reads
 * them. The input holds the four files, FUZZ_SEP between them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture/bundle.h"
#include "error.h"
#include "fs.h"
#include "harness.h"
#include "kvfile.h"
#include "reconstruct/trace/trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = { "manifest", "api-table",
					     "procs/1000.counts",
					     "procs/1000.names" };
	const uint8_t *part[4];
	size_t len[4];
	const char *dir = fuzz_scratch();
	struct trace_reader *r;
	struct kvfile m = KVFILE_INIT;
	char *procs = gm_path_join(dir, "procs");

	mkdir(procs, 0755);
	free(procs);
	fuzz_split(data, size, part, len, 4);
	for (int i = 0; i < 4; i++) {
		fuzz_put(dir, files[i], part[i], len[i]);
	}
	/* (no ctf/: the reader stops at the trace, after our own files) */
	if (!trace_reader_open(&r, dir, GM_READER_ALLOW_INCOMPLETE |
			       GM_READER_ALLOW_LOSSY | GM_READER_ALLOW_UNKNOWN)) {
		trace_reader_free(r);
	}
	gm_error_clear();
	char *mpath = gm_path_join(dir, "manifest");
	if (!kvfile_read(&m, mpath)) {
		struct gm_thread_count t = { 1000, 1000, 3 };
		struct bundle_found found = { 0 };
		found.threads = &t;
		found.nr_threads = 1;
		found.events = 3;
		bundle_verify_counts(dir, &m, &found);
	}
	free(mpath);
	kvfile_release(&m);
	gm_error_clear();
	return 0;
}
