/* SPDX-License-Identifier: MIT */
/*
 * The replay program generator: turns a finished model (model.h) into one
 * readable, deterministic C file that includes only gpumix_replay.h: per
 * program its tables, its operations as a static const table (one row per
 * captured call, with the trace event index and API name in a comment),
 * and a thread function in three parts (init, replay, cleanup); then the
 * workload and main(). The same model always gives the same bytes.
 */
#ifndef GM_CODEGEN_H
#define GM_CODEGEN_H

#include "strbuf.h"

struct model;

/*
 * Append the C source of finished model @m to @out. Returns 0, or -1
 * (cause recorded) when the model is not finished.
 */
int codegen_write(const struct model *m, struct strbuf *out);

#endif
