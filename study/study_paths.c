/* SPDX-License-Identifier: MIT */
/*
 * The paths of a study checked against each other before anything runs
 * (doc/study-yaml.md, "paths"): every path the study writes (the bundles
 * it captures, builds, runs, logs, report, database, summary, state,
 * profile, and the locks and task records beside them) must differ from
 * every other one and from every path it reads (the study file, the
 * bundles it is given, the programs it captures, the knees file), and
 * none may lie inside another: otherwise one stage overwrites, or
 * replaces whole, what another wrote or what the study reads
 * (`paths: {summary: results.db}` turned the database into Markdown).
 * One rule, one place; the error names both paths and where the first
 * was set. Paths are compared as the file system resolves them (symbolic
 * links followed as far as they exist), so a link cannot hide a
 * collision.
 */
#include "study.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "study_path.h"
#include "strbuf.h"

struct entry {
	char *role;		/* "the summary (paths: summary)" */
	char *shown;		/* the path as written, or as displayed */
	char *canon;		/* resolved (see canon()) */
	struct yaml_pos pos;	/* where it is set; line 0: by default */
	int output;		/* the study writes it */
};

struct paths_check {
	struct entry *v;
	size_t nr, alloc;
};

/*
 * @abs (absolute, lexically clean) with its longest existing prefix
 * resolved by realpath(3): what the file system will open, whether or
 * not the path exists yet.
 */
static char *canon(const char *abs)
{
	char *prefix = gm_xstrdup(abs), *slash, *real = NULL, *ret;
	size_t cut = strlen(prefix);

	for (;;) {
		real = realpath(prefix[0] ? prefix : "/", NULL);
		if (real || !(slash = strrchr(prefix, '/'))) {
			break;
		}
		*slash = '\0';
		cut = (size_t)(slash - prefix);
	}
	if (!real) {
		ret = gm_xstrdup(abs);
	} else if (!strcmp(real, "/") && abs[cut] == '/') {
		ret = gm_xstrdup(abs + cut);
	} else {
		ret = gm_xasprintf("%s%s", real, abs + cut);
	}
	free(real);
	free(prefix);
	return ret;
}

