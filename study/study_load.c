/* SPDX-License-Identifier: MIT */
/*
 * Loading and validating a study file (see study.h, doc/study-yaml.md).
 * The loader walks the YAML tree once, in a fixed order (top-level keys,
 * paths, replay parameters, programs, workloads, variants, policies), and
 * stops at the first error, which names its position. This file holds
 * the walk and the short sections; the replay parameters, programs and
 * workloads have their own files (study_loader.h).
 */
#include "study.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "error.h"
#include "fs.h"
#include "sm_share.h"
#include "strbuf.h"
#include "study_loader.h"
#include "study_path.h"

static const char *const top_keys[] = {
	"study", "root", "programs", "workloads", "variants", "policies",
	"baseline", "repeats", "seed", "precision", "max_repeats", "replay",
	"corun", "stage_timeout", "paths", NULL,
};
static const char *const path_keys[] = {
	"output", "bundles", "builds", "runs", "database", "report", "state",
	"logs", "summary", "profile", NULL,
};
static const char *const baseline_names[] = { "program", "workload", NULL };

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
		if (!loader_valid_name(s->name)) {
			return loader_name_error(l, v, "study name", s->name);
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
	if (!loader_valid_name(s->name)) {
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
		{ "profile", "profile.tsv", &p->profile },
	};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
		*rest[i].dst = study_path_resolve(p->output, rest[i].def);
		if (map && opt_path(l, map, rest[i].key, s->root, rest[i].dst)) {
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
			const char *near = gm_closest(name, known);
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
	return gm_variant_find(name);
}

static const void *find_policy(const char *name)
{
	return gm_policy_find(name);
}

/* No 'variants': the baselines of the table, the alone-time one and the
 * one the others are compared with (single and cuda). */
static void default_variants(struct study *s)
{
	size_t nr = 0;

	while (gm_variant_at(nr)) {
		nr++;
	}
	s->variants = gm_xcalloc(nr + 1, sizeof(*s->variants));
	for (size_t i = 0; i < nr; i++) {
		const struct gm_variant *v = gm_variant_at(i);
		if (v->implemented &&
		    (v->flags & (GM_VARIANT_ALONE | GM_VARIANT_REFERENCE))) {
			s->variants[s->nr_variants++] = v;
		}
	}
}

static int load_variants(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n = yaml_doc_get(l->d, root, "variants");

	if (!n) {
		default_variants(s);
		return 0;
	}
	s->variants = gm_xcalloc(yaml_doc_seq_len(n) + 1, sizeof(*s->variants));
	if (load_name_list(l, n, "'variants'", "variant", gm_variant_names(),
			   find_variant, (const void **)s->variants,
			   &s->nr_variants)) {
		return -1;
	}
	/* Name every unimplemented variant at once, at the first of them. */
	struct strbuf sb = STRBUF_INIT;
	const yaml_node_t *first = NULL;
	size_t nr_bad = 0;
	for (size_t i = 0; i < s->nr_variants; i++) {
		if (s->variants[i]->implemented) {
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
			       gm_variant_implemented_list());
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
	int wanted = study_has_variant_flags(s, GM_VARIANT_POLICY);

	if (!n) {
		if (wanted) {
			const char *const *all = gm_policy_defaults();
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
	return load_name_list(l, n, "'policies'", "policy", gm_policy_names(),
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
		const char *near = gm_closest(v, baseline_names);
		ret = yaml_doc_error(l->d, n, "'baseline' must be 'program' or "
				     "'workload', not '%s'%s%s%s", v,
				     near ? " (did you mean '" : "",
				     near ? near : "", near ? "'?)" : "");
	}
	free(v);
	return ret;
}

/*
 * repeats, seed, precision and max_repeats (after the variants: a
 * precision target needs the alone runs its STPs come from).
 */
static int load_repeats(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n, *max = yaml_doc_get(l->d, root, "max_repeats");
	long v;

	s->repeats = STUDY_DEFAULT_REPEATS;
	s->max_repeats = 0;
	s->precision = 0;
	s->seed = STUDY_DEFAULT_SEED;
	if ((n = yaml_doc_get(l->d, root, "repeats"))) {
		if (yaml_doc_int(l->d, n, "'repeats'", 1, STUDY_MAX_REPEATS, &v)) {
			return -1;
		}
		s->repeats = (unsigned)v;
	}
	if ((n = yaml_doc_get(l->d, root, "seed"))) {
		if (yaml_doc_int(l->d, n, "'seed'", 0, LONG_MAX, &v)) {
			return -1;
		}
		s->seed = (uint64_t)v;
	}
	n = yaml_doc_get(l->d, root, "precision");
	if (!n) {
		if (max) {
			loader_warning(s, max, "'max_repeats' has no effect without "
				    "'precision': every run is run 'repeats' "
				    "times (%u)", s->repeats);
		}
		return 0;
	}
	if (yaml_doc_fraction(l->d, n, "'precision'", 0, 1, &s->precision)) {
		return -1;
	}
	if (!study_has_variant_flags(s, GM_VARIANT_ALONE)) {
		return yaml_doc_error(l->d, n, "'precision' needs the variant "
				      "'%s': it bounds the interval of each "
				      "STP, which needs alone times",
				      gm_variant_with(GM_VARIANT_ALONE)->name);
	}
	if (s->repeats < 2) {
		return yaml_doc_error(l->d, n, "'precision' needs 'repeats' of "
				      "at least 2 (an interval needs two "
				      "repetitions), not %u", s->repeats);
	}
	s->max_repeats = s->repeats > STUDY_DEFAULT_MAX_REPEATS ?
			 s->repeats : STUDY_DEFAULT_MAX_REPEATS;
	if (max) {
		if (yaml_doc_int(l->d, max, "'max_repeats'", s->repeats,
				 STUDY_MAX_REPEATS, &v)) {
			return -1;
		}
		s->max_repeats = (unsigned)v;
	}
	return 0;
}

/* corun (study_corun.c); a study without a workload of two programs
 * has nothing to co-run: a warning. */
static int load_corun(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *n = yaml_doc_get(l->d, root, "corun");
	int pairs = 0;

	if (!n) {
		return 0;
	}
	if (study_load_corun(s, l->d, n)) {
		return -1;
	}
	for (size_t i = 0; i < s->nr_specs; i++) {
		pairs |= s->specs[i].kind == STUDY_SPEC_COMBINATIONS ?
				 s->specs[i].size >= 2 : s->specs[i].set.nr >= 2;
	}
	if (!pairs) {
		loader_warning(s, n, "'corun' has no effect: no workload has two "
			    "programs or more to run together");
	}
	return 0;
}

/* 'high_priority' names a program of the study. */
static int check_high_priority(struct loader *l)
{
	struct study *s = l->s;
	const char **names;
	const char *near;
	int ret;

	if (!s->high_priority) {
		return 0;
	}
	for (size_t i = 0; i < s->nr_programs; i++) {
		if (!strcmp(s->programs[i].name, s->high_priority)) {
			return 0;
		}
	}
	names = gm_xcalloc(s->nr_programs + 1, sizeof(*names));
	for (size_t i = 0; i < s->nr_programs; i++) {
		names[i] = s->programs[i].name;
	}
	near = gm_closest(s->high_priority, names);
	ret = yaml_doc_error_at(s->path, s->high_priority_pos,
				"'high_priority' names no program of the study: "
				"'%s'%s%s%s", s->high_priority,
				near ? " (did you mean '" : "", near ? near : "",
				near ? "'?)" : "");
	free(names);
	return ret;
}

/* The programs 'mps_threads' names are programs of the study. */
static int check_mps_threads(struct loader *l)
{
	struct study *s = l->s;

	for (size_t i = 0; i < s->nr_mps; i++) {
		if (study_find_program(s, s->mps_names[i]) < 0) {
			return yaml_doc_error_at(s->path, s->mps_pos[i],
						 "'mps_threads' names no program "
						 "of the study: '%s'",
						 s->mps_names[i]);
		}
	}
	return 0;
}

/* The programs 'sm_share' names are programs of the study. */
static int check_sm_share(struct loader *l)
{
	struct study *s = l->s;
	struct gm_sm_share share = GM_SM_SHARE_INIT;
	int ret = 0;

	if (s->sm_share && s->scale) {
		return yaml_doc_error_at(s->path, s->sm_share_pos,
					 "'sm_share' and 'scale' both set the "
					 "green partitions: give one");
	}
	if (!s->sm_share || gm_sm_share_parse(&share, s->sm_share) < 0) {
		return 0;
	}
	for (size_t i = 0; i < share.nr && !ret; i++) {
		size_t j = 0;
		while (j < s->nr_programs &&
		       strcmp(s->programs[j].name, share.items[i].program)) {
			j++;
		}
		if (j == s->nr_programs) {
			ret = yaml_doc_error_at(s->path, s->sm_share_pos,
						"'sm_share' names no program of "
						"the study: '%s'",
						share.items[i].program);
		}
	}
	gm_sm_share_release(&share);
	return ret;
}

/* A load sweep needs the program's alone capacity: the alone-time
 * variant among the study's, and repeated runs (a one-shot study's
 * replays start together, not at arrivals). */
static int check_open_loop(struct loader *l)
{
	const struct study *s = l->s;
	const struct gm_variant *alone = gm_variant_with(GM_VARIANT_ALONE);
	int have = 0;

	if (s->open_loop.program == SIZE_MAX) {
		return 0;
	}
	for (size_t i = 0; i < s->nr_variants; i++) {
		have |= s->variants[i] == alone;
	}
	if (s->open_loop.by_load && !have) {
		return yaml_doc_error_at(s->path, s->open_loop.pos, "a 'load' "
					 "is a fraction of the program's alone "
					 "capacity, measured by its '%s' run: "
					 "add '%s' to 'variants', or give a "
					 "'rate'", alone->name, alone->name);
	}
	if (s->open_loop.by_load && s->baseline != STUDY_BASELINE_PROGRAM) {
		return yaml_doc_error_at(s->path, s->open_loop.pos, "a 'load' "
					 "is measured against the program's "
					 "alone run, which must run first: "
					 "'baseline: program' (the default)");
	}
	if (s->open_loop.by_load && s->open_loop.trace) {
		return yaml_doc_error_at(s->path, s->open_loop.pos, "a trace is "
					 "rescaled to a 'rate', not a 'load'");
	}
	if (s->one_shot) {
		return yaml_doc_error_at(s->path, s->open_loop.pos, "an "
					 "open-loop program's requests start at "
					 "their arrivals: 'one_shot' does not "
					 "apply");
	}
	return 0;
}

static int load(struct loader *l)
{
	yaml_node_t *root = yaml_doc_root(l->d);

	if (yaml_doc_check_map(l->d, root, "the study", top_keys) ||
	    load_study_name(l, root) || load_root(l, root) ||
	    load_paths(l, root) || loader_replay(l, root) ||
	    loader_programs(l, root) || loader_workloads(l, root) ||
	    load_variants(l, root) || load_policies(l, root) ||
	    load_baseline(l, root) || load_repeats(l, root) ||
	    load_corun(l, root) || check_open_loop(l) ||
	    check_high_priority(l) ||
	    check_sm_share(l) ||
	    check_mps_threads(l) || study_check_paths(l->s, l->d)) {
		return -1;
	}
	loader_check_knobs_used(l, root);
	return 0;
}

static int load_common(struct study *s, struct yaml_doc *d, const char *path,
		       const char *output)
{
	struct loader l = { s, d, output, NULL };
	int ret;

	memset(s, 0, sizeof(*s));
	s->open_loop.program = SIZE_MAX;
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
