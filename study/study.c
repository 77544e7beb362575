/* SPDX-License-Identifier: MIT */
/*
 * Loading and validating a study file (see study.h, doc/study-yaml.md).
 * The loader walks the YAML tree once, in a fixed order (top-level keys,
 * paths, replay parameters, programs, workloads, variants, policies), and
 * stops at the first error, which names its position.
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
#include "study_path.h"

#define STUDY_NAME_MAX 64
#define DEFAULT_STAGE_TIMEOUT_S 3600.0
/* More knobs than the GM_KNOB_* bits of an unsigned cannot exist. */
#define STUDY_MAX_KNOBS 32

static const char *const top_keys[] = {
	"study", "root", "programs", "workloads", "variants", "policies",
	"baseline", "repeats", "seed", "precision", "max_repeats", "replay",
	"corun", "stage_timeout", "paths", NULL,
};
static const char *const program_keys[] = {
	"name", "command", "bundle", "cwd", "deterministic",
	/* an open-loop program's (study_arrivals.c, study_arrival_keys) */
	"arrivals", "load", "rate", "trace", "column", "slo", "seed",
	"requests", NULL,
};
static const char *const path_keys[] = {
	"output", "bundles", "builds", "runs", "database", "report", "state",
	"logs", "summary", "profile", NULL,
};
static const char *const workload_keys[] = { "combinations", "program",
					     "copies", NULL };
static const char *const copies_keys[] = { "program", "copies", NULL };
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
 * 'mps_threads': one percentage (1-100) for every program, or a mapping
 * of program names to percentages (the others: no limit); kept as the
 * argument of `gpumix replay --mps-threads`. The names are checked once
 * the programs are known (check_mps_threads).
 */
static int load_mps_threads(struct loader *l, const yaml_node_t *v,
			    const char *what)
{
	struct study *s = l->s;
	struct strbuf arg = STRBUF_INIT;
	long pct;

	if (v->type == YAML_SCALAR_NODE) {
		if (yaml_doc_int(l->d, v, what, 1, 100, &pct)) {
			return -1;
		}
		strbuf_addf(&arg, "%ld", pct);
	} else if (v->type == YAML_MAPPING_NODE && yaml_doc_map_len(v)) {
		size_t n = yaml_doc_map_len(v);
		s->mps_names = gm_xcalloc(n, sizeof(*s->mps_names));
		s->mps_pos = gm_xcalloc(n, sizeof(*s->mps_pos));
		for (size_t i = 0; i < n; i++) {
			yaml_node_t *k = yaml_doc_map_key(l->d, v, i);
			char *name = NULL;
			if (yaml_doc_string(l->d, k, "a program's name", &name)) {
				strbuf_release(&arg);
				return -1;
			}
			s->mps_names[s->nr_mps] = name;
			s->mps_pos[s->nr_mps++] = yaml_doc_pos(k);
			if (strpbrk(name, "=,")) {
				strbuf_release(&arg);
				return yaml_doc_error(l->d, k, "%s: a program "
						      "name with '=' or ','",
						      what);
			}
			if (yaml_doc_int(l->d, yaml_doc_map_value(l->d, v, i),
					 what, 1, 100, &pct)) {
				strbuf_release(&arg);
				return -1;
			}
			strbuf_addf(&arg, "%s%s=%ld", i ? "," : "", name, pct);
		}
	} else {
		return yaml_doc_error(l->d, v, "%s must be a percentage (1 to "
				      "100) or a mapping of programs to "
				      "percentages", what);
	}
	free(s->mps_threads);
	s->mps_threads = strbuf_detach(&arg, NULL);
	return 0;
}

/*
 * 'sm_share': a map from program to its green partition, a count of SMs
 * (32) or a percentage of the device's SMs (50%), kept as the
 * --sm-share list. Its programs are checked once they are loaded.
 */
