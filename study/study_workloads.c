/* SPDX-License-Identifier: MIT */
/*
 * The study's 'workloads': sets of programs to run together, given as
 * program names, copies of one program, or all combinations of a size
 * of some programs (less the excluded sets).
 */
#include "study.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "error.h"
#include "strbuf.h"
#include "study_loader.h"

static const char *const workload_keys[] = { "combinations", "program",
					     "copies", NULL };
static const char *const copies_keys[] = { "program", "copies", NULL };
static const char *const combination_keys[] = { "of", "size", "exclude", NULL };


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

int loader_workloads(struct loader *l, const yaml_node_t *root)
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
