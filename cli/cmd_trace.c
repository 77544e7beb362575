/* SPDX-License-Identifier: MIT */
/*
 * gpumix trace: inspect a bundle. `info` summarises it (program, device,
 * calls per API, kernels with launch counts and layouts, bytes moved,
 * storage, losses); `dump` prints every call in order, one line each,
 * with its arguments; `kernels` and `losses` print one part of `info`;
 * `export` writes the bundle's timeline for Perfetto (bundle_timeline.h).
 * Incomplete and lossy bundles can be inspected: that is what these
 * commands are for; they say so first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "capture/bundle.h"
#include "capture/counts.h"
#include "record.h"
#include "cli.h"
#include "error.h"
#include "reconstruct/trace/bundle_timeline.h"
#include "reconstruct/trace/trace_stats.h"
#include "reconstruct/trace/unsupported_hint.h"
#include "atomic_file.h"
#include "closest.h"
#include "fs.h"
#include "strbuf.h"
#include "trace_diff.h"

static const char usage[] =
	"usage: gpumix trace info <bundle>\n"
	"   or: gpumix trace dump [--events] <bundle>\n"
	"   or: gpumix trace kernels <bundle>\n"
	"   or: gpumix trace losses <bundle>\n"
	"   or: gpumix trace check <bundle>\n"
	"   or: gpumix trace diff <bundle-A> <bundle-B>\n"
	"   or: gpumix trace export [--force] [--window <from>:<to>] [--max <n>]\n"
	"                           [--format chrome|perfetto] -o <file> <bundle>";

static void print_help(void)
{
	printf("%s\n\n"
	       "  info     what the bundle holds: program, device, calls per API,\n"
	       "           kernels (launches, argument layout, GPU time), bytes\n"
	       "           moved, blobs stored and deduplicated, losses\n"
	       "  dump     every recorded call in order, one line each:\n"
	       "           #EVENT TIME PID:TID NAME(ARGS) = STATUS [HOST] [RUNTIME CALL]\n"
	       "           HOST (bundles of format 2 on): gap=US since the thread's\n"
	       "           previous call returned, dur=US of the call, on the\n"
	       "           captured host clock without the capture's own work\n"
	       "           --events prints every event instead (activity,\n"
	       "           layouts, results, runtime calls)\n"
	       "  kernels  the kernel lines of info\n"
	       "  losses   completeness and the loss counters; exits 1 when\n"
	       "           the bundle is incomplete or lost anything\n"
	       "  check    read the bundle as a replay would: strictly, every\n"
	       "           event decoded, every blob, module image and trace\n"
	       "           file read and its hash checked (trace files: bundles\n"
	       "           of format 3 on), the per-process counters of procs/\n"
	       "           compared with the trace and the manifest; exits 1\n"
	       "           at the first problem\n"
	       "  diff     which device-to-host results differ between two\n"
	       "           captures of the same program (paired in the order\n"
	       "           of their copies); exits 1 when any does\n"
	       "  export   the calls per thread and the captured GPU activity per\n"
	       "           stream as Chrome trace-event JSON (ui.perfetto.dev,\n"
	       "           chrome://tracing) in <file.json> (-o, --output;\n"
	       "           - : stdout);\n"
	       "           --window keeps what starts FROM..TO ms after the first\n"
	       "           event, --max the first n slices (default 100000, 0:\n"
	       "           all); -f, --force replaces an existing file;\n"
	       "           --format perfetto writes Perfetto's protobuf trace\n"
	       "           (.pftrace) instead of JSON (--format chrome)\n\n"
	       "A damaged or unreadable trace file is an error naming it, for\n"
	       "every subcommand; info, dump, kernels and export then exit 1.\n\n"
	       "exit status: 0 success, 1 error, 2 usage error.\n",
	       usage);
}

static int open_bundle(const char *dir, struct trace_reader **r)
{
	return trace_reader_open(r, dir, GM_READER_ALLOW_INCOMPLETE |
						 GM_READER_ALLOW_LOSSY |
						 GM_READER_ALLOW_UNKNOWN);
}

static const char *mget(const struct kvfile *m, const char *key)
{
	const char *v = kvfile_get(m, key);
	return v ? v : "?";
}

/* Keys "PREFIX.NAME = N" of the manifest as "  NAME N" lines. */
static int print_prefixed(const struct kvfile *m, const char *prefix)
{
	size_t plen = strlen(prefix);
	int n = 0;

	for (size_t i = 0; i < m->nr; i++) {
		if (!strncmp(m->keys[i], prefix, plen) && m->keys[i][plen] == '.') {
			printf("  %-44s %s\n", m->keys[i] + plen + 1, m->values[i]);
			n++;
		}
	}
	return n;
}

