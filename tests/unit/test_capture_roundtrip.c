/* SPDX-License-Identifier: MIT */
/*
 * Capture round trip without a GPU: `gpumix capture` runs the emitter
 * (capture_emitter.c), which drives the synthetic sequence of
 * capture_synth.h through the real libgpumix-capture.so emit layer and
 * LTTng provider into a real LTTng session; the bundle reader then reads
 * it back and every field, inline payload, blob and module image must be
 * what was emitted, from every thread of every process. The loss modes
 * of the emitter must be detected and reported.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_synth.h"
#include "fs.h"
#include "kvfile.h"
#include "reconstruct/trace/trace_reader.h"
#include "strbuf.h"
#include "test.h"

static const char *build_dir;
static char scratch[256];

/* Run gpumix capture on the emitter with @args; returns the exit status. */
static int capture(const char *out, const char *const *args)
{
	char gpumix[1024], emitter[1024];
	const char *argv[32];
	int n = 0, status;
	pid_t pid;

	snprintf(gpumix, sizeof(gpumix), "%s/gpumix", build_dir);
	snprintf(emitter, sizeof(emitter), "%s/tests/capture_emitter", build_dir);
	argv[n++] = gpumix;
	argv[n++] = "-q";
	argv[n++] = "capture";
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = "--";
	argv[n++] = emitter;
	for (int i = 0; args && args[i]; i++) {
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (chdir(scratch)) {
			_exit(126);
		}
		/* The emitter's own stdout would break the TAP stream. */
		if (!freopen("/dev/null", "w", stdout)) {
			_exit(126);
		}
		execv(gpumix, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char *mget(const struct kvfile *m, const char *key)
{
	const char *v = kvfile_get(m, key);
	return v ? v : "(missing)";
}

struct seen {
	uint32_t pid, tid;
	unsigned events;
};

/* Compare one decoded event with its synthetic description. */
static int check_event(struct trace_reader *r, const struct gm_event *ev,
		       char *why, size_t len)
{
	unsigned i = ev->corr % SYNTH_THREAD_STRIDE + (ev->kind == GM_EV_EXIT);
	struct synth s;
	struct strbuf got = STRBUF_INIT;
	uint8_t *packed = NULL;
	void *buf = NULL, *extra = NULL;
	int ok = 0;

	if (i >= synth_count()) {
		snprintf(why, len, "unexpected correlation id %u", ev->corr);
		return 0;
	}
	synth_get(i, &s);
	if (ev->kind != s.kind) {
		snprintf(why, len, "event %u: kind %d, want %d", i, ev->kind, s.kind);
		goto out;
	}
	if (s.kind == GM_EV_ENTER || s.kind == GM_EV_EXIT ||
	    s.kind == GM_EV_D2H_HASH) {
		if (ev->api != s.api) {
			snprintf(why, len, "event %u: api %d, want %u", i, ev->api, s.api);
			goto out;
		}
	} else if (ev->raw_api != s.api) {
		snprintf(why, len, "event %u: raw api %u, want %u", i, ev->raw_api,
			 s.api);
		goto out;
	}
	if (ev->status != s.status || ev->rt_corr != s.rt_corr) {
		snprintf(why, len, "event %u: status/rt_corr %d/%u, want %d/%u", i,
			 ev->status, ev->rt_corr, s.status, s.rt_corr);
		goto out;
	}
	if (ev->nr_args != s.nr_args ||
	    memcmp(ev->args, s.args, s.nr_args * sizeof(uint64_t))) {
		snprintf(why, len, "event %u: argument words differ", i);
		goto out;
	}
	if (strcmp(ev->str, s.str)) {
		snprintf(why, len, "event %u: str '%s', want '%s'", i, ev->str, s.str);
		goto out;
	}
	switch (s.payload) {
	case SYNTH_NONE:
		if (ev->data_len || (ev->flags & (GM_RF_BLOB | GM_RF_HASH |
						  GM_RF_MODULE))) {
			snprintf(why, len, "event %u: unexpected payload", i);
			goto out;
		}
		break;
	case SYNTH_DATA:
		buf = malloc(s.width);
		synth_fill(buf, s.width, s.seed);
		if (ev->data_len != s.width || memcmp(ev->data, buf, s.width)) {
			snprintf(why, len, "event %u: inline data differs", i);
			goto out;
		}
		break;
	case SYNTH_PAYLOAD:
	case SYNTH_HASH: {
		struct gm_span span;
		size_t n = s.width * s.height * s.depth;
		struct gm_hash h;
		buf = synth_buffer(&s, &span, &packed);
		h = gm_hash_bytes(packed, n);
		if (s.payload == SYNTH_HASH) {
			if (!(ev->flags & GM_RF_HASH) || ev->blob.hi != h.hi ||
			    ev->blob.lo != h.lo || ev->blob_size != n) {
				snprintf(why, len, "event %u: result hash differs", i);
				goto out;
			}
			break;
		}
		if (n > GM_INLINE_MAX) {
			if (!(ev->flags & GM_RF_BLOB) || ev->blob.hi != h.hi ||
			    ev->blob.lo != h.lo || ev->blob_size != n) {
				snprintf(why, len, "event %u: blob reference differs", i);
				goto out;
			}
		} else if (ev->flags & GM_RF_BLOB) {
			snprintf(why, len, "event %u: small payload not inline", i);
			goto out;
		}
		if (trace_reader_payload(r, ev, &got) || got.len != n ||
		    memcmp(got.buf, packed, n)) {
			snprintf(why, len, "event %u: payload bytes differ (%s)", i,
				 gm_error_message());
			gm_error_clear();
			goto out;
		}
		break;
	}
	case SYNTH_IMAGE:
	case SYNTH_IMAGE_FILE: {
		const void *stored = NULL;
		size_t n = 0;
		unsigned want = s.image == SYNTH_CUBIN ? GM_IMAGE_CUBIN :
				s.image == SYNTH_PTX ? GM_IMAGE_PTX : GM_IMAGE_FATBIN;
		buf = synth_image(&s, &stored, &n, &extra);
		if (s.payload == SYNTH_IMAGE_FILE) {
			n--;	/* the file holds the text without its NUL */
		}
		if (!(ev->flags & GM_RF_MODULE) ||
		    ((ev->flags & GM_RF_IMAGE_MASK) >> GM_RF_IMAGE_SHIFT) != want) {
			snprintf(why, len, "event %u: image flags %#x", i, ev->flags);
			goto out;
		}
		if (trace_reader_module(r, ev, &got) || got.len != n ||
		    memcmp(got.buf, stored, n)) {
			snprintf(why, len, "event %u: module image differs (%s)", i,
				 gm_error_message());
			gm_error_clear();
			goto out;
		}
		break;
	}
	}
	ok = 1;
out:
	strbuf_release(&got);
	free(buf);
	free(extra);
	free(packed);
	return ok;
}

static void test_good(void)
{
	const char *args[] = { "--threads", "3", "--fork", NULL };
	char out[512], why[256] = "";
	struct trace_reader *r = NULL;
	const struct gm_event *ev;
	struct seen seen[16];
	unsigned nr_seen = 0, bad = 0, total = 0, pids = 0;
	uint32_t pid_list[4];
	int rc;

	snprintf(out, sizeof(out), "%s/good", scratch);
	CHECK_INT(capture(out, args), 0, "capture of 3 threads and a child exits 0");
	if (trace_reader_open(&r, out, 0)) {
		CHECK(0, "the bundle opens strictly");
		printf("#   %s\n", gm_error_message());
		gm_error_clear();
		return;
	}
	CHECK(1, "the bundle opens strictly");
	while ((rc = trace_reader_next(r, &ev)) > 0) {
		unsigned k;
		total++;
		if (!check_event(r, ev, why, sizeof(why))) {
			if (!bad++) {
				printf("#   first mismatch: %s\n", why);
			}
		}
		for (k = 0; k < nr_seen; k++) {
			if (seen[k].pid == ev->pid && seen[k].tid == ev->tid) {
				break;
			}
		}
		if (k == nr_seen && nr_seen < 16) {
			seen[nr_seen].pid = ev->pid;
			seen[nr_seen].tid = ev->tid;
			seen[nr_seen++].events = 0;
			if (pids < 4 && (pids == 0 || pid_list[pids - 1] != ev->pid)) {
				int dup = 0;
				for (unsigned p = 0; p < pids; p++) {
					dup |= pid_list[p] == ev->pid;
				}
				if (!dup) {
					pid_list[pids++] = ev->pid;
				}
			}
		}
		if (k < 16) {
			seen[k].events++;
		}
	}
	CHECK_INT(rc, 0, "every event decodes");
	if (rc < 0) {
		printf("#   %s\n", gm_error_message());
		gm_error_clear();
	}
	CHECK_INT(bad, 0, "every field, payload, blob and image round-trips");
	CHECK_INT(total, 4 * synth_count(), "all events of 4 threads arrive");
	CHECK_INT(nr_seen, 4, "4 threads seen (tid on every event)");
	CHECK_INT(pids, 2, "2 processes seen (the forked child has its own stream)");
	for (unsigned k = 0; k < nr_seen; k++) {
		if (seen[k].events != synth_count()) {
			CHECK_INT(seen[k].events, synth_count(),
				  "every thread's events arrive");
		}
	}
	{
		const struct kvfile *m = trace_reader_manifest(r);
		char want[32];
		snprintf(want, sizeof(want), "%u", 4 * synth_count());
		CHECK_STR(mget(m, "complete"), "yes", "manifest: complete");
		CHECK_STR(mget(m, "losses"), "0", "manifest: no losses");
		CHECK_STR(mget(m, "events.emitted"), want, "manifest: events emitted");
		CHECK_STR(mget(m, "events.found"), want, "manifest: events found");
		CHECK_STR(mget(m, "processes"), "2", "manifest: 2 processes");
		CHECK(strcmp(mget(m, "blobs.deduplicated"), "0") != 0,
		      "manifest: identical payloads were stored once");
		CHECK_STR(mget(m, "program"), "capture_emitter", "manifest: program");
		CHECK_STR(mget(m, "exit"), "0", "manifest: exit status");
	}
	trace_reader_free(r);
}

/* A loss mode: capture exits 1 and the manifest names the loss. */
static void test_loss(const char *name, const char *const *args,
		      const char *key, const char *value, const char *losses)
{
	char out[512], what[256];
	struct trace_reader *r = NULL;
	struct kvfile m = KVFILE_INIT;
	char *path;

	snprintf(out, sizeof(out), "%s/%s", scratch, name);
	snprintf(what, sizeof(what), "%s: capture exits 1", name);
	CHECK_INT(capture(out, args), 1, what);
	path = gm_path_join(out, "manifest");
	if (kvfile_read(&m, path)) {
		gm_error_clear();
	}
	free(path);
	snprintf(what, sizeof(what), "%s: manifest %s = %s", name, key, value);
	CHECK_STR(mget(&m, key), value, what);
	snprintf(what, sizeof(what), "%s: manifest losses = %s", name, losses);
	CHECK_STR(mget(&m, "losses"), losses, what);
	snprintf(what, sizeof(what), "%s: strict reading refuses the bundle", name);
	CHECK(trace_reader_open(&r, out, 0) != 0, what);
	snprintf(what, sizeof(what), "%s: the refusal says data was lost", name);
	CHECK(strstr(gm_error_message(), "lost data") != NULL, what);
	gm_error_clear();
	trace_reader_free(r);
	kvfile_release(&m);
}

static void test_unsupported_event(void)
{
	char out[512];
	struct trace_reader *r = NULL;
	const struct gm_event *ev;
	int found = 0, truncated = 0;

	snprintf(out, sizeof(out), "%s/unsupported", scratch);
	if (trace_reader_open(&r, out, GM_READER_ALLOW_LOSSY)) {
		CHECK(0, "a lossy bundle opens when allowed");
		gm_error_clear();
		return;
	}
	while (trace_reader_next(r, &ev) > 0) {
		if (ev->kind == GM_EV_UNSUPPORTED && !strcmp(ev->str, "cuGraphLaunch") &&
		    ev->nr_args == 2 && ev->args[0] == 999) {
			found = 1;
		}
	}
	CHECK(found, "the unsupported call is an event with its name");
	trace_reader_free(r);

	snprintf(out, sizeof(out), "%s/long-name", scratch);
	if (!trace_reader_open(&r, out, GM_READER_ALLOW_LOSSY)) {
		while (trace_reader_next(r, &ev) > 0) {
			if ((ev->flags & GM_RF_TRUNCATED) &&
			    strlen(ev->str) == GM_STR_MAX) {
				truncated = 1;
			}
		}
		trace_reader_free(r);
	}
	gm_error_clear();
	CHECK(truncated, "a name longer than GM_STR_MAX is truncated and flagged");
}

static void test_exit_status(void)
{
	const char *args[] = { "--exit", "3", NULL };
	char out[512];
	struct kvfile m = KVFILE_INIT;
	char *path;

	snprintf(out, sizeof(out), "%s/exit3", scratch);
	CHECK_INT(capture(out, args), 3, "the program's exit status passes through");
	path = gm_path_join(out, "manifest");
	if (kvfile_read(&m, path)) {
		gm_error_clear();
	}
	free(path);
	CHECK_STR(mget(&m, "complete"), "yes", "a failing program still gives "
		  "a complete bundle");
	CHECK_STR(mget(&m, "exit"), "3", "manifest: exit 3");
	kvfile_release(&m);
}

int main(void)
{
	const char *lose[] = { "--lose", "5", NULL };
	const char *unsupported[] = { "--unsupported", NULL };
	const char *long_name[] = { "--long-name", NULL };
	char *gpumix;

	build_dir = realpath(getenv("GPUMIX_BUILD") ? getenv("GPUMIX_BUILD")
						     : "build", NULL);
	if (!build_dir) {
		build_dir = "build";
	}
	gpumix = gm_xasprintf("%s/gpumix", build_dir);
	if (access(gpumix, X_OK)) {
		CHECK(0, "build/gpumix exists (run make)");
		return test_done();
	}
	free(gpumix);
	snprintf(scratch, sizeof(scratch), "%s/gpumix-roundtrip.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(scratch)) {
		CHECK(0, "scratch directory");
		return test_done();
	}
	test_good();
	test_loss("lose", lose, "events.missing", "5", "5");
	test_loss("unsupported", unsupported, "loss.unsupported_calls", "1", "1");
	test_loss("long-name", long_name, "loss.truncated_strings", "1", "1");
	test_unsupported_event();
	test_exit_status();
	gm_remove_tree(scratch);
	return test_done();
}
