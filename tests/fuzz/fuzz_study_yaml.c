/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: study files (study/yaml_doc.c, study/study_load.c and
 * its sections): the YAML loader with its limits, the study model and,
 * for a study that loads, its plan (workloads, combinations, runs).
 */
#include <string.h>

#include "error.h"
#include "harness.h"
#include "study/plan.h"
#include "study/study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct study s;
	struct study_plan plan;

	memset(&s, 0, sizeof(s));
	if (!study_load_string(&s, "fuzz.yaml", (const char *)data, size, NULL)) {
		memset(&plan, 0, sizeof(plan));
		study_plan_build(&plan, &s);
		study_plan_release(&plan);
	}
	study_release(&s);
	gm_error_clear();
	return 0;
}
