/* SPDX-License-Identifier: MIT */
/*
 * Which kernels the runs ran (see analysis_priv.h). The paper runs the
 * same transformed kernels in every variant (PAPER-NOTES item 49), so
 * that a difference between variants comes from the mechanism and not
 * from the code; a study does the same unless `same_kernels: false`. The
 * report states which from each run's `elastic` column (the run
 * manifest's `elastic` key): "off" is the captured kernels, "identity"
 * the transformed ones with elasticity off, "policy" the transformed ones
 * under the elastic variant's policy, anything else the transformed ones
 * on a fixed physical grid (`gpumix replay --elastic MODE`).
 */
#include "analysis_priv.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "variant.h"

enum code {
	CODE_CAPTURED,
	CODE_IDENTITY,
	CODE_POLICY,
	CODE_FIXED,
	NR_CODES
};

static const char *const code_words[NR_CODES] = {
	"the captured kernels",
	"the transformed kernels with elasticity off",
	"the transformed kernels under a policy",
	"the transformed kernels on a fixed grid",
};

static enum code code_of(const char *elastic)
{
	if (!strcmp(elastic, "off")) {
		return CODE_CAPTURED;
	}
	if (!strcmp(elastic, "identity")) {
		return CODE_IDENTITY;
	}
	if (!strcmp(elastic, "policy")) {
		return CODE_POLICY;
	}
	return CODE_FIXED;
}

void gm_an_kernels(struct gm_analysis *a)
{
	unsigned seen = 0;
	struct strbuf sb = STRBUF_INIT;
	/* Per variant label, the codes its ok runs ran (bits). */
	unsigned *codes = gm_xcalloc(a->nvariants + 1, sizeof(*codes));

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->ok) {
			codes[r->vindex] |= 1u << code_of(r->elastic);
			seen |= 1u << code_of(r->elastic);
		}
	}
	if (!seen) {
		free(codes);
		return;
	}
	a->same_kernels = 1;
	if (seen == 1u << CODE_CAPTURED) {
		strbuf_addstr(&sb, "all variants ran the captured kernels");
	} else if (!(seen & ~(1u << CODE_IDENTITY | 1u << CODE_POLICY))) {
		const struct gm_variant *pol = gm_variant_with(GM_VARIANT_POLICY);
		strbuf_addstr(&sb, "all variants ran the same transformed kernels");
		if (seen & 1u << CODE_POLICY) {
			strbuf_addf(&sb, " (elasticity off outside the %s variant)",
				    pol ? pol->name : "policy");
		} else {
			strbuf_addstr(&sb, " (elasticity off)");
		}
	} else {
		a->same_kernels = 0;
		strbuf_addstr(&sb, "the variants ran different code:");
		for (int c = 0, groups = 0; c < NR_CODES; c++) {
			if (!(seen & 1u << c)) {
				continue;
			}
			strbuf_addf(&sb, "%s %s in", groups++ ? ";" : "",
				    code_words[c]);
			for (size_t v = 0, n = 0; v < a->nvariants; v++) {
				if (codes[v] & 1u << c) {
					strbuf_addf(&sb, "%s %s", n++ ? "," : "",
						    a->variants[v].label);
				}
			}
		}
	}
	a->kernels = strbuf_detach(&sb, NULL);
	if (!a->same_kernels) {
		gm_an_note(a, "%s (a difference between them may come from the "
			   "code as well as from the mechanism; a study runs the "
			   "same kernels in all unless 'same_kernels: false')",
			   a->kernels);
	}
	free(codes);
}
