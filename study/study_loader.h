/* SPDX-License-Identifier: MIT */
/*
 * The study loader's state and the sections it walks in their own files
 * (study_load.c calls them in order): internal to study/, not an API.
 */
#ifndef GM_STUDY_LOADER_H
#define GM_STUDY_LOADER_H

#include "study.h"

#define STUDY_NAME_MAX 64
#define DEFAULT_STAGE_TIMEOUT_S 3600.0
/* More knobs than the GM_KNOB_* bits of an unsigned cannot exist. */
#define STUDY_MAX_KNOBS 32

struct loader {
	struct study *s;
	struct yaml_doc *d;
	const char *output;	/* -o override, or NULL */
	char **names;		/* program names, NULL-terminated (borrowed) */
};

/* Whether @n is a valid study or program name (study_loader.c). */
int loader_valid_name(const char *n);
/* The error for name @n of @what not valid; returns -1 (study_loader.c). */
int loader_name_error(struct loader *l, const yaml_node_t *n,
		      const char *what, const char *name);
/* Record a warning "FILE:LINE:COL: ..." at node @at (study_loader.c). */
void loader_warning(struct study *s, const yaml_node_t *at,
		    const char *fmt, ...);

/* The 'replay' map and 'stage_timeout' (study_replay.c); 0 or -1. */
int loader_replay(struct loader *l, const yaml_node_t *root);
/* Warn about knobs set that no listed variant takes (study_replay.c). */
void loader_check_knobs_used(struct loader *l, const yaml_node_t *root);
/* The 'programs' list; sets l->names (study_programs.c); 0 or -1. */
int loader_programs(struct loader *l, const yaml_node_t *root);
/* The 'workloads' list (study_workloads.c); 0 or -1. */
int loader_workloads(struct loader *l, const yaml_node_t *root);

#endif
