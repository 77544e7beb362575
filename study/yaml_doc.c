/* SPDX-License-Identifier: MIT */
/*
 * Positioned, typed access to a libyaml document (see yaml_doc.h). Every
 * failure names the file, line and column of the offending node.
 */
#include "yaml_doc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

struct yaml_pos yaml_doc_pos(const yaml_node_t *n)
{
	struct yaml_pos p = { (unsigned)n->start_mark.line + 1,
			      (unsigned)n->start_mark.column + 1 };
	return p;
}

static int verror_at(const char *path, struct yaml_pos pos, const char *fmt,
		     va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	if (pos.line) {
		strbuf_addf(&sb, "%s:%u:%u: ", path, pos.line, pos.col);
	} else {
		strbuf_addf(&sb, "%s: ", path);
	}
	strbuf_vaddf(&sb, fmt, ap);
	gm_error("%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

int yaml_doc_error_at(const char *path, struct yaml_pos pos,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_at(path, pos, fmt, ap);
	va_end(ap);
	return -1;
}

int yaml_doc_error(struct yaml_doc *d, const yaml_node_t *n,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_at(d->path, yaml_doc_pos(n), fmt, ap);
	va_end(ap);
	return -1;
}

/* Line and column (1-based) of byte @off of @text. */
static struct yaml_pos pos_of_offset(const char *text, size_t len, size_t off)
{
	struct yaml_pos p = { 1, 1 };

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			p.line++;
			p.col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			p.col++;
		}
	}
	return p;
}

static int parser_error(struct yaml_doc *d, yaml_parser_t *p,
			const char *text, size_t len)
{
	const char *problem = p->problem ? p->problem : "malformed YAML";

	if (p->error == YAML_READER_ERROR) {
		struct yaml_pos pos = pos_of_offset(text, len, p->problem_offset);
		return yaml_doc_error_at(d->path, pos, "%s", problem);
	}
	if (p->error == YAML_MEMORY_ERROR) {
		return gm_error("%s: out of memory while parsing", d->path);
	}
	struct yaml_pos pos = { (unsigned)p->problem_mark.line + 1,
				(unsigned)p->problem_mark.column + 1 };
	if (p->context) {
		return yaml_doc_error_at(d->path, pos, "%s %s", problem,
					 p->context);
	}
	return yaml_doc_error_at(d->path, pos, "%s", problem);
}

/* The YAML core schema: the only tags a study file may use. */
static const struct {
	const char *full, *shorthand;
	yaml_node_type_t kind;
} core_tags[] = {
	{ YAML_STR_TAG, "!!str", YAML_SCALAR_NODE },
	{ YAML_INT_TAG, "!!int", YAML_SCALAR_NODE },
	{ YAML_FLOAT_TAG, "!!float", YAML_SCALAR_NODE },
	{ YAML_BOOL_TAG, "!!bool", YAML_SCALAR_NODE },
	{ YAML_NULL_TAG, "!!null", YAML_SCALAR_NODE },
	{ YAML_SEQ_TAG, "!!seq", YAML_SEQUENCE_NODE },
	{ YAML_MAP_TAG, "!!map", YAML_MAPPING_NODE },
};

#define CORE_PREFIX "tag:yaml.org,2002:"

/*
 * Check explicit tag @tag (as libyaml resolved it, or NULL) of a node of
 * @kind at @m; remember a scalar's in @d. "!" (the non-specific tag) is
 * no tag.
 */