/*
 * Unsupported calls by name (their events: the manifest of an older
 * bundle may not name them), each with its first event and what it means
 * for a replay.
 */
static int print_unsupported(const struct trace_stats *st)
{
	for (size_t k = 0; k < st->nr_unsupported; k++) {
		const struct trace_name_count *u = &st->unsupported[k];
		struct strbuf name = STRBUF_INIT;

		strbuf_add_escaped(&name, u->name);
		printf("  %-44s %" PRIu64 " first=#%" PRIu64 "\n    %s\n",
		       name.buf, u->count, u->first,
		       gm_unsupported_hint(u->name));
		strbuf_release(&name);
	}
	return (int)st->nr_unsupported;
}

static void print_losses(const struct kvfile *m)
{
	const char *complete = kvfile_get(m, "complete");
	const char *losses = kvfile_get(m, "losses");

	printf("complete: %s\n", complete ? complete : "?");
	if (kvfile_get(m, "incomplete")) {
		printf("incomplete: %s\n", kvfile_get(m, "incomplete"));
	}
	printf("losses: %s\n", losses ? losses : "?");
	if (kvfile_get(m, "losses.summary")) {
		printf("  %s\n", kvfile_get(m, "losses.summary"));
	}
	printf("events: emitted=%s found=%s missing=%s discarded=%s\n",
	       mget(m, "events.emitted"), mget(m, "events.found"),
	       mget(m, "events.missing"), mget(m, "events.discarded"));
	for (size_t i = 0; i < m->nr; i++) {
		if (!strncmp(m->keys[i], "loss.", 5) ||
		    !strncmp(m->keys[i], "warning.", 8)) {
			printf("%s=%s\n", m->keys[i], m->values[i]);
		}
	}
}

static void print_kernels(const struct trace_stats *st)
{
	for (size_t i = 0; i < st->nr_kernels; i++) {
		const struct trace_kernel_stat *k = &st->kernels[i];
		struct strbuf name = STRBUF_INIT;

		/* (names come from the trace: one line each, whatever they hold) */
		strbuf_add_escaped(&name, k->name);
		printf("kernel %s launches=%" PRIu64, name.buf, k->launches);
		strbuf_release(&name);
		if (k->nparams >= 0) {
			printf(" params=%d param_bytes=%u layout=%s", k->nparams,
			       k->param_bytes, k->layout ? k->layout : "");
		} else {
			printf(" params=?");
		}
		printf(" gpu_runs=%" PRIu64 " gpu_ms=%.3f gpu_max_ms=%.3f\n",
		       k->gpu_count, k->gpu_ns / 1e6, k->gpu_max_ns / 1e6);
	}
}

/*
 * The GPU section: first GPU call's entry to the last one's return, as
 * captured and, with host times, on the clean clock (without what the
 * capture itself spent: what a replay reproduces).
 */
static void print_gpu_section(struct trace_reader *r,
			      const struct trace_stats *st)
{
	if (!st->gpu_calls || st->gpu_last_ns < st->gpu_first_ns) {
		printf("gpu section: none (no GPU call)\n");
		return;
	}
	printf("gpu section: %.3f ms, first to last GPU call (%" PRIu64
	       " calls)", (st->gpu_last_ns - st->gpu_first_ns) / 1e6,
	       st->gpu_calls);
	if (trace_reader_host_time(r) && st->gpu_last_host >= st->gpu_first_host) {
		printf("; %.3f ms without the capture's own time%s",
		       (st->gpu_last_host - st->gpu_first_host) / 1e6,
		       st->gpu_first_tid == st->gpu_last_tid ? "" :
		       " (two threads' clocks: approximate)");
	}
	printf("\n");
}

