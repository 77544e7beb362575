/* SPDX-License-Identifier: MIT */
/*
 * Replay option parsing (see replay_opts.h).
 */
#include "replay_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "error.h"
#include "instance_name.h"
#include "sm_share.h"
#include "strbuf.h"

enum {
	OPT_DATA = 256,
	OPT_MIN_REPLAYS,
	OPT_REPETITION,
	OPT_STUDY_SEED,
	OPT_WATCHDOG,
	OPT_FORCE,
	OPT_NO_PROFILE,
	OPT_WARM_HOST,
	OPT_HOST_CALLBACKS,
	OPT_ADDRESSES,
	OPT_VARIANT,
	OPT_POLICY,
	OPT_TIMESLICE,
	OPT_COPY_CHUNK,
	OPT_COMPLETION,
	OPT_ELASTIC,
	OPT_ELASTIC_SLICE,
	OPT_PROFILE,
	OPT_HIGH_PRIORITY,
	OPT_SM_SHARE,
	OPT_SCALE,
	OPT_GRID,
	OPT_MPS_THREADS,
	OPT_PROCESS_CHILD,
	OPT_ONE_SHOT,
	OPT_PROBE,
	OPT_HOST_TIME,
	OPT_MAX_HOST_GAP,
	OPT_ARRIVALS,
	OPT_REQUESTS,
	OPT_ARRIVAL_SEED,
	OPT_SLO,
	OPT_ARRIVALS_LABEL,
	OPT_ALONE,
	OPT_SMEM_PAD,
	OPT_KERNEL_MODULE,
	OPT_CLIFF_MAP,
	OPT_HELP,
};

const struct option gm_replay_longopts[] = {
	{ "data", required_argument, NULL, OPT_DATA },
	{ "output", required_argument, NULL, 'o' },
	{ "min-replays", required_argument, NULL, OPT_MIN_REPLAYS },
	{ "repetition", required_argument, NULL, OPT_REPETITION },
	{ "study-seed", required_argument, NULL, OPT_STUDY_SEED },
	{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "no-profile", no_argument, NULL, OPT_NO_PROFILE },
	{ "warm-host", no_argument, NULL, OPT_WARM_HOST },
	{ "host-callbacks", required_argument, NULL, OPT_HOST_CALLBACKS },
	{ "addresses", required_argument, NULL, OPT_ADDRESSES },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "timeslice-us", required_argument, NULL, OPT_TIMESLICE },
	{ "copy-chunk", required_argument, NULL, OPT_COPY_CHUNK },
	{ "completion", required_argument, NULL, OPT_COMPLETION },
	{ "elastic", required_argument, NULL, OPT_ELASTIC },
	{ "elastic-slice", required_argument, NULL, OPT_ELASTIC_SLICE },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "high-priority", required_argument, NULL, OPT_HIGH_PRIORITY },
	{ "sm-share", required_argument, NULL, OPT_SM_SHARE },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "grid", required_argument, NULL, OPT_GRID },
	{ "mps-threads", required_argument, NULL, OPT_MPS_THREADS },
	/* Internal: a replay process of a process variant (replay/process_run.c). */
	{ "process-child", required_argument, NULL, OPT_PROCESS_CHILD },
	{ "one-shot", no_argument, NULL, OPT_ONE_SHOT },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "host-time", required_argument, NULL, OPT_HOST_TIME },
	{ "max-host-gap", required_argument, NULL, OPT_MAX_HOST_GAP },
	{ "arrivals", required_argument, NULL, OPT_ARRIVALS },
	{ "requests", required_argument, NULL, OPT_REQUESTS },
	{ "arrival-seed", required_argument, NULL, OPT_ARRIVAL_SEED },
	{ "slo", required_argument, NULL, OPT_SLO },
	{ "arrivals-label", required_argument, NULL, OPT_ARRIVALS_LABEL },
	{ "alone", required_argument, NULL, OPT_ALONE },
	{ "smem-pad", required_argument, NULL, OPT_SMEM_PAD },
	{ "kernel-module", required_argument, NULL, OPT_KERNEL_MODULE },
	{ "cliff-map", required_argument, NULL, OPT_CLIFF_MAP },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

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

/* Where the options keep the number of knob @knob (the option's terms:
 * gm_knob_parse()); the knobs with their own handlers keep nothing here. */