/* Add @abs in @role; @written (may be NULL: a default) is shown. */
static void add(struct paths_check *c, int output, const char *abs,
		const char *written, struct yaml_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void add(struct paths_check *c, int output, const char *abs,
		const char *written, struct yaml_pos pos, const char *fmt, ...)
{
	struct entry *e;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	GM_ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	e = &c->v[c->nr++];
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	e->role = strbuf_detach(&sb, NULL);
	e->shown = written ? gm_xstrdup(written) : study_path_display(abs);
	e->canon = canon(abs);
	e->pos = pos;
	e->output = output;
}

/* 1 when @inner is @outer or lies inside it. */
static int within(const char *inner, const char *outer)
{
	size_t n = strlen(outer);

	if (!strcmp(outer, "/")) {
		return 1;
	}
	return !strncmp(inner, outer, n) && (inner[n] == '\0' || inner[n] == '/');
}

/* The value node of paths.@key as written, or NULL (a default). */
static yaml_node_t *path_node(struct yaml_doc *d, const char *key)
{
	yaml_node_t *map = yaml_doc_get(d, yaml_doc_root(d), "paths");

	return map && map->type == YAML_MAPPING_NODE
		? yaml_doc_get(d, map, key) : NULL;
}

static void add_path(struct paths_check *c, struct yaml_doc *d,
		     const char *key, const char *abs)
{
	yaml_node_t *n = strcmp(key, "output") ? path_node(d, key) : NULL;
	struct yaml_pos none = { 0, 0 };

	add(c, 1, abs, n ? yaml_doc_scalar(n) : NULL, n ? yaml_doc_pos(n) : none,
	    "the %s (paths: %s)", !strcmp(key, "logs") ? "logs directory" :
	    !strcmp(key, "runs") ? "runs directory" :
	    !strcmp(key, "builds") ? "builds directory" : key, key);
}

/* Every path the study reads or writes, into @c. */
static void collect(struct paths_check *c, const struct study *s,
		    struct yaml_doc *d)
{
	const struct study_paths *p = &s->paths;
	struct yaml_pos none = { 0, 0 };
	char *cwd = study_path_cwd(), *abs, *side;
	yaml_node_t *n;

	if (!cwd) {
		gm_error_clear();	/* (then lexical paths from /) */
	}
	abs = study_path_resolve(cwd ? cwd : "/", s->path);
	add(c, 0, abs, s->path, none, "the study file");
	free(abs);
	free(cwd);
	for (size_t i = 0; i < s->nr_programs; i++) {
		const struct study_program *pr = &s->programs[i];
		if (!pr->argv) {
			add(c, 0, pr->bundle, NULL, pr->pos,
			    "the bundle of program '%s'", pr->name);
			continue;
		}
		n = path_node(d, "bundles");
		add(c, 1, pr->bundle, NULL, n ? yaml_doc_pos(n) : pr->pos,
		    "the bundle of program '%s' (paths: bundles)", pr->name);
		if (strchr(pr->argv[0], '/')) {
			abs = study_path_resolve(pr->cwd, pr->argv[0]);
			add(c, 0, abs, pr->argv[0], pr->command_pos,
			    "the executable of program '%s'", pr->name);
			free(abs);
		}
	}
	if (s->scale) {
		add(c, 0, s->scale, NULL, none, "the knees file (replay: scale)");
	}
	add_path(c, d, "builds", p->builds);
	add_path(c, d, "runs", p->runs);
	add_path(c, d, "database", p->database);
	add_path(c, d, "report", p->report);
	add_path(c, d, "state", p->state);
	add_path(c, d, "logs", p->logs);
	add_path(c, d, "summary", p->summary);
	if (study_profiles(s)) {
		add_path(c, d, "profile", p->profile);
	}
	n = path_node(d, "state");
	side = gm_xasprintf("%s.lock", p->state);
	add(c, 1, side, NULL, n ? yaml_doc_pos(n) : none,
	    "the study's lock (paths: state, and .lock)");
	free(side);
	side = gm_xasprintf("%s.tasks", p->state);
	add(c, 1, side, NULL, n ? yaml_doc_pos(n) : none,
	    "the task records (paths: state, and .tasks)");
	free(side);
	n = path_node(d, "database");
	side = gm_xasprintf("%s.lock", p->database);
	add(c, 1, side, NULL, n ? yaml_doc_pos(n) : none,
	    "the database's lock (paths: database, and .lock)");
	free(side);
}

/* The entry to blame for a clash: one set in the file, the later. */
static const struct entry *blame(const struct entry *a, const struct entry *b)
{
	if (!b->pos.line) {
		return a;
	}
	if (!a->pos.line || b->pos.line > a->pos.line ||
	    (b->pos.line == a->pos.line && b->pos.col > a->pos.col)) {
		return b;
	}
	return a;
}

/* An error when @a and @b clash (one of them written by the study). */
static int clash(const struct study *s, const struct entry *a,
		 const struct entry *b)
{
	const struct entry *x = blame(a, b), *y = x == a ? b : a;

	if (!strcmp(a->canon, b->canon)) {
		return yaml_doc_error_at(s->path, x->pos, "%s, '%s', is also"
					 " %s: %s", x->role, x->shown,
					 y->role, x->output && y->output
					 ? "the study would write both there"
					 : "the study would overwrite it");
	}
	if (within(x->canon, y->canon) || within(y->canon, x->canon)) {
		const struct entry *in = within(x->canon, y->canon) ? x : y;
		const struct entry *out = in == x ? y : x;
		return yaml_doc_error_at(s->path, x->pos, "%s, '%s', is inside"
					 " %s, '%s': no path the study writes may"
					 " lie inside another of its paths", in->role,
					 in->shown, out->role, out->shown);
	}
	return 0;
}

int study_check_paths(const struct study *s, struct yaml_doc *d)
{
	struct paths_check c = { NULL, 0, 0 };
	int ret = 0;

	collect(&c, s, d);
	for (size_t i = 0; i < c.nr && !ret; i++) {
		for (size_t j = i + 1; j < c.nr && !ret; j++) {
			if (c.v[i].output || c.v[j].output) {
				ret = clash(s, &c.v[i], &c.v[j]);
			}
		}
	}
	for (size_t i = 0; i < c.nr; i++) {
		free(c.v[i].role);
		free(c.v[i].shown);
		free(c.v[i].canon);
	}
	free(c.v);
	return ret;
}
