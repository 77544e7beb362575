/* SPDX-License-Identifier: MIT */
/*
 * A loaded YAML file (libyaml's document API) with typed, positioned
 * access: every accessor that rejects a node records an error of the form
 * "FILE:LINE:COLUMN: message" (1-based, the node's first character), so
 * the study loader can refuse a typo at the exact place it was made. Only
 * one document per file is accepted; anchors and aliases are resolved by
 * libyaml. Files are checked against limits before libyaml builds the
 * document (whose loader is quadratic in the nesting depth, and whose
 * aliases can expand a small file exponentially): YAML_DOC_MAX_BYTES,
 * YAML_DOC_MAX_DEPTH, YAML_DOC_MAX_NODES. Explicit tags are honoured: a
 * scalar tagged !!str is a string even when it looks like a number, and
 * only the YAML core tags are accepted.
 */
#ifndef GM_YAML_DOC_H
#define GM_YAML_DOC_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

/* The limits a file is checked against before it is loaded. */
#define YAML_DOC_MAX_BYTES (4u << 20)
#define YAML_DOC_MAX_DEPTH 64
/* Nodes of the document once every alias is expanded. */
#define YAML_DOC_MAX_NODES 1000000

/* A position in the file, 1-based; line 0 means "the file itself". */
struct yaml_pos {
	unsigned line, col;
};

/* A scalar written with an explicit tag (libyaml's document forgets it). */
struct yaml_doc_tag {
	size_t offset;		/* of the node (its start_mark.index) */
	const char *tag;	/* "!!str", "!!int", ... (static) */
};

struct yaml_doc {
	char *path;		/* as given, used in messages (owned) */
	yaml_document_t doc;
	int loaded;
	struct yaml_doc_tag *tags;	/* by offset (owned) */
	size_t nr_tags, alloc_tags;
};

#define YAML_DOC_INIT { .path = NULL, .loaded = 0, .tags = NULL, .nr_tags = 0, \
			.alloc_tags = 0 }

/*
 * Read and parse @path. A syntax error, an unreadable file, an empty file,
 * a second document, a file over the limits above or a tag other than the
 * YAML core ones is an error naming the position. Returns 0 or -1;
 * yaml_doc_release() must be called either way.
 */
int yaml_doc_load(struct yaml_doc *d, const char *path);

/* Same from memory; @path is only used in messages. */
int yaml_doc_load_string(struct yaml_doc *d, const char *path,
			 const char *text, size_t len);

void yaml_doc_release(struct yaml_doc *d);

/* The root node (a loaded document always has one). */
yaml_node_t *yaml_doc_root(struct yaml_doc *d);

/* Position of @n. */
struct yaml_pos yaml_doc_pos(const yaml_node_t *n);

/*
 * Record "PATH:LINE:COL: <message>" at @pos (or "PATH: <message>" when
 * pos.line is 0). Returns -1.
 */
int yaml_doc_error_at(const char *path, struct yaml_pos pos,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Same at node @n of @d. */
int yaml_doc_error(struct yaml_doc *d, const yaml_node_t *n,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * The explicit tag @n was written with ("!!str", "!!int", "!!float",
 * "!!bool", "!!null", "!!seq", "!!map"), or NULL when it has none.
 */
const char *yaml_doc_tag(const struct yaml_doc *d, const yaml_node_t *n);

/* "a mapping", "a sequence", "a string", "empty": for messages. */
const char *yaml_doc_kind(const yaml_node_t *n);

/* 1 when @n is a scalar that YAML reads as null ("", "~", "null"). */
int yaml_doc_is_null(const yaml_node_t *n);

/* The scalar's text (borrowed), or NULL when @n is not a scalar. */
const char *yaml_doc_scalar(const yaml_node_t *n);

/* Number of items of sequence @n, and item @i (0-based). */
size_t yaml_doc_seq_len(const yaml_node_t *n);
yaml_node_t *yaml_doc_seq_item(struct yaml_doc *d, const yaml_node_t *n,
			       size_t i);

/* Number of pairs of mapping @n, and the key and value of pair @i. */
size_t yaml_doc_map_len(const yaml_node_t *n);
yaml_node_t *yaml_doc_map_key(struct yaml_doc *d, const yaml_node_t *n,
			      size_t i);
yaml_node_t *yaml_doc_map_value(struct yaml_doc *d, const yaml_node_t *n,
				size_t i);

/*
 * Check that @n is a mapping (called @what in messages) whose keys are
 * non-null strings from @known (NULL-terminated), each at most once. An
 * unknown key is reported with the closest known one as a suggestion.
 */
int yaml_doc_check_map(struct yaml_doc *d, const yaml_node_t *n,
		       const char *what, const char *const *known);

/* Value of @key in mapping @n, or NULL when absent. */
yaml_node_t *yaml_doc_get(struct yaml_doc *d, const yaml_node_t *n,
			  const char *key);

/* Check that @n is a sequence; @what names it in the message. */
int yaml_doc_want_seq(struct yaml_doc *d, const yaml_node_t *n,
		      const char *what);

/* A non-null scalar as a new string (caller frees). */
int yaml_doc_string(struct yaml_doc *d, const yaml_node_t *n,
		    const char *what, char **out);

/* A plain decimal integer in [@min, @max]. */
int yaml_doc_int(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		 long min, long max, long *out);

/* true/false (also True/TRUE/False/FALSE). */
int yaml_doc_bool(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  int *out);

/*
 * A duration such as 250us, 1ms, 1.5s, 2min or 1h (a bare number is
 * seconds), in [@min_s, @max_s] seconds.
 */
int yaml_doc_duration(struct yaml_doc *d, const yaml_node_t *n,
		      const char *what, double min_s, double max_s,
		      double *out_s);

/*
 * A fraction written as a number (0.05) or a percentage (5%), in
 * (@min, @max] (an exclusive lower bound: 0 is never a fraction here).
 */
int yaml_doc_fraction(struct yaml_doc *d, const yaml_node_t *n,
		      const char *what, double min, double max, double *out);

/* A byte size such as 4096, 64KiB, 4MiB or 1GiB, in [@min, @max]. */
int yaml_doc_size(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  uint64_t min, uint64_t max, uint64_t *out);

#endif