static int cmd_info(const char *dir)
{
	struct trace_reader *r;
	struct trace_stats st;
	const struct kvfile *m;
	int ret = 0;

	if (open_bundle(dir, &r)) {
		return gm_cli_fail();
	}
	m = trace_reader_manifest(r);
	trace_stats_init(&st);
	if (trace_stats_collect(r, &st)) {
		/* Show what could be read, then the error. */
		ret = -1;
	}
	printf("bundle: %s\n", dir);
	printf("format: %s\n", mget(m, "format"));
	printf("tool: %s\n", mget(m, "tool"));
	if (kvfile_get(m, "incomplete")) {
		printf("complete: %s (%s)\n", mget(m, "complete"),
		       kvfile_get(m, "incomplete"));
	} else {
		printf("complete: %s\n", mget(m, "complete"));
	}
	printf("program: %s\n", mget(m, "program"));
	printf("command: %s\n", mget(m, "command"));
	printf("cwd: %s\n", mget(m, "cwd"));
	printf("captured: %s on %s, %s s, exit %s\n", mget(m, "capture.start"),
	       mget(m, "host"), mget(m, "capture.seconds"), mget(m, "exit"));
	printf("device: %s (cc %s, %s SMs)\n", mget(m, "device.name"),
	       mget(m, "device.cc"), mget(m, "device.sms"));
	printf("driver: %s\n", mget(m, "driver.version"));
	printf("processes: %s\n", mget(m, "processes"));
	printf("threads: %zu\n", st.nr_threads);
	printf("events: %" PRIu64 " (calls %" PRIu64 ", runtime %" PRIu64
	       ", activity %" PRIu64 ")\n", st.events, st.by_kind[GM_EV_ENTER],
	       st.by_kind[GM_EV_RT_ENTER],
	       st.by_kind[GM_EV_ACT_KERNEL] + st.by_kind[GM_EV_ACT_MEMCPY] +
		       st.by_kind[GM_EV_ACT_MEMSET]);
	print_gpu_section(r, &st);
	if (trace_reader_verified_files(r)) {
		printf("trace files: %zu, verified by hash\n",
		       trace_reader_verified_files(r));
	} else {
		printf("trace files: unverified (no hashes in a bundle of this "
		       "format)\n");
	}

	printf("\ncalls:\n");
	for (int i = 0; i < GM_API_COUNT; i++) {
		if (st.calls[i]) {
			printf("  %-44s %" PRIu64 "\n", gm_api_table[i].name,
			       st.calls[i]);
		}
	}
	printf("calls that failed: %" PRIu64 "\n", st.failed_calls);
	if (st.failed_calls) {
		struct strbuf sb = STRBUF_INIT;
		trace_failed_call_words(&st.first_failed, &sb);
		printf("  first: %s\n", sb.buf);
		if (st.failed_bad) {
			strbuf_reset(&sb);
			trace_failed_call_words(&st.first_bad, &sb);
			printf("  first error: %s (%" PRIu64 " such calls: "
			       "reconstruct needs --allow-failed-calls)\n",
			       sb.buf, st.failed_bad);
		}
		strbuf_release(&sb);
	}
	printf("ignored calls (queries):\n");
	if (!print_prefixed(m, "ignored")) {
		printf("  none\n");
	}
	printf("unsupported calls:\n");
	if (!print_unsupported(&st)) {
		printf("  none\n");
	}
	printf("runtime calls:\n");
	if (!print_prefixed(m, "runtime")) {
		printf("  none\n");
	}

	printf("\nkernels: %zu, launches: %" PRIu64 "\n", st.nr_kernels,
	       st.launches);
	print_kernels(&st);

	printf("\nbytes moved (API):\n");
	printf("  h2d_bytes=%" PRIu64 " h2d_copies=%" PRIu64 "\n", st.h2d_bytes,
	       st.h2d_copies);
	printf("  d2h_bytes=%" PRIu64 " d2h_copies=%" PRIu64 "\n", st.d2h_bytes,
	       st.d2h_copies);
	printf("  d2d_bytes=%" PRIu64 " d2d_copies=%" PRIu64 "\n", st.d2d_bytes,
	       st.d2d_copies);
	printf("  memset_bytes=%" PRIu64 " memsets=%" PRIu64 "\n",
	       st.memset_bytes, st.memsets);
	printf("  d2h_result_hashes=%" PRIu64 "\n", st.d2h_hashes);
	if (st.d2h_overwritten) {
		/* A buffer reused before the program synchronized. */
		printf("  d2h_overwritten=%" PRIu64 "\n", st.d2h_overwritten);
	}
	if (st.hostmem_snapshots || st.hostmem_results) {
		/* Zero-copy and managed memory (doc/gpumix-capture.md). */
		printf("  hostmem_snapshots=%" PRIu64 " hostmem_snapshot_bytes=%"
		       PRIu64 " hostmem_results=%" PRIu64 "\n",
		       st.hostmem_snapshots, st.hostmem_snapshot_bytes,
		       st.hostmem_results);
	}
	{
		uint64_t calls = 0;
		for (int i = 0; i < GM_API_COUNT; i++) {
			if (gm_api_table[i].replay == GM_RK_HOST_FUNC) {
				calls += st.calls[i];
			}
		}
		if (calls) {
			printf("host functions: calls=%" PRIu64 " ran=%" PRIu64
			       " host_ms=%.3f\n", calls, st.host_funcs,
			       st.host_func_ns / 1e6);
		}
	}
	printf("GPU activity (CUPTI):\n");
	printf("  kernel_ms=%.3f memcpy_ms=%.3f h2d_bytes=%" PRIu64
	       " d2h_bytes=%" PRIu64 " d2d_bytes=%" PRIu64 "\n",
	       st.act_kernel_ns / 1e6, st.act_memcpy_ns / 1e6,
	       st.act_memcpy_bytes[1] + st.act_memcpy_bytes[3],
	       st.act_memcpy_bytes[2] + st.act_memcpy_bytes[4],
	       st.act_memcpy_bytes[8]);

	printf("\ndata:\n");
	printf("  inline_bytes=%" PRIu64 "\n", st.inline_bytes);
	printf("  blob_references=%" PRIu64 " blob_referenced_bytes=%" PRIu64
	       "\n", st.blob_refs, st.blob_ref_bytes);
	printf("  blobs_stored=%s blobs_stored_bytes=%s blobs_deduplicated=%s "
	       "blobs_deduplicated_bytes=%s\n", mget(m, "blobs.stored"),
	       mget(m, "blobs.stored_bytes"), mget(m, "blobs.deduplicated"),
	       mget(m, "blobs.deduplicated_bytes"));
	printf("  modules_loaded=%" PRIu64 " modules_stored=%s "
	       "modules_stored_bytes=%s\n", st.modules, mget(m, "modules.stored"),
	       mget(m, "modules.stored_bytes"));

	printf("\n");
	print_losses(m);
	trace_stats_release(&st);
	trace_reader_free(r);
	return ret ? gm_cli_fail() : GM_EXIT_OK;
}

