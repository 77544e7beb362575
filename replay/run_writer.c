/* SPDX-License-Identifier: MIT */
/*
 * Run-directory writer (see run_writer.h and doc/run-directory.md).
 */
#include "run_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "output_dir.h"
#include "tmp_name.h"

#define FLUSH_AT (1u << 20)

void gm_run_escape(struct strbuf *out, const char *s)
{
	if (!s) {
		return;
	}
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			strbuf_addstr(out, "\\\\");
			break;
		case '\t':
			strbuf_addstr(out, "\\t");
			break;
		case '\n':
			strbuf_addstr(out, "\\n");
			break;
		default:
			strbuf_addch(out, *s);
			break;
		}
	}
}

static void add_program(struct strbuf *out, const char *kind,
			const char *program, uint32_t corr)
{
	strbuf_addstr(out, kind);
	strbuf_addch(out, '\t');
	gm_run_escape(out, program);
	strbuf_addf(out, "\t%" PRIu32, corr);
}

void gm_run_format_kernel(struct strbuf *out, const struct run_kernel_rec *r)
{
	add_program(out, "KERNEL", r->program, r->correlation_id);
	strbuf_addf(out,
		    "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		    "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32
		    "\t%" PRId32 "\t%" PRId32 "\t%" PRId32
		    "\t%" PRId32 "\t%" PRId32 "\t%" PRId32
		    "\t%" PRIu32 "\t%" PRId32 "\t%" PRId32 "\t",
		    r->start, r->end, r->queued, r->submitted, r->device_id,
		    r->context_id, r->stream_id, r->grid[0], r->grid[1],
		    r->grid[2], r->block[0], r->block[1], r->block[2],
		    r->registers, r->static_smem, r->dynamic_smem);
	gm_run_escape(out, r->name);
	strbuf_addch(out, '\n');
}

void gm_run_format_memcpy(struct strbuf *out, const struct run_memcpy_rec *r)
{
	add_program(out, "MEMCPY", r->program, r->correlation_id);
	strbuf_addf(out, "\t%" PRIu64 "\t%" PRIu64 "\t", r->start, r->end);
	gm_run_escape(out, r->copy_kind);
	strbuf_addf(out, "\t%" PRIu64 "\t%" PRIu32 "\n", r->bytes,
		    r->stream_id);
}

void gm_run_format_memset(struct strbuf *out, const struct run_memset_rec *r)
{
	add_program(out, "MEMSET", r->program, r->correlation_id);
	strbuf_addf(out,
		    "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu32
		    "\t%" PRIu32 "\n",
		    r->start, r->end, r->bytes, r->value, r->stream_id);
}

void gm_run_format_api(struct strbuf *out, const struct run_api_rec *r)
{
	add_program(out, "API", r->program, r->correlation_id);
	strbuf_addf(out, "\t%" PRIu64 "\t%" PRIu64 "\t", r->start, r->end);
	gm_run_escape(out, r->domain);
	strbuf_addf(out, "\t%" PRIu32 "\t", r->cbid);
	gm_run_escape(out, r->name);
	strbuf_addf(out, "\t%" PRIu32 "\n", r->thread_id);
}

int gm_run_activity_open(struct run_activity *ra, const char *dir)
{
	char *path = gm_path_join(dir, "activity.tsv");
	int ret;

	memset(ra, 0, sizeof(*ra));
	strbuf_init(&ra->buf, 0);
	ret = atomic_file_open(&ra->af, path, 1);
	free(path);
	if (ret < 0) {
		return -1;
	}
	ra->open = 1;
	return 0;
}

static void flush(struct run_activity *ra)
{
	if (ra->buf.len) {
		atomic_file_write(&ra->af, ra->buf.buf, ra->buf.len);
		strbuf_reset(&ra->buf);
	}
}

void gm_run_activity_add(struct run_activity *ra, const struct strbuf *line)
{
	if (!ra->open) {
		return;
	}
	strbuf_add(&ra->buf, line->buf, line->len);
	ra->nr_records++;
	if (ra->buf.len >= FLUSH_AT) {
		flush(ra);
	}
}

int gm_run_activity_commit(struct run_activity *ra)
{
	int ret;

	if (!ra->open) {
		return gm_error("activity log is not open");
	}
	strbuf_addf(&ra->buf, "END\t%" PRIu64 "\n", ra->nr_records);
	flush(ra);
	ret = atomic_file_commit(&ra->af);
	strbuf_release(&ra->buf);
	ra->open = 0;
	return ret;
}

void gm_run_activity_abort(struct run_activity *ra)
{
	if (ra->open) {
		atomic_file_abort(&ra->af);
		strbuf_release(&ra->buf);
		ra->open = 0;
	}
}

