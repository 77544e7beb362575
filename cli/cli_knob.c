/* SPDX-License-Identifier: MIT */
/* A command's option for a replay knob, through the knob's row. */
#include "cli_knob.h"

#include "cli_output.h"
#include "error.h"

int gm_cli_knob_arg(enum gm_knob knob, const char *opt, const char *arg,
		    double *out, const char *usage)
{
	int ret;

	if (gm_knob_parse(gm_knob_find(knob), opt, arg, out) == 0) {
		return 0;
	}
	ret = gm_usage_error(usage, "%s", gm_error_message());
	gm_error_clear();
	return ret;
}
