/* SPDX-License-Identifier: MIT */
/*
 * The study's 'programs': each program's name, command (a string split
 * as a shell would, or a list), bundle, working directory and
 * open-loop keys (study_arrivals.c).
 */
#include "study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "study_loader.h"
#include "study_path.h"

static const char *const program_keys[] = {
	"name", "command", "bundle", "cwd", "deterministic",
	/* an open-loop program's (study_arrivals.c, study_arrival_keys) */
	"arrivals", "load", "rate", "trace", "column", "slo", "seed",
	"requests", NULL,
};

static void argv_push(struct study_program *p, size_t *alloc, char *arg)
{
	GM_ALLOC_GROW(p->argv, p->argc + 2, *alloc);
	p->argv[p->argc++] = arg;
	p->argv[p->argc] = NULL;
}

/*
 * Split a command string into words: blanks separate words, '...' is
 * literal, "..." is literal except for \" and \\, and a backslash outside
 * quotes escapes the next character. No expansions of any kind.
 */
static int split_command(struct loader *l, const yaml_node_t *n,
			 struct study_program *p)
{
	const char *c = yaml_doc_scalar(n);
	struct strbuf w = STRBUF_INIT;
	size_t alloc = 0;
	int in_word = 0;

	for (;;) {
		if (!*c || *c == ' ' || *c == '\t' || *c == '\n') {
			if (in_word) {
				argv_push(p, &alloc, strbuf_detach(&w, NULL));
				in_word = 0;
			}
			if (!*c) {
				break;
			}
			c++;
			continue;
		}
		in_word = 1;
		if (*c == '\'' || *c == '"') {
			char q = *c++;
			while (*c && *c != q) {
				if (q == '"' && *c == '\\' && (c[1] == '"' || c[1] == '\\')) {
					c++;
				}
				strbuf_addch(&w, *c++);
			}
			if (!*c) {
				strbuf_release(&w);
				return yaml_doc_error(l->d, n, "unterminated %s quote in "
						      "'command'", q == '"' ? "double"
						      : "single");
			}
			c++;
		} else if (*c == '\\' && c[1]) {
			strbuf_addch(&w, c[1]);
			c += 2;
		} else {
			strbuf_addch(&w, *c++);
		}
	}
	strbuf_release(&w);
	return 0;
}

static int load_command(struct loader *l, const yaml_node_t *n,
			struct study_program *p)
{
	size_t alloc = 0;

	p->command_pos = yaml_doc_pos(n);
	if (n->type == YAML_SEQUENCE_NODE) {
		size_t nr = yaml_doc_seq_len(n);
		for (size_t i = 0; i < nr; i++) {
			char *arg;
			if (yaml_doc_string(l->d, yaml_doc_seq_item(l->d, n, i),
					    "an argument of 'command'", &arg)) {
				return -1;
			}
			argv_push(p, &alloc, arg);
		}
	} else if (n->type == YAML_SCALAR_NODE && !yaml_doc_is_null(n)) {
		if (split_command(l, n, p)) {
			return -1;
		}
	} else {
		return yaml_doc_error(l->d, n, "'command' must be a string or a "
				      "sequence of arguments, not %s",
				      yaml_doc_kind(n));
	}
	if (!p->argc || !p->argv[0][0]) {
		return yaml_doc_error(l->d, n, "'command' of program '%s' is empty",
				      p->name);
	}
	return 0;
}

static int load_program(struct loader *l, const yaml_node_t *n,
			struct study_program *p)
{
	struct study *s = l->s;
	yaml_node_t *name = yaml_doc_get(l->d, n, "name");
	yaml_node_t *cmd = yaml_doc_get(l->d, n, "command");
	yaml_node_t *bundle = yaml_doc_get(l->d, n, "bundle");
	yaml_node_t *cwd = yaml_doc_get(l->d, n, "cwd");
	yaml_node_t *det = yaml_doc_get(l->d, n, "deterministic");

	p->pos = yaml_doc_pos(n);
	p->deterministic = 1;
	if (yaml_doc_check_map(l->d, n, "a program", program_keys)) {
		return -1;
	}
	if (name && yaml_doc_string(l->d, name, "'name'", &p->name)) {
		return -1;
	}
	if (!name && !bundle) {
		return yaml_doc_error(l->d, n, "a program needs a 'name'");
	}
	if (!cmd && !bundle) {
		return yaml_doc_error(l->d, n, "program '%s' needs a 'command' (a "
				      "program to capture) or a 'bundle' (an "
				      "existing trace bundle)", p->name);
	}
	if (bundle) {
		char *rel;
		if (cmd) {
			return yaml_doc_error(l->d, bundle, "program '%s' has both "
					      "'command' and 'bundle'; give one",
					      p->name);
		}
		if (cwd) {
			return yaml_doc_error(l->d, cwd, "'cwd' applies only to a "
					      "program with a 'command'");
		}
		if (yaml_doc_string(l->d, bundle, "'bundle'", &rel)) {
			return -1;
		}
		p->bundle = study_path_resolve(s->root, rel);
		free(rel);
		const char *base = strrchr(p->bundle, '/') + 1;
		if (!p->name) {
			p->name = gm_xstrdup(base);
			name = bundle;
		} else if (strcmp(p->name, base)) {
			return yaml_doc_error(l->d, name, "program name '%s' differs "
					      "from its bundle directory '%s' (runs "
					      "name each program after its bundle "
					      "directory)", p->name, base);
		}
	}
	if (!loader_valid_name(p->name)) {
		return loader_name_error(l, name, "program name", p->name);
	}
	if (cmd && load_command(l, cmd, p)) {
		return -1;
	}
	if (cwd && yaml_doc_string(l->d, cwd, "'cwd'", &p->cwd_rel)) {
		return -1;
	}
	if (!p->cwd_rel) {
		p->cwd_rel = gm_xstrdup(".");
	}
	p->cwd = study_path_resolve(s->root, p->cwd_rel);
	if (!p->bundle) {
		p->bundle = study_path_resolve(s->paths.bundles, p->name);
	}
	if (det && yaml_doc_bool(l->d, det, "'deterministic'", &p->deterministic)) {
		return -1;
	}
	if (study_load_arrivals(s, l->d, n, (size_t)(p - s->programs))) {
		return -1;
	}
	for (size_t i = 0; i < (size_t)(p - s->programs); i++) {
		if (!strcmp(s->programs[i].name, p->name)) {
			return yaml_doc_error(l->d, name, "program '%s' is defined "
					      "twice (first at line %u)", p->name,
					      s->programs[i].pos.line);
		}
	}
	return 0;
}

int loader_programs(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n = yaml_doc_get(l->d, root, "programs");

	if (!n) {
		return yaml_doc_error(l->d, root, "the study needs 'programs'");
	}
	if (yaml_doc_want_seq(l->d, n, "'programs'")) {
		return -1;
	}
	size_t nr = yaml_doc_seq_len(n);
	if (!nr) {
		return yaml_doc_error(l->d, n, "'programs' is empty");
	}
	s->programs = gm_xcalloc(nr, sizeof(*s->programs));
	for (size_t i = 0; i < nr; i++) {
		s->nr_programs = i + 1;
		if (load_program(l, yaml_doc_seq_item(l->d, n, i),
				 &s->programs[i])) {
			return -1;
		}
	}
	l->names = gm_xcalloc(nr + 1, sizeof(char *));
	for (size_t i = 0; i < nr; i++) {
		l->names[i] = s->programs[i].name;
	}
	return 0;
}
