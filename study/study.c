/* SPDX-License-Identifier: MIT */
/*
 * Loading and validating a study file (see study.h, doc/study-yaml.md).
 * The loader walks the YAML tree once, in a fixed order (top-level keys,
 * paths, replay parameters, programs, workloads, variants, policies), and
 * stops at the first error, which names its position.
 */
#include "study.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "study_path.h"

#define STUDY_NAME_MAX 64
#define DEFAULT_MIN_REPLAYS 7
#define DEFAULT_WATCHDOG_S 60.0
#define DEFAULT_TIMESLICE_S 1e-3
#define DEFAULT_COPY_CHUNK (4u << 20)
#define DEFAULT_STAGE_TIMEOUT_S 3600.0

static const char *const top_keys[] = {
	"study", "root", "programs", "workloads", "variants", "policies",
	"baseline", "replay", "stage_timeout", "paths", NULL,
};
static const char *const program_keys[] = {
	"name", "command", "bundle", "cwd", "deterministic", NULL,
};
static const char *const replay_keys[] = {
	"min_replays", "watchdog", "timeslice", "copy_chunk", NULL,
};
static const char *const path_keys[] = {
	"output", "bundles", "builds", "runs", "database", "report", "state",
	"logs", "summary", NULL,
};
static const char *const workload_keys[] = { "combinations", NULL };
static const char *const combination_keys[] = { "of", "size", "exclude", NULL };
static const char *const baseline_names[] = { "program", "workload", NULL };

struct loader {
	struct study *s;
	struct yaml_doc *d;
	const char *output;	/* -o override, or NULL */
	char **names;		/* program names, NULL-terminated (borrowed) */
};

static int valid_name(const char *n)
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

static int name_error(struct loader *l, const yaml_node_t *n, const char *what,
		      const char *name)
{
	return yaml_doc_error(l->d, n, "%s '%s' is not a valid name (letters, "
			      "digits, '_' and '-', starting with a letter or "
			      "digit, at most %d characters)", what, name,
			      STUDY_NAME_MAX);
}

/* Optional string at @key of mapping @map, resolved against @base. */
static int opt_path(struct loader *l, const yaml_node_t *map, const char *key,
		    const char *base, char **out)
{
	yaml_node_t *v = yaml_doc_get(l->d, map, key);
	char *rel, *what;
	int ret;

	if (!v) {
		return 0;
	}
	what = gm_xasprintf("'%s'", key);
	ret = yaml_doc_string(l->d, v, what, &rel);
	free(what);
	if (ret) {
		return -1;
	}
	char *abs = study_path_resolve(base, rel);	/* @base may be *@out */
	free(*out);
	*out = abs;
	free(rel);
	return 0;
}

static int load_study_name(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *v = yaml_doc_get(l->d, root, "study");

	if (v) {
		if (yaml_doc_string(l->d, v, "'study'", &s->name)) {
			return -1;
		}
		if (!valid_name(s->name)) {
			return name_error(l, v, "study name", s->name);
		}
		return 0;
	}
	const char *base = strrchr(s->path, '/');
	base = base ? base + 1 : s->path;
	s->name = gm_xstrdup(base);
	char *dot = strrchr(s->name, '.');
	if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"))) {
		*dot = '\0';
	}
	if (!valid_name(s->name)) {
		return yaml_doc_error_at(s->path, (struct yaml_pos){ 0, 0 },
					 "the file name does not make a valid "
					 "study name ('%s'); set 'study'", s->name);
	}
	return 0;
}

static int load_root(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	char *cwd = study_path_cwd();
	yaml_node_t *v;

	if (!cwd) {
		return -1;
	}
	char *file = study_path_resolve(cwd, s->path);
	free(cwd);
	*strrchr(file, '/') = '\0';
	s->root = file[0] ? file : gm_xstrdup("/");
	if (!file[0]) {
		free(file);
	}
	v = yaml_doc_get(l->d, root, "root");
	if (!v) {
		return 0;
	}
	if (opt_path(l, root, "root", s->root, &s->root)) {
		return -1;
	}
	const char *why = gm_why_not_dir(s->root);
	if (why) {
		return yaml_doc_error(l->d, v, "root '%s': %s",
				      yaml_doc_scalar(v), why);
	}
	return 0;
}

