/* SPDX-License-Identifier: MIT */
/*
 * The input hashes of the study executor's stages (see exec_priv.h): the
 * stage's word, then its inputs, each string with its terminating NUL,
 * ended as hex. Every file that computes a hash builds it here; it calls
 * no other file of the executor.
 */
#include "exec_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strbuf.h"

struct gm_hasher *exec_key_begin(const char *what)
{
	struct gm_hasher *h = gm_hasher_new();

	if (!h) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	gm_hasher_update(h, what, strlen(what) + 1);
	return h;
}

void exec_key_add(struct gm_hasher *h, const char *s)
{
	gm_hasher_update(h, s, strlen(s) + 1);
}

void exec_key_addf(struct gm_hasher *h, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	exec_key_add(h, sb.buf);
	strbuf_release(&sb);
}

void exec_key_end(struct gm_hasher *h, char out[KEY_LEN])
{
	gm_hash_hex(gm_hasher_final(h), out);
	gm_hasher_free(h);
}
