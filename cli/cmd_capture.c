/* SPDX-License-Identifier: MIT */
/*
 * gpumix capture: run a program and record its CUDA calls into a trace
 * bundle. The program's stdin, stdout, stderr and exit status are its own;
 * gpumix adds one summary line (and any problem) on stderr after it ends.
 *
 * Exit status: the program's own status when it exits non-zero; otherwise
 * 1 when the capture is incomplete or lost anything (the program was
 * killed or crashed, events were lost, calls are unsupported, a payload
 * could not be stored), 130 when interrupted, and 0 for a complete,
 * loss-free bundle.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/version.h"
#include "capture/bundle.h"
#include "capture/capture_run.h"
#include "cli.h"
#include "error.h"
#include "fs.h"
#include "reconstruct/trace/trace_stats.h"
#include "strbuf.h"

static const char usage[] =
	"usage: gpumix capture [-o <dir>] [--force] [--no-kernel]\n"
	"                      [--subbuf-size <bytes>] [--num-subbuf <n>]\n"
	"                      [--no-fork-helper] [--wait-children <s>]\n"
	"                      [--] <program> [<args>...]";

static void print_help(void)
{
	printf("%s\n\n"
	       "Run <program> unmodified and record every CUDA driver call it\n"
	       "makes (with the runtime call around it), the data it sends to\n"
	       "the device, hashes of the data it reads back, its code images\n"
	       "and the GPU time of its kernels and copies, into a trace bundle\n"
	       "(doc/bundle-format.md). Works for static and shared cudart,\n"
	       "driver-API programs and libraries such as cuBLAS.\n\n"
	       "Long options take their value after '=' or as the next word.\n\n"
	       "options:\n"
	       "  -o, --output <dir>    bundle directory (default: traces/<program>)\n"
	       "  -f, --force           replace an existing bundle (only a\n"
	       "                        bundle gpumix wrote)\n"
	       "  --no-kernel           start the LTTng session daemon, if one\n"
	       "                        is needed, without kernel tracing (the\n"
	       "                        default as root when no LTTng kernel\n"
	       "                        modules are installed)\n"
	       "  --subbuf-size <bytes> LTTng sub-buffer size (default %zu)\n"
	       "  --num-subbuf <n>      sub-buffers per CPU and process (default %d)\n"
	       "  --no-fork-helper      do not preload liblttng-ust-fork.so (it\n"
	       "                        lets children forked after CUDA started\n"
	       "                        be traced)\n"
	       "  --wait-children <s>   after the program exits, wait up to <s>\n"
	       "                        seconds for traced processes it started\n"
	       "                        (default %g)\n\n"
	       "exit status: the program's own status when it exits non-zero;\n"
	       "otherwise 0 for a complete bundle without losses, 1 when the\n"
	       "program was killed or crashed or anything was lost or is\n"
	       "unsupported (the bundle is still written, marked incomplete or\n"
	       "lossy), 2 for a usage error, 130 when interrupted.\n\n"
	       "environment: GPUMIX_CAPTURE_LIB overrides the path of\n"
	       "libgpumix-capture.so; LTTNG_SESSIOND_PATH names the session\n"
	       "daemon; BABELTRACE_PLUGIN_PATH the babeltrace2 plugins.\n",
	       usage, GM_LTTNG_SUBBUF_DEFAULT, GM_LTTNG_NUM_SUBBUF_DEFAULT,
	       GM_CAPTURE_WAIT_DEFAULT);
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s) {
		return -1;
	}
	if (*end == 'k' || *end == 'K') {
		v <<= 10;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v <<= 20;
		end++;
	}
	if (*end) {
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static void human_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ull << 30)) {
		snprintf(buf, len, "%.2f GiB", b / (double)(1ull << 30));
	} else if (b >= (1ull << 20)) {
		snprintf(buf, len, "%.1f MiB", b / (double)(1ull << 20));
	} else if (b >= 1024) {
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	} else {
		snprintf(buf, len, "%" PRIu64 " B", b);
	}
}

/*
 * Whether a process of the trace is the program's (bundle_own_process,
 * doc/gpumix-capture.md), remembered per pid.
 */
struct own_procs {
	const char *dir;
	uint32_t *pid;
	uint8_t *own;
	size_t nr, alloc;
};