static int cmd_kernels(const char *dir)
{
	struct trace_reader *r;
	struct trace_stats st;
	int ret;

	if (open_bundle(dir, &r)) {
		return gm_cli_fail();
	}
	trace_stats_init(&st);
	ret = trace_stats_collect(r, &st);
	print_kernels(&st);
	trace_stats_release(&st);
	trace_reader_free(r);
	return ret ? gm_cli_fail() : GM_EXIT_OK;
}

static int cmd_losses(const char *dir)
{
	struct trace_reader *r;
	const struct kvfile *m;
	int bad;

	if (open_bundle(dir, &r)) {
		return gm_cli_fail();
	}
	m = trace_reader_manifest(r);
	print_losses(m);
	bad = !kvfile_get(m, "complete") || strcmp(kvfile_get(m, "complete"), "yes") ||
	      !kvfile_get(m, "losses") || strcmp(kvfile_get(m, "losses"), "0");
	trace_reader_free(r);
	return bad ? GM_EXIT_ERROR : GM_EXIT_OK;
}

static int cmd_check(const char *dir)
{
	struct trace_reader *r;
	const struct gm_event *ev;
	struct strbuf buf = STRBUF_INIT;
	struct trace_stats st;
	uint64_t events = 0, blobs = 0, modules = 0;
	size_t last = 0, nfiles;
	unsigned format;
	int rc;

	if (trace_reader_open(&r, dir, 0)) {
		return gm_cli_fail();
	}
	trace_stats_init(&st);
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		events++;
		trace_stats_count_thread(&st, ev->pid, ev->tid, &last);
		strbuf_reset(&buf);
		if (ev->flags & GM_RF_MODULE) {
			if (trace_reader_module(r, ev, &buf)) {
				gm_error("event %" PRIu64 " (%s): bad module image",
					 ev->index, gm_event_name(ev));
				rc = -1;
				break;
			}
			modules++;
		} else if (ev->flags & GM_RF_BLOB) {
			if (trace_reader_payload(r, ev, &buf)) {
				rc = -1;
				break;
			}
			blobs++;
		}
	}
	strbuf_release(&buf);
	if (rc >= 0) {
		/* The counter files against the trace and the manifest. */
		struct bundle_found found = { 0 };
		found.threads = st.threads;
		found.nr_threads = st.nr_threads;
		found.events = events;
		if (bundle_verify_counts(dir, trace_reader_manifest(r), &found)) {
			rc = -1;
		}
	}
	nfiles = trace_reader_verified_files(r);
	format = trace_reader_format(r);
	trace_stats_release(&st);
	trace_reader_free(r);
	if (rc < 0) {
		gm_error("bundle '%s' failed the check", dir);
		return gm_cli_fail();
	}
	printf("%s: ok, %" PRIu64 " events, %" PRIu64 " blob payloads and %" PRIu64
	       " module images verified", dir, events, blobs, modules);
	if (nfiles) {
		printf(", %zu trace files by hash\n", nfiles);
	} else {
		printf("; its trace files are unverified (a bundle of format %u "
		       "has no hashes of them)\n", format);
	}
	return GM_EXIT_OK;
}

/* ---- dump ------------------------------------------------------------------ */