static int check_tag(struct yaml_doc *d, const yaml_char_t *tag,
		     yaml_node_type_t kind, yaml_mark_t m)
{
	struct yaml_pos pos = { (unsigned)m.line + 1, (unsigned)m.column + 1 };
	const char *t = (const char *)tag;

	if (!t || !strcmp(t, "!")) {
		return 0;
	}
	for (size_t i = 0; i < sizeof(core_tags) / sizeof(core_tags[0]); i++) {
		if (strcmp(t, core_tags[i].full)) {
			continue;
		}
		if (core_tags[i].kind != kind) {
			return yaml_doc_error_at(d->path, pos, "tag %s on %s",
						 core_tags[i].shorthand,
						 kind == YAML_SCALAR_NODE ? "a scalar" :
						 kind == YAML_SEQUENCE_NODE ? "a sequence" :
						 "a mapping");
		}
		if (kind == YAML_SCALAR_NODE) {
			GM_ALLOC_GROW(d->tags, d->nr_tags + 1, d->alloc_tags);
			d->tags[d->nr_tags].offset = m.index;
			d->tags[d->nr_tags++].tag = core_tags[i].shorthand;
		}
		return 0;
	}
	if (!strncmp(t, CORE_PREFIX, strlen(CORE_PREFIX))) {
		return yaml_doc_error_at(d->path, pos, "unsupported YAML tag '!!%s' "
					 "(a study file uses only !!str, !!int, "
					 "!!float, !!bool, !!null, !!seq, !!map)",
					 t + strlen(CORE_PREFIX));
	}
	return yaml_doc_error_at(d->path, pos, "unsupported YAML tag '%s' "
				 "(a study file uses only !!str, !!int, !!float, "
				 "!!bool, !!null, !!seq, !!map)", t);
}

/* Anchor name -> nodes of its value once expanded: open addressing. */
struct anchor_map {
	char **name;
	uint64_t *size;
	size_t cap, nr;
};

static size_t anchor_slot(const struct anchor_map *a, const char *name)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *c = name; *c; c++) {
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	}
	size_t i = (size_t)h & (a->cap - 1);
	while (a->name[i] && strcmp(a->name[i], name)) {
		i = (i + 1) & (a->cap - 1);
	}
	return i;
}

static void anchor_put(struct anchor_map *a, const char *name, uint64_t size)
{
	if (2 * (a->nr + 1) > a->cap) {
		struct anchor_map b = { NULL, NULL, a->cap ? 2 * a->cap : 64, 0 };
		b.name = gm_xcalloc(b.cap, sizeof(*b.name));
		b.size = gm_xcalloc(b.cap, sizeof(*b.size));
		for (size_t i = 0; i < a->cap; i++) {
			if (a->name[i]) {
				size_t j = anchor_slot(&b, a->name[i]);
				b.name[j] = a->name[i];
				b.size[j] = a->size[i];
				b.nr++;
			}
		}
		free(a->name);
		free(a->size);
		*a = b;
	}
	size_t i = anchor_slot(a, name);
	if (!a->name[i]) {
		a->name[i] = gm_xstrdup(name);
		a->nr++;
	}
	a->size[i] = size;	/* a later anchor of the same name replaces it */
}

static uint64_t anchor_get(const struct anchor_map *a, const char *name)
{
	if (!a->cap) {
		return 1;
	}
	size_t i = anchor_slot(a, name);
	return a->name[i] ? a->size[i] : 1;
}

static void anchor_map_release(struct anchor_map *a)
{
	for (size_t i = 0; i < a->cap; i++) {
		free(a->name[i]);
	}
	free(a->name);
	free(a->size);
}

/*
 * Walk the events of @text before libyaml's loader sees it: refuse
 * nesting deeper than YAML_DOC_MAX_DEPTH (the loader takes quadratic time
 * in the depth: 100,000 nested '[' took half a minute), documents that
 * expand to more than YAML_DOC_MAX_NODES nodes through aliases, and tags
 * outside the core schema; remember each scalar's explicit tag. A syntax
 * error is reported as the loader would.
 */
