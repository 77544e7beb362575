/* SPDX-License-Identifier: MIT */
/*
 * A command's own option for a replay knob (gpumix scale's and sweep's
 * --replays and --watchdog): parsed and bounded by the knob's row
 * (common/knobs.c), as `gpumix replay` and a study are, so the bounds
 * and messages cannot drift apart.
 */
#ifndef GM_CLI_KNOB_H
#define GM_CLI_KNOB_H

#include "knobs.h"

/*
 * Parse @arg as option @opt ("--replays") of knob @knob into *@out (the
 * option's terms: a count, seconds). 0, or a usage error with the row's
 * message and @usage printed: returns GM_EXIT_USAGE.
 */
int gm_cli_knob_arg(enum gm_knob knob, const char *opt, const char *arg,
		    double *out, const char *usage);

#endif
