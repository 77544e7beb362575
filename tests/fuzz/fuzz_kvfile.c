/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: key/value manifests (common/kvfile.c), the format of
 * bundle, run-directory and study-state manifests. Beyond not crashing,
 * a parsed file must survive a round trip: formatted and parsed again it
 * gives the same keys and values in the same order.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "kvfile.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvfile kv = KVFILE_INIT, back = KVFILE_INIT;
	struct strbuf sb = STRBUF_INIT;

	if (!kvfile_parse(&kv, (const char *)data, size, "fuzz")) {
		for (size_t i = 0; i < kv.nr; i++) {
			uint64_t u;
			double d;
			kvfile_get_u64(&kv, kv.keys[i], &u, "fuzz");
			kvfile_get_double(&kv, kv.keys[i], &d, "fuzz");
		}
		kvfile_format(&kv, &sb, "comment");
		if (kvfile_parse(&back, sb.buf, sb.len, "again") ||
		    back.nr != kv.nr) {
			abort();	/* what we write, we must read */
		}
		for (size_t i = 0; i < kv.nr; i++) {
			if (strcmp(kv.keys[i], back.keys[i]) ||
			    strcmp(kv.values[i], back.values[i])) {
				abort();
			}
		}
	}
	gm_error_clear();
	strbuf_release(&sb);
	kvfile_release(&kv);
	kvfile_release(&back);
	return 0;
}
