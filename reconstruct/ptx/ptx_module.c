/* SPDX-License-Identifier: MIT */
/*
 * PTX module parser (see ptx_module.h). The grammar handled is the
 * statement structure of PTX 1.0 to 9.x: line directives, module-scope
 * declarations ending in ';' (initialisers in braces included), .section
 * blocks copied as they are, and function items with a parameter list,
 * performance directives and a body of statements.
 */
#include "ptx_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

int gm_ptx_tok_is(const struct gm_ptx_module *m, uint32_t i, const char *s)
{
	size_t n = strlen(s);

	return i < m->toks.nr && m->toks.v[i].len == n &&
	       !memcmp(m->src + m->toks.v[i].off, s, n);
}

int gm_ptx_tok_starts(const struct gm_ptx_module *m, uint32_t i,
		      const char *prefix)
{
	size_t n = strlen(prefix);

	return i < m->toks.nr && m->toks.v[i].len >= n &&
	       !memcmp(m->src + m->toks.v[i].off, prefix, n);
}

char *gm_ptx_tok_dup(const struct gm_ptx_module *m, uint32_t i)
{
	size_t n;
	const char *t = gm_ptx_tok_text(m, i, &n);
	char *s = gm_xmalloc(n + 1);

	memcpy(s, t, n);
	s[n] = '\0';
	return s;
}

void gm_ptx_add_source(struct strbuf *sb, const struct gm_ptx_module *m,
		       uint32_t begin, uint32_t end)
{
	if (begin >= end) {
		return;
	}
	uint32_t a = m->toks.v[begin].off;
	uint32_t b = m->toks.v[end - 1].off + m->toks.v[end - 1].len;
	strbuf_add(sb, m->src + a, b - a);
}

const char *gm_ptx_opcode_base(const struct gm_ptx_module *m,
			       const struct gm_ptx_stmt *s, char *buf,
			       size_t len)
{
	size_t n;
	const char *t = gm_ptx_tok_text(m, s->opcode, &n);
	size_t k = 0;

	while (k < n && t[k] != '.' && k + 1 < len) {
		buf[k] = t[k];
		k++;
	}
	buf[k] = '\0';
	return buf;
}

int gm_ptx_opcode_has(const struct gm_ptx_module *m,
		      const struct gm_ptx_stmt *s, const char *mod)
{
	size_t n, ml = strlen(mod);
	const char *t = gm_ptx_tok_text(m, s->opcode, &n);
	const char *end = t + n;
	const char *p = memchr(t, '.', n);

	while (p && p < end) {
		const char *q = p + 1;
		while (q < end && *q != '.') {
			q++;
		}
		size_t l = (size_t)(q - p);
		if ((l == ml && !memcmp(p, mod, ml)) ||
		    (l > ml + 1 && !memcmp(p, mod, ml) && p[ml] == ':' &&
		     p[ml + 1] == ':')) {
			return 1;
		}
		p = q < end ? q : NULL;
	}
	return 0;
}

static int punct(const struct gm_ptx_module *m, uint32_t i, char c)
{
	return i < m->toks.nr && m->toks.v[i].kind == GM_PTX_PUNCT &&
	       m->src[m->toks.v[i].off] == c;
}

static int is_word(const struct gm_ptx_module *m, uint32_t i)
{
	return i < m->toks.nr && m->toks.v[i].kind == GM_PTX_WORD;
}

static uint32_t line_of(const struct gm_ptx_module *m, uint32_t i)
{
	if (i >= m->toks.nr) {
		return m->toks.nr ? m->toks.v[m->toks.nr - 1].line : 1;
	}
	return m->toks.v[i].line;
}

/* First token after the ones on the line of token @i. */
static uint32_t end_of_line(const struct gm_ptx_module *m, uint32_t i,
			    uint32_t limit)
{
	uint32_t line = m->toks.v[i].line;

	while (i < limit && m->toks.v[i].line == line) {
		i++;
	}
	return i;
}

/* Index of the token matching the opener at @i ('(' '[' '{'), or -1. */
static int64_t match_close(const struct gm_ptx_module *m, uint32_t i,
			   uint32_t limit)
{
	int depth = 0;

	for (; i < limit; i++) {
		if (m->toks.v[i].kind != GM_PTX_PUNCT) {
			continue;
		}
		char c = m->src[m->toks.v[i].off];
		if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (--depth == 0) {
				return i;
			}
		}
	}
	return -1;
}

