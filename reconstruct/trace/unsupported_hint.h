/* SPDX-License-Identifier: MIT */
/*
 * What an unsupported call means for a replay, in one line, for `gpumix
 * trace info` (one table, unsupported_hint.c).
 */
#ifndef GM_UNSUPPORTED_HINT_H
#define GM_UNSUPPORTED_HINT_H

/* The hint for the call named @name (a driver or runtime API name). */
const char *gm_unsupported_hint(const char *name);

#endif