static int keep_own(void *ctx, uint32_t pid)
{
	struct own_procs *o = ctx;

	for (size_t i = o->nr; i-- > 0;) {
		if (o->pid[i] == pid) {
			return o->own[i];
		}
	}
	if (o->nr == o->alloc) {
		o->alloc = o->alloc ? o->alloc * 2 : 8;
		o->pid = gm_xrealloc(o->pid, o->alloc * sizeof(*o->pid));
		o->own = gm_xrealloc(o->own, o->alloc * sizeof(*o->own));
	}
	o->pid[o->nr] = pid;
	o->own[o->nr] = (uint8_t)bundle_own_process(o->dir, pid);
	return o->own[o->nr++];
}

/* Count the trace of bundle directory @dir back into @st (initialized
 * here): another capture's events are counted, never decoded. */
static int count_trace(const char *dir, struct trace_stats *st,
		       struct own_procs *own)
{
	struct trace_reader *r = NULL;
	int rc;

	trace_stats_init(st);
	own->dir = dir;
	st->keep = keep_own;
	st->keep_ctx = own;
	rc = trace_reader_open(&r, dir, GM_READER_RAW | GM_READER_ALLOW_LOSSY |
				       GM_READER_ALLOW_UNKNOWN);
	if (!rc) {
		trace_reader_keep(r, keep_own, own);
		rc = trace_stats_collect(r, st);
	}
	trace_reader_free(r);
	return rc;
}

/*
 * The program's own calls that failed: the bundle is complete, but a
 * program whose calls failed did not compute what it meant to (an
 * illegal address breaks its context for good), so say so.
 */
static void warn_failed_calls(const struct trace_stats *st)
{
	struct strbuf sb = STRBUF_INIT;

	if (st->failed_bad) {
		trace_failed_call_words(&st->first_bad, &sb);
		gm_warning("%" PRIu64 " CUDA call%s of the program failed; the "
			   "first error: %s (gpumix reconstruct refuses the "
			   "bundle unless given --allow-failed-calls)",
			   st->failed_calls, st->failed_calls == 1 ? "" : "s",
			   sb.buf);
	} else if (st->failed_calls) {
		trace_failed_call_words(&st->first_failed, &sb);
		gm_warning("%" PRIu64 " CUDA call%s of the program failed with "
			   "errors a working program meets (the first: %s); "
			   "a replay skips them", st->failed_calls,
			   st->failed_calls == 1 ? "" : "s", sb.buf);
	}
	strbuf_release(&sb);
}

enum { OPT_NO_KERNEL = 256, OPT_NO_FORK_HELPER, OPT_WAIT_CHILDREN,
       OPT_SUBBUF_SIZE, OPT_NUM_SUBBUF };

static const struct option capture_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "subbuf-size", required_argument, NULL, OPT_SUBBUF_SIZE },
	{ "num-subbuf", required_argument, NULL, OPT_NUM_SUBBUF },
	{ "no-fork-helper", no_argument, NULL, OPT_NO_FORK_HELPER },
	{ "wait-children", required_argument, NULL, OPT_WAIT_CHILDREN },
	{ NULL, 0, NULL, 0 },
};

/* The program's own options follow it: options end at the program. */
const struct gm_cmd_options gm_capture_options = {
	.shorts = "o:f",
	.longopts = capture_longopts,
	.in_order = 1,
};

/*
 * The command line into @o (@out_default: the default output name, owned
 * by the caller when set). Returns 0 to go on, -1 after --help, or the
 * exit status of a usage error (printed).
 */