static int load_sm_share(struct loader *l, const yaml_node_t *v,
			 const char *what)
{
	struct study *s = l->s;
	struct gm_sm_share share = GM_SM_SHARE_INIT;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE || !yaml_doc_map_len(v)) {
		return yaml_doc_error(l->d, v, "%s must be a map from program "
				      "to SMs (32) or a percentage of the "
				      "device's SMs (50%%), e.g. {bfs: 50%%, "
				      "lbm: 32}", what);
	}
	for (size_t i = 0; i < yaml_doc_map_len(v) && !ret; i++) {
		yaml_node_t *key = yaml_doc_map_key(l->d, v, i);
		yaml_node_t *val = yaml_doc_map_value(l->d, v, i);
		const char *k = yaml_doc_scalar(key), *x = yaml_doc_scalar(val);
		struct gm_sm_share one = GM_SM_SHARE_INIT;
		char *item;

		if (!k || !x || strpbrk(k, ",=")) {
			ret = yaml_doc_error(l->d, key, "%s: each entry is "
					     "PROGRAM: SMS or PROGRAM: PERCENT%%",
					     what);
			break;
		}
		item = gm_xasprintf("%s=%s", k, x);
		if (gm_sm_share_parse(&one, item) < 0) {
			char *why = gm_xstrdup(gm_error_message());
			gm_error_clear();
			ret = yaml_doc_error(l->d, val, "%s: %s", what, why);
			free(why);
		} else if (gm_sm_share_find(&share, k)) {
			ret = yaml_doc_error(l->d, key, "%s names '%s' twice",
					     what, k);
		} else {
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", item);
			gm_sm_share_parse(&share, sb.buf);
		}
		gm_sm_share_release(&one);
		free(item);
	}
	if (!ret) {
		free(s->sm_share);
		s->sm_share = strbuf_detach(&sb, NULL);
		s->sm_share_pos = yaml_doc_pos(v);
	}
	strbuf_release(&sb);
	gm_sm_share_release(&share);
	return ret;
}

/*
 * Where the study keeps the value of knob @knob of a kind the table
 * checks (knobs.h): seconds, bytes, a choice's index, 0 or 1. The other
 * knobs have their own fields and loaders (load_knob()).
 */
static void knob_store(struct study *s, enum gm_knob knob, double v)
{
	switch (knob) {
	case GM_KNOB_TIMESLICE:
		s->timeslice_s = v;
		break;
	case GM_KNOB_COPY_CHUNK:
		s->copy_chunk = (uint64_t)v;
		break;
	case GM_KNOB_COMPLETION:
		s->completion = (enum gm_completion)v;
		break;
	case GM_KNOB_GRID:
		s->grid = (enum gm_grid_mode)v;
		break;
	case GM_KNOB_HOST_TIME:
		s->host_time = (enum gm_host_time)v;
		break;
	case GM_KNOB_MAX_HOST_GAP:
		s->max_host_gap_s = v;
		break;
	case GM_KNOB_ONE_SHOT:
		s->one_shot = v != 0;
		break;
	case GM_KNOB_PROBE:
		s->probe = (enum gm_probe_mode)v;
		break;
	case GM_KNOB_POLICY:
	case GM_KNOB_ELASTIC:
	case GM_KNOB_PROFILE:
	case GM_KNOB_HIGH_PRIORITY:
	case GM_KNOB_SM_SHARE:
	case GM_KNOB_SCALE:
	case GM_KNOB_MPS_THREADS:
	case GM_KNOB_SMEM_PAD:		/* (sweep knobs: no study key) */
	case GM_KNOB_KERNEL_MODULE:
	case GM_KNOB_CLIFF_MAP:
	case GM_KNOB_ARRIVALS:
		break;
	}
}

/* The value knob_store() kept for @knob. */
static double knob_value(const struct study *s, enum gm_knob knob)
{
	switch (knob) {
	case GM_KNOB_TIMESLICE:
		return s->timeslice_s;
	case GM_KNOB_COPY_CHUNK:
		return (double)s->copy_chunk;
	case GM_KNOB_COMPLETION:
		return s->completion;
	case GM_KNOB_GRID:
		return s->grid;
	case GM_KNOB_HOST_TIME:
		return s->host_time;
	case GM_KNOB_MAX_HOST_GAP:
		return s->max_host_gap_s;
	case GM_KNOB_ONE_SHOT:
		return s->one_shot;
	case GM_KNOB_PROBE:
		return s->probe;
	case GM_KNOB_POLICY:
	case GM_KNOB_ELASTIC:
	case GM_KNOB_PROFILE:
	case GM_KNOB_HIGH_PRIORITY:
	case GM_KNOB_SM_SHARE:
	case GM_KNOB_SCALE:
	case GM_KNOB_MPS_THREADS:
	case GM_KNOB_SMEM_PAD:		/* (sweep knobs: no study key) */
	case GM_KNOB_KERNEL_MODULE:
	case GM_KNOB_CLIFF_MAP:
	case GM_KNOB_ARRIVALS:
		break;
	}
	return -1;
}