static void knob_store(struct gm_replay_opts *o, enum gm_knob knob, double v)
{
	switch (knob) {
	case GM_KNOB_MIN_REPLAYS:
		o->min_replays = (unsigned)v;
		break;
	case GM_KNOB_WATCHDOG:
		o->watchdog_s = v;
		break;
	case GM_KNOB_TIMESLICE:
		o->timeslice_us = v;
		break;
	case GM_KNOB_COPY_CHUNK:
		o->copy_chunk = (uint64_t)v;
		break;
	case GM_KNOB_COMPLETION:
		o->completion = (enum gm_completion)v;
		break;
	case GM_KNOB_GRID:
		o->grid = (enum gm_grid_mode)v;
		break;
	case GM_KNOB_PROBE:
		o->probe = (enum gm_probe_mode)v;
		break;
	case GM_KNOB_HOST_TIME:
		o->host_time = (enum gm_host_time)v;
		break;
	case GM_KNOB_MAX_HOST_GAP:
		o->max_host_gap_s = v;
		break;
	case GM_KNOB_ONE_SHOT:
		o->one_shot = v != 0;
		break;
	case GM_KNOB_POLICY:
	case GM_KNOB_ELASTIC:
	case GM_KNOB_PROFILE:
	case GM_KNOB_HIGH_PRIORITY:
	case GM_KNOB_SM_SHARE:
	case GM_KNOB_SCALE:
	case GM_KNOB_MPS_THREADS:
	case GM_KNOB_ARRIVALS:
	case GM_KNOB_SMEM_PAD:
	case GM_KNOB_KERNEL_MODULE:
	case GM_KNOB_CLIFF_MAP:
		/* (strings and lists: knob_option()) */
		break;
	}
}

/* Whether the table parses knob @k's value (and knob_store() keeps it). */
static int table_parses(const struct gm_knob_desc *k)
{
	return k->kind != GM_KNOB_OTHER || k->parse;
}

/* Row @k's default in its option's terms (a duration in the option's
 * unit); < 0 (none) as it is. */
static double option_default(const struct gm_knob_desc *k)
{
	return k->def >= 0 && k->option_per_s > 0 ? k->def * k->option_per_s
						  : k->def;
}

void gm_replay_opts_init(struct gm_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		if (table_parses(k)) {
			knob_store(o, k->knob, option_default(k));
		}
	}
	o->profile = 1;
	o->process_child = -1;
	o->board_fd = -1;
	o->addresses = GM_ADDRESSES_CAPTURED;
	o->arrival_seed = GM_DEFAULT_ARRIVAL_SEED;
}

/* The row of the knob whose option getopt_long() returned as @c, or NULL
 * (an option that is no knob's). */
static const struct gm_knob_desc *knob_of_option(int c)
{
	for (const struct option *l = gm_replay_longopts; l->name; l++) {
		if (l->val != c) {
			continue;
		}
		for (size_t i = 0; gm_knob_at(i); i++) {
			const struct gm_knob_desc *k = gm_knob_at(i);
			if (!strncmp(k->option, "--", 2) &&
			    !strcmp(k->option + 2, l->name)) {
				return k;
			}
		}
		break;
	}
	return NULL;
}

/*
 * Option @c when the table parses its knob's value (table_parses()): its
 * row parses and checks @arg (a flag takes none) and knob_store() keeps
 * it. Returns 0, -1 with the row's cause, or 1 when @c is another option.
 */
static int table_option(struct gm_replay_opts *o, int c, const char *arg)
{
	const struct gm_knob_desc *k = knob_of_option(c);
	double v = 1;	/* (a flag's: on) */

	if (!k || !table_parses(k)) {
		return 1;
	}
	if (k->kind != GM_KNOB_FLAG &&
	    gm_knob_parse(k, k->option, arg, &v) < 0) {
		return -1;
	}
	knob_store(o, k->knob, v);
	o->given |= k->knob;
	return 0;
}

/* A seed, @arg, of option @who: 0 to 2^64-1 in decimal. */
static int parse_seed(const char *who, const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end || *arg < '0' || *arg > '9' || errno) {
		return gm_error("%s takes an integer from 0 to 2^64-1, not '%s'",
				who, arg);
	}
	*out = (uint64_t)v;
	return 0;
}

/*
 * The options of the run that are no knob's (where it reads and writes,
 * which repetition of a study it is, the host's pages, the variant, a
 * process variant's child). Returns 0, -1 with a cause, or 1 when @c is
 * another option.
 */
