/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: PTX (reconstruct/ptx/ptx_lex.c, ptx_module.c, ptx_analysis.c,
 * ptx_elastic.c), what gpumix elastic and the elastic variant do to the
 * PTX of a captured fatbin: parse, analyse every kernel, transform, and
 * parse and analyse the transformed text again. A transformed module our
 * own parser refuses is a bug of the transformation, and aborts.
 */
#include <stdlib.h>

#include "error.h"
#include "harness.h"
#include "reconstruct/ptx/ptx_analysis.h"
#include "reconstruct/ptx/ptx_elastic.h"
#include "reconstruct/ptx/ptx_module.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gm_ptx_module m, m2;
	struct gm_ptx_analysis a, a2;
	struct strbuf out = STRBUF_INIT;

	if (!gm_ptx_module_parse(&m, (const char *)data, size) &&
	    !gm_ptx_analyze(&m, &a)) {
		if (gm_ptx_elastic_transform(&m, &a, NULL, &out) >= 0) {
			if (gm_ptx_module_parse(&m2, out.buf, out.len)) {
				abort();
			}
			if (!gm_ptx_analyze(&m2, &a2)) {
				gm_ptx_analysis_release(&a2);
			}
			gm_ptx_module_release(&m2);
		}
		gm_ptx_analysis_release(&a);
	}
	gm_ptx_module_release(&m);
	strbuf_release(&out);
	gm_error_clear();
	return 0;
}
