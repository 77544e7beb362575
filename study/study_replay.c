/* SPDX-License-Identifier: MIT */
/*
 * The study's replay parameters (the 'replay' map and 'stage_timeout'):
 * the knobs of the shared table (knobs.h), read and checked as `gpumix
 * replay` checks its options, the knobs with their own syntax
 * ('mps_threads', 'sm_share'), the warnings about knobs no variant
 * takes, and each knob's value back as the option's argument
 * (study_knob_arg()).
 */
#include "study.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sm_share.h"
#include "strbuf.h"
#include "study_loader.h"
#include "study_path.h"

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
 * Keep value @x of knob @k as loaded (seconds for a DURATION, bytes, a
 * choice's index, 0 or 1, a count) in its row's field: the option's
 * terms, a duration in the option's unit (knob_values.h).
 */
static void knob_store(struct study *s, const struct gm_knob_desc *k,
		       double x)
{
	if (k->kind == GM_KNOB_DURATION) {
		x *= k->option_per_s;
	}
	gm_knob_store(&s->knob_values, k, x);
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
		knob_store(l->s, k, x);
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
	knob_store(l->s, k, x);
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
	long n;

	if (k->kind != GM_KNOB_OTHER) {
		ret = load_table_knob(l, v, k, what);
		free(what);
		return ret;
	}
	switch (k->knob) {
	case GM_KNOB_MIN_REPLAYS:
		/* A study's integer, within the row's bounds. */
		ret = yaml_doc_int(l->d, v, what, (long)k->min, (long)k->max,
				   &n);
		if (!ret) {
			knob_store(s, k, (double)n);
		}
		break;
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
	case GM_KNOB_WATCHDOG:
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
	loader_warning(s, v, "'%s' has no effect: no listed variant takes it (it "
		    "applies to: %s)", k->study_key,
		    takers.len ? takers.buf : "no variant yet");
	strbuf_release(&takers);
}

/* Append the study keys of the rows whose .run is @run to @keys. */
static void add_study_keys(const char **keys, size_t *nr, int run)
{
	for (size_t i = 0; gm_knob_at(i) && i < STUDY_MAX_KNOBS; i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		if (k->study_key && k->run == run) {
			keys[(*nr)++] = k->study_key;
		}
	}
}

/* The knobs of 'replay' map @map whose rows' .run is @run, in the
 * table's order. */
static int load_knobs(struct loader *l, const yaml_node_t *map, int run)
{
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		yaml_node_t *v;
		if (!k->study_key || k->run != run) {
			continue;
		}
		v = yaml_doc_get(l->d, map, k->study_key);
		if (v && load_knob(l, v, k)) {
			return -1;
		}
	}
	return 0;
}

int loader_replay(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *map = yaml_doc_get(l->d, root, "replay");
	const char *keys[4 + STUDY_MAX_KNOBS];
	size_t nr_keys = 0;
	yaml_node_t *v;

	gm_knob_values_init(&s->knob_values);
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
	/* The run's knobs, the study's own key, then the mechanisms' knobs
	 * that have a study key: the keys in that order, each read in it. */
	add_study_keys(keys, &nr_keys, 1);
	keys[nr_keys++] = "same_kernels";
	add_study_keys(keys, &nr_keys, 0);
	keys[nr_keys] = NULL;
	if (yaml_doc_check_map(l->d, map, "'replay'", keys)) {
		return -1;
	}
	if (load_knobs(l, map, 1)) {
		return -1;
	}
	if ((v = yaml_doc_get(l->d, map, "same_kernels")) &&
	    yaml_doc_bool(l->d, v, "'same_kernels'", &s->same_kernels)) {
		return -1;
	}
	if (load_knobs(l, map, 0)) {
		return -1;
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
void loader_check_knobs_used(struct loader *l, const yaml_node_t *root)
{
	struct study *s = l->s;
	yaml_node_t *map = yaml_doc_get(l->d, root, "replay");
	yaml_node_t *v;

	if (map && (v = yaml_doc_get(l->d, map, "same_kernels")) &&
	    !study_needs_elastic(s)) {
		loader_warning(s, v, "'same_kernels' has no effect: every listed "
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
		loader_warning(s, yaml_doc_seq_item(l->d, yaml_doc_get(l->d, root,
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
		if (!k->study_key || k->run) {
			continue;	/* (the run's knobs reach every replay) */
		}
		v = yaml_doc_get(l->d, map, k->study_key);
		if (v) {
			check_knob_used(l, v, k);
		}
	}
}

/* Knob @k's value as the option's argument (gm_knob_format()). */
static int table_arg(const struct study *s, const struct gm_knob_desc *k,
		     char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	gm_knob_format(k, gm_knob_value(&s->knob_values, k), &sb);
	snprintf(buf, len, "%s", sb.buf);
	strbuf_release(&sb);
	return 0;
}

/* A knob whose value is a string the study holds as given: @v as the
 * argument, or -1 (not passed) when the study has none. */
static int string_arg(const char *v, char *buf, size_t len)
{
	if (!v) {
		return -1;
	}
	snprintf(buf, len, "%s", v);
	return 0;
}

int study_knob_arg(const struct study *s, const struct gm_knob_desc *k,
		   char *buf, size_t len)
{
	switch (k->knob) {
	case GM_KNOB_MIN_REPLAYS:
		/* (the replay's line has it, but for one-shot runs, from
		 * exec_stages.c: the knob options do not, .run) */
		snprintf(buf, len, "%u", s->min_replays);
		return 0;
	case GM_KNOB_WATCHDOG:
		snprintf(buf, len, "%g", s->watchdog_s);
		return 0;
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
		return string_arg(s->high_priority, buf, len);
	case GM_KNOB_SM_SHARE:
		return string_arg(s->sm_share, buf, len);
	case GM_KNOB_SCALE:
		return string_arg(s->scale, buf, len);
	case GM_KNOB_CLIFF_MAP:
		return string_arg(s->cliff_map, buf, len);
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
		return string_arg(s->mps_threads, buf, len);
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
