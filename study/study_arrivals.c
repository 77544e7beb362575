/* SPDX-License-Identifier: MIT */
/*
 * A study's open-loop program (doc/study-yaml.md, "Open-loop programs"):
 * the keys of a program entry that make it latency-critical, its
 * requests arriving by a Poisson process or from a trace file, at loads
 * (fractions of its alone capacity: 1 / its alone replay time, from the
 * study's `single` run of it) or rates; a list of them is a sweep, each
 * point a run of its own (plan.c), replayed with `gpumix replay
 * --arrivals` (exec_stages.c).
 *
 *   programs:
 *     - {bundle: bundles/svc, arrivals: poisson, load: [0.2, 0.5, 0.9],
 *        slo: 2x, seed: 1, requests: 200}
 *     - {bundle: bundles/svc, arrivals: trace, trace: azure.csv,
 *        column: TIMESTAMP, rate: 20}
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "error.h"
#include "strbuf.h"
#include "study.h"
#include "study_path.h"

void study_open_loop_release(struct study_open_loop *o)
{
	free(o->trace_path);
	free(o->column);
	free(o->points);
	free(o->slo);
	memset(o, 0, sizeof(*o));
	o->program = SIZE_MAX;
}

/* A positive number at @n (an integer or a decimal), at most @max. */
static int number(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  double max, double *out)
{
	const char *v = yaml_doc_scalar(n);
	char *end;
	double x;

	if (!v) {
		return yaml_doc_error(d, n, "%s must be a number, not %s", what,
				      yaml_doc_kind(n));
	}
	errno = 0;
	x = strtod(v, &end);
	if (!*v || *end || errno || !(x > 0) || x > max) {
		return yaml_doc_error(d, n, "%s must be a number above 0 and at "
				      "most %g, not '%s'", what, max, v);
	}
	*out = x;
	return 0;
}

/* One number or a non-empty list of them (the points of a sweep). */
static int points(struct yaml_doc *d, const yaml_node_t *n, const char *what,
		  double max, struct study_open_loop *o)
{
	size_t nr = yaml_doc_scalar(n) ? 1 : yaml_doc_seq_len(n);

	if (!yaml_doc_scalar(n) && yaml_doc_want_seq(d, n, what)) {
		return -1;
	}
	if (!nr) {
		return yaml_doc_error(d, n, "%s is an empty list", what);
	}
	o->points = gm_xcalloc(nr, sizeof(*o->points));
	for (size_t i = 0; i < nr; i++) {
		const yaml_node_t *item = yaml_doc_scalar(n) ? n :
					  yaml_doc_seq_item(d, n, i);
		if (number(d, item, what, max, &o->points[i])) {
			return -1;
		}
		for (size_t j = 0; j < i; j++) {
			if (o->points[j] == o->points[i]) {
				return yaml_doc_error(d, item, "%s lists %g "
						      "twice", what,
						      o->points[i]);
			}
		}
	}
	o->nr_points = nr;
	return 0;
}

int study_load_arrivals(struct study *s, struct yaml_doc *d,
			const yaml_node_t *n, size_t prog)
{
	struct study_open_loop *o = &s->open_loop;
	yaml_node_t *arr = yaml_doc_get(d, n, "arrivals");
	yaml_node_t *load = yaml_doc_get(d, n, "load");
	yaml_node_t *rate = yaml_doc_get(d, n, "rate");
	yaml_node_t *trace = yaml_doc_get(d, n, "trace");
	yaml_node_t *column = yaml_doc_get(d, n, "column");
	yaml_node_t *slo = yaml_doc_get(d, n, "slo");
	yaml_node_t *seed = yaml_doc_get(d, n, "seed");
	yaml_node_t *req = yaml_doc_get(d, n, "requests");
	char *word = NULL;
	int ret = -1;

	if (!arr) {
		const yaml_node_t *stray = load ? load : rate ? rate :
					   trace ? trace : column ? column :
					   slo ? slo : seed ? seed : req;
		if (stray) {
			return yaml_doc_error(d, stray, "this key applies to an "
					      "open-loop program: give it "
					      "'arrivals' (poisson or trace)");
		}
		return 0;
	}
	if (o->program != SIZE_MAX) {
		return yaml_doc_error(d, arr, "a study has one open-loop program "
				      "and '%s' is one already",
				      s->programs[o->program].name);
	}
	o->program = prog;
	o->pos = yaml_doc_pos(arr);
	if (yaml_doc_string(d, arr, "'arrivals'", &word)) {
		goto out;
	}
	if (!strcmp(word, "trace")) {
		o->trace = 1;
	} else if (strcmp(word, "poisson")) {
		yaml_doc_error(d, arr, "'arrivals' is 'poisson' or 'trace', not "
			       "'%s'", word);
		goto out;
	}
	if (load && rate) {
		yaml_doc_error(d, rate, "give 'load' or 'rate', not both");
		goto out;
	}
	if (o->trace != !!trace) {
		yaml_doc_error(d, trace ? trace : arr, o->trace ?
			       "'arrivals: trace' needs a 'trace' file" :
			       "'trace' applies to 'arrivals: trace'");
		goto out;
	}
	if (column && !o->trace) {
		yaml_doc_error(d, column, "'column' applies to 'arrivals: "
			       "trace'");
		goto out;
	}
	if (!o->trace && !load && !rate) {
		yaml_doc_error(d, arr, "a Poisson process needs a 'load' (a "
			       "fraction of the program's alone capacity) or a "
			       "'rate' (requests per second)");
		goto out;
	}
	if (load && points(d, load, "'load'", 100, o)) {
		goto out;
	}
	if (rate && points(d, rate, "'rate'", 999999, o)) {
		goto out;
	}
	o->by_load = !!load;
	if (!load && !rate) {
		/* A trace as recorded: one point, rate 0. */
		o->points = gm_xcalloc(1, sizeof(*o->points));
		o->nr_points = 1;
	}
	if (trace) {
		char *rel;
		if (yaml_doc_string(d, trace, "'trace'", &rel)) {
			goto out;
		}
		o->trace_path = study_path_resolve(s->root, rel);
		free(rel);
	}
	if (column && yaml_doc_string(d, column, "'column'", &o->column)) {
		goto out;
	}
	if (slo) {
		double f, ms;
		if (yaml_doc_string(d, slo, "'slo'", &o->slo)) {
			goto out;
		}
		if (gm_slo_parse(o->slo, &f, &ms)) {
			char *why = gm_xstrdup(gm_error_message());
			gm_error_clear();
			yaml_doc_error(d, slo, "%s", why);
			free(why);
			goto out;
		}
	}
	if (seed) {
		long v;
		if (yaml_doc_int(d, seed, "'seed'", 0, 2147483647L, &v)) {
			goto out;
		}
		o->seed = (uint64_t)v;
		o->seed_given = 1;
	}
	if (req) {
		long v;
		if (yaml_doc_int(d, req, "'requests'", 1,
				 (long)GM_ARRIVALS_MAX_REQUESTS, &v)) {
			goto out;
		}
		o->requests = (unsigned)v;
	}
	ret = 0;
out:
	free(word);
	return ret;
}

void study_open_loop_label(const struct study *s, size_t i, char *buf,
			   size_t len)
{
	const struct study_open_loop *o = &s->open_loop;

	if (o->points[i] == 0) {
		snprintf(buf, len, "trace");
	} else {
		snprintf(buf, len, "%s%g", o->by_load ? "load" : "rate",
			 o->points[i]);
	}
}