static int scan_events(struct yaml_doc *d, const char *text, size_t len)
{
	uint64_t open_size[YAML_DOC_MAX_DEPTH];
	char *open_anchor[YAML_DOC_MAX_DEPTH];
	struct anchor_map anchors = { NULL, NULL, 0, 0 };
	yaml_parser_t parser;
	yaml_event_t ev;
	uint64_t nodes = 0;
	int depth = 0, ret = 0;

	if (len > YAML_DOC_MAX_BYTES) {
		return yaml_doc_error_at(d->path, (struct yaml_pos){ 0, 0 },
					 "the file is larger than %u MiB, the "
					 "limit for a study file",
					 YAML_DOC_MAX_BYTES >> 20);
	}
	if (!yaml_parser_initialize(&parser)) {
		return gm_error("%s: cannot initialise the YAML parser", d->path);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (int done = 0; !done && !ret;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = parser_error(d, &parser, text, len);
			break;
		}
		struct yaml_pos pos = { (unsigned)ev.start_mark.line + 1,
					(unsigned)ev.start_mark.column + 1 };
		uint64_t add = 0;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_ALIAS_EVENT:
			add = anchor_get(&anchors, (const char *)ev.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			ret = check_tag(d, ev.data.scalar.tag, YAML_SCALAR_NODE,
					ev.start_mark);
			if (ev.data.scalar.anchor) {
				anchor_put(&anchors, (const char *)ev.data.scalar.anchor, 1);
			}
			add = 1;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth == YAML_DOC_MAX_DEPTH) {
				ret = yaml_doc_error_at(d->path, pos, "nesting deeper "
							"than %d levels",
							YAML_DOC_MAX_DEPTH);
				break;
			}
			if (ev.type == YAML_SEQUENCE_START_EVENT) {
				ret = check_tag(d, ev.data.sequence_start.tag,
						YAML_SEQUENCE_NODE, ev.start_mark);
				open_anchor[depth] = (char *)ev.data.sequence_start.anchor;
			} else {
				ret = check_tag(d, ev.data.mapping_start.tag,
						YAML_MAPPING_NODE, ev.start_mark);
				open_anchor[depth] = (char *)ev.data.mapping_start.anchor;
			}
			if (open_anchor[depth]) {
				open_anchor[depth] = gm_xstrdup(open_anchor[depth]);
			}
			open_size[depth++] = 1;
			nodes++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			if (open_anchor[depth]) {
				anchor_put(&anchors, open_anchor[depth], open_size[depth]);
				free(open_anchor[depth]);
			}
			if (depth) {
				open_size[depth - 1] += open_size[depth];
			}
			break;
		default:
			break;
		}
		if (add) {
			nodes += add;
			if (depth) {
				open_size[depth - 1] += add;
			}
		}
		if (!ret && nodes > YAML_DOC_MAX_NODES) {
			ret = yaml_doc_error_at(d->path, pos, "more than %d nodes once "
						"the aliases are expanded",
						YAML_DOC_MAX_NODES);
		}
		yaml_event_delete(&ev);
	}
	while (depth > 0) {
		free(open_anchor[--depth]);
	}
	anchor_map_release(&anchors);
	yaml_parser_delete(&parser);
	return ret;
}

int yaml_doc_load_string(struct yaml_doc *d, const char *path,
			 const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	int ret = 0;

	d->path = gm_xstrdup(path);
	d->loaded = 0;
	d->tags = NULL;
	d->nr_tags = d->alloc_tags = 0;
	if (scan_events(d, text, len)) {
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		return gm_error("%s: cannot initialise the YAML parser", path);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &d->doc)) {
		ret = parser_error(d, &parser, text, len);
		goto out;
	}
	d->loaded = 1;
	if (!yaml_document_get_root_node(&d->doc)) {
		ret = yaml_doc_error_at(path, (struct yaml_pos){ 0, 0 },
					"the file is empty");
		goto out;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		ret = parser_error(d, &parser, text, len);
		goto out;
	}
	yaml_node_t *r = yaml_document_get_root_node(&extra);
	if (r) {
		ret = yaml_doc_error(d, r, "a second YAML document; a study file "
				     "holds exactly one");
	}
	yaml_document_delete(&extra);
out:
	yaml_parser_delete(&parser);
	return ret;
}

