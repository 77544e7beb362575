/* SPDX-License-Identifier: MIT */
/*
 * A loaded study's release and the questions the plan and the executor
 * ask of it (which variants, which program, whether runs keep their
 * kernels or are profiled).
 */
#include "study.h"

#include <stdlib.h>
#include <string.h>

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
