/* SPDX-License-Identifier: MIT */
/*
 * PTX tokenizer. PTX is line-insensitive except for a few directives
 * (.version, .target, .address_size, .file, .loc) that end at the end of
 * their line, so every token carries its line number. Words keep their
 * dots ("ld.global.u32", "%ctaid.x", ".reg") because PTX builds opcodes
 * and special registers that way; comments are skipped; strings are one
 * token. Tokens point into the source text, which the caller keeps alive.
 */
#ifndef GM_PTX_LEX_H
#define GM_PTX_LEX_H

#include <stddef.h>
#include <stdint.h>

enum gm_ptx_tok_kind {
	GM_PTX_WORD,		/* identifier, directive, opcode, register */
	GM_PTX_NUM,		/* 12, 0x1f, 0f3F800000, 9.0 */
	GM_PTX_STR,		/* "..." including the quotes */
	GM_PTX_PUNCT,		/* one of , ; : { } [ ] ( ) + - ! | @ = < > * / etc. */
};

struct gm_ptx_tok {
	enum gm_ptx_tok_kind kind;
	uint32_t off;		/* byte offset in the source */
	uint32_t len;
	uint32_t line;		/* 1-based */
};

struct gm_ptx_tokens {
	struct gm_ptx_tok *v;
	size_t nr, alloc;
};

/*
 * Tokenize @len bytes of @src into @out (appended; initialise @out with
 * zeroes). Returns 0, or -1 with a recorded error naming the line of an
 * unterminated comment or string, or a byte PTX never uses. Sources larger
 * than 4 GiB are refused.
 */
int gm_ptx_lex(const char *src, size_t len, struct gm_ptx_tokens *out);

/* Free the token array and zero @t. */
void gm_ptx_tokens_release(struct gm_ptx_tokens *t);

#endif
