/* SPDX-License-Identifier: MIT */
/*
 * Field helpers for the run directory's tab-separated files (replays.tsv,
 * activity.tsv): split a line at tabs in place, parse integer fields
 * strictly, undo the \\ \t \n escapes of text fields. They record no error
 * cause: callers know the file and line and say what was wrong, through
 * gm_tsv_error().
 */
#ifndef GM_TSV_H
#define GM_TSV_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * Split @line (NUL-terminated, without its newline) at tabs, in place.
 * Stores up to @max field pointers in @fields and returns the number of
 * fields the line has (which may be more than @max).
 */
size_t gm_tsv_split(char *line, char **fields, size_t max);

/*
 * Parse @s as a decimal integer in [@min, @max] (an optional '-' only when
 * @min < 0; no spaces, no '+', no empty string). Returns 0 or -1.
 */
int gm_tsv_int(const char *s, int64_t min, int64_t max, int64_t *out);

/* Undo the \\, \t and \n escapes in place. Returns 0, or -1 on a bad one. */
int gm_tsv_unescape(char *s);

/*
 * Record the cause "@path:@line: <message>" (the message from @fmt) and
 * return -1: the one form of every reader's error about a line.
 */
int gm_tsv_error(const char *path, unsigned long line, const char *fmt, ...)
	GM_PRINTF(3, 4);

#endif