static void fmt_arg(struct strbuf *sb, enum gm_arg_type t, uint64_t v)
{
	switch (t) {
	case GM_ARG_SIZE:
	case GM_ARG_U32:
	case GM_ARG_ENUM:
	case GM_ARG_DEV:
		strbuf_addf(sb, "%" PRIu64, v);
		break;
	case GM_ARG_I32:
		strbuf_addf(sb, "%" PRId64, (int64_t)v);
		break;
	default:
		strbuf_addf(sb, "0x%" PRIx64, v);
		break;
	}
}

static void fmt_hash(struct strbuf *sb, struct gm_hash h)
{
	char hex[GM_HASH_HEX_LEN + 1];

	gm_hash_hex(h, hex);
	strbuf_addstr(sb, hex);
}

/* The record flags a dump prints, as words after the payload. */
static const struct {
	unsigned flag;
	const char *word;
} flag_words[] = {
	{ GM_RF_FAILED, "FAILED" },
	{ GM_RF_NO_LAYOUT, "NO-LAYOUT" },
	{ GM_RF_TRUNCATED, "TRUNCATED" },
	{ GM_RF_UNSYNCED, "UNSYNCED" },
	{ GM_RF_HOST_WARM, "HOST-RESIDENT" },
	{ GM_RF_OVERWRITTEN, "OVERWRITTEN" },
	{ GM_RF_HOST_NODE, "AT-HOST-NODE" },
};

/* The data part of an event: inline bytes, blob, image or result hash. */
static void fmt_payload(struct strbuf *sb, const struct gm_event *ev)
{
	if (ev->flags & GM_RF_MODULE) {
		unsigned k = (ev->flags & GM_RF_IMAGE_MASK) >> GM_RF_IMAGE_SHIFT;
		strbuf_addf(sb, " image=%s:", gm_image_kind_name(k));
		fmt_hash(sb, ev->blob);
		strbuf_addf(sb, ":%" PRIu64, ev->blob_size);
	} else if (ev->flags & GM_RF_BLOB) {
		strbuf_addstr(sb, " data=blob:");
		fmt_hash(sb, ev->blob);
		strbuf_addf(sb, ":%" PRIu64, ev->blob_size);
	} else if (ev->flags & GM_RF_HASH) {
		strbuf_addstr(sb, " result=");
		fmt_hash(sb, ev->blob);
		strbuf_addf(sb, ":%" PRIu64, ev->blob_size);
	}
	if (ev->data_len) {
		strbuf_addf(sb, " inline=%zu:", ev->data_len);
		for (size_t i = 0; i < ev->data_len && i < 32; i++) {
			strbuf_addf(sb, "%02x", ev->data[i]);
		}
		if (ev->data_len > 32) {
			strbuf_addstr(sb, "...");
		}
	}
	for (size_t i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++) {
		if (ev->flags & flag_words[i].flag) {
			strbuf_addf(sb, " %s", flag_words[i].word);
		}
	}
}

static void fmt_call(struct strbuf *sb, const struct gm_event *ev)
{
	const struct gm_api_desc *d = &gm_api_table[ev->api];

	const char *sep = "";

	strbuf_addf(sb, "%s(", d->name);
	for (unsigned i = 0; i < d->nr_args && i < ev->nr_args; i++) {
		if (ev->kind == GM_EV_ENTER && d->args[i].dir == GM_DIR_OUT) {
			continue;
		}
		strbuf_addf(sb, "%s%s=", sep, d->args[i].name);
		fmt_arg(sb, d->args[i].type, ev->args[i]);
		sep = ", ";
	}
	strbuf_addch(sb, ')');
	if (ev->str[0]) {
		/* A name from the trace: a newline in it must not end
		 * the line (or make up one). */
		strbuf_addstr(sb, " \"");
		strbuf_add_escaped(sb, ev->str);
		strbuf_addch(sb, '"');
	}
}