/* The ';' ending the statement at @i (nesting respected), or -1. */
static int64_t find_semicolon(const struct gm_ptx_module *m, uint32_t i,
			      uint32_t limit)
{
	int depth = 0;

	for (; i < limit; i++) {
		if (m->toks.v[i].kind != GM_PTX_PUNCT) {
			continue;
		}
		char c = m->src[m->toks.v[i].off];
		if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (--depth < 0) {
				return -1;
			}
		} else if (c == ';' && depth == 0) {
			return i;
		}
	}
	return -1;
}

static int is_line_directive(const struct gm_ptx_module *m, uint32_t i)
{
	return gm_ptx_tok_is(m, i, ".version") ||
	       gm_ptx_tok_is(m, i, ".target") ||
	       gm_ptx_tok_is(m, i, ".address_size") ||
	       gm_ptx_tok_is(m, i, ".file") || gm_ptx_tok_is(m, i, ".loc");
}

static const char *const decl_words[] = {
	".reg", ".local", ".shared", ".param", ".const", ".global", ".tex",
	".sreg", ".texref", ".samplerref", ".surfref", NULL,
};

static int is_decl_word(const struct gm_ptx_module *m, uint32_t i)
{
	for (int k = 0; decl_words[k]; k++) {
		if (gm_ptx_tok_is(m, i, decl_words[k])) {
			return 1;
		}
	}
	return 0;
}

static void add_op(struct gm_ptx_func *f, uint32_t b, uint32_t e)
{
	GM_ALLOC_GROW(f->ops, f->nr_ops + 1, f->alloc_ops);
	f->ops[f->nr_ops].begin = b;
	f->ops[f->nr_ops].end = e;
	f->nr_ops++;
}

static struct gm_ptx_stmt *new_stmt(struct gm_ptx_func *f,
				    enum gm_ptx_stmt_kind kind, uint32_t b,
				    uint32_t e, int depth)
{
	GM_ALLOC_GROW(f->stmts, f->nr_stmts + 1, f->alloc_stmts);
	struct gm_ptx_stmt *s = &f->stmts[f->nr_stmts++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->begin = b;
	s->end = e;
	s->guard = -1;
	s->opcode = b;
	s->op_first = (uint32_t)f->nr_ops;
	s->depth = depth;
	return s;
}

/* Split the operands of a statement, tokens [b, e), on top-level commas. */
static void split_operands(const struct gm_ptx_module *m,
			   struct gm_ptx_func *f, struct gm_ptx_stmt *s,
			   uint32_t b, uint32_t e)
{
	int depth = 0;
	uint32_t start = b;

	s->op_first = (uint32_t)f->nr_ops;
	if (b >= e) {
		return;
	}
	for (uint32_t i = b; i < e; i++) {
		if (m->toks.v[i].kind != GM_PTX_PUNCT) {
			continue;
		}
		char c = m->src[m->toks.v[i].off];
		if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			depth--;
		} else if (c == ',' && depth == 0) {
			add_op(f, start, i);
			start = i + 1;
		}
	}
	add_op(f, start, e);
	s->nr_ops = (uint32_t)(f->nr_ops - s->op_first);
}