int yaml_doc_load(struct yaml_doc *d, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	/* The limit applies to what is read, not to the size the name
	 * shows (a link to /dev/zero has size 0). */
	if (gm_read_file_max(path, &sb, YAML_DOC_MAX_BYTES)) {
		if (errno == EFBIG) {
			gm_error_clear();
			gm_error("%s: the file is larger than %u MiB, the limit "
				 "for a study file", path, YAML_DOC_MAX_BYTES >> 20);
		}
		d->path = gm_xstrdup(path);
		d->loaded = 0;
		d->tags = NULL;
		d->nr_tags = d->alloc_tags = 0;
		return -1;
	}
	ret = yaml_doc_load_string(d, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

void yaml_doc_release(struct yaml_doc *d)
{
	if (d->loaded) {
		yaml_document_delete(&d->doc);
	}
	free(d->path);
	free(d->tags);
	d->path = NULL;
	d->tags = NULL;
	d->nr_tags = d->alloc_tags = 0;
	d->loaded = 0;
}

const char *yaml_doc_tag(const struct yaml_doc *d, const yaml_node_t *n)
{
	size_t lo = 0, hi = d->nr_tags;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->tags[mid].offset < n->start_mark.index) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < d->nr_tags && d->tags[lo].offset == n->start_mark.index
	       ? d->tags[lo].tag : NULL;
}

yaml_node_t *yaml_doc_root(struct yaml_doc *d)
{
	return yaml_document_get_root_node(&d->doc);
}

int yaml_doc_is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		return 0;
	}
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

const char *yaml_doc_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a sequence";
	case YAML_SCALAR_NODE:
		return yaml_doc_is_null(n) ? "empty" : "a string";
	case YAML_NO_NODE:
		break;
	}
	return "nothing";
}

const char *yaml_doc_scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
					   : NULL;
}

size_t yaml_doc_seq_len(const yaml_node_t *n)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		return 0;
	}
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *yaml_doc_seq_item(struct yaml_doc *d, const yaml_node_t *n,
			       size_t i)
{
	return yaml_document_get_node(&d->doc, n->data.sequence.items.start[i]);
}

size_t yaml_doc_map_len(const yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE) {
		return 0;
	}
	return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

yaml_node_t *yaml_doc_map_key(struct yaml_doc *d, const yaml_node_t *n,
			      size_t i)
{
	return yaml_document_get_node(&d->doc, n->data.mapping.pairs.start[i].key);
}

yaml_node_t *yaml_doc_map_value(struct yaml_doc *d, const yaml_node_t *n,
				size_t i)
{
	return yaml_document_get_node(&d->doc,
				      n->data.mapping.pairs.start[i].value);
}

static void add_list(struct strbuf *sb, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		strbuf_addf(sb, "%s%s", i ? ", " : "", names[i]);
	}
}

int yaml_doc_check_map(struct yaml_doc *d, const yaml_node_t *n,
		       const char *what, const char *const *known)
{
	if (n->type != YAML_MAPPING_NODE) {
		return yaml_doc_error(d, n, "%s must be a mapping, not %s", what,
				      yaml_doc_kind(n));
	}
	size_t nr = yaml_doc_map_len(n);
	for (size_t i = 0; i < nr; i++) {
		yaml_node_t *k = yaml_doc_map_key(d, n, i);
		const char *key = yaml_doc_scalar(k);
		if (!key || yaml_doc_is_null(k)) {
			return yaml_doc_error(d, k, "a key of %s is %s; keys are names",
					      what, yaml_doc_kind(k));
		}
		size_t j = 0;
		while (known[j] && strcmp(known[j], key)) {
			j++;
		}
		if (!known[j]) {
			struct strbuf sb = STRBUF_INIT;
			const char *near = gm_closest(key, known);
			if (near) {
				strbuf_addf(&sb, "did you mean '%s'?", near);
			} else {
				strbuf_addstr(&sb, "known keys: ");
				add_list(&sb, known);
			}
			yaml_doc_error(d, k, "unknown key '%s' in %s (%s)", key,
				       what, sb.buf);
			strbuf_release(&sb);
			return -1;
		}
		for (size_t p = 0; p < i; p++) {
			const char *prev = yaml_doc_scalar(yaml_doc_map_key(d, n, p));
			if (!strcmp(prev, key)) {
				struct yaml_pos pp = yaml_doc_pos(yaml_doc_map_key(d, n, p));
				return yaml_doc_error(d, k, "key '%s' given twice in %s "
						      "(first at line %u)", key,
						      what, pp.line);
			}
		}
	}
	return 0;
}