static int run_option(struct gm_replay_opts *o, int c, const char *arg)
{
	char *end;

	switch (c) {
	case OPT_DATA:
		o->data_dir = arg;
		return 0;
	case 'o':
		o->run_dir = arg;
		return 0;
	case OPT_REPETITION: {
		unsigned long v = strtoul(arg, &end, 10);
		if (*end || *arg < '0' || *arg > '9' || v > 1000000) {
			return gm_error("--repetition takes an integer from 0 to "
					"1000000, not '%s'", arg);
		}
		o->repetition = (unsigned)v;
		return 0;
	}
	case OPT_STUDY_SEED:
		o->have_study_seed = 1;
		return parse_seed("--study-seed", arg, &o->study_seed);
	case OPT_FORCE:
		o->force = 1;
		return 0;
	case OPT_NO_PROFILE:
		o->profile = 0;
		return 0;
	case OPT_WARM_HOST:
		o->warm_host = 1;
		return 0;
	case OPT_HOST_CALLBACKS:
		if (!strcmp(arg, "empty")) {
			o->host_callbacks = GM_HOST_CALLBACKS_EMPTY;
		} else if (!strcmp(arg, "timed")) {
			o->host_callbacks = GM_HOST_CALLBACKS_TIMED;
		} else {
			return gm_error("--host-callbacks takes 'empty' or "
					"'timed', not '%s'", arg);
		}
		return 0;
	case OPT_ADDRESSES:
		if (gm_addresses_parse(arg, &o->addresses) < 0) {
			return gm_error("--addresses takes 'captured' or "
					"'relocated', not '%s'", arg);
		}
		return 0;
	case OPT_VARIANT:
		o->variant_name = arg;
		return 0;
	case OPT_PROCESS_CHILD: {
		int idx, fd, n = 0;
		if (sscanf(arg, "%d:%d%n", &idx, &fd, &n) != 2 || arg[n] ||
		    idx < 0 || fd < 0) {
			return gm_error("--process-child takes INDEX:FD "
					"(internal)");
		}
		o->process_child = idx;
		o->board_fd = fd;
		return 0;
	}
	}
	return 1;
}

/* --smem-pad (@pad) or --kernel-module KERNEL=VALUE: one more kernel,
 * each kernel once, at most GM_MAX_KERNEL_KNOBS. */
static int kernel_knob_option(struct gm_replay_opts *o, int pad,
			      const char *arg)
{
	const char *what = pad ? "--smem-pad" : "--kernel-module";
	struct gm_kernel_knob *t = pad ? o->smem_pad : o->kernel_module;
	unsigned *nr = pad ? &o->nr_smem_pad : &o->nr_kernel_module;
	struct gm_kernel_knob k;

	if (gm_kernel_knob_parse(what, arg, &k) < 0) {
		return -1;
	}
	for (unsigned i = 0; i < *nr; i++) {
		if (t[i].kernel_len == k.kernel_len &&
		    !strncmp(t[i].kernel, k.kernel, k.kernel_len)) {
			return gm_error("%s: kernel '%.*s' given twice", what,
					(int)k.kernel_len, k.kernel);
		}
	}
	if (*nr == GM_MAX_KERNEL_KNOBS) {
		return gm_error("%s: at most %d kernels", what,
				GM_MAX_KERNEL_KNOBS);
	}
	t[(*nr)++] = k;
	o->given |= pad ? GM_KNOB_SMEM_PAD : GM_KNOB_KERNEL_MODULE;
	return 0;
}

/* --sm-share: checked now (its programs once the workload is known),
 * kept as given. */
static int sm_share_option(struct gm_replay_opts *o, const char *arg)
{
	struct gm_sm_share share = GM_SM_SHARE_INIT;

	if (gm_sm_share_parse(&share, arg) < 0) {
		char *why = gm_xstrdup(gm_error_message());
		gm_error_clear();
		gm_error("--sm-share: %s", why);
		free(why);
		return -1;
	}
	gm_sm_share_release(&share);
	o->sm_share = arg;
	o->given |= GM_KNOB_SM_SHARE;
	return 0;
}

/*
 * The options of the knobs with their own syntax (the table's OTHER rows
 * without a parse): a policy, a program, a list, a path. Returns 0, -1
 * with a cause, or 1 when @c is another option.
 */
