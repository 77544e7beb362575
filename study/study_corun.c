/* SPDX-License-Identifier: MIT */
/*
 * The study key `corun` (doc/study-yaml.md): each workload of the study
 * also runs its original programs natively together (gpumix corun), and
 * is replayed once more in one-shot mode under `single` and the same
 * mechanisms, so that the report puts native and replayed slowdowns side
 * by side. The mechanisms are the variants of the table that run one
 * process per program (GM_VARIANT_PROCESSES: procs, mps).
 *
 *   corun: 5                      # K, every process mechanism
 *   corun: {repeats: 5, mechanisms: [procs]}
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "study.h"

#define CORUN_DEFAULT_REPEATS 5
#define CORUN_MAX_REPEATS 1000

static const char *const corun_keys[] = { "repeats", "mechanisms", NULL };

static int is_mechanism(const struct gm_variant *v)
{
	return v && v->implemented && (v->flags & GM_VARIANT_PROCESSES);
}

/* Every process variant of the table, in table order. */
static void all_mechanisms(struct study *s)
{
	size_t n = 0;

	while (gm_variant_at(n)) {
		n++;
	}
	s->corun_mechs = gm_xcalloc(n + 1, sizeof(*s->corun_mechs));
	for (size_t i = 0; i < n; i++) {
		if (is_mechanism(gm_variant_at(i))) {
			s->corun_mechs[s->nr_corun_mechs++] = gm_variant_at(i);
		}
	}
}

static int load_mechanisms(struct study *s, struct yaml_doc *d,
			   const yaml_node_t *n)
{
	size_t nr;

	if (yaml_doc_want_seq(d, n, "'corun: mechanisms'")) {
		return -1;
	}
	nr = yaml_doc_seq_len(n);
	if (!nr) {
		return yaml_doc_error(d, n, "'corun: mechanisms' is empty");
	}
	s->corun_mechs = gm_xcalloc(nr + 1, sizeof(*s->corun_mechs));
	for (size_t i = 0; i < nr; i++) {
		yaml_node_t *item = yaml_doc_seq_item(d, n, i);
		const struct gm_variant *v;
		char *name;
		if (yaml_doc_string(d, item, "a mechanism", &name)) {
			return -1;
		}
		v = gm_variant_find(name);
		if (!is_mechanism(v)) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t j = 0; gm_variant_at(j); j++) {
				if (is_mechanism(gm_variant_at(j))) {
					strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
						    gm_variant_at(j)->name);
				}
			}
			yaml_doc_error(d, item, "'%s' is not a co-run mechanism "
				       "(one of the variants that run a process "
				       "per program: %s)", name, sb.buf);
			strbuf_release(&sb);
			free(name);
			return -1;
		}
		for (size_t j = 0; j < s->nr_corun_mechs; j++) {
			if (s->corun_mechs[j] == v) {
				yaml_doc_error(d, item, "mechanism '%s' is listed "
					       "twice", name);
				free(name);
				return -1;
			}
		}
		free(name);
		s->corun_mechs[s->nr_corun_mechs++] = v;
	}
	return 0;
}

int study_load_corun(struct study *s, struct yaml_doc *d, yaml_node_t *n)
{
	yaml_node_t *v;
	long k;

	s->corun_pos = yaml_doc_pos(n);
	if (n->type == YAML_SCALAR_NODE) {
		if (yaml_doc_int(d, n, "'corun'", 1, CORUN_MAX_REPEATS, &k)) {
			return -1;
		}
		s->corun_repeats = (unsigned)k;
		all_mechanisms(s);
		return 0;
	}
	if (yaml_doc_check_map(d, n, "'corun'", corun_keys)) {
		return -1;
	}
	s->corun_repeats = CORUN_DEFAULT_REPEATS;
	if ((v = yaml_doc_get(d, n, "repeats"))) {
		if (yaml_doc_int(d, v, "'corun: repeats'", 1, CORUN_MAX_REPEATS,
				 &k)) {
			return -1;
		}
		s->corun_repeats = (unsigned)k;
	}
	if ((v = yaml_doc_get(d, n, "mechanisms"))) {
		return load_mechanisms(s, d, v);
	}
	all_mechanisms(s);
	return 0;
}

const char *study_corun_mechanisms(const struct study *s)
{
	static char buf[256];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nr_corun_mechs && len < sizeof(buf); i++) {
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? "," : "", s->corun_mechs[i]->name);
	}
	return buf;
}