yaml_node_t *yaml_doc_get(struct yaml_doc *d, const yaml_node_t *n,
			  const char *key)
{
	size_t nr = yaml_doc_map_len(n);

	for (size_t i = 0; i < nr; i++) {
		const char *k = yaml_doc_scalar(yaml_doc_map_key(d, n, i));
		if (k && !strcmp(k, key)) {
			return yaml_doc_map_value(d, n, i);
		}
	}
	return NULL;
}

int yaml_doc_want_seq(struct yaml_doc *d, const yaml_node_t *n,
		      const char *what)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		return yaml_doc_error(d, n, "%s must be a sequence, not %s", what,
				      yaml_doc_kind(n));
	}
	return 0;
}

/*
 * An explicit tag on @n other than those in @ok (NULL-terminated) is an
 * error: "!!str 3" is the string "3", never the integer 3.
 */
static int tag_ok(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  const char *type, const char *const *ok)
{
	const char *tag = yaml_doc_tag(d, n);

	if (!tag) {
		return 0;
	}
	for (size_t i = 0; ok[i]; i++) {
		if (!strcmp(tag, ok[i])) {
			return 0;
		}
	}
	return yaml_doc_error(d, n, "%s must be %s, not a value tagged %s ('%s')",
			      what, type, tag, (const char *)n->data.scalar.value);
}

static const char *const str_tags[] = { "!!str", NULL };

int yaml_doc_string(struct yaml_doc *d, const yaml_node_t *n,
		    const char *what, char **out)
{
	if (n->type != YAML_SCALAR_NODE || yaml_doc_is_null(n)) {
		return yaml_doc_error(d, n, "%s must be a string, not %s", what,
				      yaml_doc_kind(n));
	}
	if (tag_ok(d, n, what, "a string", str_tags)) {
		return -1;
	}
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
		return yaml_doc_error(d, n, "%s contains a NUL character", what);
	}
	*out = gm_xstrdup((const char *)n->data.scalar.value);
	return 0;
}

/*
 * A scalar's text for a typed value. Numbers and booleans (@quoted_ok 0)
 * must be plain: a quoted '7' is a string in YAML.
 */
