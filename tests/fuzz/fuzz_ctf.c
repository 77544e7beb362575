/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: the bytes of a bundle's LTTng trace, read the way every
 * gpumix command reads them (reconstruct/trace/trace_reader.c): the trace files
 * checked (common/ctf_files.h), read through by libbabeltrace2 in a child
 * process (the bytes are not known clean), then decoded in this process
 * and every event taken. A damaged trace must be an error, never a crash
 * or an abort inside babeltrace2 (issue 26: one flipped index byte, an
 * error babeltrace2 left on the thread, a packet size in a stream, an
 * error left before the muxer pulled the next stream, aborted gpumix).
 *
 * The input holds the api-table, then one traced process's `metadata`,
 * its two per-CPU streams `gpumix_0` and `gpumix_1` and their indexes
 * `index/gpumix_0.idx` and `index/gpumix_1.idx`, FUZZ_SEP between them;
 * a part left out is an absent file. The reader runs as the capture's own
 * count-back does (no manifest yet: GM_READER_RAW), so that the bytes
 * reach babeltrace2 unverified by any hash.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs.h"
#include "harness.h"
#include "reconstruct/trace/trace_reader.h"

/* The most events taken from one input (a trace can hold many). */
#define MAX_EVENTS 100000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {
		"api-table", "ctf/t/metadata", "ctf/t/gpumix_0",
		"ctf/t/index/gpumix_0.idx", "ctf/t/gpumix_1",
		"ctf/t/index/gpumix_1.idx",
	};
	enum { NR = sizeof(files) / sizeof(files[0]) };
	const uint8_t *part[NR];
	size_t len[NR];
	const char *dir = fuzz_scratch();
	char *sub = gm_path_join(dir, "ctf/t/index");
	struct trace_reader *r;

	gm_mkdir_p(sub, 0755);
	free(sub);
	fuzz_split(data, size, part, len, NR);
	for (size_t i = 0; i < NR; i++) {
		fuzz_put(dir, files[i], part[i], len[i]);
	}
	if (!trace_reader_open(&r, dir, GM_READER_RAW | GM_READER_ALLOW_LOSSY |
			       GM_READER_ALLOW_UNKNOWN |
			       GM_READER_ALLOW_INCOMPLETE)) {
		const struct gm_event *ev;
		int n = 0;

		while (n++ < MAX_EVENTS && trace_reader_next(r, &ev) > 0) {
		}
		/* After an error the reader must keep failing, not abort. */
		trace_reader_next(r, &ev);
		trace_reader_free(r);
	}
	gm_error_clear();
	return 0;
}