static int knob_option(struct gm_replay_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_POLICY:
		o->policy = gm_policy_find(arg);
		if (!o->policy) {
			return gm_error("unknown policy '%s' (%s)", arg,
					gm_policy_list());
		}
		o->given |= GM_KNOB_POLICY;
		return 0;
	case OPT_ELASTIC:
		o->elastic_mode = arg;
		o->given |= GM_KNOB_ELASTIC;
		return 0;
	case OPT_ELASTIC_SLICE:
		o->elastic_slice = arg;
		o->given |= GM_KNOB_ELASTIC;
		return 0;
	case OPT_PROFILE:
		o->profile_path = arg;
		o->given |= GM_KNOB_PROFILE;
		return 0;
	case OPT_HIGH_PRIORITY:
		o->high_priority = arg;
		o->given |= GM_KNOB_HIGH_PRIORITY;
		return 0;
	case OPT_SM_SHARE:
		return sm_share_option(o, arg);
	case OPT_SMEM_PAD:
	case OPT_KERNEL_MODULE:
		return kernel_knob_option(o, c == OPT_SMEM_PAD, arg);
	case OPT_CLIFF_MAP:
		if (!*arg) {
			return gm_error("--cliff-map takes a sweep's points.csv");
		}
		o->cliff_map = arg;
		o->given |= GM_KNOB_CLIFF_MAP;
		return 0;
	case OPT_SCALE:
		o->scale_path = arg;
		o->given |= GM_KNOB_SCALE;
		return 0;
	case OPT_MPS_THREADS:
		if (gm_mps_threads_check(arg) < 0) {
			return -1;
		}
		o->mps_threads = arg;
		o->given |= GM_KNOB_MPS_THREADS;
		return 0;
	}
	return 1;
}

/*
 * The open-loop options: --arrivals and those that apply to its programs
 * (gm_replay_opts_finish() refuses them without it). Returns 0, -1 with a
 * cause, or 1 when @c is another option.
 */
static int open_loop_option(struct gm_replay_opts *o, int c, const char *arg)
{
	char *end;

	switch (c) {
	case OPT_ARRIVALS: {
		struct gm_arrival_spec spec;
		if (gm_arrival_spec_parse(&spec, arg) < 0) {
			return -1;
		}
		gm_arrival_spec_release(&spec);
		if (o->nr_arrivals == GM_MAX_ARRIVALS) {
			return gm_error("--arrivals: at most %d latency-critical "
					"programs", GM_MAX_ARRIVALS);
		}
		o->arrivals[o->nr_arrivals++] = arg;
		o->given |= GM_KNOB_ARRIVALS;
		return 0;
	}
	case OPT_REQUESTS: {
		unsigned long v = strtoul(arg, &end, 10);
		if (*end || *arg < '1' || *arg > '9' ||
		    v > GM_ARRIVALS_MAX_REQUESTS) {
			return gm_error("--requests takes an integer from 1 to "
					"%u, not '%s'", GM_ARRIVALS_MAX_REQUESTS,
					arg);
		}
		o->requests = (unsigned)v;
		o->requests_given = 1;
		return 0;
	}
	case OPT_ARRIVAL_SEED:
		o->arrival_seed_given = 1;
		return parse_seed("--arrival-seed", arg, &o->arrival_seed);
	case OPT_SLO: {
		double f, ms;
		if (gm_slo_parse(arg, &f, &ms) < 0) {
			return -1;
		}
		o->slo = arg;
		return 0;
	}
	case OPT_ALONE:
		o->alone_dir = arg;
		return 0;
	case OPT_ARRIVALS_LABEL:
		if (gm_arrivals_label_check(arg) < 0) {
			return -1;
		}
		o->arrivals_label = arg;
		return 0;
	}
	return 1;
}

/* What getopt_long() refused (it returned '?'): an option that needs a
 * value and has none, or one that is unknown. Returns -1 with the cause. */
static int bad_option(char **argv)
{
	if (optopt && optopt != '?') {
		for (const struct option *l = gm_replay_longopts; l->name; l++) {
			if (l->val == optopt) {
				return gm_error("option '--%s' needs a value",
						l->name);
			}
		}
		if (optopt == 'o') {
			return gm_error("option '-o' needs a value");
		}
	}
	return gm_error("unknown option '%s'", argv[optind - 1]);
}

int gm_replay_opts_parse(struct gm_replay_opts *o, int argc, char **argv,
			 int *first_arg)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:", gm_replay_longopts,
				NULL)) != -1) {
		int ret;
		if (c == OPT_HELP) {
			return 1;
		}
		/* (each returns 1 for an option that is not its own) */
		ret = table_option(o, c, optarg);
		if (ret == 1) {
			ret = run_option(o, c, optarg);
		}
		if (ret == 1) {
			ret = knob_option(o, c, optarg);
		}
		if (ret == 1) {
			ret = open_loop_option(o, c, optarg);
		}
		if (ret == 1) {
			return bad_option(argv);
		}
		if (ret < 0) {
			return -1;
		}
	}
	if (gm_elastic_setting_parse(o->elastic_mode, o->elastic_slice,
				     &o->elastic) < 0) {
		return -1;
	}
	*first_arg = optind;
	return 0;
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