static const char *typed(struct yaml_doc *d, const yaml_node_t *n,
			 const char *what, const char *type, int quoted_ok,
			 const char *const *tags)
{
	if (n->type != YAML_SCALAR_NODE || yaml_doc_is_null(n)) {
		yaml_doc_error(d, n, "%s must be %s, not %s", what, type,
			       yaml_doc_kind(n));
		return NULL;
	}
	if (tag_ok(d, n, what, type, tags)) {
		return NULL;
	}
	if (!quoted_ok && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		yaml_doc_error(d, n, "%s must be %s, not the quoted string '%s'",
			       what, type, (const char *)n->data.scalar.value);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

int yaml_doc_int(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		 long min, long max, long *out)
{
	static const char *const tags[] = { "!!int", NULL };
	const char *v = typed(d, n, what, "an integer", 0, tags);
	char *end;

	if (!v) {
		return -1;
	}
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno || v[0] == '+') {
		return yaml_doc_error(d, n, "%s must be an integer, not '%s'", what,
				      v);
	}
	if (x < min || x > max) {
		return yaml_doc_error(d, n, "%s must be between %ld and %ld, not %ld",
				      what, min, max, x);
	}
	*out = x;
	return 0;
}

int yaml_doc_bool(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", NULL };
	static const char *const no[] = { "false", "False", "FALSE", NULL };
	static const char *const tags[] = { "!!bool", NULL };
	const char *v = typed(d, n, what, "true or false", 0, tags);

	if (!v) {
		return -1;
	}
	for (int i = 0; yes[i]; i++) {
		if (!strcmp(v, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcmp(v, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return yaml_doc_error(d, n, "%s must be true or false, not '%s'", what, v);
}

/* Parse "NUMBER[unit]" into @num and the unit's start. */
static int number_unit(const char *v, double *num, const char **unit)
{
	char *end;

	if (!(*v >= '0' && *v <= '9') && *v != '.') {
		return -1;
	}
	errno = 0;
	*num = strtod(v, &end);
	if (errno || end == v || !isfinite(*num)) {
		return -1;
	}
	*unit = end;
	return 0;
}

/* "1.5ms", "2s", "250us": a compact duration for messages. */
static void fmt_seconds(char *buf, size_t len, double s)
{
	if (s >= 3600 && fmod(s, 3600) == 0) {
		snprintf(buf, len, "%gh", s / 3600);
	} else if (s >= 60 && fmod(s, 60) == 0) {
		snprintf(buf, len, "%gmin", s / 60);
	} else if (s >= 1) {
		snprintf(buf, len, "%gs", s);
	} else if (s >= 1e-3) {
		snprintf(buf, len, "%gms", s * 1e3);
	} else {
		snprintf(buf, len, "%gus", s * 1e6);
	}
}

int yaml_doc_duration(struct yaml_doc *d, const yaml_node_t *n,
		      const char *what, double min_s, double max_s,
		      double *out_s)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 },
		{ "min", 60 }, { "h", 3600 },
	};
	/* (a bare number is seconds: an integer or a float) */
	static const char *const tags[] = { "!!str", "!!int", "!!float", NULL };
	const char *v = typed(d, n, what, "a duration", 1, tags);
	const char *unit;
	double num;

	if (!v) {
		return -1;
	}
	if (!number_unit(v, &num, &unit)) {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(unit, units[i].unit)) {
				continue;
			}
			double s = num * units[i].scale;
			if (s < min_s || s > max_s) {
				char a[32], b[32];
				fmt_seconds(a, sizeof(a), min_s);
				fmt_seconds(b, sizeof(b), max_s);
				return yaml_doc_error(d, n, "%s must be between %s and "
						      "%s, not %s", what, a, b, v);
			}
			*out_s = s;
			return 0;
		}
	}
	return yaml_doc_error(d, n, "%s must be a duration such as 500us, 1ms, "
			      "2s, 5min or 1h, not '%s'", what, v);
}

int yaml_doc_fraction(struct yaml_doc *d, const yaml_node_t *n,
		      const char *what, double min, double max, double *out)
{
	/* (5% is a string to YAML, 0.05 a float) */
	static const char *const tags[] = { "!!str", "!!float", NULL };
	const char *v = typed(d, n, what, "a fraction", 1, tags);
	const char *unit;
	double num;

	if (!v) {
		return -1;
	}
	if (!number_unit(v, &num, &unit) && (!*unit || !strcmp(unit, "%"))) {
		double f = *unit ? num / 100 : num;
		if (!(f > min) || f > max) {
			return yaml_doc_error(d, n, "%s must be more than %g%% and "
					      "at most %g%%, not %s", what,
					      min * 100, max * 100, v);
		}
		*out = f;
		return 0;
	}
	return yaml_doc_error(d, n, "%s must be a fraction such as 0.05 or "
			      "5%%, not '%s'", what, v);
}

int yaml_doc_size(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "B", 1 }, { "KiB", 1024.0 },
		{ "MiB", 1024.0 * 1024 }, { "GiB", 1024.0 * 1024 * 1024 },
	};
	static const char *const tags[] = { "!!str", "!!int", NULL };
	const char *v = typed(d, n, what, "a size", 1, tags);
	const char *unit;
	double num;

	if (!v) {
		return -1;
	}
	if (!number_unit(v, &num, &unit)) {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(unit, units[i].unit)) {
				continue;
			}
			double b = num * units[i].scale;
			if (b != floor(b)) {
				return yaml_doc_error(d, n, "%s must be a whole number "
						      "of bytes, not %s", what, v);
			}
			if (b < (double)min || b > (double)max) {
				return yaml_doc_error(d, n, "%s must be between %" PRIu64
						      " and %" PRIu64 " bytes, not %s",
						      what, min, max, v);
			}
			*out = (uint64_t)b;
			return 0;
		}
	}
	return yaml_doc_error(d, n, "%s must be a size such as 65536, 64KiB or "
			      "4MiB, not '%s'", what, v);
}