/* The cause gm_knob_check() recorded, again at node @v (FILE:LINE:COL). */
static int error_at(struct loader *l, const yaml_node_t *v)
{
	char *why = gm_xstrdup(gm_error_message());

	gm_error_clear();
	yaml_doc_error(l->d, v, "%s", why);
	free(why);
	return -1;
}

/*
 * Knob @k of a kind the table checks (knobs.h), from node @v: written as
 * a study writes durations, sizes, words and booleans, then checked
 * against the table's row as `gpumix replay` checks its option.
 */
static int load_table_knob(struct loader *l, const yaml_node_t *v,
			   const struct gm_knob_desc *k, const char *what)
{
	double x = 0;
	uint64_t bytes;
	char *word = NULL;
	int on;

	switch (k->kind) {
	case GM_KNOB_DURATION:
		if (yaml_doc_duration(l->d, v, what, 0, HUGE_VAL, &x)) {
			return -1;
		}
		break;
	case GM_KNOB_SIZE:
		if (yaml_doc_size(l->d, v, what, 0, UINT64_MAX, &bytes)) {
			return -1;
		}
		x = (double)bytes;
		break;
	case GM_KNOB_CHOICE:
		if (yaml_doc_string(l->d, v, what, &word)) {
			return -1;
		}
		if (gm_knob_parse(k, what, word, &x) < 0) {
			free(word);
			return error_at(l, v);
		}
		free(word);
		knob_store(l->s, k->knob, x);
		return 0;
	case GM_KNOB_FLAG:
		if (yaml_doc_bool(l->d, v, what, &on)) {
			return -1;
		}
		x = on;
		break;
	case GM_KNOB_OTHER:
		return yaml_doc_error(l->d, v, "%s has its own loader", what);
	}
	if (gm_knob_check(k, what, yaml_doc_scalar(v), x) < 0) {
		return error_at(l, v);
	}
	knob_store(l->s, k->knob, x);
	return 0;
}

/*
 * The study's value of knob @k (its key @k->study_key) from node @v: the
 * table's kinds through load_table_knob(), the others by their own
 * loaders here (-Wswitch names a new knob); an invalid value is an error
 * at its position.
 */
static int load_knob(struct loader *l, const yaml_node_t *v,
		     const struct gm_knob_desc *k)
{
	struct study *s = l->s;
	char *what = gm_xasprintf("'%s'", k->study_key);
	char *word = NULL;
	int ret = -1;

	if (k->kind != GM_KNOB_OTHER) {
		ret = load_table_knob(l, v, k, what);
		free(what);
		return ret;
	}
	switch (k->knob) {
	case GM_KNOB_HIGH_PRIORITY:
		/* A program of the study (checked once they are loaded). */
		ret = yaml_doc_string(l->d, v, what, &word);
		if (!ret) {
			free(s->high_priority);
			s->high_priority = word;
			s->high_priority_pos = yaml_doc_pos(v);
			word = NULL;
		}
		break;
	case GM_KNOB_MPS_THREADS:
		ret = load_mps_threads(l, v, what);
		break;
	case GM_KNOB_SM_SHARE:
		ret = load_sm_share(l, v, what);
		break;
	case GM_KNOB_CLIFF_MAP:
		/* A sweep's points.csv, relative to the root. */
		ret = yaml_doc_string(l->d, v, what, &word);
		if (!ret) {
			free(s->cliff_map);
			s->cliff_map = study_path_resolve(s->root, word);
		}
		break;
	case GM_KNOB_SCALE:
		/* The knees of gpumix scale, relative to the root. */
		ret = yaml_doc_string(l->d, v, what, &word);
		if (!ret) {
			free(s->scale);
			s->scale = study_path_resolve(s->root, word);
		}
		break;
	case GM_KNOB_TIMESLICE:
	case GM_KNOB_COPY_CHUNK:
	case GM_KNOB_COMPLETION:
	case GM_KNOB_GRID:
	case GM_KNOB_HOST_TIME:
	case GM_KNOB_MAX_HOST_GAP:
	case GM_KNOB_ONE_SHOT:
	case GM_KNOB_PROBE:
		/* (kinds the table checks: load_table_knob()) */
		break;
	case GM_KNOB_POLICY:
	case GM_KNOB_ELASTIC:
	case GM_KNOB_PROFILE:
	case GM_KNOB_SMEM_PAD:		/* (sweep knobs: no study key) */
	case GM_KNOB_KERNEL_MODULE:
	case GM_KNOB_ARRIVALS:
		/* No study key: 'policies' and the plan set the policy, the
		 * study makes the profile, its 'arrivals' mapping the
		 * open-loop programs. */
		ret = yaml_doc_error(l->d, v, "%s cannot be set in a study",
				     what);
		break;
	}
	free(word);
	free(what);
	return ret;
}