static int parse_body(struct gm_ptx_module *m, struct gm_ptx_func *f,
		      uint32_t b, uint32_t e)
{
	int depth = 0;
	uint32_t i = b;

	while (i < e) {
		if (punct(m, i, '{')) {
			new_stmt(f, GM_PTX_S_OPEN, i, i + 1, depth++);
			i++;
			continue;
		}
		if (punct(m, i, '}')) {
			if (depth == 0) {
				return gm_error("line %u: unbalanced '}' in '%s'",
						line_of(m, i), f->name);
			}
			new_stmt(f, GM_PTX_S_CLOSE, i, i + 1, --depth);
			i++;
			continue;
		}
		if (punct(m, i, ';')) {
			i++;
			continue;
		}
		if (is_word(m, i) && punct(m, i + 1, ':') && i + 1 < e) {
			new_stmt(f, GM_PTX_S_LABEL, i, i + 1, depth);
			i += 2;
			continue;
		}
		if (is_line_directive(m, i)) {
			uint32_t j = end_of_line(m, i, e);
			new_stmt(f, GM_PTX_S_DIRECTIVE, i, j, depth);
			i = j;
			continue;
		}
		int64_t semi = find_semicolon(m, i, e);
		if (semi < 0) {
			return gm_error("line %u: statement without ';' in '%s'",
					line_of(m, i), f->name);
		}
		uint32_t j = i;
		int32_t guard = -1;
		int neg = 0;
		if (punct(m, j, '@')) {
			j++;
			if (punct(m, j, '!')) {
				neg = 1;
				j++;
			}
			if (!is_word(m, j)) {
				return gm_error("line %u: bad guard predicate",
						line_of(m, i));
			}
			guard = (int32_t)j++;
		}
		if (!is_word(m, j) || j >= (uint32_t)semi) {
			return gm_error("line %u: expected an instruction in '%s'",
					line_of(m, j), f->name);
		}
		enum gm_ptx_stmt_kind kind = GM_PTX_S_INSN;
		if (m->src[m->toks.v[j].off] == '.') {
			kind = is_decl_word(m, j) ? GM_PTX_S_DECL
						  : GM_PTX_S_DIRECTIVE;
		}
		struct gm_ptx_stmt *s = new_stmt(f, kind, i, (uint32_t)semi,
						 depth);
		s->guard = guard;
		s->guard_neg = neg;
		s->opcode = j;
		if (kind == GM_PTX_S_INSN) {
			split_operands(m, f, s, j + 1, (uint32_t)semi);
		}
		i = (uint32_t)semi + 1;
	}
	if (depth != 0) {
		return gm_error("line %u: unbalanced '{' in '%s'", line_of(m, e),
				f->name);
	}
	return 0;
}

static void add_param(struct gm_ptx_module *m, struct gm_ptx_func *f,
		      uint32_t b, uint32_t e)
{
	/* The name is the last word that is not a directive. */
	int64_t name = -1;

	for (uint32_t i = b; i < e; i++) {
		if (punct(m, i, '[')) {
			break;
		}
		if (is_word(m, i) && m->src[m->toks.v[i].off] != '.') {
			name = i;
		}
	}
	if (name < 0) {
		return;
	}
	GM_ALLOC_GROW(f->params, f->nr_params + 1, f->alloc_params);
	f->params[f->nr_params].name = gm_ptx_tok_dup(m, (uint32_t)name);
	f->params[f->nr_params].toks.begin = b;
	f->params[f->nr_params].toks.end = e;
	f->nr_params++;
}