static void fmt_event(struct strbuf *sb, const struct gm_event *ev,
		      int64_t t0, int host, uint64_t h0)
{
	const char *const *names = gm_event_arg_names(ev->kind);

	strbuf_addf(sb, "#%" PRIu64 " %.6f %u:%u %s ", ev->index,
		    (ev->time_ns - t0) / 1e9, ev->pid, ev->tid,
		    gm_event_kind_name(ev->kind));
	if ((ev->kind == GM_EV_ENTER || ev->kind == GM_EV_EXIT) && ev->api >= 0) {
		fmt_call(sb, ev);
		if (ev->kind == GM_EV_EXIT) {
			strbuf_addf(sb, " = %d", ev->status);
		}
	} else {
		/* A host_func names the call whose function ran. */
		strbuf_add_escaped(sb, ev->str[0] ? ev->str :
				   ev->kind == GM_EV_HOST_FUNC && ev->api >= 0 ?
				   gm_api_table[ev->api].name : "-");
		strbuf_addf(sb, " api=%u", ev->raw_api);
		for (unsigned i = 0; names && names[i] && i < ev->nr_args; i++) {
			strbuf_addf(sb, " %s=%" PRIu64, names[i], ev->args[i]);
		}
		if (ev->kind == GM_EV_RT_EXIT) {
			strbuf_addf(sb, " = %d", ev->status);
		}
	}
	strbuf_addf(sb, " corr=%u", ev->corr);
	if (ev->rt_corr) {
		strbuf_addf(sb, " rt_corr=%u", ev->rt_corr);
	}
	if (host) {
		/* The thread's clean host clock, from the first event's. */
		strbuf_addf(sb, " host=%.6f",
			    ((double)ev->host_ns - (double)h0) / 1e9);
	}
	fmt_payload(sb, ev);
}

#define DUMP_RT_DEPTH 8

/* Per-thread state of the call-per-line dump. */
struct dump_thread {
	uint32_t pid, tid;
	struct strbuf enter;		/* formatted entry line, or empty */
	uint64_t enter_index;
	uint64_t enter_host;		/* clean host times (format 2) */
	uint64_t exit_host;		/* of the last call, 0: none yet */
	struct strbuf rt[DUMP_RT_DEPTH];	/* recent runtime call names */
	uint32_t rt_corr[DUMP_RT_DEPTH];
	int rt_next;
};

static struct dump_thread *dump_thread(struct dump_thread **ts, size_t *nr,
				       size_t *alloc, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < *nr; i++) {
		if ((*ts)[i].pid == pid && (*ts)[i].tid == tid) {
			return &(*ts)[i];
		}
	}
	GM_ALLOC_GROW(*ts, *nr + 1, *alloc);
	memset(&(*ts)[*nr], 0, sizeof((*ts)[0]));
	(*ts)[*nr].pid = pid;
	(*ts)[*nr].tid = tid;
	strbuf_init(&(*ts)[*nr].enter, 0);
	for (int i = 0; i < DUMP_RT_DEPTH; i++) {
		strbuf_init(&(*ts)[*nr].rt[i], 0);
	}
	return &(*ts)[(*nr)++];
}

/*
 * The call's captured host time (format 2): the gap since the thread's
 * previous call returned (none for its first) and the call's duration,
 * both on the clean clock, without the capture's own work.
 */
static void fmt_host(struct strbuf *sb, struct dump_thread *t,
		     const struct gm_event *x)
{
	if (t->exit_host) {
		strbuf_addf(sb, " gap=%.3fus", t->enter_host > t->exit_host ?
			    (t->enter_host - t->exit_host) / 1e3 : 0.0);
	}
	strbuf_addf(sb, " dur=%.3fus", x->host_ns > t->enter_host ?
		    (x->host_ns - t->enter_host) / 1e3 : 0.0);
	t->exit_host = x->host_ns;
}