/* Record a warning "FILE:LINE:COL: ..." at node @at. */
static void add_warning(struct study *s, const yaml_node_t *at,
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

/*
 * Warn about knob @k set at @v when no listed variant takes it: valid (a
 * study may list nss later) but without effect on any replay.
 */
static void check_knob_used(struct loader *l, const yaml_node_t *v,
			    const struct gm_knob_desc *k)
{
	struct study *s = l->s;
	struct strbuf takers = STRBUF_INIT;

	for (size_t i = 0; i < s->nr_variants; i++) {
		if (s->variants[i]->knobs & k->knob) {
			return;
		}
	}
	for (size_t i = 0; gm_variant_at(i); i++) {
		const struct gm_variant *t = gm_variant_at(i);
		if (t->implemented && (t->knobs & k->knob)) {
			strbuf_addf(&takers, "%s%s", takers.len ? ", " : "",
				    t->name);
		}
	}
	add_warning(s, v, "'%s' has no effect: no listed variant takes it (it "
		    "applies to: %s)", k->study_key,
		    takers.len ? takers.buf : "no variant yet");
	strbuf_release(&takers);
}

static int load_replay(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *map = yaml_doc_get(l->d, root, "replay");
	const char *keys[4 + STUDY_MAX_KNOBS];
	size_t nr_keys = 0;
	yaml_node_t *v;
	long n;

	s->min_replays = GM_DEFAULT_MIN_REPLAYS;
	s->watchdog_s = GM_DEFAULT_WATCHDOG_S;
	for (size_t i = 0; gm_knob_at(i); i++) {
		knob_store(s, gm_knob_at(i)->knob, gm_knob_at(i)->def);
	}
	s->same_kernels = 1;
	s->stage_timeout_s = DEFAULT_STAGE_TIMEOUT_S;
	v = yaml_doc_get(l->d, root, "stage_timeout");
	if (v && yaml_doc_duration(l->d, v, "'stage_timeout'", 1, 7 * 86400.0,
				   &s->stage_timeout_s)) {
		return -1;
	}
	if (!map) {
		return 0;
	}
	/* The study's own keys, then the knobs that have a study key. */
	keys[nr_keys++] = "min_replays";
	keys[nr_keys++] = "watchdog";
	keys[nr_keys++] = "same_kernels";
	for (size_t i = 0; gm_knob_at(i) && i < STUDY_MAX_KNOBS; i++) {
		if (gm_knob_at(i)->study_key) {
			keys[nr_keys++] = gm_knob_at(i)->study_key;
		}
	}
	keys[nr_keys] = NULL;
	if (yaml_doc_check_map(l->d, map, "'replay'", keys)) {
		return -1;
	}
	if ((v = yaml_doc_get(l->d, map, "min_replays"))) {
		if (yaml_doc_int(l->d, v, "'min_replays'", GM_MIN_REPLAYS_MIN,
				 GM_MIN_REPLAYS_MAX, &n)) {
			return -1;
		}
		s->min_replays = (unsigned)n;
	}
	if ((v = yaml_doc_get(l->d, map, "watchdog")) &&
	    yaml_doc_duration(l->d, v, "'watchdog'", 1, 86400, &s->watchdog_s)) {
		return -1;
	}
	if ((v = yaml_doc_get(l->d, map, "same_kernels")) &&
	    yaml_doc_bool(l->d, v, "'same_kernels'", &s->same_kernels)) {
		return -1;
	}
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		if (!k->study_key) {
			continue;
		}
		v = yaml_doc_get(l->d, map, k->study_key);
		if (v && load_knob(l, v, k)) {
			return -1;
		}
	}
	if (s->one_shot && (v = yaml_doc_get(l->d, map, "min_replays"))) {
		return yaml_doc_error(l->d, v, "'min_replays' does not apply "
				      "with 'one_shot': each program replays "
				      "once");
	}
	/* The probe is in the transformed kernels: every variant runs them. */
	if (s->probe != GM_PROBE_OFF && !s->same_kernels) {
		return yaml_doc_error(l->d, yaml_doc_get(l->d, map,
							 "same_kernels"),
				      "'same_kernels: false' cannot go with "
				      "'probe: %s': the probe runs the "
				      "transformed kernels in every variant",
				      gm_probe_mode_name(s->probe));
	}
	return 0;
}

