/* SPDX-License-Identifier: MIT */
/*
 * The knobs' values kept and read through their rows (see
 * knob_values.h): each row that the table parses names its field and
 * the field's type, so `gpumix replay` and a study store a knob the
 * same way, in one place.
 */
#include "knob_values.h"

#include <string.h>

#include "knobs.h"

/* A choice's index is kept through an int (memcpy, its bytes): each
 * knob enum must be of int's size. */
_Static_assert(sizeof(enum gm_completion) == sizeof(int) &&
		       sizeof(enum gm_grid_mode) == sizeof(int) &&
		       sizeof(enum gm_probe_mode) == sizeof(int) &&
		       sizeof(enum gm_host_time) == sizeof(int),
	       "knob enums are int-sized");

double gm_knob_default(const struct gm_knob_desc *k)
{
	return k->def >= 0 && k->option_per_s > 0 ? k->def * k->option_per_s
						  : k->def;
}

void gm_knob_values_init(struct gm_knob_values *v)
{
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; gm_knob_at(i); i++) {
		gm_knob_store(v, gm_knob_at(i), gm_knob_default(gm_knob_at(i)));
	}
}

void gm_knob_store(struct gm_knob_values *v, const struct gm_knob_desc *k,
		   double x)
{
	char *at = (char *)v + k->field;
	unsigned u;
	int i;
	uint64_t b;

	/* (each conversion in its case: a row without a field may have a
	 * default of -1, which no unsigned type holds) */
	switch (k->field_type) {
	case GM_KNOB_FIELD_NONE:
		break;
	case GM_KNOB_FIELD_UNSIGNED:
		u = (unsigned)x;
		memcpy(at, &u, sizeof(u));
		break;
	case GM_KNOB_FIELD_INT:
		i = x != 0;
		memcpy(at, &i, sizeof(i));
		break;
	case GM_KNOB_FIELD_ENUM:
		i = (int)x;
		memcpy(at, &i, sizeof(i));
		break;
	case GM_KNOB_FIELD_U64:
		b = (uint64_t)x;
		memcpy(at, &b, sizeof(b));
		break;
	case GM_KNOB_FIELD_DOUBLE:
		memcpy(at, &x, sizeof(x));
		break;
	}
}

double gm_knob_value(const struct gm_knob_values *v,
		     const struct gm_knob_desc *k)
{
	const char *at = (const char *)v + k->field;
	unsigned u;
	int i;
	uint64_t b;
	double x;

	switch (k->field_type) {
	case GM_KNOB_FIELD_NONE:
		break;
	case GM_KNOB_FIELD_UNSIGNED:
		memcpy(&u, at, sizeof(u));
		return u;
	case GM_KNOB_FIELD_INT:
	case GM_KNOB_FIELD_ENUM:
		memcpy(&i, at, sizeof(i));
		return i;
	case GM_KNOB_FIELD_U64:
		memcpy(&b, at, sizeof(b));
		return (double)b;
	case GM_KNOB_FIELD_DOUBLE:
		memcpy(&x, at, sizeof(x));
		return x;
	}
	return -1;
}
