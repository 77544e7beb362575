/* SPDX-License-Identifier: MIT */
/*
 * The helpers the study loader's sections share (study_loader.h): names
 * as a study spells them, and warnings with their position. They call no
 * section, so the sections depend on this file and not on each other.
 */
#include "study_loader.h"

#include <stdarg.h>
#include <string.h>

#include "strbuf.h"

int loader_valid_name(const char *n)
{
	size_t len = strlen(n);

	if (!len || len > STUDY_NAME_MAX) {
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		char c = n[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9');
		if (!alnum && (i == 0 || (c != '_' && c != '-'))) {
			return 0;
		}
	}
	return 1;
}

int loader_name_error(struct loader *l, const yaml_node_t *n, const char *what,
		      const char *name)
{
	return yaml_doc_error(l->d, n, "%s '%s' is not a valid name (letters, "
			      "digits, '_' and '-', starting with a letter or "
			      "digit, at most %d characters)", what, name,
			      STUDY_NAME_MAX);
}

/* Record a warning "FILE:LINE:COL: ..." at node @at. */
void loader_warning(struct study *s, const yaml_node_t *at,
			const char *fmt, ...)
{
	struct yaml_pos pos = yaml_doc_pos(at);
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "%s:%u:%u: ", s->path, pos.line, pos.col);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	s->warnings = gm_xrealloc(s->warnings, (s->nr_warnings + 1) *
				  sizeof(*s->warnings));
	s->warnings[s->nr_warnings++] = strbuf_detach(&sb, NULL);
}