static int parse(int argc, char **argv, struct capture_opts *o,
		 char **out_default)
{
	struct gm_opt_parser op;
	int c, i;

	o->kernel = GM_KERNEL_AUTO;
	o->wait_s = -1;
	gm_opt_init(&op, &gm_capture_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		char *end;
		size_t n;
		switch (c) {
		case GM_OPT_HELP:
			print_help();
			return -1;
		case 'o':
			o->output = op.arg;
			break;
		case 'f':
			o->force = 1;
			break;
		case OPT_NO_KERNEL:
			o->kernel = GM_KERNEL_NO;
			break;
		case OPT_NO_FORK_HELPER:
			o->no_fork_helper = 1;
			break;
		case OPT_WAIT_CHILDREN:
			errno = 0;
			o->wait_s = strtod(op.arg, &end);
			if (errno || end == op.arg || *end || o->wait_s < 0 ||
			    o->wait_s > 86400) {
				return gm_usage_error(usage, "bad waiting time '%s' "
						      "(seconds, 0 to 86400)",
						      op.arg);
			}
			break;
		case OPT_SUBBUF_SIZE:
			if (parse_size(op.arg, &o->subbuf_size) ||
			    o->subbuf_size < 4096) {
				return gm_usage_error(usage, "bad sub-buffer size '%s'",
						      op.arg);
			}
			break;
		case OPT_NUM_SUBBUF:
			if (parse_size(op.arg, &n) || n < 2 || n > 1024) {
				return gm_usage_error(usage, "bad sub-buffer count '%s'",
						      op.arg);
			}
			o->nr_subbuf = (unsigned)n;
			break;
		default:
			return GM_EXIT_USAGE;
		}
	}
	i = op.ind;
	if (i == argc) {
		return gm_usage_error(usage, "no program to capture");
	}
	o->argv = argv + i;
	if (!o->output) {
		char *copy = gm_xstrdup(argv[i]);
		*out_default = gm_xasprintf("traces/%s", basename(copy));
		free(copy);
		o->output = *out_default;
	}
	return 0;
}

/*
 * Run the program of @o under capture into @cr, up to its end. Returns 0,
 * or -1 with the cause recorded (@cr released, its temporary bundle
 * removed, when the program could not be run).
 */
static int record(struct capture_run *cr, const struct capture_opts *o)
{
	if (capture_run_begin(cr, o)) {
		return -1;
	}
	if (capture_run_program(cr)) {
		/* Report the exec failure after cleaning up. */
		struct strbuf why = STRBUF_INIT;
		strbuf_addstr(&why, gm_error_message());
		gm_error_clear();
		capture_run_end(cr);
		capture_run_discard(cr);
		capture_run_release(cr);
		gm_error("%s", why.buf);
		strbuf_release(&why);
		return -1;
	}
	capture_run_end(cr);
	return 0;
}

/*
 * What the temporary bundle @tmp holds, counted back into @st (and @own)
 * and told to @found. Returns why the trace could not be read, NULL when
 * it could (the caller frees it; @found borrows it).
 */
static char *count_back(const char *tmp, struct trace_stats *st,
			struct own_procs *own, struct bundle_found *found)
{
	char *read_error = NULL, *prune_error = NULL;

	/* Other captures' processes leave first, those that recorded
	 * nothing here included; then count the trace back. */
	if (bundle_prune_foreign(tmp, &found->foreign_pruned)) {
		prune_error = gm_xstrdup(gm_error_message());
		gm_error_clear();
	}
	if (count_trace(tmp, st, own)) {
		read_error = prune_error
			? gm_xasprintf("%s (other captures' streams could "
				       "not all be removed: %s)",
				       gm_error_message(), prune_error)
			: gm_xstrdup(gm_error_message());
		gm_error_clear();
	}
	free(prune_error);
	found->threads = st->threads;
	found->nr_threads = st->nr_threads;
	found->events = st->events;
	found->discarded = st->discarded;
	found->read_error = read_error;
	found->api_used = st->api_used;
	found->device = st->device;
	found->device_cc = st->device_cc;
	found->device_sms = st->device_sms;
	found->driver_version = st->driver_version;
	return read_error;
}

/*
 * The run as the manifest tells it, into @run (which borrows from @o, @cr,
 * @st, and the two buffers for the first failed calls' fields).
 */
static void describe_run(struct bundle_run *run, const struct capture_opts *o,
			 const struct capture_run *cr,
			 const struct trace_stats *st,
			 struct strbuf *failed_first,
			 struct strbuf *failed_first_error)
{
	run->argv = o->argv;
	run->tool_version = "gpumix " GM_VERSION_STRING;
	run->exit_code = cr->exit_code;
	run->signal = cr->signal;
	run->interrupted = cr->interrupted;
	run->started = cr->started;
	run->start_ns = cr->start_ns;
	run->end_ns = cr->end_ns;
	run->capture_error = cr->capture_error;
	run->still_running = cr->nr_left;
	run->failed_calls = st->failed_calls;
	run->failed_errors = st->failed_bad;
	if (st->failed_calls) {
		trace_failed_call_field(&st->first_failed, failed_first);
		run->failed_first = failed_first->buf;
	}
	if (st->failed_bad) {
		trace_failed_call_field(&st->first_bad, failed_first_error);
		run->failed_first_error = failed_first_error->buf;
	}
}

