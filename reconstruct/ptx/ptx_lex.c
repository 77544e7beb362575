/* SPDX-License-Identifier: MIT */
/*
 * PTX tokenizer (see ptx_lex.h).
 */
#include "ptx_lex.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

static int is_word_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '$' || c == '%' || c == '.';
}

static int is_word_char(int c)
{
	return is_word_start(c) || (c >= '0' && c <= '9');
}

static int is_punct(int c)
{
	return c && strchr(",;:{}[]()+-!|@=<>*/&^~?", c) != NULL;
}

static void push(struct gm_ptx_tokens *out, enum gm_ptx_tok_kind kind,
		 size_t off, size_t len, uint32_t line)
{
	GM_ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].kind = kind;
	out->v[out->nr].off = (uint32_t)off;
	out->v[out->nr].len = (uint32_t)len;
	out->v[out->nr].line = line;
	out->nr++;
}

int gm_ptx_lex(const char *src, size_t len, struct gm_ptx_tokens *out)
{
	uint32_t line = 1;
	size_t i = 0;

	if (len >= UINT32_MAX) {
		return gm_error("PTX text of %zu bytes is too large", len);
	}
	while (i < len) {
		unsigned char c = (unsigned char)src[i];

		if (c == '\n') {
			line++;
			i++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v' || c == '\0') {
			/* fatbins pad PTX with NULs */
			i++;
		} else if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n') {
				i++;
			}
		} else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			uint32_t start = line;
			i += 2;
			while (i + 1 < len && !(src[i] == '*' && src[i + 1] == '/')) {
				if (src[i] == '\n') {
					line++;
				}
				i++;
			}
			if (i + 1 >= len) {
				return gm_error("line %u: unterminated comment", start);
			}
			i += 2;
		} else if (c == '"') {
			size_t s = i++;
			while (i < len && src[i] != '"' && src[i] != '\n') {
				if (src[i] == '\\' && i + 1 < len) {
					i++;
				}
				i++;
			}
			if (i >= len || src[i] != '"') {
				return gm_error("line %u: unterminated string", line);
			}
			i++;
			push(out, GM_PTX_STR, s, i - s, line);
		} else if (is_word_start(c)) {
			size_t s = i++;
			for (;;) {
				if (i < len && is_word_char((unsigned char)src[i])) {
					i++;
				} else if (i + 2 < len && src[i] == ':' &&
					   src[i + 1] == ':' &&
					   is_word_char((unsigned char)src[i + 2])) {
					/* .shared::cta, mbarrier::complete_tx */
					i += 2;
				} else {
					break;
				}
			}
			push(out, GM_PTX_WORD, s, i - s, line);
		} else if (c >= '0' && c <= '9') {
			size_t s = i++;
			int hex = c == '0' && i < len &&
				  strchr("xXfFdD", src[i]) != NULL;
			while (i < len) {
				int d = (unsigned char)src[i];
				if (is_word_char(d) && d != '%' && d != '$') {
					i++;
				} else if (!hex && (d == '-' || d == '+') &&
					   (src[i - 1] == 'e' || src[i - 1] == 'E')) {
					i++;
				} else {
					break;
				}
			}
			push(out, GM_PTX_NUM, s, i - s, line);
		} else if (is_punct(c)) {
			push(out, GM_PTX_PUNCT, i, 1, line);
			i++;
		} else {
			return gm_error("line %u: unexpected character 0x%02x", line,
					c);
		}
	}
	return 0;
}

void gm_ptx_tokens_release(struct gm_ptx_tokens *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
