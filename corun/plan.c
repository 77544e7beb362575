/* SPDX-License-Identifier: MIT */
/*
 * The plan of a native co-run and its mechanisms (see plan.h).
 */
#include "plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "start_barrier.h"
#include "strbuf.h"

const struct gm_variant *corun_mechanism_at(size_t i)
{
	const struct gm_variant *v;

	for (size_t t = 0; (v = gm_variant_at(t)); t++) {
		if ((v->flags & GM_VARIANT_PROCESSES) && !i--) {
			return v;
		}
	}
	return NULL;
}

const struct gm_variant *corun_mechanism_find(const char *name)
{
	const struct gm_variant *v = gm_variant_find(name);

	return v && (v->flags & GM_VARIANT_PROCESSES) ? v : NULL;
}

int corun_mechanism_mps(const struct gm_variant *m)
{
	return !!(m->flags & GM_VARIANT_MPS_DAEMON);
}

const char *corun_mechanism_list(void)
{
	static char list[128];
	const struct gm_variant *m;

	if (!list[0]) {
		for (size_t i = 0; (m = corun_mechanism_at(i)); i++) {
			size_t n = strlen(list);
			snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				 m->name);
		}
	}
	return list;
}

/* Index of mechanism @m among the mechanisms. */
static size_t mech_index(const struct gm_variant *m)
{
	size_t i = 0;

	while (corun_mechanism_at(i) != m) {
		i++;
	}
	return i;
}

const char *corun_step_mode(const struct corun_step *s)
{
	return s->mech ? s->mech->name : CORUN_ALONE;
}

static void add_step(struct corun_plan *p, size_t *alloc,
		     const struct gm_variant *m, unsigned repeat,
		     size_t program)
{
	GM_ALLOC_GROW(p->steps, p->nr_steps + 1, *alloc);
	p->steps[p->nr_steps].mech = m;
	p->steps[p->nr_steps].repeat = repeat;
	p->steps[p->nr_steps].program = program;
	p->nr_steps++;
}

/* Set the bits of the mechanisms named in @list (comma-separated) in
 * @want, by their index among the mechanisms. */
static int parse_mechanisms(const char *list, uint64_t *want)
{
	char *copy = gm_xstrdup(list), *save = NULL;
	int n = 0, ret = 0;

	for (char *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		const struct gm_variant *m;
		while (*t == ' ') {
			t++;
		}
		m = corun_mechanism_find(t);
		if (!m) {
			ret = gm_error("unknown mechanism '%s' (known: %s)", t,
				       corun_mechanism_list());
			break;
		}
		if (*want & (1ull << mech_index(m))) {
			ret = gm_error("mechanism '%s' is named twice", t);
			break;
		}
		*want |= 1ull << mech_index(m);
		n++;
	}
	free(copy);
	if (!ret && !n) {
		ret = gm_error("no mechanism named (known: %s)",
			       corun_mechanism_list());
	}
	return ret;
}

int corun_plan_build(struct corun_plan *p, size_t nr_programs,
		     unsigned repeats, const char *list)
{
	uint64_t want = 0;
	size_t nr_mechs = 0;
	size_t alloc = 0;

	memset(p, 0, sizeof(*p));
	if (nr_programs < 2 || nr_programs > GM_BARRIER_MAX_PARTIES) {
		return gm_error("a co-run takes 2 to %d programs, not %zu",
				GM_BARRIER_MAX_PARTIES, nr_programs);
	}
	if (repeats < 1 || repeats > CORUN_MAX_REPEATS) {
		return gm_error("repetitions must be 1 to %d, not %u",
				CORUN_MAX_REPEATS, repeats);
	}
	if (parse_mechanisms(list, &want)) {
		return -1;
	}
	p->nr_programs = nr_programs;
	p->repeats = repeats;
	while (corun_mechanism_at(nr_mechs)) {
		nr_mechs++;
	}
	p->mechs = gm_xcalloc(nr_mechs, sizeof(*p->mechs));
	for (size_t i = 0; i < nr_mechs; i++) {
		if (want & (1ull << i)) {
			p->mechs[p->nr_mechs++] = corun_mechanism_at(i);
		}
	}
	/* Round by round, every mode in each round: a drift of the machine,
	 * or the first runs' warm-up, reaches the alone runs and the runs
	 * together alike (all alone runs first made the first runs' cost
	 * look like a speed-up together). */
	for (unsigned k = 0; k < repeats; k++) {
		for (size_t i = 0; i < nr_programs; i++) {
			add_step(p, &alloc, NULL, k, i);
		}
		for (size_t m = 0; m < p->nr_mechs; m++) {
			add_step(p, &alloc, p->mechs[m], k, 0);
		}
	}
	return 0;
}

void corun_plan_drop(struct corun_plan *p, const struct gm_variant *m)
{
	size_t j = 0;

	for (size_t i = 0; i < p->nr_steps; i++) {
		if (p->steps[i].mech != m) {
			p->steps[j++] = p->steps[i];
		}
	}
	p->nr_steps = j;
	j = 0;
	for (size_t i = 0; i < p->nr_mechs; i++) {
		if (p->mechs[i] != m) {
			p->mechs[j++] = p->mechs[i];
		}
	}
	p->nr_mechs = j;
}

void corun_plan_release(struct corun_plan *p)
{
	free(p->steps);
	free(p->mechs);
	memset(p, 0, sizeof(*p));
}

void corun_plan_print(const struct corun_plan *p, const char *const *names,
		      FILE *out)
{
	for (size_t i = 0; i < p->nr_steps; i++) {
		const struct corun_step *s = &p->steps[i];
		fprintf(out, "%s %u ", corun_step_mode(s), s->repeat);
		if (!s->mech) {
			fprintf(out, "%s\n", names[s->program]);
			continue;
		}
		for (size_t j = 0; j < p->nr_programs; j++) {
			fprintf(out, "%s%s", j ? "+" : "", names[j]);
		}
		fputc('\n', out);
	}
}