/*
 * Give the bundle its final name and say what it holds and lost, on
 * stderr. Returns the command's exit status (see the top of the file).
 */
static int finish(const struct capture_opts *o, const struct capture_run *cr,
		  const struct trace_stats *st, const struct bundle_run *run,
		  const struct bundle_found *found, struct bundle_result *res)
{
	int status = GM_EXIT_OK;

	if (bundle_finalize(cr->tmp, o->output, o->force, run, found, res)) {
		gm_error_report(stderr);
		status = GM_EXIT_ERROR;
	} else {
		char bytes[32];
		human_bytes(bytes, sizeof(bytes), st->blob_ref_bytes + st->inline_bytes);
		if (gm_cli.verbosity >= 0) {
			fprintf(stderr, "gpumix: captured %" PRIu64 " calls, %" PRIu64
				" kernel launches, %" PRIu64 " events from %u "
				"process%s into '%s' (%s of data)\n",
				st->by_kind[GM_EV_ENTER], st->launches, st->kept,
				res->processes, res->processes == 1 ? "" : "es",
				res->path, bytes);
		}
	}
	if (cr->started && !st->kept && !res->incomplete) {
		gm_warning("'%s' made no CUDA driver calls: nothing was recorded",
			   o->argv[0]);
	}
	for (size_t k = 0; k < cr->nr_left && k < GM_CAPTURE_MAX_LEFT; k++) {
		fprintf(stderr, "gpumix: process %ld, started by '%s', was still "
			"running %g s after it exited: what it did later is not "
			"in the bundle\n", (long)cr->left[k], o->argv[0],
			o->wait_s < 0 ? GM_CAPTURE_WAIT_DEFAULT : o->wait_s);
	}
	warn_failed_calls(st);
	if (res->incomplete) {
		fprintf(stderr, "error: the bundle is incomplete: %s\n",
			res->incomplete);
		status = GM_EXIT_ERROR;
	}
	if (res->losses) {
		fprintf(stderr, "error: the capture lost data (%" PRIu64 "): %s\n",
			res->losses, res->summary ? res->summary : "see the manifest");
		for (size_t k = 0; k < st->nr_unsupported; k++) {
			fprintf(stderr, "  unsupported: %s (%" PRIu64 " calls)\n",
				st->unsupported[k].name, st->unsupported[k].count);
		}
		status = GM_EXIT_ERROR;
	}
	if (cr->interrupted) {
		status = GM_EXIT_INTERRUPTED;
	}
	if (cr->started && !cr->signal && cr->exit_code) {
		fprintf(stderr, "gpumix: '%s' exited with status %d\n", o->argv[0],
			cr->exit_code);
		status = cr->exit_code;
	}
	return status;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_opts o = { 0 };
	struct capture_run cr;
	struct trace_stats st;
	struct strbuf failed_first = STRBUF_INIT, failed_first_error = STRBUF_INIT;
	struct own_procs own = { 0 };
	struct bundle_found found = { 0 };
	struct bundle_run run = { 0 };
	struct bundle_result res = { 0 };
	char *out_default = NULL, *lib, *read_error;
	int status;

	status = parse(argc, argv, &o, &out_default);
	if (status) {
		free(out_default);
		return status < 0 ? GM_EXIT_OK : status;
	}
	lib = gm_cli_library("libgpumix-capture.so", "GPUMIX_CAPTURE_LIB");
	o.lib = lib;

	if (record(&cr, &o)) {
		free(lib);
		free(out_default);
		return gm_cli_fail();
	}
	read_error = count_back(cr.tmp, &st, &own, &found);
	describe_run(&run, &o, &cr, &st, &failed_first, &failed_first_error);
	status = finish(&o, &cr, &st, &run, &found, &res);
	bundle_result_release(&res);
	strbuf_release(&failed_first);
	strbuf_release(&failed_first_error);
	free(own.pid);
	free(own.own);
	trace_stats_release(&st);
	capture_run_release(&cr);
	free(read_error);
	free(lib);
	free(out_default);
	return status;
}
