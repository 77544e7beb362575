/* SPDX-License-Identifier: MIT */
/*
 * gpumix trace diff A B: which device-to-host results differ between two
 * captures of the same program (doc/gpumix-trace.md). Results are paired
 * in the order of their copies (reconstruct/trace/trace_results.h); a pair
 * whose copies are not the same call and size is reported as such. A
 * program whose results differ between its own runs is nondeterministic
 * by nature: its replay cannot be verified against a capture.
 */
#include "trace_diff.h"

#include <inttypes.h>
#include <stdio.h>

#include "api.h"
#include "cli.h"
#include "error.h"
#include "reconstruct/trace/trace_reader.h"
#include "reconstruct/trace/trace_results.h"

static int load(const char *dir, struct trace_results *res)
{
	struct trace_reader *r;
	int ret;

	if (trace_reader_open(&r, dir, GM_READER_ALLOW_INCOMPLETE |
					       GM_READER_ALLOW_LOSSY |
					       GM_READER_ALLOW_UNKNOWN)) {
		return -1;
	}
	ret = trace_results_collect(r, res);
	trace_reader_free(r);
	if (ret) {
		gm_error("cannot read the results of '%s'", dir);
	}
	return ret;
}

static const char *api_name(int api)
{
	if (api == TRACE_RESULT_HOSTMEM) {
		return "host read of mapped or managed memory";
	}
	return api >= 0 && api < GM_API_COUNT ? gm_api_table[api].name : "?";
}

int trace_diff(const char *a, const char *b)
{
	struct trace_results ra = { 0 }, rb = { 0 };
	size_t n, differ = 0, other = 0;
	int ret = GM_EXIT_ERROR;

	if (load(a, &ra) || load(b, &rb)) {
		gm_cli_fail();
		goto out;
	}
	n = ra.nr < rb.nr ? ra.nr : rb.nr;
	printf("A: %s, %zu results\nB: %s, %zu results\n", a, ra.nr, b, rb.nr);
	for (size_t i = 0; i < n; i++) {
		const struct trace_result *x = &ra.r[i], *y = &rb.r[i];
		if (x->api != y->api || x->bytes != y->bytes) {
			printf("result %zu: not the same copy: event %" PRIu64
			       " %s of %" PRIu64 " bytes in A, event %" PRIu64
			       " %s of %" PRIu64 " bytes in B\n", i, x->event,
			       api_name(x->api), x->bytes, y->event,
			       api_name(y->api), y->bytes);
			other++;
			continue;
		}
		if (x->hash.hi == y->hash.hi && x->hash.lo == y->hash.lo) {
			continue;
		}
		char hx[GM_HASH_HEX_LEN + 1], hy[GM_HASH_HEX_LEN + 1];
		gm_hash_hex(x->hash, hx);
		gm_hash_hex(y->hash, hy);
		printf("result %zu: differs: event %" PRIu64 " in A, %" PRIu64
		       " in B, %s of %" PRIu64 " bytes: %s vs %s%s\n", i,
		       x->event, y->event, api_name(x->api), x->bytes, hx, hy,
		       x->unsynced || y->unsynced ? " (never synchronized)" : "");
		differ++;
	}
	if (ra.nr != rb.nr) {
		printf("%zu results of %s have no counterpart\n",
		       ra.nr > rb.nr ? ra.nr - rb.nr : rb.nr - ra.nr,
		       ra.nr > rb.nr ? "A" : "B");
	}
	printf("%zu of %zu paired results differ%s\n", differ + other, n,
	       other ? " (some are not the same copy)" : "");
	ret = differ || other || ra.nr != rb.nr ? GM_EXIT_ERROR : GM_EXIT_OK;
	if (differ && !other && ra.nr == rb.nr) {
		printf("the program computes these results differently from "
		       "run to run: mark it nondeterministic (gpumix "
		       "reconstruct --nondeterministic NAME; deterministic: "
		       "false in a study) or make them repeatable\n");
	}
out:
	trace_results_release(&ra);
	trace_results_release(&rb);
	return ret;
}