/*
 * Once the variants are known: warn about knobs that reach no replay,
 * about `same_kernels` in a study whose variants all run the captured
 * kernels anyway, and about a variant that takes a kernel profile when
 * no variant gives the alone runs it is made from.
 */
static void check_knobs_used(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *map = yaml_doc_get(l->d, root, "replay");
	yaml_node_t *v;

	if (map && (v = yaml_doc_get(l->d, map, "same_kernels")) &&
	    !study_needs_elastic(s)) {
		add_warning(s, v, "'same_kernels' has no effect: every listed "
			    "variant runs the captured kernels (it applies when "
			    "a variant runs the transformed ones: a variant "
			    "with policies, or 'completion: poll')");
	}
	for (size_t i = 0; i < s->nr_variants && !study_profiles(s); i++) {
		const struct gm_variant *var = s->variants[i];
		const struct gm_variant *alone = gm_variant_with(GM_VARIANT_ALONE);
		if (!(var->knobs & GM_KNOB_PROFILE)) {
			continue;
		}
		add_warning(s, yaml_doc_seq_item(l->d, yaml_doc_get(l->d, root,
								     "variants"),
						 i),
			    "variant '%s' without '%s': no kernel profile is "
			    "made, so its replays run without one (MEDIAN "
			    "reserves room for each workload's own median "
			    "kernel, and no kernel is timesliced)", var->name,
			    alone->name);
	}

	for (size_t i = 0; map && gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		if (!k->study_key) {
			continue;
		}
		v = yaml_doc_get(l->d, map, k->study_key);
		if (v) {
			check_knob_used(l, v, k);
		}
	}
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
	const char *near = gm_closest(name, (const char *const *)l->names);
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
 * `{program: NAME, copies: N}` at @n: N copies of program NAME added to
 * @out (doc/study-yaml.md, "N copies of one program").
 */
static int load_copies(struct loader *l, const yaml_node_t *n,
		       struct study_names *out)
{
	yaml_node_t *prog, *copies;
	const char *name;
	long p, k;

	if (yaml_doc_check_map(l->d, n, "copies of a program", copies_keys)) {
		return -1;
	}
	prog = yaml_doc_get(l->d, n, "program");
	copies = yaml_doc_get(l->d, n, "copies");
	if (!prog || !copies) {
		return yaml_doc_error(l->d, n, "copies of a program need both "
				      "'program' and 'copies'");
	}
	name = yaml_doc_scalar(prog);
	if (!name || yaml_doc_is_null(prog)) {
		return yaml_doc_error(l->d, prog, "'program' must be a program "
				      "name, not %s", yaml_doc_kind(prog));
	}
	p = study_find_program(l->s, name);
	if (p < 0) {
		return unknown_program(l, prog, name);
	}
	if (yaml_doc_int(l->d, copies, "'copies'", 1, STUDY_MAX_COPIES, &k)) {
		return -1;
	}
	if (out->nr + (size_t)k > STUDY_MAX_COPIES) {
		return yaml_doc_error(l->d, copies, "a workload holds at most %d "
				      "programs", STUDY_MAX_COPIES);
	}
	for (long i = 0; i < k; i++) {
		names_add(out, (size_t)p, yaml_doc_pos(prog));
	}
	return 0;
}

/*
 * A sequence of program names (@what in messages: "a workload", "'of'",
 * "an exclusion"), each known. @within, when not NULL, restricts the
 * names to that set. With @copies a name may be listed several times and
 * an item may be `{program: NAME, copies: N}` (a workload's N copies of
 * one program); otherwise each is listed once.
 */
static int load_names(struct loader *l, const yaml_node_t *n, const char *what,
		      const struct study_names *within, int copies,
		      struct study_names *out)
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
		if (copies && item->type == YAML_MAPPING_NODE) {
			if (load_copies(l, item, out)) {
				return -1;
			}
			continue;
		}
		if (!name || yaml_doc_is_null(item)) {
			return yaml_doc_error(l->d, item, "%s must list program "
					      "names%s, not %s", what,
					      copies ? " or {program: NAME, "
					      "copies: N}" : "",
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
		for (size_t j = 0; !copies && j < out->nr; j++) {
			if (out->progs[j] == (size_t)p) {
				return yaml_doc_error(l->d, item, "program '%s' appears "
						      "twice in %s", name, what);
			}
		}
		if (out->nr >= STUDY_MAX_COPIES) {
			return yaml_doc_error(l->d, item, "a workload holds at most "
					      "%d programs", STUDY_MAX_COPIES);
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
		if (load_names(l, of, "'of'", NULL, 0, &spec->set)) {
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
		if (load_names(l, e, "an exclusion", &spec->set, 0, x)) {
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
		return load_names(l, n, "a workload", NULL, 1, &spec->set);
	}
	if (n->type != YAML_MAPPING_NODE) {
		return yaml_doc_error(l->d, n, "a workload must be a list of "
				      "program names, a 'combinations' "
				      "mapping or {program: NAME, copies: N}, "
				      "not %s", yaml_doc_kind(n));
	}
	if (yaml_doc_check_map(l->d, n, "a workload", workload_keys)) {
		return -1;
	}
	yaml_node_t *c = yaml_doc_get(l->d, n, "combinations");
	if (!c && (yaml_doc_get(l->d, n, "program") ||
		   yaml_doc_get(l->d, n, "copies"))) {
		/* `- {program: lbm, copies: 8}`: a workload of 8 copies */
		spec->kind = STUDY_SPEC_LIST;
		spec->pos = yaml_doc_pos(n);
		spec->set.at = spec->pos;
		return load_copies(l, n, &spec->set);
	}
	if (c && (yaml_doc_get(l->d, n, "program") ||
		  yaml_doc_get(l->d, n, "copies"))) {
		return yaml_doc_error(l->d, n, "a workload is either "
				      "'combinations' or {program: NAME, "
				      "copies: N}, not both");
	}
	if (!c) {
		return yaml_doc_error(l->d, n, "a workload must be a list of "
				      "program names, a 'combinations' "
				      "mapping or {program: NAME, copies: N}, "
				      "not an empty mapping");
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
			add_warning(s, max, "'max_repeats' has no effect without "
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
		add_warning(s, n, "'corun' has no effect: no workload has two "
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
	    load_paths(l, root) || load_replay(l, root) ||
	    load_programs(l, root) || load_workloads(l, root) ||
	    load_variants(l, root) || load_policies(l, root) ||
	    load_baseline(l, root) || load_repeats(l, root) ||
	    load_corun(l, root) || check_open_loop(l) ||
	    check_high_priority(l) ||
	    check_sm_share(l) ||
	    check_mps_threads(l) || study_check_paths(l->s, l->d)) {
		return -1;
	}
	check_knobs_used(l, root);
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

static void names_release(struct study_names *n)
{
	free(n->progs);
	free(n->pos);
}

void study_release(struct study *s)
{
	study_open_loop_release(&s->open_loop);
	free(s->high_priority);
	free(s->sm_share);
	free(s->scale);
	free(s->cliff_map);
	free(s->mps_threads);
	for (size_t i = 0; i < s->nr_mps; i++) {
		free(s->mps_names[i]);
	}
	free(s->mps_names);
	free(s->mps_pos);
	free(s->corun_mechs);
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
	for (size_t i = 0; i < s->nr_warnings; i++) {
		free(s->warnings[i]);
	}
	free(s->warnings);
	struct study_paths *p = &s->paths;
	char *paths[] = { p->output, p->bundles, p->builds, p->runs,
			  p->database, p->report, p->state, p->logs, p->summary,
			  p->profile };
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

int study_has_variant_flags(const struct study *s, unsigned flags)
{
	for (size_t i = 0; i < s->nr_variants; i++) {
		if ((s->variants[i]->flags & flags) == flags) {
			return 1;
		}
	}
	return 0;
}

int study_needs_elastic(const struct study *s)
{
	if (study_has_variant_flags(s, GM_VARIANT_POLICY) ||
	    s->probe != GM_PROBE_OFF) {
		return 1;
	}
	for (size_t i = 0; i < s->nr_variants; i++) {
		if ((s->variants[i]->knobs & GM_KNOB_COMPLETION) &&
		    s->completion == GM_COMPLETION_POLL) {
			return 1;
		}
	}
	return 0;
}

unsigned study_planned_repeats(const struct study *s)
{
	return s->precision > 0 ? s->max_repeats : s->repeats;
}

int study_same_kernels(const struct study *s)
{
	return s->same_kernels && study_needs_elastic(s);
}

int study_profiles(const struct study *s)
{
	if (!study_has_variant_flags(s, GM_VARIANT_ALONE)) {
		return 0;
	}
	for (size_t i = 0; i < s->nr_variants; i++) {
		if (s->variants[i]->knobs & GM_KNOB_PROFILE) {
			return 1;
		}
	}
	return 0;
}

/* Knob @k's value as the option's argument (gm_knob_format()). */
static int table_arg(const struct study *s, const struct gm_knob_desc *k,
		     char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	gm_knob_format(k, knob_value(s, k->knob), &sb);
	snprintf(buf, len, "%s", sb.buf);
	strbuf_release(&sb);
	return 0;
}

int study_knob_arg(const struct study *s, const struct gm_knob_desc *k,
		   char *buf, size_t len)
{
	switch (k->knob) {
	case GM_KNOB_TIMESLICE:
	case GM_KNOB_COPY_CHUNK:
	case GM_KNOB_COMPLETION:
	case GM_KNOB_GRID:
	case GM_KNOB_HOST_TIME:
		/* Always (the host time too: runs replayed back to back
		 * before host time was the default are not the same runs). */
		return table_arg(s, k, buf, len);
	case GM_KNOB_MAX_HOST_GAP:
		if (s->max_host_gap_s < 0) {
			return -1;
		}
		return table_arg(s, k, buf, len);
	case GM_KNOB_HIGH_PRIORITY:
		if (!s->high_priority) {
			return -1;
		}
		snprintf(buf, len, "%s", s->high_priority);
		return 0;
	case GM_KNOB_SM_SHARE:
		if (!s->sm_share) {
			return -1;
		}
		snprintf(buf, len, "%s", s->sm_share);
		return 0;
	case GM_KNOB_SCALE:
		if (!s->scale) {
			return -1;
		}
		snprintf(buf, len, "%s", s->scale);
		return 0;
	case GM_KNOB_CLIFF_MAP:
		if (!s->cliff_map) {
			return -1;
		}
		snprintf(buf, len, "%s", s->cliff_map);
		return 0;
	case GM_KNOB_ELASTIC:
		if (!study_same_kernels(s)) {
			return -1;
		}
		snprintf(buf, len, "identity");
		return 0;
	case GM_KNOB_PROFILE:
		if (!study_profiles(s)) {
			return -1;
		}
		snprintf(buf, len, "%s", s->paths.profile);
		return 0;
	case GM_KNOB_MPS_THREADS:
		if (!s->mps_threads) {
			return -1;
		}
		snprintf(buf, len, "%s", s->mps_threads);
		return 0;
	case GM_KNOB_ONE_SHOT:
		/* A flag: the option alone when on. */
		if (!s->one_shot) {
			return -1;
		}
		snprintf(buf, len, "%s", "");
		return 0;
	case GM_KNOB_PROBE:
		/* Only when on: the hashes of studies without it stay. */
		if (s->probe == GM_PROBE_OFF) {
			return -1;
		}
		return table_arg(s, k, buf, len);
	case GM_KNOB_POLICY:
	case GM_KNOB_SMEM_PAD:		/* (sweep knobs: no study key) */
	case GM_KNOB_KERNEL_MODULE:
	case GM_KNOB_ARRIVALS:
		/* (Several options per run: the plan adds them.) */
		break;
	}
	return -1;
}