static int cmd_dump(const char *dir, int events)
{
	struct trace_reader *r;
	const struct gm_event *ev;
	struct strbuf line = STRBUF_INIT;
	struct dump_thread *ts = NULL;
	size_t nr = 0, alloc = 0;
	int64_t t0 = 0;
	uint64_t h0 = 0;
	int rc, first = 1, host;

	if (open_bundle(dir, &r)) {
		return gm_cli_fail();
	}
	host = trace_reader_host_time(r);
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		struct dump_thread *t;
		if (first) {
			t0 = ev->time_ns;
			h0 = ev->host_ns;
			first = 0;
		}
		strbuf_reset(&line);
		if (events) {
			fmt_event(&line, ev, t0, host, h0);
			puts(line.buf);
			continue;
		}
		t = dump_thread(&ts, &nr, &alloc, ev->pid, ev->tid);
		switch (ev->kind) {
		case GM_EV_RT_ENTER:
			strbuf_reset(&t->rt[t->rt_next]);
			strbuf_add_escaped(&t->rt[t->rt_next], ev->str);
			t->rt_corr[t->rt_next] = ev->corr;
			t->rt_next = (t->rt_next + 1) % DUMP_RT_DEPTH;
			break;
		case GM_EV_RT_EXIT:
			strbuf_addf(&line, "#%" PRIu64 " %.6f %u:%u ", ev->index,
				    (ev->time_ns - t0) / 1e9, ev->pid, ev->tid);
			strbuf_add_escaped(&line, ev->str);
			strbuf_addf(&line, " failed: %d", ev->status);
			puts(line.buf);
			break;
		case GM_EV_ENTER:
			if (t->enter.len) {
				/* The previous call on this thread never returned. */
				printf("%s = (no exit)\n", t->enter.buf);
			}
			strbuf_reset(&t->enter);
			t->enter_index = ev->index;
			t->enter_host = ev->host_ns;
			strbuf_addf(&t->enter, "#%" PRIu64 " %.6f %u:%u ", ev->index,
				    (ev->time_ns - t0) / 1e9, ev->pid, ev->tid);
			if (ev->api < 0) {
				strbuf_addf(&t->enter, "(unknown call %u)", ev->raw_api);
			} else {
				fmt_call(&t->enter, ev);
			}
			fmt_payload(&t->enter, ev);
			break;
		case GM_EV_EXIT:
			if (!t->enter.len) {
				strbuf_addf(&t->enter, "#%" PRIu64 " (exit without "
					    "entry)", ev->index);
			}
			strbuf_add(&line, t->enter.buf, t->enter.len);
			strbuf_addf(&line, " = %d", ev->status);
			if (ev->api >= 0) {
				const struct gm_api_desc *d = &gm_api_table[ev->api];
				const char *sep = " ->";
				for (unsigned i = 0; i < d->nr_args; i++) {
					if (d->args[i].dir != GM_DIR_OUT) {
						continue;
					}
					strbuf_addf(&line, "%s %s=", sep, d->args[i].name);
					fmt_arg(&line, d->args[i].type, ev->args[i]);
					sep = "";
				}
			}
			fmt_payload(&line, ev);
			if (host) {
				fmt_host(&line, t, ev);
			}
			for (int k = 0; ev->rt_corr && k < DUMP_RT_DEPTH; k++) {
				if (t->rt_corr[k] == ev->rt_corr && t->rt[k].len) {
					strbuf_addf(&line, " [%s]", t->rt[k].buf);
					break;
				}
			}
			puts(line.buf);
			strbuf_reset(&t->enter);
			break;
		case GM_EV_UNSUPPORTED:
			strbuf_addf(&line, "#%" PRIu64 " %.6f %u:%u UNSUPPORTED ",
				    ev->index, (ev->time_ns - t0) / 1e9, ev->pid,
				    ev->tid);
			strbuf_add_escaped(&line, ev->str);
			puts(line.buf);
			break;
		default:
			break;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		if (ts[i].enter.len) {
			printf("%s = (no exit)\n", ts[i].enter.buf);
		}
		strbuf_release(&ts[i].enter);
		for (int k = 0; k < DUMP_RT_DEPTH; k++) {
			strbuf_release(&ts[i].rt[k]);
		}
	}
	free(ts);
	strbuf_release(&line);
	trace_reader_free(r);
	return rc < 0 ? gm_cli_fail() : GM_EXIT_OK;
}

/* gpumix trace export -o OUT [--force] [--window ..] [--max ..] DIR */
static int cmd_export(const char *dir, const char *out, int force,
		      const struct gm_timeline_limits *lim,
		      enum gm_trace_format format)
{
	struct gm_bundle_timeline_stats st;
	struct strbuf sb = STRBUF_INIT;
	int ret = GM_EXIT_ERROR;

	if (strcmp(out, "-") && gm_path_exists(out) && !force) {
		gm_error("'%s' already exists", out);
		gm_error_hint("use --force to replace it");
		return gm_cli_fail();
	}
	if (gm_bundle_timeline(dir, lim, format, &sb, &st)) {
		gm_cli_fail();
		goto out;
	}
	if (!strcmp(out, "-")) {
		fwrite(sb.buf, 1, sb.len, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			gm_error_errno("cannot write the timeline to stdout");
			gm_cli_fail();
			goto out;
		}
	} else if (gm_write_file_atomic(out, sb.buf, sb.len, 1)) {
		gm_cli_fail();
		goto out;
	}
	if (st.host) {
		gm_note("export: %zu calls, %zu GPU records, %zu host functions, "
			"%zu arrows in %s", st.calls, st.gpu, st.host, st.flows,
			out);
	} else {
		gm_note("export: %zu calls, %zu GPU records, %zu arrows in %s",
			st.calls, st.gpu, st.flows, out);
	}
	if (st.left_out) {
		gm_note("note: %zu slices outside the window left out (the file"
			" says so)", st.left_out);
	}
	if (st.unaligned) {
		gm_note("note: %zu processes without a process event: their GPU"
			" records are not aligned with the calls", st.unaligned);
	}
	ret = GM_EXIT_OK;
out:
	strbuf_release(&sb);
	return ret;
}

enum { OPT_EVENTS = 256, OPT_WINDOW, OPT_MAX, OPT_FORMAT };