/* A .entry or .func item, tokens [b, e); @kw is the .entry/.func token. */
static int parse_func(struct gm_ptx_module *m, uint32_t b, uint32_t e,
		      uint32_t kw)
{
	uint32_t i = kw + 1;

	GM_ALLOC_GROW(m->funcs, m->nr_funcs + 1, m->alloc_funcs);
	struct gm_ptx_func *f = &m->funcs[m->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->is_entry = gm_ptx_tok_is(m, kw, ".entry") ||
		      gm_ptx_tok_is(m, kw, ".kernel");
	f->item.begin = b;
	f->item.end = e;
	f->params_open = f->params_close = -1;
	f->body_open = f->body_close = -1;

	/* .func (.param .b32 retval) name (...) */
	if (!f->is_entry && punct(m, i, '(')) {
		int64_t c = match_close(m, i, e);
		if (c < 0) {
			f->name = gm_xstrdup("?");
			return gm_error("line %u: unbalanced '(' in function",
					line_of(m, i));
		}
		i = (uint32_t)c + 1;
	}
	if (!is_word(m, i)) {
		f->name = gm_xstrdup("?");
		return gm_error("line %u: function without a name",
				line_of(m, kw));
	}
	f->name_tok = i;
	f->name = gm_ptx_tok_dup(m, i);
	i++;
	if (punct(m, i, '(')) {
		int64_t c = match_close(m, i, e);
		if (c < 0) {
			return gm_error("line %u: unbalanced '(' in '%s'",
					line_of(m, i), f->name);
		}
		f->params_open = (int32_t)i;
		f->params_close = (int32_t)c;
		uint32_t start = i + 1;
		int depth = 0;
		for (uint32_t k = i + 1; k < (uint32_t)c; k++) {
			if (punct(m, k, '[') || punct(m, k, '(')) {
				depth++;
			} else if (punct(m, k, ']') || punct(m, k, ')')) {
				depth--;
			} else if (punct(m, k, ',') && depth == 0) {
				add_param(m, f, start, k);
				start = k + 1;
			}
		}
		if (start < (uint32_t)c) {
			add_param(m, f, start, (uint32_t)c);
		}
		i = (uint32_t)c + 1;
	}
	for (; i < e; i++) {
		if (punct(m, i, '{')) {
			break;
		}
	}
	if (i >= e) {
		return 0;	/* a prototype */
	}
	int64_t c = match_close(m, i, e);
	if (c < 0) {
		return gm_error("line %u: unbalanced '{' in '%s'", line_of(m, i),
				f->name);
	}
	f->has_body = 1;
	f->body_open = (int32_t)i;
	f->body_close = (int32_t)c;
	return parse_body(m, f, i + 1, (uint32_t)c);
}

static void add_var(struct gm_ptx_module *m, uint32_t b, uint32_t e)
{
	enum gm_ptx_space space = GM_PTX_SPACE_OTHER;
	int ext = 0;
	int64_t name = -1;

	for (uint32_t i = b; i < e; i++) {
		if (punct(m, i, '[') || punct(m, i, '=') || punct(m, i, '<')) {
			break;
		}
		if (gm_ptx_tok_is(m, i, ".shared")) {
			space = GM_PTX_SPACE_SHARED;
		} else if (gm_ptx_tok_is(m, i, ".global")) {
			space = GM_PTX_SPACE_GLOBAL;
		} else if (gm_ptx_tok_is(m, i, ".const")) {
			space = GM_PTX_SPACE_CONST;
		} else if (gm_ptx_tok_is(m, i, ".local")) {
			space = GM_PTX_SPACE_LOCAL;
		} else if (gm_ptx_tok_is(m, i, ".extern")) {
			ext = 1;
		} else if (is_word(m, i) && m->src[m->toks.v[i].off] != '.') {
			name = i;
		}
	}
	if (name < 0) {
		return;
	}
	GM_ALLOC_GROW(m->vars, m->nr_vars + 1, m->alloc_vars);
	struct gm_ptx_var *v = &m->vars[m->nr_vars++];
	v->name = gm_ptx_tok_dup(m, (uint32_t)name);
	v->space = space;
	v->is_extern = ext;
	v->tok = (uint32_t)name;
}

static void parse_header_directive(struct gm_ptx_module *m, uint32_t i,
				   uint32_t e)
{
	char buf[64];
	size_t n;
	const char *t;

	if (i + 1 >= e) {
		return;
	}
	t = gm_ptx_tok_text(m, i + 1, &n);
	if (n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
	}
	memcpy(buf, t, n);
	buf[n] = '\0';
	if (gm_ptx_tok_is(m, i, ".version")) {
		unsigned a = 0, b = 0;
		if (sscanf(buf, "%u.%u", &a, &b) >= 1) {
			m->version_major = a;
			m->version_minor = b;
		}
	} else if (gm_ptx_tok_is(m, i, ".target")) {
		unsigned sm = 0;
		if (sscanf(buf, "sm_%u", &sm) == 1) {
			m->target_sm = sm;
		}
	} else if (gm_ptx_tok_is(m, i, ".address_size")) {
		m->address_size = (unsigned)atoi(buf);
	}
}

int gm_ptx_module_parse(struct gm_ptx_module *m, const char *text, size_t len)
{
	uint32_t i = 0, n;

	memset(m, 0, sizeof(*m));
	while (len && text[len - 1] == '\0') {
		len--;
	}
	m->src = gm_xmalloc(len + 1);
	memcpy(m->src, text, len);
	m->src[len] = '\0';
	m->len = len;
	m->address_size = 64;
	/*
	 * PTX is text: a NUL inside it (not padding) would end the string
	 * for some readers of m->src and not others, so a transformed module
	 * could differ from what was analysed.
	 */
	const char *nul = memchr(m->src, '\0', len);
	if (nul) {
		unsigned line = 1;
		for (const char *c = m->src; c < nul; c++) {
			line += *c == '\n';
		}
		return gm_error("line %u: a NUL byte inside the PTX text", line);
	}
	if (gm_ptx_lex(m->src, len, &m->toks) < 0) {
		return -1;
	}
	n = (uint32_t)m->toks.nr;
	while (i < n) {
		if (is_line_directive(m, i)) {
			uint32_t j = end_of_line(m, i, n);
			parse_header_directive(m, i, j);
			i = j;
			continue;
		}
		if (punct(m, i, ';')) {
			i++;
			continue;
		}
		if (gm_ptx_tok_is(m, i, ".section")) {
			uint32_t j = i;
			while (j < n && !punct(m, j, '{')) {
				j++;
			}
			int64_t c = match_close(m, j, n);
			if (c < 0) {
				return gm_error("line %u: unterminated .section",
						line_of(m, i));
			}
			i = (uint32_t)c + 1;
			continue;
		}
		/* A declaration ends at ';', a function definition at '}'. */
		uint32_t j = i;
		int depth = 0, init = 0;
		int64_t kw = -1;
		for (; j < n; j++) {
			if (depth == 0 && (gm_ptx_tok_is(m, j, ".entry") ||
					   gm_ptx_tok_is(m, j, ".kernel") ||
					   gm_ptx_tok_is(m, j, ".func")) &&
			    kw < 0) {
				kw = j;
			}
			if (punct(m, j, '=') && depth == 0) {
				init = 1;
			}
			if (punct(m, j, '(') || punct(m, j, '[')) {
				depth++;
			} else if (punct(m, j, ')') || punct(m, j, ']')) {
				depth--;
			} else if (punct(m, j, '{') && depth == 0 && !init) {
				int64_t c = match_close(m, j, n);
				if (c < 0) {
					return gm_error("line %u: unbalanced '{'",
							line_of(m, j));
				}
				j = (uint32_t)c;
				break;
			} else if (punct(m, j, '{')) {
				depth++;
			} else if (punct(m, j, '}')) {
				depth--;
			} else if (punct(m, j, ';') && depth == 0) {
				break;
			}
		}
		if (j >= n) {
			return gm_error("line %u: declaration without ';'",
					line_of(m, i));
		}
		if (kw >= 0) {
			if (parse_func(m, i, j + 1, (uint32_t)kw) < 0) {
				return -1;
			}
		} else {
			add_var(m, i, j);
		}
		i = j + 1;
	}
	/*
	 * Every PTX module starts with .version (ptxas: "Missing .version
	 * directive"): without it this is an empty file or not PTX at all,
	 * which must not pass as a module with no kernels.
	 */
	if (!m->version_major && !m->version_minor) {
		return gm_error(n ? "not a PTX module: no .version directive"
				  : "empty PTX module (no .version directive)");
	}
	return 0;
}

void gm_ptx_module_release(struct gm_ptx_module *m)
{
	for (size_t i = 0; i < m->nr_funcs; i++) {
		struct gm_ptx_func *f = &m->funcs[i];
		for (size_t k = 0; k < f->nr_params; k++) {
			free(f->params[k].name);
		}
		free(f->params);
		free(f->name);
		free(f->stmts);
		free(f->ops);
	}
	free(m->funcs);
	for (size_t i = 0; i < m->nr_vars; i++) {
		free(m->vars[i].name);
	}
	free(m->vars);
	gm_ptx_tokens_release(&m->toks);
	free(m->src);
	memset(m, 0, sizeof(*m));
}

struct gm_ptx_func *gm_ptx_module_find_func(const struct gm_ptx_module *m,
					    const char *name)
{
	struct gm_ptx_func *found = NULL;

	/* A definition wins over a prototype of the same name. */
	for (size_t i = 0; i < m->nr_funcs; i++) {
		if (!strcmp(m->funcs[i].name, name)) {
			if (m->funcs[i].has_body) {
				return &m->funcs[i];
			}
			found = &m->funcs[i];
		}
	}
	return found;
}

const struct gm_ptx_var *gm_ptx_module_find_var(const struct gm_ptx_module *m,
						const char *name)
{
	for (size_t i = 0; i < m->nr_vars; i++) {
		if (!strcmp(m->vars[i].name, name)) {
			return &m->vars[i];
		}
	}
	return NULL;
}