int gm_run_write_replays(const char *dir, const struct run_replay_rec *r,
		      size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = gm_path_join(dir, "replays.tsv");
	int ret;

	strbuf_addstr(&sb, "program\treplay\tstart_ns\tend_ns\tio_ns\tkept\n");
	for (size_t i = 0; i < nr; i++) {
		gm_run_escape(&sb, r[i].program);
		strbuf_addf(&sb,
			    "\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%d\n",
			    r[i].replay, r[i].start_ns, r[i].end_ns,
			    r[i].io_ns, r[i].kept ? 1 : 0);
	}
	ret = gm_write_file_atomic(path, sb.buf, sb.len, 1);
	free(path);
	strbuf_release(&sb);
	return ret;
}

static int cmp_request(const void *a, const void *b)
{
	const struct run_request_rec *x = a, *y = b;
	int c = strcmp(x->program, y->program);

	if (c) {
		return c;
	}
	return x->request < y->request ? -1 : x->request > y->request;
}

int gm_run_write_requests(const char *dir, const struct run_request_rec *r,
		       size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	struct run_request_rec *v = gm_xcalloc(nr + 1, sizeof(*v));
	char *path = gm_path_join(dir, "requests.tsv");
	int ret;

	if (nr) {
		memcpy(v, r, nr * sizeof(*v));
	}
	qsort(v, nr, sizeof(*v), cmp_request);
	strbuf_addstr(&sb, RUN_REQUESTS_HEADER "\n");
	for (size_t i = 0; i < nr; i++) {
		gm_run_escape(&sb, v[i].program);
		strbuf_addf(&sb,
			    "\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			    v[i].request, v[i].arrival_ns, v[i].start_ns,
			    v[i].end_ns);
	}
	ret = gm_write_file_atomic(path, sb.buf, sb.len, 1);
	free(path);
	free(v);
	strbuf_release(&sb);
	return ret;
}

/*
 * Test hook: GPUMIX_RUN_KILL_AT=POINT kills this process with SIGKILL at
 * that point of making the run directory (tests/cli/leftovers.sh), a
 * window that a kill at a random time almost never hits: "made" (the
 * temporary directory made, not yet marked), "marked" (marked, not yet
 * renamed into place).
 */
static int kill_point(const char *point)
{
	const char *at = getenv("GPUMIX_RUN_KILL_AT");

	if (at && !strcmp(at, point)) {
		raise(SIGKILL);
	}
	return 0;
}

int gm_run_dir_prepare(const char *dir, int force)
{
	if (gm_path_exists(dir)) {
		if (!gm_is_dir(dir)) {
			return gm_error("'%s' exists and is not a directory",
					dir);
		}
		if (!force) {
			gm_error("run directory '%s' already exists", dir);
			gm_error_hint("use --force to replace it, or -o to "
				      "choose another");
			return -1;
		}
		if (gm_output_remove(dir, GM_OUTPUT_RUN) < 0) {
			return gm_error("cannot replace run directory '%s'",
					dir);
		}
	}
	/* Ours from the start: a run killed half-way may be replaced. The
	 * directory appears with its marker (made under a temporary name,
	 * marked, renamed into place), so no kill leaves it unmarked. */
	char *tmp = gm_tmp_name(dir, "tmp");
	int ret = 0;
	if (gm_tmp_remove_stale(dir, GM_TMP_DEAD) < 0 ||
	    gm_mkdir_p(tmp, 0777) < 0 || kill_point("made") ||
	    gm_output_mark(tmp, GM_OUTPUT_RUN) || kill_point("marked") ||
	    (rename(tmp, dir) &&
	     gm_error_errno("cannot rename '%s' to '%s'", tmp, dir))) {
		gm_remove_tree(tmp);
		ret = gm_error("cannot create run directory '%s'", dir);
	}
	free(tmp);
	return ret;
}

void gm_run_utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *const required_keys[] = {
	"format", "workload", "variant", "policy", "programs",
	"device.name", "device.cc", "device.sm_count",
	"device.max_threads_per_sm", "device.max_blocks_per_sm",
	"device.regs_per_sm", "device.smem_per_sm", "driver_version",
	"runtime_version", "cuda_device_max_connections", "streams",
	"min_replays", "gpumix_version", "started_at", "finished_at",
	"status", "cupti.dropped_records",
};

int gm_run_write_manifest(const char *dir, const struct kvfile *kv)
{
	char *path;
	uint64_t n;
	int ret;

	for (size_t i = 0; i < sizeof(required_keys) / sizeof(*required_keys);
	     i++) {
		if (!kvfile_get(kv, required_keys[i])) {
			return gm_error("run manifest lacks '%s'",
					required_keys[i]);
		}
	}
	if (kvfile_get_u64(kv, "programs", &n, "run manifest") < 0) {
		return -1;
	}
	for (uint64_t i = 0; i < n; i++) {
		static const char *const sub[] = { "name", "bundle",
						   "deterministic" };
		for (int k = 0; k < 3; k++) {
			char key[64];
			snprintf(key, sizeof(key), "program.%" PRIu64 ".%s",
				 i, sub[k]);
			if (!kvfile_get(kv, key)) {
				return gm_error("run manifest lacks '%s'",
						key);
			}
		}
	}
	path = gm_path_join(dir, "manifest");
	ret = kvfile_write(kv, path, "gpumix run directory");
	free(path);
	return ret;
}
