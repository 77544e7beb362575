/* SPDX-License-Identifier: MIT */
/* Running a helper program for its output (see run_output.h). */
#include "run_output.h"

#include <sys/wait.h>

#include "error.h"
#include "run_command.h"
#include "strbuf.h"

int gm_run_output(char *const argv[], struct strbuf *out, int *status)
{
	struct gm_run_command c = { .argv = argv, .search_path = 1,
				    .capture = out };
	struct gm_run_result r;

	*status = 0;
	if (gm_run_command(&c, &r, NULL, NULL)) {
		if (!r.not_run) {
			return -1;
		}
		/* As a shell says it: the reason in the output, 127. */
		strbuf_addf(out, "%s\n", gm_error_message());
		gm_error_clear();
		*status = W_EXITCODE(127, 0);
		return 0;
	}
	*status = r.signal ? W_EXITCODE(0, r.signal) :
			     W_EXITCODE(r.exit_code, 0);
	return 0;
}