static const struct option trace_longopts[] = {
	{ "events", no_argument, NULL, OPT_EVENTS },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "max", required_argument, NULL, OPT_MAX },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ NULL, 0, NULL, 0 },
};

static const char *const trace_subcommands[] = {
	"info", "dump", "kernels", "losses", "check", "diff", "export", NULL
};

const struct gm_cmd_options gm_trace_options = { "o:f", trace_longopts, NULL, 0,
						 trace_subcommands };

/* A --window or --max of export, its message naming --X (not --timeline-X). */
static int set_limit(struct gm_timeline_limits *lim, const char *name,
		     const char *value)
{
	char msg[GM_ERROR_MSG_LEN];
	char *p;

	if (!gm_timeline_limit_set(lim, name, value)) {
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s", gm_error_message());
	gm_error_clear();
	p = strstr(msg, "--timeline-");
	if (p) {
		memmove(p + 2, p + 11, strlen(p + 11) + 1);
	}
	return gm_usage_error(usage, "%s", msg);
}

int cmd_trace(int argc, char **argv)
{
	struct gm_timeline_limits lim = { 0, -1, -1, GM_BUNDLE_TIMELINE_MAX_SLICES };
	struct gm_opt_parser op;
	const char *sub, *out = NULL, *export_opt = NULL;
	enum gm_trace_format format = GM_TRACE_CHROME;
	int events = 0, force = 0, c, i, nr_args;

	gm_opt_init(&op, &gm_trace_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case GM_OPT_HELP:
			print_help();
			return GM_EXIT_OK;
		case OPT_EVENTS:
			events = 1;
			break;
		case 'o':
			out = op.arg;
			export_opt = "--output";
			break;
		case 'f':
			force = 1;
			export_opt = "--force";
			break;
		case OPT_WINDOW:
		case OPT_MAX:
			export_opt = c == OPT_WINDOW ? "--window" : "--max";
			if (set_limit(&lim, export_opt + 2, op.arg)) {
				return GM_EXIT_USAGE;
			}
			break;
		case OPT_FORMAT:
			export_opt = "--format";
			if (gm_trace_format_parse(op.arg, &format) ||
			    format == GM_TRACE_HTA) {
				if (format == GM_TRACE_HTA) {
					gm_error("--format hta is for a report's"
						 " timelines (gpumix report"
						 " --timeline-format hta)");
				}
				char msg[GM_ERROR_MSG_LEN];
				snprintf(msg, sizeof(msg), "%s", gm_error_message());
				gm_error_clear();
				return gm_usage_error(usage, "%s", strstr(msg, "(chrome")
						      ? "--format must be chrome or"
						      " perfetto" : msg);
			}
			break;
		default:
			return GM_EXIT_USAGE;
		}
	}
	i = op.ind;
	if (i == argc) {
		return gm_usage_error(usage, "missing subcommand");
	}
	sub = argv[i++];
	nr_args = argc - i;
	for (c = 0; trace_subcommands[c]; c++) {
		if (!strcmp(trace_subcommands[c], sub)) {
			break;
		}
	}
	if (!trace_subcommands[c]) {
		const char *near = gm_closest(sub, trace_subcommands);
		return gm_usage_error(usage, "unknown subcommand '%s'%s%s%s", sub,
				      near ? " (did you mean '" : "",
				      near ? near : "", near ? "'?)" : "");
	}
	if (events && strcmp(sub, "dump")) {
		return gm_usage_error(usage, "--events is an option of trace dump");
	}
	if (export_opt && strcmp(sub, "export")) {
		return gm_usage_error(usage, "%s is an option of trace export",
				      export_opt);
	}
	if (!strcmp(sub, "diff")) {
		if (nr_args != 2) {
			return gm_usage_error(usage, "trace diff takes two "
					      "bundles");
		}
		return trace_diff(argv[i], argv[i + 1]);
	}
	if (nr_args != 1) {
		return gm_usage_error(usage, nr_args ? "too many arguments"
						     : "missing bundle directory");
	}
	if (!strcmp(sub, "export")) {
		if (!out) {
			return gm_usage_error(usage, "export needs -o <file>"
					      " (- for stdout)");
		}
		return cmd_export(argv[i], out, force, &lim, format);
	}
	if (!strcmp(sub, "info")) {
		return cmd_info(argv[i]);
	}
	if (!strcmp(sub, "kernels")) {
		return cmd_kernels(argv[i]);
	}
	if (!strcmp(sub, "losses")) {
		return cmd_losses(argv[i]);
	}
	if (!strcmp(sub, "check")) {
		return cmd_check(argv[i]);
	}
	return cmd_dump(argv[i], events);
}