static int load_paths(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	struct study_paths *p = &s->paths;
	yaml_node_t *map = yaml_doc_get(l->d, root, "paths");
	char *rel = gm_xasprintf("results/%s", s->name);

	p->output = study_path_resolve(s->root, rel);
	free(rel);
	if (map && yaml_doc_check_map(l->d, map, "'paths'", path_keys)) {
		return -1;
	}
	if (map && opt_path(l, map, "output", s->root, &p->output)) {
		return -1;
	}
	if (l->output) {
		char *cwd = study_path_cwd();
		if (!cwd) {
			return -1;
		}
		free(p->output);
		p->output = study_path_resolve(cwd, l->output);
		free(cwd);
	}
	struct {
		const char *key, *def;
		char **dst;
	} rest[] = {
		{ "bundles", "bundles", &p->bundles },
		{ "builds", "builds", &p->builds },
		{ "runs", "runs", &p->runs },
		{ "database", "results.db", &p->database },
		{ "report", "report", &p->report },
		{ "state", "study.state", &p->state },
		{ "logs", "logs", &p->logs },
		{ "summary", "summary.md", &p->summary },
	};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
		*rest[i].dst = study_path_resolve(p->output, rest[i].def);
		if (map && opt_path(l, map, rest[i].key, s->root, rest[i].dst)) {
			return -1;
		}
	}
	return 0;
}

static int load_replay(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *map = yaml_doc_get(l->d, root, "replay");
	yaml_node_t *v;
	long n;

	s->min_replays = DEFAULT_MIN_REPLAYS;
	s->watchdog_s = DEFAULT_WATCHDOG_S;
	s->timeslice_s = DEFAULT_TIMESLICE_S;
	s->copy_chunk = DEFAULT_COPY_CHUNK;
	s->stage_timeout_s = DEFAULT_STAGE_TIMEOUT_S;
	v = yaml_doc_get(l->d, root, "stage_timeout");
	if (v && yaml_doc_duration(l->d, v, "'stage_timeout'", 1, 7 * 86400.0,
				   &s->stage_timeout_s)) {
		return -1;
	}
	if (!map) {
		return 0;
	}
	if (yaml_doc_check_map(l->d, map, "'replay'", replay_keys)) {
		return -1;
	}
	if ((v = yaml_doc_get(l->d, map, "min_replays"))) {
		if (yaml_doc_int(l->d, v, "'min_replays'", 2, 1000, &n)) {
			return -1;
		}
		s->min_replays = (unsigned)n;
	}
	if ((v = yaml_doc_get(l->d, map, "watchdog")) &&
	    yaml_doc_duration(l->d, v, "'watchdog'", 1, 86400, &s->watchdog_s)) {
		return -1;
	}
	if ((v = yaml_doc_get(l->d, map, "timeslice")) &&
	    yaml_doc_duration(l->d, v, "'timeslice'", 1e-6, 10, &s->timeslice_s)) {
		return -1;
	}
	if ((v = yaml_doc_get(l->d, map, "copy_chunk")) &&
	    yaml_doc_size(l->d, v, "'copy_chunk'", 4096, 1ull << 30,
			  &s->copy_chunk)) {
		return -1;
	}
	return 0;
}

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
	if (!valid_name(p->name)) {
		return name_error(l, name, "program name", p->name);
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
	for (size_t i = 0; i < (size_t)(p - s->programs); i++) {
		if (!strcmp(s->programs[i].name, p->name)) {
			return yaml_doc_error(l->d, name, "program '%s' is defined "
					      "twice (first at line %u)", p->name,
					      s->programs[i].pos.line);
		}
	}
	return 0;
}

static int load_programs(struct loader *l, const yaml_node_t *root)
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

