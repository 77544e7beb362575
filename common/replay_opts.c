/* SPDX-License-Identifier: MIT */
/*
 * The replay options besides reading the command line (that is
 * replay_opts_parse.c): the values with their own syntax (the knobs'
 * enums by their names, --mps-threads, --slo, --arrivals-label,
 * --smem-pad and --kernel-module), the check of the options against the
 * variant (gm_replay_opts_finish()), and --help (see replay_opts.h).
 */
#include "replay_opts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "instance_name.h"
#include "strbuf.h"

/* The names of the knobs' enums are their rows' choices (knobs.c), in
 * the enums' order. */
static const char *choice_name(enum gm_knob knob, unsigned v)
{
	const struct gm_knob_desc *k = gm_knob_find(knob);

	for (unsigned i = 0; k->choices[i]; i++) {
		if (i == v) {
			return k->choices[i];
		}
	}
	return "?";
}

static int choice_parse(enum gm_knob knob, const char *s, unsigned *out)
{
	const struct gm_knob_desc *k = gm_knob_find(knob);

	for (unsigned i = 0; k->choices[i]; i++) {
		if (!strcmp(s, k->choices[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

const char *gm_completion_name(enum gm_completion c)
{
	return choice_name(GM_KNOB_COMPLETION, c);
}

const char *gm_host_callbacks_name(enum gm_host_callbacks h)
{
	return h == GM_HOST_CALLBACKS_TIMED ? "timed" : "empty";
}

const char *gm_addresses_name(enum gm_addresses a)
{
	return a == GM_ADDRESSES_RELOCATED ? "relocated" : "captured";
}

int gm_addresses_parse(const char *s, enum gm_addresses *out)
{
	if (!strcmp(s, "captured")) {
		*out = GM_ADDRESSES_CAPTURED;
	} else if (!strcmp(s, "relocated")) {
		*out = GM_ADDRESSES_RELOCATED;
	} else {
		return -1;
	}
	return 0;
}

const char *gm_host_time_name(enum gm_host_time h)
{
	return choice_name(GM_KNOB_HOST_TIME, h);
}

int gm_host_time_parse(const char *s, enum gm_host_time *out)
{
	unsigned v;

	if (choice_parse(GM_KNOB_HOST_TIME, s, &v) < 0) {
		return -1;
	}
	*out = (enum gm_host_time)v;
	return 0;
}

const char *gm_grid_mode_name(enum gm_grid_mode g)
{
	return choice_name(GM_KNOB_GRID, g);
}

int gm_grid_mode_parse(const char *s, enum gm_grid_mode *out)
{
	unsigned v;

	if (choice_parse(GM_KNOB_GRID, s, &v) < 0) {
		return -1;
	}
	*out = (enum gm_grid_mode)v;
	return 0;
}

const char *gm_probe_mode_name(enum gm_probe_mode m)
{
	return choice_name(GM_KNOB_PROBE, m);
}

int gm_probe_mode_parse(const char *s, enum gm_probe_mode *out)
{
	unsigned v;

	if (choice_parse(GM_KNOB_PROBE, s, &v) < 0) {
		return -1;
	}
	*out = (enum gm_probe_mode)v;
	return 0;
}

/* A percentage 1-100 at @s, ending at @end (NULL: at the string's end). */
static int parse_pct(const char *s, const char **end_out, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9') {
		return -1;
	}
	v = strtoul(s, &end, 10);
	if (v < 1 || v > 100 || (!end_out && *end)) {
		return -1;
	}
	if (end_out) {
		*end_out = end;
	}
	*out = (unsigned)v;
	return 0;
}

int gm_mps_threads_check(const char *spec)
{
	const char *s = spec;
	unsigned pct;

	if (!parse_pct(spec, NULL, &pct)) {
		return 0;
	}
	while (*s) {
		const char *eq = strchr(s, '='), *end;
		size_t n = strcspn(s, "=,");
		if (!n || !eq || s[n] != '=' || parse_pct(eq + 1, &end, &pct) ||
		    (*end && *end != ',') || (*end == ',' && !end[1])) {
			return gm_error("--mps-threads takes a percentage from 1 "
					"to 100, or NAME=PCT pairs separated by "
					"commas, not '%s'", spec);
		}
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* The percentage @spec gives the program named exactly @name (@exact),
 * or the program @name is an instance of (gm_instance_of()); 0 if none. */
static unsigned mps_threads_match(const char *spec, const char *name,
				  int exact)
{
	unsigned pct = 0;

	for (const char *s = spec; *s;) {
		const char *end;
		size_t n = strcspn(s, "=");
		char *key = gm_xasprintf("%.*s", (int)n, s);
		int hit = exact ? !strcmp(key, name) : gm_instance_of(name, key);
		free(key);
		if (hit && !parse_pct(s + n + 1, &end, &pct)) {
			return pct;
		}
		s += strcspn(s, ",");
		s += *s == ',';
	}
	return 0;
}

unsigned gm_mps_threads_for(const char *spec, const char *name)
{
	unsigned pct = 0;

	if (!spec) {
		return 0;
	}
	if (!parse_pct(spec, NULL, &pct)) {
		return pct;
	}
	pct = mps_threads_match(spec, name, 1);
	return pct ? pct : mps_threads_match(spec, name, 0);
}

int gm_slo_parse(const char *s, double *factor, double *ms)
{
	char *end;
	double v;

	*factor = *ms = 0;
	errno = 0;
	v = strtod(s, &end);
	if (end != s && *s != '-' && *s != '+' && !errno && v > 0 &&
	    isfinite(v)) {
		if (!strcmp(end, "x")) {
			*factor = v;
			return 0;
		}
		if (!strcmp(end, "ms")) {
			*ms = v;
			return 0;
		}
	}
	return gm_error("a latency target (slo) is a multiple of the alone "
			"service time ('2x') or milliseconds ('50ms'), above "
			"0, not '%s'", s);
}

int gm_arrivals_label_check(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 32 || !((*s >= 'a' && *s <= 'z') ||
				 (*s >= 'A' && *s <= 'Z')) ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") != n) {
		return gm_error("--arrivals-label takes 1 to 32 letters, digits, "
				"'.', '-' and '_' starting with a letter, not "
				"'%s'", s);
	}
	return 0;
}

static int knob_refused(const struct gm_variant *v, unsigned knob)
{
	const struct gm_knob_desc *k = gm_knob_find((enum gm_knob)knob);
	struct strbuf takers = STRBUF_INIT;

	for (size_t i = 0; gm_variant_at(i); i++) {
		const struct gm_variant *t = gm_variant_at(i);
		if (t->implemented && (t->knobs & knob)) {
			strbuf_addf(&takers, "%s%s", takers.len ? ", " : "",
				    t->name);
		}
	}
	gm_error("%s does not apply to variant '%s' (it applies to: %s)",
		 k ? k->option : "an option", v->name,
		 takers.len ? takers.buf : "none yet");
	strbuf_release(&takers);
	return -1;
}

int gm_replay_opts_finish(struct gm_replay_opts *o,
			  const char *default_variant)
{
	const char *name = o->variant_name ? o->variant_name : default_variant;
	const struct gm_variant *v = gm_variant_find(name);

	if (!v) {
		return gm_error("unknown variant '%s' (variants: %s)",
				name ? name : "", gm_variant_implemented_list());
	}
	if (!v->implemented) {
		return gm_error("variant '%s' is not implemented yet "
				"(implemented: %s)", v->name,
				gm_variant_implemented_list());
	}
	for (unsigned bit = 1; bit; bit <<= 1) {
		if ((o->given & bit) && !(v->knobs & bit)) {
			return knob_refused(v, bit);
		}
	}
	if (o->sm_share && o->scale_path) {
		return gm_error("--sm-share and --scale both set the "
				"partitions: give one");
	}
	if ((v->flags & GM_VARIANT_POLICY) && !o->policy) {
		return gm_error("variant '%s' needs --policy (%s)", v->name,
				gm_policy_list());
	}
	if (o->policy && !strcmp(o->policy, "mpmax-cliff") && !o->cliff_map) {
		return gm_error("policy mpmax-cliff needs --cliff-map (the "
				"points.csv of gpumix sweep --run)");
	}
	/* (a cliff map with another policy is unused: a study gives its
	 * replay: keys to every policy it runs) */
	if (o->one_shot && (o->given & GM_KNOB_MIN_REPLAYS)) {
		return gm_error("--one-shot replays every program once: "
				"--min-replays does not apply");
	}
	if (o->nr_arrivals && o->one_shot) {
		return gm_error("--arrivals starts a program's replays at their "
				"arrivals: --one-shot does not apply");
	}
	if (!o->nr_arrivals && (o->requests_given || o->arrival_seed_given ||
				o->slo || o->arrivals_label || o->alone_dir)) {
		return gm_error("%s applies to the programs of --arrivals, and "
				"none was given", o->requests_given ?
				"--requests" : o->arrival_seed_given ?
				"--arrival-seed" : o->slo ? "--slo" :
				o->alone_dir ? "--alone" : "--arrivals-label");
	}
	for (unsigned i = 0; i < o->nr_arrivals; i++) {
		size_t ni = strcspn(o->arrivals[i], "=");
		for (unsigned j = 0; j < i; j++) {
			if (strcspn(o->arrivals[j], "=") == ni &&
			    !strncmp(o->arrivals[i], o->arrivals[j], ni)) {
				return gm_error("--arrivals names program "
						"'%.*s' twice", (int)ni,
						o->arrivals[i]);
			}
		}
	}
	if (o->one_shot) {
		o->min_replays = 1;
	}
	o->variant = v;
	return 0;
}

/* Knob @k's line of --help: its row's text, then what it takes and its
 * default, from the table (the policies from theirs). */
static void knob_help(const struct gm_knob_desc *k, struct strbuf *sb)
{
	strbuf_addstr(sb, k->help);
	if (k->knob == GM_KNOB_POLICY) {
		for (size_t i = 0; gm_policy_at(i); i++) {
			const struct gm_policy_desc *p = gm_policy_at(i);
			if (p->selectable) {
				strbuf_addf(sb, " %s (%s)%s", p->name, p->about,
					    gm_policy_at(i + 1) ? ";" : "");
			}
		}
	}
	if (k->kind != GM_KNOB_DURATION && k->kind != GM_KNOB_SIZE &&
	    k->kind != GM_KNOB_CHOICE) {
		return;
	}
	/* (a choice's help names its choices) */
	if (k->kind != GM_KNOB_CHOICE) {
		strbuf_addstr(sb, ": ");
		gm_knob_range(k, sb);
	}
	if (k->def < 0) {
		strbuf_addstr(sb, " (default: no limit)");
	} else if (k->kind == GM_KNOB_DURATION) {
		strbuf_addstr(sb, " (default: ");
		gm_knob_format_seconds(k->def, sb);
		strbuf_addstr(sb, ")");
	} else {
		strbuf_addstr(sb, " (default: ");
		gm_knob_format(k, k->def, sb);
		strbuf_addstr(sb, ")");
	}
}

void gm_replay_opts_help(FILE *f)
{
	const struct gm_knob_desc *mr = gm_knob_find(GM_KNOB_MIN_REPLAYS);
	const struct gm_knob_desc *wd = gm_knob_find(GM_KNOB_WATCHDOG);
	char head[64];

	/* (the run's knobs, .run in the table, here: bounds and defaults
	 * from their rows) */
	fputs("  --data DIR            replay data (blobs/, modules/); default: "
	      "the program's\n"
	      "                        directory\n"
	      "  -o, --output RUNDIR   run directory (default "
	      "runs/<workload>.<variant>)\n", f);
	snprintf(head, sizeof(head), "%s %s", mr->option, mr->arg);
	fprintf(f, "  %-21s every program replays until each has completed "
		"%s\n"
		"                        replays, %.0f to %.0f; each program's "
		"last one is\n"
		"                        discarded (%.0f)\n", head, mr->arg,
		mr->min, mr->max, mr->def);
	fputs("  --repetition R        this run is repetition R (0-based) of a "
	      "study's run:\n"
	      "                        recorded in the manifest as "
	      "run.repetition (0)\n"
	      "  --study-seed N        the seed of the study's run order, "
	      "recorded in the\n"
	      "                        manifest as study.seed\n", f);
	snprintf(head, sizeof(head), "%s %s", wd->option, wd->arg);
	fprintf(f, "  %-21s stop a replay that makes no progress (%g; 0: "
		"off)\n", head, wd->def);
	fputs("  --force               replace an existing run directory "
	      "(only one\n"
	      "                        gpumix wrote)\n"
	      "  --no-profile          run without the CUPTI activity log\n"
	      "  --warm-host           keep the pages of device-to-host results "
	      "between\n"
	      "                        replays (default: fresh pages each "
	      "replay)\n"
	      "  --host-callbacks M    the program's host functions "
	      "(cudaLaunchHostFunc,\n"
	      "                        stream callbacks) run in their stream "
	      "position as an\n"
	      "                        empty function (empty, the default) or "
	      "one that spends\n"
	      "                        the time they took when captured "
	      "(timed)\n"
	      "  --addresses M         each program's allocations at their "
	      "captured device\n"
	      "                        addresses where the driver gives them and "
	      "programs'\n"
	      "                        ranges do not collide, relocated "
	      "otherwise (captured,\n"
	      "                        the default), or all relocated "
	      "(relocated)\n"
	      "  --variant V           the concurrency mechanism (default: the "
	      "one the\n"
	      "                        program was reconstructed for):\n", f);
	for (size_t i = 0; gm_variant_at(i); i++) {
		const struct gm_variant *v = gm_variant_at(i);
		if (v->implemented) {
			fprintf(f, "                          %-8s %s\n", v->name,
				v->about);
		}
	}
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		struct strbuf head = STRBUF_INIT, takers = STRBUF_INIT;
		struct strbuf help = STRBUF_INIT;
		if (k->run) {
			continue;	/* (with the run's options, above) */
		}
		strbuf_addf(&head, "%s%s%s", k->option, k->arg ? " " : "",
			    k->arg ? k->arg : "");
		for (size_t j = 0; gm_variant_at(j); j++) {
			const struct gm_variant *v = gm_variant_at(j);
			if (v->implemented && (v->knobs & k->knob)) {
				strbuf_addf(&takers, "%s%s",
					    takers.len ? ", " : "", v->name);
			}
		}
		if (k->knob & GM_KNOBS_EVERY_VARIANT) {
			strbuf_reset(&takers);
			strbuf_addstr(&takers, "every variant");
		}
		knob_help(k, &help);
		fprintf(f, "  %-21s %s [%s]\n", head.buf, help.buf,
			takers.len ? takers.buf : "no variant yet");
		strbuf_release(&help);
		strbuf_release(&head);
		strbuf_release(&takers);
	}
	fputs("  --requests N          with --arrivals: the requests of a "
	      "Poisson process\n"
	      "                        (200), the first N rows of a trace "
	      "(default: all)\n"
	      "  --arrival-seed N      with --arrivals: the seed of the "
	      "Poisson processes (1),\n"
	      "                        recorded in the manifest\n"
	      "  --slo Nx|Nms          with --arrivals: the requests' latency "
	      "target, N times\n"
	      "                        the alone service time or N ms (2x), "
	      "recorded in the\n"
	      "                        manifest for the report\n"
	      "  --alone RUNDIR        with --arrivals PROG=load:L: the run "
	      "directory (of the\n"
	      "                        single variant) whose replays of PROG "
	      "give its alone\n"
	      "                        time, the rate being L / that time\n"
	      "  --arrivals-label L    with --arrivals: the run's point of a "
	      "sweep (load0.5),\n"
	      "                        its runs told apart by it (a study sets "
	      "it)\n", f);
	fputs("  --elastic-slice BLOCKS  with --elastic: launch each elastic "
	      "kernel as ranges\n"
	      "                        of BLOCKS logical blocks (/N: N ranges "
	      "per grid)\n", f);
}

int gm_kernel_knob_parse(const char *what, const char *s,
			 struct gm_kernel_knob *k)
{
	const char *eq = strchr(s, '=');
	int pad = !strcmp(what, "--smem-pad");

	memset(k, 0, sizeof(*k));
	if (!eq || eq == s || !eq[1]) {
		return gm_error("%s takes KERNEL=%s, not '%s'", what,
				pad ? "BYTES" : "FILE", s);
	}
	k->kernel = s;
	k->kernel_len = (size_t)(eq - s);
	if (pad) {
		char *end;
		unsigned long long v;
		errno = 0;
		v = strtoull(eq + 1, &end, 10);
		if (errno || *end || eq[1] == '-' || v > GM_SMEM_PAD_MAX) {
			return gm_error("%s: BYTES must be between 0 and %d, not "
					"'%s'", what, GM_SMEM_PAD_MAX, eq + 1);
		}
		k->bytes = (uint32_t)v;
	} else {
		k->path = eq + 1;
	}
	return 0;
}

int gm_kernel_knob_is(const struct gm_kernel_knob *k, const char *kernel)
{
	return strlen(kernel) == k->kernel_len &&
	       !strncmp(k->kernel, kernel, k->kernel_len);
}

uint32_t gm_smem_pad_for(const struct gm_replay_opts *o, const char *kernel)
{
	for (unsigned i = 0; i < o->nr_smem_pad; i++) {
		if (gm_kernel_knob_is(&o->smem_pad[i], kernel)) {
			return o->smem_pad[i].bytes;
		}
	}
	return 0;
}

const char *gm_kernel_module_for(const struct gm_replay_opts *o,
				 const char *kernel)
{
	for (unsigned i = 0; i < o->nr_kernel_module; i++) {
		if (gm_kernel_knob_is(&o->kernel_module[i], kernel)) {
			return o->kernel_module[i].path;
		}
	}
	return NULL;
}
