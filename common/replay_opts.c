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

void gm_replay_opts_init(struct gm_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_replays = GM_DEFAULT_MIN_REPLAYS;
	o->watchdog_s = GM_DEFAULT_WATCHDOG_S;
	o->profile = 1;
	o->timeslice_us = gm_knob_find(GM_KNOB_TIMESLICE)->def *
			  gm_knob_find(GM_KNOB_TIMESLICE)->option_per_s;
	o->copy_chunk = (uint64_t)gm_knob_find(GM_KNOB_COPY_CHUNK)->def;
	o->completion = (enum gm_completion)gm_knob_find(GM_KNOB_COMPLETION)->def;
	o->grid = (enum gm_grid_mode)gm_knob_find(GM_KNOB_GRID)->def;
	o->probe = (enum gm_probe_mode)gm_knob_find(GM_KNOB_PROBE)->def;
	o->process_child = -1;
	o->board_fd = -1;
	o->host_time = (enum gm_host_time)gm_knob_find(GM_KNOB_HOST_TIME)->def;
	o->max_host_gap_s = gm_knob_find(GM_KNOB_MAX_HOST_GAP)->def;
	o->addresses = GM_ADDRESSES_CAPTURED;
	o->arrival_seed = GM_DEFAULT_ARRIVAL_SEED;
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

/* The value of table knob @knob's option (knobs.h): its unit's number,
 * bytes or choice's index, checked against the table's bounds. */
static int knob_arg(enum gm_knob knob, const char *arg, double *out)
{
	const struct gm_knob_desc *k = gm_knob_find(knob);

	return gm_knob_parse(k, k->option, arg, out);
}

int gm_replay_opts_parse(struct gm_replay_opts *o, int argc, char **argv,
			 int *first_arg)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:", gm_replay_longopts,
				NULL)) != -1) {
		char *end;
		double v;
		switch (c) {
		case OPT_DATA:
			o->data_dir = optarg;
			break;
		case 'o':
			o->run_dir = optarg;
			break;
		case OPT_MIN_REPLAYS: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-' ||
			    v < GM_MIN_REPLAYS_MIN || v > GM_MIN_REPLAYS_MAX) {
				return gm_error("--min-replays takes an integer "
						"from %d to %d (each program's "
						"last replay is discarded), not "
						"'%s'", GM_MIN_REPLAYS_MIN,
						GM_MIN_REPLAYS_MAX, optarg);
			}
			o->min_replays = (unsigned)v;
			o->min_replays_given = 1;
			break;
		}
		case OPT_REPETITION: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || *optarg < '0' || *optarg > '9' ||
			    v > 1000000) {
				return gm_error("--repetition takes an integer "
						"from 0 to 1000000, not '%s'",
						optarg);
			}
			o->repetition = (unsigned)v;
			break;
		}
		case OPT_STUDY_SEED: {
			unsigned long long v;
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*end || *optarg < '0' || *optarg > '9' || errno) {
				return gm_error("--study-seed takes an integer "
						"from 0 to 2^64-1, not '%s'",
						optarg);
			}
			o->study_seed = (uint64_t)v;
			o->have_study_seed = 1;
			break;
		}
		case OPT_WATCHDOG:
			o->watchdog_s = strtod(optarg, &end);
			if (*end || !*optarg || !(o->watchdog_s >= 0) ||
			    isinf(o->watchdog_s)) {
				return gm_error("--watchdog takes a number of "
						"seconds (0: off)");
			}
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		case OPT_NO_PROFILE:
			o->profile = 0;
			break;
		case OPT_WARM_HOST:
			o->warm_host = 1;
			break;
		case OPT_HOST_CALLBACKS:
			if (!strcmp(optarg, "empty")) {
				o->host_callbacks = GM_HOST_CALLBACKS_EMPTY;
			} else if (!strcmp(optarg, "timed")) {
				o->host_callbacks = GM_HOST_CALLBACKS_TIMED;
			} else {
				return gm_error("--host-callbacks takes 'empty' "
						"or 'timed', not '%s'", optarg);
			}
			break;
		case OPT_ADDRESSES:
			if (gm_addresses_parse(optarg, &o->addresses) < 0) {
				return gm_error("--addresses takes 'captured' or "
						"'relocated', not '%s'", optarg);
			}
			break;
		case OPT_VARIANT:
			o->variant_name = optarg;
			break;
		case OPT_POLICY:
			o->policy = gm_policy_find(optarg);
			if (!o->policy) {
				return gm_error("unknown policy '%s' (%s)",
						optarg, gm_policy_list());
			}
			o->given |= GM_KNOB_POLICY;
			break;
		case OPT_TIMESLICE:
			if (knob_arg(GM_KNOB_TIMESLICE, optarg, &v) < 0) {
				return -1;
			}
			o->timeslice_us = v;
			o->given |= GM_KNOB_TIMESLICE;
			break;
		case OPT_COPY_CHUNK:
			if (knob_arg(GM_KNOB_COPY_CHUNK, optarg, &v) < 0) {
				return -1;
			}
			o->copy_chunk = (uint64_t)v;
			o->given |= GM_KNOB_COPY_CHUNK;
			break;
		case OPT_COMPLETION:
			if (knob_arg(GM_KNOB_COMPLETION, optarg, &v) < 0) {
				return -1;
			}
			o->completion = (enum gm_completion)v;
			o->given |= GM_KNOB_COMPLETION;
			break;
		case OPT_ELASTIC:
			o->elastic_mode = optarg;
			o->given |= GM_KNOB_ELASTIC;
			break;
		case OPT_ELASTIC_SLICE:
			o->elastic_slice = optarg;
			o->given |= GM_KNOB_ELASTIC;
			break;
		case OPT_PROFILE:
			o->profile_path = optarg;
			o->given |= GM_KNOB_PROFILE;
			break;
		case OPT_HIGH_PRIORITY:
			o->high_priority = optarg;
			o->given |= GM_KNOB_HIGH_PRIORITY;
			break;
		case OPT_SM_SHARE: {
			struct gm_sm_share share = GM_SM_SHARE_INIT;
			if (gm_sm_share_parse(&share, optarg) < 0) {
				char *why = gm_xstrdup(gm_error_message());
				gm_error_clear();
				gm_error("--sm-share: %s", why);
				free(why);
				return -1;
			}
			gm_sm_share_release(&share);
			o->sm_share = optarg;
			o->given |= GM_KNOB_SM_SHARE;
			break;
		}
		case OPT_SMEM_PAD:
		case OPT_KERNEL_MODULE: {
			int pad = c == OPT_SMEM_PAD;
			const char *what = pad ? "--smem-pad" : "--kernel-module";
			struct gm_kernel_knob *t = pad ? o->smem_pad
						       : o->kernel_module;
			unsigned *nr = pad ? &o->nr_smem_pad
					   : &o->nr_kernel_module;
			struct gm_kernel_knob k;
			if (gm_kernel_knob_parse(what, optarg, &k) < 0) {
				return -1;
			}
			for (unsigned i = 0; i < *nr; i++) {
				if (t[i].kernel_len == k.kernel_len &&
				    !strncmp(t[i].kernel, k.kernel,
					     k.kernel_len)) {
					return gm_error("%s: kernel '%.*s' given "
							"twice", what,
							(int)k.kernel_len,
							k.kernel);
				}
			}
			if (*nr == GM_MAX_KERNEL_KNOBS) {
				return gm_error("%s: at most %d kernels", what,
						GM_MAX_KERNEL_KNOBS);
			}
			t[(*nr)++] = k;
			o->given |= pad ? GM_KNOB_SMEM_PAD : GM_KNOB_KERNEL_MODULE;
			break;
		}
		case OPT_CLIFF_MAP:
			if (!*optarg) {
				return gm_error("--cliff-map takes a sweep's "
						"points.csv");
			}
			o->cliff_map = optarg;
			o->given |= GM_KNOB_CLIFF_MAP;
			break;
		case OPT_SCALE:
			o->scale_path = optarg;
			o->given |= GM_KNOB_SCALE;
			break;
		case OPT_GRID:
			if (knob_arg(GM_KNOB_GRID, optarg, &v) < 0) {
				return -1;
			}
			o->grid = (enum gm_grid_mode)v;
			o->given |= GM_KNOB_GRID;
			break;
		case OPT_PROBE:
			if (knob_arg(GM_KNOB_PROBE, optarg, &v) < 0) {
				return -1;
			}
			o->probe = (enum gm_probe_mode)v;
			o->given |= GM_KNOB_PROBE;
			break;
		case OPT_MPS_THREADS:
			if (gm_mps_threads_check(optarg) < 0) {
				return -1;
			}
			o->mps_threads = optarg;
			o->given |= GM_KNOB_MPS_THREADS;
			break;
		case OPT_HOST_TIME:
			if (knob_arg(GM_KNOB_HOST_TIME, optarg, &v) < 0) {
				return -1;
			}
			o->host_time = (enum gm_host_time)v;
			o->given |= GM_KNOB_HOST_TIME;
			break;
		case OPT_MAX_HOST_GAP:
			if (knob_arg(GM_KNOB_MAX_HOST_GAP, optarg, &v) < 0) {
				return -1;
			}
			o->max_host_gap_s = v;
			o->given |= GM_KNOB_MAX_HOST_GAP;
			break;
		case OPT_ARRIVALS: {
			struct gm_arrival_spec spec;
			if (gm_arrival_spec_parse(&spec, optarg) < 0) {
				return -1;
			}
			gm_arrival_spec_release(&spec);
			if (o->nr_arrivals == GM_MAX_ARRIVALS) {
				return gm_error("--arrivals: at most %d "
						"latency-critical programs",
						GM_MAX_ARRIVALS);
			}
			o->arrivals[o->nr_arrivals++] = optarg;
			o->given |= GM_KNOB_ARRIVALS;
			break;
		}
		case OPT_REQUESTS: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || *optarg < '1' || *optarg > '9' ||
			    v > GM_ARRIVALS_MAX_REQUESTS) {
				return gm_error("--requests takes an integer "
						"from 1 to %u, not '%s'",
						GM_ARRIVALS_MAX_REQUESTS,
						optarg);
			}
			o->requests = (unsigned)v;
			o->requests_given = 1;
			break;
		}
		case OPT_ARRIVAL_SEED: {
			unsigned long long v;
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*end || *optarg < '0' || *optarg > '9' || errno) {
				return gm_error("--arrival-seed takes an integer "
						"from 0 to 2^64-1, not '%s'",
						optarg);
			}
			o->arrival_seed = (uint64_t)v;
			o->arrival_seed_given = 1;
			break;
		}
		case OPT_SLO: {
			double f, ms;
			if (gm_slo_parse(optarg, &f, &ms) < 0) {
				return -1;
			}
			o->slo = optarg;
			break;
		}
		case OPT_ALONE:
			o->alone_dir = optarg;
			break;
		case OPT_ARRIVALS_LABEL:
			if (gm_arrivals_label_check(optarg) < 0) {
				return -1;
			}
			o->arrivals_label = optarg;
			break;
		case OPT_PROCESS_CHILD: {
			int idx, fd, n = 0;
			if (sscanf(optarg, "%d:%d%n", &idx, &fd, &n) != 2 ||
			    optarg[n] || idx < 0 || fd < 0) {
				return gm_error("--process-child takes INDEX:FD "
						"(internal)");
			}
			o->process_child = idx;
			o->board_fd = fd;
			break;
		}
		case OPT_ONE_SHOT:
			o->one_shot = 1;
			o->given |= GM_KNOB_ONE_SHOT;
			break;
		case OPT_HELP:
			return 1;
		default:
			if (optopt && optopt != '?') {
				for (const struct option *l = gm_replay_longopts;
				     l->name; l++) {
					if (l->val == optopt) {
						return gm_error("option '--%s' "
								"needs a value",
								l->name);
					}
				}
				if (optopt == 'o') {
					return gm_error("option '-o' needs a "
							"value");
				}
			}
			return gm_error("unknown option '%s'", argv[optind - 1]);
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
	if (o->one_shot && o->min_replays_given) {
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
	fputs("  --data DIR            replay data (blobs/, modules/); default: "
	      "the program's\n"
	      "                        directory\n"
	      "  -o, --output RUNDIR   run directory (default "
	      "runs/<workload>.<variant>)\n"
	      "  --min-replays R       every program replays until each has "
	      "completed R\n"
	      "                        replays, 2 to 1000; each program's last "
	      "one is\n"
	      "                        discarded (7)\n"
	      "  --repetition R        this run is repetition R (0-based) of a "
	      "study's run:\n"
	      "                        recorded in the manifest as "
	      "run.repetition (0)\n"
	      "  --study-seed N        the seed of the study's run order, "
	      "recorded in the\n"
	      "                        manifest as study.seed\n"
	      "  --watchdog SECONDS    stop a replay that makes no progress "
	      "(60; 0: off)\n"
	      "  --force               replace an existing run directory "
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
