/* SPDX-License-Identifier: MIT */
/*
 * The replay options from the command line into struct gm_replay_opts
 * (see replay_opts.h): getopt_long's table, then each option by the one
 * function whose job it is. The knobs whose value the knob table parses
 * (knobs.h: its DURATION, SIZE, CHOICE and FLAG rows, --watchdog among
 * them, and the OTHER row with a parse, --min-replays) go through their
 * rows alone, into the fields their rows name (knob_values.h); the rest
 * are the run's own options, the knobs with their own syntax, and the
 * open-loop options.
 */
#include "replay_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "error.h"
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

/* Whether the table parses knob @k's value: its row names the field
 * that keeps it (gm_knob_store()). */
static int table_parses(const struct gm_knob_desc *k)
{
	return k->field_type != GM_KNOB_FIELD_NONE;
}

void gm_replay_opts_init(struct gm_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	gm_knob_values_init(&o->knob_values);
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
 * row parses and checks @arg (a flag takes none) and keeps it
 * (gm_knob_store()). Returns 0, -1 with the row's cause, or 1 when @c is
 * another option.
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
	gm_knob_store(&o->knob_values, k, v);
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