static void names_add(struct study_names *set, size_t prog, struct yaml_pos pos)
{
	set->progs = gm_xrealloc(set->progs, (set->nr + 1) * sizeof(size_t));
	set->pos = gm_xrealloc(set->pos, (set->nr + 1) * sizeof(*set->pos));
	set->progs[set->nr] = prog;
	set->pos[set->nr] = pos;
	set->nr++;
}

static int unknown_program(struct loader *l, const yaml_node_t *n,
			   const char *name)
{
	const char *near = yaml_doc_closest(name, (const char *const *)l->names);
	struct strbuf sb = STRBUF_INIT;

	if (near) {
		strbuf_addf(&sb, "did you mean '%s'?", near);
	} else {
		strbuf_addstr(&sb, "programs: ");
		for (size_t i = 0; l->names[i]; i++) {
			strbuf_addf(&sb, "%s%s", i ? ", " : "", l->names[i]);
		}
	}
	yaml_doc_error(l->d, n, "unknown program '%s' (%s)", name, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * A sequence of program names (@what in messages: "a workload", "'of'",
 * "an exclusion"), each known and listed once. @within, when not NULL,
 * restricts the names to that set.
 */
static int load_names(struct loader *l, const yaml_node_t *n, const char *what,
		      const struct study_names *within, struct study_names *out)
{
	out->at = yaml_doc_pos(n);
	if (n->type != YAML_SEQUENCE_NODE) {
		return yaml_doc_error(l->d, n, "%s must be a sequence of program "
				      "names, not %s", what, yaml_doc_kind(n));
	}
	size_t nr = yaml_doc_seq_len(n);
	if (!nr) {
		return yaml_doc_error(l->d, n, "%s is empty", what);
	}
	for (size_t i = 0; i < nr; i++) {
		yaml_node_t *item = yaml_doc_seq_item(l->d, n, i);
		const char *name = yaml_doc_scalar(item);
		if (!name || yaml_doc_is_null(item)) {
			return yaml_doc_error(l->d, item, "%s must list program "
					      "names, not %s", what,
					      yaml_doc_kind(item));
		}
		long p = study_find_program(l->s, name);
		if (p < 0) {
			return unknown_program(l, item, name);
		}
		if (within) {
			size_t j = 0;
			while (j < within->nr && within->progs[j] != (size_t)p) {
				j++;
			}
			if (j == within->nr) {
				return yaml_doc_error(l->d, item, "program '%s' is not "
						      "in 'of'", name);
			}
		}
		for (size_t j = 0; j < out->nr; j++) {
			if (out->progs[j] == (size_t)p) {
				return yaml_doc_error(l->d, item, "program '%s' appears "
						      "twice in %s", name, what);
			}
		}
		names_add(out, (size_t)p, yaml_doc_pos(item));
	}
	return 0;
}

static int load_combinations(struct loader *l, const yaml_node_t *n,
			     struct study_spec *spec)
{
	struct study *s = l->s;
	yaml_node_t *of, *size, *ex;
	long k;

	spec->kind = STUDY_SPEC_COMBINATIONS;
	spec->pos = yaml_doc_pos(n);
	if (yaml_doc_check_map(l->d, n, "'combinations'", combination_keys)) {
		return -1;
	}
	of = yaml_doc_get(l->d, n, "of");
	size = yaml_doc_get(l->d, n, "size");
	ex = yaml_doc_get(l->d, n, "exclude");
	if (of) {
		if (load_names(l, of, "'of'", NULL, &spec->set)) {
			return -1;
		}
	} else {
		spec->set.at = spec->pos;
		for (size_t i = 0; i < s->nr_programs; i++) {
			names_add(&spec->set, i, s->programs[i].pos);
		}
	}
	if (!size) {
		return yaml_doc_error(l->d, n, "'combinations' needs a 'size' (the "
				      "number of programs per workload)");
	}
	if (yaml_doc_int(l->d, size, "'size'", 1, 1000, &k)) {
		return -1;
	}
	if ((size_t)k > spec->set.nr) {
		return yaml_doc_error(l->d, size, "'size' is %ld but the set has "
				      "only %zu program%s", k, spec->set.nr,
				      spec->set.nr == 1 ? "" : "s");
	}
	spec->size = (unsigned)k;
	if (!ex) {
		return 0;
	}
	if (yaml_doc_want_seq(l->d, ex, "'exclude'")) {
		return -1;
	}
	size_t nr = yaml_doc_seq_len(ex);
	spec->exclude = gm_xcalloc(nr ? nr : 1, sizeof(*spec->exclude));
	for (size_t i = 0; i < nr; i++) {
		yaml_node_t *e = yaml_doc_seq_item(l->d, ex, i);
		struct study_names *x = &spec->exclude[i];
		spec->nr_exclude = i + 1;
		if (load_names(l, e, "an exclusion", &spec->set, x)) {
			return -1;
		}
		if (x->nr > spec->size) {
			return yaml_doc_error(l->d, e, "this exclusion names %zu "
					      "programs but workloads have %u: it "
					      "can never match", x->nr, spec->size);
		}
	}
	return 0;
}

static int load_workload_item(struct loader *l, const yaml_node_t *n,
			      struct study_spec *spec)
{
	if (n->type == YAML_SEQUENCE_NODE) {
		spec->kind = STUDY_SPEC_LIST;
		spec->pos = yaml_doc_pos(n);
		return load_names(l, n, "a workload", NULL, &spec->set);
	}
	if (n->type != YAML_MAPPING_NODE) {
		return yaml_doc_error(l->d, n, "a workload must be a list of "
				      "program names or a 'combinations' "
				      "mapping, not %s", yaml_doc_kind(n));
	}
	if (yaml_doc_check_map(l->d, n, "a workload", workload_keys)) {
		return -1;
	}
	yaml_node_t *c = yaml_doc_get(l->d, n, "combinations");
	if (!c) {
		return yaml_doc_error(l->d, n, "a workload must be a list of "
				      "program names or a 'combinations' "
				      "mapping, not an empty mapping");
	}
	return load_combinations(l, c, spec);
}

static int load_workloads(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n = yaml_doc_get(l->d, root, "workloads");

	if (!n) {
		return yaml_doc_error(l->d, root, "the study needs 'workloads'");
	}
	if (n->type == YAML_MAPPING_NODE) {
		/* Shorthand: "workloads: {combinations: ...}". */
		s->specs = gm_xcalloc(1, sizeof(*s->specs));
		s->nr_specs = 1;
		return load_workload_item(l, n, &s->specs[0]);
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		return yaml_doc_error(l->d, n, "'workloads' must be a sequence of "
				      "workloads, not %s", yaml_doc_kind(n));
	}
	size_t nr = yaml_doc_seq_len(n);
	if (!nr) {
		return yaml_doc_error(l->d, n, "'workloads' is empty");
	}
	s->specs = gm_xcalloc(nr, sizeof(*s->specs));
	for (size_t i = 0; i < nr; i++) {
		s->nr_specs = i + 1;
		if (load_workload_item(l, yaml_doc_seq_item(l->d, n, i),
				       &s->specs[i])) {
			return -1;
		}
	}
	return 0;
}

/*
 * A sequence of distinct known names (@what is the list, @noun one of its
 * entries); @find maps a name to its entry.
 */
static int load_name_list(struct loader *l, const yaml_node_t *n,
			  const char *what, const char *noun,
			  const char *const *known,
			  const void *(*find)(const char *), const void **out,
			  size_t *nr_out)
{
	if (yaml_doc_want_seq(l->d, n, what)) {
		return -1;
	}
	size_t nr = yaml_doc_seq_len(n);
	if (!nr) {
		return yaml_doc_error(l->d, n, "%s is empty", what);
	}
	for (size_t i = 0; i < nr; i++) {
		yaml_node_t *item = yaml_doc_seq_item(l->d, n, i);
		char *name;
		char *item_what = gm_xasprintf("a %s", noun);
		int bad = yaml_doc_string(l->d, item, item_what, &name);
		free(item_what);
		if (bad) {
			return -1;
		}
		const void *e = find(name);
		if (!e) {
			const char *near = yaml_doc_closest(name, known);
			struct strbuf sb = STRBUF_INIT;
			for (size_t j = 0; known[j]; j++) {
				strbuf_addf(&sb, "%s%s", j ? ", " : "", known[j]);
			}
			if (near) {
				yaml_doc_error(l->d, item, "unknown %s '%s' (did you "
					       "mean '%s'?)", noun, name, near);
			} else {
				yaml_doc_error(l->d, item, "unknown %s '%s' (known: "
					       "%s)", noun, name, sb.buf);
			}
			strbuf_release(&sb);
			free(name);
			return -1;
		}
		for (size_t j = 0; j < i; j++) {
			if (out[j] == e) {
				yaml_doc_error(l->d, item, "%s '%s' is listed twice in "
					       "%s", noun, name, what);
				free(name);
				return -1;
			}
		}
		free(name);
		out[i] = e;
	}
	*nr_out = nr;
	return 0;
}

static const void *find_variant(const char *name)
{
	return study_variant_find(name);
}

static const void *find_policy(const char *name)
{
	return study_policy_find(name);
}

static int load_variants(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n = yaml_doc_get(l->d, root, "variants");

	if (!n) {
		s->variants = gm_xcalloc(2, sizeof(*s->variants));
		s->variants[0] = study_variant_find("single");
		s->variants[1] = study_variant_find("cuda");
		s->nr_variants = 2;
		return 0;
	}
	s->variants = gm_xcalloc(yaml_doc_seq_len(n) + 1, sizeof(*s->variants));
	if (load_name_list(l, n, "'variants'", "variant", study_variant_names(),
			   find_variant, (const void **)s->variants,
			   &s->nr_variants)) {
		return -1;
	}
	/* Name every unsupported variant at once, at the first of them. */
	struct strbuf sb = STRBUF_INIT;
	const yaml_node_t *first = NULL;
	size_t nr_bad = 0;
	for (size_t i = 0; i < s->nr_variants; i++) {
		if (s->variants[i]->supported) {
			continue;
		}
		if (!first) {
			first = yaml_doc_seq_item(l->d, n, i);
		}
		strbuf_addf(&sb, "%s'%s'", nr_bad ? ", " : "", s->variants[i]->name);
		nr_bad++;
	}
	if (nr_bad) {
		yaml_doc_error(l->d, first, "variant%s %s %s not supported yet "
			       "(supported now: %s)", nr_bad > 1 ? "s" : "", sb.buf,
			       nr_bad > 1 ? "are" : "is",
			       study_variant_supported_list());
		strbuf_release(&sb);
		return -1;
	}
	strbuf_release(&sb);
	return 0;
}

static int load_policies(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n = yaml_doc_get(l->d, root, "policies");
	int wanted = 0;

	for (size_t i = 0; i < s->nr_variants; i++) {
		wanted |= !!(s->variants[i]->needs & STUDY_VARIANT_POLICY);
	}
	if (!n) {
		if (wanted) {
			const char *const *all = study_policy_names();
			while (all[s->nr_policies]) {
				s->nr_policies++;
			}
			s->policies = gm_xcalloc(s->nr_policies, sizeof(char *));
			memcpy(s->policies, all, s->nr_policies * sizeof(char *));
		}
		return 0;
	}
	if (!wanted) {
		return yaml_doc_error(l->d, n, "'policies' given, but no listed "
				      "variant uses a policy");
	}
	s->policies = gm_xcalloc(yaml_doc_seq_len(n) + 1, sizeof(char *));
	return load_name_list(l, n, "'policies'", "policy", study_policy_names(),
			      find_policy, (const void **)s->policies,
			      &s->nr_policies);
}

static int load_baseline(struct loader *l, const yaml_node_t *root)
{
	yaml_node_t *n = yaml_doc_get(l->d, root, "baseline");
	char *v;

	l->s->baseline = STUDY_BASELINE_PROGRAM;
	if (!n) {
		return 0;
	}
	if (yaml_doc_string(l->d, n, "'baseline'", &v)) {
		return -1;
	}
	int ret = 0;
	if (!strcmp(v, "workload")) {
		l->s->baseline = STUDY_BASELINE_WORKLOAD;
	} else if (strcmp(v, "program")) {
		const char *near = yaml_doc_closest(v, baseline_names);
		ret = yaml_doc_error(l->d, n, "'baseline' must be 'program' or "
				     "'workload', not '%s'%s%s%s", v,
				     near ? " (did you mean '" : "",
				     near ? near : "", near ? "'?)" : "");
	}
	free(v);
	return ret;
}

static int load(struct loader *l)
{
	yaml_node_t *root = yaml_doc_root(l->d);

	if (yaml_doc_check_map(l->d, root, "the study", top_keys) ||
	    load_study_name(l, root) || load_root(l, root) ||
	    load_paths(l, root) || load_replay(l, root) ||
	    load_programs(l, root) || load_workloads(l, root) ||
	    load_variants(l, root) || load_policies(l, root) ||
	    load_baseline(l, root)) {
		return -1;
	}
	return 0;
}

static int load_common(struct study *s, struct yaml_doc *d, const char *path,
		       const char *output)
{
	struct loader l = { s, d, output, NULL };
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = gm_xstrdup(path);
	ret = load(&l);
	free(l.names);
	return ret;
}

int study_load(struct study *s, const char *path, const char *output)
{
	struct yaml_doc d = YAML_DOC_INIT;
	int ret;

	if (yaml_doc_load(&d, path)) {
		memset(s, 0, sizeof(*s));
		yaml_doc_release(&d);
		return -1;
	}
	ret = load_common(s, &d, path, output);
	yaml_doc_release(&d);
	return ret;
}

int study_load_string(struct study *s, const char *path, const char *text,
		      size_t len, const char *output)
{
	struct yaml_doc d = YAML_DOC_INIT;
	int ret;

	if (yaml_doc_load_string(&d, path, text, len)) {
		memset(s, 0, sizeof(*s));
		yaml_doc_release(&d);
		return -1;
	}
	ret = load_common(s, &d, path, output);
	yaml_doc_release(&d);
	return ret;
}

static void names_release(struct study_names *n)
{
	free(n->progs);
	free(n->pos);
}

void study_release(struct study *s)
{
	for (size_t i = 0; i < s->nr_programs; i++) {
		struct study_program *p = &s->programs[i];
		for (size_t j = 0; j < p->argc; j++) {
			free(p->argv[j]);
		}
		free(p->argv);
		free(p->name);
		free(p->cwd_rel);
		free(p->cwd);
		free(p->bundle);
	}
	free(s->programs);
	for (size_t i = 0; i < s->nr_specs; i++) {
		names_release(&s->specs[i].set);
		for (size_t j = 0; j < s->specs[i].nr_exclude; j++) {
			names_release(&s->specs[i].exclude[j]);
		}
		free(s->specs[i].exclude);
	}
	free(s->specs);
	free(s->variants);
	free(s->policies);
	struct study_paths *p = &s->paths;
	char *paths[] = { p->output, p->bundles, p->builds, p->runs,
			  p->database, p->report, p->state, p->logs, p->summary };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		free(paths[i]);
	}
	free(s->path);
	free(s->name);
	free(s->root);
	memset(s, 0, sizeof(*s));
}

long study_find_program(const struct study *s, const char *name)
{
	for (size_t i = 0; i < s->nr_programs; i++) {
		if (s->programs[i].name && !strcmp(s->programs[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

int study_has_variant(const struct study *s, const char *name)
{
	for (size_t i = 0; i < s->nr_variants; i++) {
		if (!strcmp(s->variants[i]->name, name)) {
			return 1;
		}
	}
	return 0;
}
