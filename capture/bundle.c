/* SPDX-License-Identifier: MIT */
/*
 * Bundle preparation, loss accounting and atomic finalisation (see
 * bundle.h). A 1 MiB reserve file is made at preparation and deleted just
 * before the manifest is written, so that a capture that filled the disk
 * can still say so in its manifest.
 */
#include "bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "atomic_file.h"
#include "counts.h"
#include "ctf_files.h"
#include "error.h"
#include "fs.h"
#include "output_dir.h"
#include "record.h"
#include "strbuf.h"

#define RESERVE_NAME "manifest.reserve"
#define RESERVE_SIZE (1 << 20)

/* Environment variables worth keeping in the manifest. */
static const char *const env_keep[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_LAUNCH_BLOCKING",
	"CUDA_MODULE_LOADING", "CUDA_DEVICE_MAX_CONNECTIONS",
	"CUDA_MPS_PIPE_DIRECTORY", "OMP_NUM_THREADS", NULL,
};

int bundle_write_api_table(const char *dir, const uint8_t *used)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = gm_path_join(dir, "api-table");
	char sig[1024];
	int ret;

	strbuf_addstr(&sb, "# gpumix call ids of this bundle: ID NAME CLASS "
			   "SPECIAL ARG:TYPE:DIR,...\n");
	for (int i = 0; i < GM_API_COUNT; i++) {
		if (used && !used[i]) {
			continue;
		}
		gm_api_signature(i, sig, sizeof(sig));
		strbuf_addf(&sb, "%d %s\n", i, sig);
	}
	ret = gm_write_file_atomic(path, sb.buf, sb.len, 1);
	free(path);
	strbuf_release(&sb);
	return ret;
}

static int make_reserve(const char *dir)
{
	char *path = gm_path_join(dir, RESERVE_NAME);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ret = 0, err;

	if (fd < 0) {
		ret = gm_error_errno("cannot reserve space in '%s'", dir);
	} else if ((err = posix_fallocate(fd, 0, RESERVE_SIZE))) {
		/* (it returns the error; errno is whatever came before) */
		errno = err;
		ret = gm_error_errno("cannot reserve space in '%s'", dir);
	}
	if (fd >= 0) {
		close(fd);
	}
	free(path);
	return ret;
}

int bundle_prepare(const char *final, int force, char **tmp_out)
{
	char *copy = gm_xstrdup(final), *parent = dirname(copy);
	char *tmp = NULL, *sub = NULL;
	static const char *const subdirs[] = { "blobs", "modules", "procs" };
	int ret = -1;

	*tmp_out = NULL;
	if (gm_path_exists(final) && !force) {
		gm_error("'%s' already exists", final);
		gm_error_hint("use --force to replace it, or -o to choose another "
			      "name");
		goto out;
	}
	/* --force replaces a bundle, never what is not one. */
	if (gm_output_may_replace(final, GM_OUTPUT_BUNDLE)) {
		goto out;
	}
	if (gm_mkdir_p(parent, 0755)) {
		goto out;
	}
	tmp = gm_xasprintf("%s.tmp-%ld", final, (long)getpid());
	if (gm_path_exists(tmp) && gm_remove_tree(tmp)) {
		goto out;
	}
	if (mkdir(tmp, 0755)) {
		gm_error_errno("cannot create '%s'", tmp);
		goto out;
	}
	if (gm_output_mark(tmp, GM_OUTPUT_BUNDLE)) {
		goto fail;
	}
	for (size_t i = 0; i < 3; i++) {
		free(sub);
		sub = gm_path_join(tmp, subdirs[i]);
		if (mkdir(sub, 0755)) {
			gm_error_errno("cannot create '%s'", sub);
			goto fail;
		}
	}
	if (bundle_write_api_table(tmp, NULL) || make_reserve(tmp)) {
		goto fail;
	}
	*tmp_out = tmp;
	tmp = NULL;
	ret = 0;
	goto out;
fail:
	gm_remove_tree(tmp);
out:
	free(sub);
	free(tmp);
	free(copy);
	return ret;
}

/* ---- counting back ------------------------------------------------------ */

struct proc {
	uint64_t pid;
	struct gm_counts *c;		/* NULL: unreadable */
	char **names[2];		/* by cbid: driver, runtime */
};

struct tally {
	struct proc *procs;
	size_t nr, alloc;
	uint64_t missing, extra;	/* events: counted - found, found - counted */
	uint64_t foreign, foreign_events; /* another capture's processes */
	uint64_t children_without_counts;
	struct strbuf why;		/* details, one per line */
	struct strbuf incomplete;
	uint64_t losses;
	struct gm_counts_loss loss;	/* sums */
	struct gm_counts_warn warn;
	uint64_t last_errno;
	uint64_t blobs_written, blob_bytes_written, blobs_deduped,
		blob_bytes_deduped, modules_written, module_bytes, h2d_bytes,
		d2h_bytes, emitted;
};

static void note(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	if (sb->len) {
		strbuf_addstr(sb, "; ");
	}
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

static void read_names(struct proc *p, const char *dir)
{
	char *path = gm_xasprintf("%s/procs/%" PRIu64 ".names", dir, p->pid);
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;

	if (gm_read_file(path, &sb)) {
		gm_error_clear();	/* optional: names fall back to numbers */
		goto out;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dom[16], name[256];
		unsigned cbid;
		int rt;
		if (sscanf(line, "%15s %u %255s", dom, &cbid, name) != 3 ||
		    cbid >= GM_COUNTS_CBIDS) {
			continue;
		}
		rt = !strcmp(dom, "runtime");
		if (!p->names[rt]) {
			p->names[rt] = gm_xcalloc(GM_COUNTS_CBIDS, sizeof(char *));
		}
		free(p->names[rt][cbid]);
		p->names[rt][cbid] = gm_xstrdup(name);
	}
out:
	strbuf_release(&sb);
	free(path);
}

static void tally_release(struct tally *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		for (int rt = 0; rt < 2; rt++) {
			if (t->procs[i].names[rt]) {
				for (unsigned k = 0; k < GM_COUNTS_CBIDS; k++) {
					free(t->procs[i].names[rt][k]);
				}
				free(t->procs[i].names[rt]);
			}
		}
		free(t->procs[i].c);
	}
	free(t->procs);
	strbuf_release(&t->why);
	strbuf_release(&t->incomplete);
}

static int load_procs(struct tally *t, const char *dir)
{
	char *procs = gm_path_join(dir, "procs");
	DIR *d = opendir(procs);
	struct dirent *de;

	if (!d) {
		note(&t->why, "no procs/ directory");
		free(procs);
		return 0;
	}
	while ((de = readdir(d))) {
		char *end, *path;
		unsigned long long pid = strtoull(de->d_name, &end, 10);
		struct proc *p;

		if (end == de->d_name || strcmp(end, ".counts")) {
			continue;
		}
		GM_ALLOC_GROW(t->procs, t->nr + 1, t->alloc);
		p = &t->procs[t->nr++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->c = gm_xmalloc(sizeof(*p->c));
		path = gm_xasprintf("%s/%s", procs, de->d_name);
		if (gm_counts_read(path, p->c)) {
			note(&t->why, "%s", gm_error_message());
			gm_error_clear();
			free(p->c);
			p->c = NULL;
			t->losses++;
		} else {
			read_names(p, dir);
		}
		free(path);
	}
	closedir(d);
	free(procs);
	return 0;
}

static uint64_t found_events(const struct bundle_found *f, uint64_t pid,
			     uint64_t tid, int *seen)
{
	for (size_t i = 0; i < f->nr_threads; i++) {
		if (f->threads[i].pid == pid && f->threads[i].tid == tid) {
			*seen = 1;
			return f->threads[i].events;
		}
	}
	*seen = 0;
	return 0;
}

static struct proc *proc_of(struct tally *t, uint64_t pid)
{
	for (size_t i = 0; i < t->nr; i++) {
		if (t->procs[i].pid == pid) {
			return &t->procs[i];
		}
	}
	return NULL;
}

/* Compare one process's counters with the trace. */
static void check_proc(struct tally *t, struct proc *p,
		       const struct bundle_found *f)
{
	const struct gm_counts *c = p->c;
	uint64_t nr = c->nr_slots < GM_COUNTS_SLOTS ? c->nr_slots : GM_COUNTS_SLOTS;
	uint64_t slotted_found = 0, all_found = 0;

	for (uint64_t i = 0; i < nr; i++) {
		int seen;
		uint64_t got = found_events(f, p->pid, c->slots[i].tid, &seen);
		slotted_found += got;
		if (got < c->slots[i].events) {
			uint64_t d = c->slots[i].events - got;
			t->missing += d;
			note(&t->why, "process %" PRIu64 " thread %" PRIu64
			     " emitted %" PRIu64 " events, the trace has %" PRIu64,
			     p->pid, c->slots[i].tid, c->slots[i].events, got);
		} else if (got > c->slots[i].events) {
			t->extra += got - c->slots[i].events;
		}
	}
	for (size_t i = 0; i < f->nr_threads; i++) {
		if (f->threads[i].pid == p->pid) {
			all_found += f->threads[i].events;
		}
	}
	/* Threads without a slot share one counter. */
	if (all_found - slotted_found < c->overflow_events) {
		uint64_t d = c->overflow_events - (all_found - slotted_found);
		t->missing += d;
		note(&t->why, "process %" PRIu64 ": %" PRIu64 " events of "
		     "threads without a counter slot are missing", p->pid, d);
	}
	t->emitted += gm_counts_events(c);
	if (c->state == GM_STATE_EXITING) {
		note(&t->incomplete, "process %" PRIu64 " did not exit normally "
		     "(it stopped inside its exit handlers)", p->pid);
	} else if (c->state != GM_STATE_EXITED) {
		note(&t->incomplete, "process %" PRIu64 " did not exit normally "
		     "(killed or crashed)", p->pid);
	}
#define SUM_(name, what) t->loss.name += c->loss.name;
	GM_LOSSES(SUM_)
#undef SUM_
#define SUMW_(name, what) t->warn.name += c->warn.name;
	GM_WARNINGS(SUMW_)
#undef SUMW_
	if (c->last_errno) {
		t->last_errno = c->last_errno;
	}
	t->children_without_counts += c->children_without_counts;
	t->blobs_written += c->blobs_written;
	t->blob_bytes_written += c->blob_bytes_written;
	t->blobs_deduped += c->blobs_deduped;
	t->blob_bytes_deduped += c->blob_bytes_deduped;
	t->modules_written += c->modules_written;
	t->module_bytes += c->module_bytes;
	t->h2d_bytes += c->h2d_bytes;
	t->d2h_bytes += c->d2h_bytes;
}

static const char *call_name(struct proc *p, int rt, unsigned cbid, char *buf,
			     size_t len)
{
	int api;

	if (!rt && (api = gm_api_by_cbid((int)cbid)) >= 0) {
		return gm_api_table[api].name;
	}
	if (p->names[rt] && p->names[rt][cbid]) {
		return p->names[rt][cbid];
	}
	snprintf(buf, len, "%s_cbid_%u", rt ? "runtime" : "driver", cbid);
	return buf;
}

/* calls.NAME, ignored.NAME, unsupported.NAME, runtime.NAME (summed). */
static void call_counts(struct tally *t, struct kvfile *m)
{
	uint64_t *sum[2];
	const char *names[2][GM_COUNTS_CBIDS];
	char bufs[2][GM_COUNTS_CBIDS][32];

	for (int rt = 0; rt < 2; rt++) {
		sum[rt] = gm_xcalloc(GM_COUNTS_CBIDS, sizeof(uint64_t));
		for (unsigned i = 0; i < GM_COUNTS_CBIDS; i++) {
			names[rt][i] = NULL;
		}
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct proc *p = &t->procs[i];
		if (!p->c) {
			continue;
		}
		for (int rt = 0; rt < 2; rt++) {
			const uint64_t *calls = rt ? p->c->runtime_calls
						   : p->c->driver_calls;
			for (unsigned cb = 0; cb < GM_COUNTS_CBIDS; cb++) {
				if (!calls[cb]) {
					continue;
				}
				sum[rt][cb] += calls[cb];
				if (!names[rt][cb]) {
					names[rt][cb] = call_name(p, rt, cb,
								  bufs[rt][cb],
								  sizeof(bufs[0][0]));
				}
			}
		}
	}
	for (unsigned cb = 0; cb < GM_COUNTS_CBIDS; cb++) {
		char key[320];
		int api;
		if (!sum[0][cb]) {
			continue;
		}
		api = gm_api_by_cbid((int)cb);
		snprintf(key, sizeof(key), "%s.%s",
			 api < 0 ? "unsupported" :
			 gm_api_table[api].cls == GM_CLASS_IGNORED ? "ignored" :
								     "calls",
			 names[0][cb]);
		kvfile_set_u64(m, key, sum[0][cb]);
	}
	for (unsigned cb = 0; cb < GM_COUNTS_CBIDS; cb++) {
		char key[320];
		if (!sum[1][cb]) {
			continue;
		}
		snprintf(key, sizeof(key), "runtime.%s", names[1][cb]);
		kvfile_set_u64(m, key, sum[1][cb]);
	}
	free(sum[0]);
	free(sum[1]);
}


static void iso_time(char *buf, size_t len, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void run_keys(struct kvfile *m, const struct bundle_run *run)
{
	struct strbuf cmd = STRBUF_INIT;
	char cwd[PATH_MAX], host[256] = "", t[64];
	char *copy;

	for (int i = 0; run->argv && run->argv[i]; i++) {
		char key[32];
		if (i) {
			strbuf_addch(&cmd, ' ');
		}
		strbuf_add_shell_word(&cmd, run->argv[i]);
		snprintf(key, sizeof(key), "argv.%d", i);
		kvfile_set(m, key, run->argv[i]);
	}
	copy = gm_xstrdup(run->argv && run->argv[0] ? run->argv[0] : "?");
	kvfile_set(m, "program", basename(copy));
	free(copy);
	kvfile_set(m, "command", cmd.buf);
	if (getcwd(cwd, sizeof(cwd))) {
		kvfile_set(m, "cwd", cwd);
	}
	gethostname(host, sizeof(host) - 1);
	kvfile_set(m, "host", host);
	for (int i = 0; env_keep[i]; i++) {
		const char *v = getenv(env_keep[i]);
		if (v) {
			char key[80];
			snprintf(key, sizeof(key), "env.%s", env_keep[i]);
			kvfile_set(m, key, v);
		}
	}
	iso_time(t, sizeof(t), run->start_ns);
	kvfile_set(m, "capture.start", t);
	kvfile_set_u64(m, "capture.start_ns", run->start_ns);
	kvfile_set_u64(m, "capture.end_ns", run->end_ns);
	kvfile_setf(m, "capture.seconds", "%.3f",
		    (double)(run->end_ns - run->start_ns) / 1e9);
	if (!run->started) {
		kvfile_set(m, "exit", "not started");
	} else if (run->signal) {
		kvfile_setf(m, "exit", "signal %d", run->signal);
	} else {
		kvfile_setf(m, "exit", "%d", run->exit_code);
	}
	if (run->failed_calls) {
		kvfile_set_u64(m, "failed_calls", run->failed_calls);
		kvfile_set(m, "failed_calls.first", run->failed_first);
	}
	if (run->failed_errors) {
		kvfile_set_u64(m, "failed_calls.errors", run->failed_errors);
		kvfile_set(m, "failed_calls.first_error",
			   run->failed_first_error);
	}
	strbuf_release(&cmd);
}

/* Is the file system of @dir (nearly) out of space? */
static int disk_full(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv)) {
		return 0;
	}
	/* Less than the reserve left besides the reserve itself. */
	return (uint64_t)sv.f_bavail * sv.f_frsize < RESERVE_SIZE;
}

/*
 * Test hook: GPUMIX_CAPTURE_KILL_AT=POINT kills this process with SIGKILL
 * at that point of the final write (tests/cli/fault_capture_kill.sh),
 * where a kill at a random time almost never lands: "counted" (the trace
 * counted back, nothing written), "manifest" (the manifest written),
 * "flushed" (everything synced, the rename next).
 */
static void kill_point(const char *point)
{
	const char *at = getenv("GPUMIX_CAPTURE_KILL_AT");

	if (at && !strcmp(at, point)) {
		raise(SIGKILL);
	}
}

static int commit(const char *tmp, const char *final, int force)
{
	char *old = NULL;
	int fd, ret = -1;

	/* Everything on disk before the bundle appears under its name. */
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syncfs(fd)) {
		gm_error_errno("cannot flush '%s'", tmp);
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	close(fd);
	kill_point("flushed");
	if (gm_path_exists(final)) {
		if (!force) {
			gm_error("'%s' appeared during the capture", final);
			gm_error_hint("use --force to replace it");
			return -1;
		}
		if (gm_output_may_replace(final, GM_OUTPUT_BUNDLE)) {
			return -1;
		}
		old = gm_xasprintf("%s.old-%ld", final, (long)getpid());
		if (rename(final, old)) {
			gm_error_errno("cannot move '%s' aside", final);
			goto out;
		}
	}
	if (rename(tmp, final)) {
		if (!old && (errno == ENOTEMPTY || errno == EEXIST)) {
			/* Another capture took the name between the check
			 * above and the rename. */
			gm_error("'%s' appeared during the capture", final);
			gm_error_hint("use --force to replace it");
			goto out;
		}
		gm_error_errno("cannot rename '%s' to '%s'", tmp, final);
		if (old) {
			rename(old, final);
		}
		goto out;
	}
	if (old && gm_remove_tree(old)) {
		gm_warning("could not remove the replaced bundle '%s'", old);
		gm_error_clear();
	}
	ret = 0;
out:
	free(old);
	return ret;
}

/* What the run and the trace say of the capture's completeness. */
static void note_run(struct tally *t, const struct bundle_run *run,
		     const struct bundle_found *found)
{
	if (!run->started) {
		note(&t->incomplete, "the program could not be started");
	} else if (run->signal) {
		note(&t->incomplete, "the program was killed by signal %d",
		     run->signal);
	}
	if (run->interrupted) {
		note(&t->incomplete, "the capture was interrupted");
	}
	if (run->capture_error) {
		note(&t->incomplete, "%s", run->capture_error);
	}
	if (run->still_running) {
		note(&t->incomplete, "%zu process%s started by the program %s "
		     "still running when the capture stopped",
		     run->still_running,
		     run->still_running == 1 ? "" : "es",
		     run->still_running == 1 ? "was" : "were");
	}
	if (found->read_error) {
		note(&t->incomplete, "the trace cannot be read: %s",
		     found->read_error);
	}
}

/*
 * Events of a process without a counter file here are another capture's:
 * a session daemon (one per machine for root) traces every registered
 * application in each of its sessions, so a capture running beside this
 * one records into this session too. A process of ours always has its
 * file: the library creates it before the first event, and a forked
 * child that cannot records nothing and is counted in its ancestor's file
 * (children_without_counts). The other process's streams leave the
 * bundle in @tmp.
 */
static void drop_foreign(struct tally *t, const char *tmp,
			 const struct bundle_found *found)
{
	for (size_t i = 0; i < found->nr_threads; i++) {
		uint32_t pid = found->threads[i].pid;
		if (proc_of(t, pid)) {
			continue;
		}
		t->foreign_events += found->threads[i].events;
		int first = 1;
		for (size_t j = 0; j < i; j++) {
			first &= found->threads[j].pid != pid;
		}
		if (first) {
			t->foreign++;
			if (bundle_remove_streams(tmp, pid)) {
				note(&t->incomplete, "%s", gm_error_message());
				gm_error_clear();
			}
		}
	}
}

/*
 * The losses and the damage the capture saw, in t->why and t->incomplete,
 * and the hashes of the trace files as it now is into @ctf. Returns the
 * losses the capture library counted.
 */
static uint64_t note_losses(struct tally *t, const char *tmp,
			    const struct bundle_found *found,
			    struct kvfile *ctf)
{
	uint64_t lib_losses = 0;

#define ADD_(name, what)                                                       \
	if (t->loss.name) {                                                    \
		note(&t->why, "%" PRIu64 " %s", t->loss.name, what);           \
		lib_losses += t->loss.name;                                    \
	}
	GM_LOSSES(ADD_)
#undef ADD_
	if (found->discarded) {
		note(&t->why, "the tracer discarded %" PRIu64 " events",
		     found->discarded);
	}
	if (t->last_errno) {
		note(&t->why, "writes failed: %s",
		     strerror((int)t->last_errno));
	}
	if (disk_full(tmp)) {
		note(&t->incomplete, "the disk holding the bundle is full");
	}
	/* The trace as it now is (other captures' streams gone), hashed so
	 * that readers can tell a damaged file (common/ctf_files.h). */
	if (gm_ctf_files_record(tmp, ctf)) {
		note(&t->incomplete, "the trace files cannot be hashed: %s",
		     gm_error_message());
		gm_error_clear();
	}
	return lib_losses;
}

/* The manifest's keys, in their order (doc/bundle-format.md). */
static void manifest_keys(struct kvfile *m, struct tally *t,
			  const struct bundle_run *run,
			  const struct bundle_found *found,
			  const struct kvfile *ctf)
{
	kvfile_set(m, "format", GM_BUNDLE_FORMAT);
	kvfile_set(m, "tool",
		   run->tool_version ? run->tool_version : "gpumix");
	kvfile_set(m, "complete", t->incomplete.len ? "no" : "yes");
	if (t->incomplete.len) {
		kvfile_set(m, "incomplete", t->incomplete.buf);
	}
	kvfile_set_u64(m, "losses", t->losses);
	if (t->why.len) {
		kvfile_set(m, "losses.summary", t->why.buf);
	}
	run_keys(m, run);
	if (found->device) {
		kvfile_set(m, "device.name", found->device);
		kvfile_setf(m, "device.cc", "%" PRIu64 ".%" PRIu64,
			    found->device_cc / 10, found->device_cc % 10);
		kvfile_set_u64(m, "device.sms", found->device_sms);
		kvfile_setf(m, "driver.version", "%" PRIu64 ".%" PRIu64,
			    found->driver_version / 1000,
			    found->driver_version % 1000 / 10);
	}
	kvfile_set_u64(m, "processes", t->nr);
	for (size_t i = 0; i < t->nr; i++) {
		struct proc *p = &t->procs[i];
		char key[64];
		snprintf(key, sizeof(key), "process.%" PRIu64, p->pid);
		if (!p->c) {
			kvfile_set(m, key, "no counters");
			continue;
		}
		kvfile_setf(m, key, "ppid=%" PRIu64 " threads=%" PRIu64
			    " events=%" PRIu64 " state=%s", p->c->ppid,
			    p->c->nr_slots, gm_counts_events(p->c),
			    p->c->state == GM_STATE_EXITED	 ? "exited"
			    : p->c->state == GM_STATE_EXITING ? "stopped while exiting"
							      : "running");
	}
	kvfile_set_u64(m, "events.emitted", t->emitted);
	kvfile_set_u64(m, "events.found", found->events - t->foreign_events);
	kvfile_set_u64(m, "events.missing", t->missing);
	kvfile_set_u64(m, "events.discarded", found->discarded);
	if (t->extra) {
		kvfile_set_u64(m, "events.extra", t->extra);
	}
	t->foreign += found->foreign_pruned;
	if (t->foreign) {
		kvfile_set_u64(m, "foreign.processes", t->foreign);
		kvfile_set_u64(m, "foreign.events", t->foreign_events);
	}
#define KEY_(name, what) kvfile_set_u64(m, "loss." #name, t->loss.name);
	GM_LOSSES(KEY_)
#undef KEY_
#define KEYW_(name, what)                                                      \
	kvfile_set_u64(m, "warning." #name, t->warn.name);
	GM_WARNINGS(KEYW_)
#undef KEYW_
	kvfile_set_u64(m, "blobs.stored", t->blobs_written);
	kvfile_set_u64(m, "blobs.stored_bytes", t->blob_bytes_written);
	kvfile_set_u64(m, "blobs.deduplicated", t->blobs_deduped);
	kvfile_set_u64(m, "blobs.deduplicated_bytes", t->blob_bytes_deduped);
	kvfile_set_u64(m, "modules.stored", t->modules_written);
	kvfile_set_u64(m, "modules.stored_bytes", t->module_bytes);
	kvfile_set_u64(m, "bytes.h2d", t->h2d_bytes);
	kvfile_set_u64(m, "bytes.d2h", t->d2h_bytes);
	call_counts(t, m);
	for (size_t i = 0; i < ctf->nr; i++) {
		kvfile_set(m, ctf->keys[i], ctf->values[i]);
	}
}

int bundle_finalize(const char *tmp, const char *final, int force,
		    const struct bundle_run *run, const struct bundle_found *found,
		    struct bundle_result *res)
{
	struct tally t;
	struct kvfile m = KVFILE_INIT, ctf = KVFILE_INIT;
	char *path, *reserve;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	memset(&t, 0, sizeof(t));
	strbuf_init(&t.why, 0);
	strbuf_init(&t.incomplete, 0);
	kill_point("counted");
	load_procs(&t, tmp);

	note_run(&t, run, found);
	for (size_t i = 0; i < t.nr; i++) {
		if (t.procs[i].c) {
			check_proc(&t, &t.procs[i], found);
		}
	}
	drop_foreign(&t, tmp, found);
	if (t.children_without_counts) {
		note(&t.why, "%" PRIu64 " forked process%s could not create %s "
		     "counter file and recorded nothing",
		     t.children_without_counts,
		     t.children_without_counts == 1 ? "" : "es",
		     t.children_without_counts == 1 ? "its" : "their");
		t.losses += t.children_without_counts;
	}
	if (run->started && !t.nr && !found->read_error) {
		/* No CUDA at all, or the library never loaded. */
		kvfile_set(&m, "note", "the program made no CUDA driver calls");
	}
	t.losses += note_losses(&t, tmp, found, &ctf) + t.missing +
		    found->discarded;

	manifest_keys(&m, &t, run, found, &ctf);

	reserve = gm_path_join(tmp, RESERVE_NAME);
	unlink(reserve);
	free(reserve);
	/* Only the calls the trace holds (the whole table when unreadable). */
	if (found->api_used && !found->read_error &&
	    bundle_write_api_table(tmp, found->api_used)) {
		gm_error_clear();	/* the full table stays: still correct */
	}
	path = gm_path_join(tmp, "manifest");
	if (kvfile_write(&m, path, "gpumix bundle manifest (doc/bundle-format.md)")) {
		gm_error("cannot write the manifest of '%s'", final);
		gm_error_hint("the partial capture is in '%s'", tmp);
		res->path = gm_xstrdup(tmp);
		free(path);
		goto out;
	}
	free(path);
	kill_point("manifest");
	if (commit(tmp, final, force)) {
		gm_error_hint("the capture is in '%s'", tmp);
		res->path = gm_xstrdup(tmp);
		goto out;
	}
	res->path = gm_xstrdup(final);
	ret = 0;
out:
	res->complete = !t.incomplete.len;
	res->losses = t.losses;
	res->events = t.emitted;
	res->processes = (unsigned)t.nr;
	res->summary = t.why.len ? strbuf_detach(&t.why, NULL) : NULL;
	res->incomplete = t.incomplete.len ? strbuf_detach(&t.incomplete, NULL)
					   : NULL;
	tally_release(&t);
	kvfile_release(&m);
	kvfile_release(&ctf);
	return ret;
}

/* The manifest's unsigned value of @key, or -1 with a cause. */
static int manifest_u64(const struct kvfile *m, const char *key, uint64_t *out)
{
	if (kvfile_get_u64(m, key, out, "the manifest")) {
		return -1;
	}
	return 0;
}

/* A disagreement between the counters and the manifest: a cause. */
static int differs(const char *what, uint64_t counted, const char *key,
		   uint64_t said)
{
	return gm_error("%s: the counter files say %" PRIu64 ", the manifest's "
			"%s says %" PRIu64, what, counted, key, said);
}

int bundle_verify_counts(const char *dir, const struct kvfile *m,
			 const struct bundle_found *found)
{
	struct tally t;
	uint64_t v;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	strbuf_init(&t.why, 0);
	strbuf_init(&t.incomplete, 0);
	load_procs(&t, dir);
	for (size_t i = 0; i < t.nr; i++) {
		if (!t.procs[i].c) {
			/* load_procs noted why; the first reason is enough */
			gm_error("%s", t.why.buf);
			goto out;
		}
		check_proc(&t, &t.procs[i], found);
	}
	for (size_t i = 0; i < found->nr_threads; i++) {
		if (!proc_of(&t, found->threads[i].pid)) {
			gm_error("process %u left events in the trace but no "
				 "counter file in procs/", found->threads[i].pid);
			goto out;
		}
	}
	if (manifest_u64(m, "processes", &v)) {
		goto out;
	}
	if (v != t.nr) {
		differs("processes", t.nr, "processes", v);
		goto out;
	}
	for (size_t i = 0; i < t.nr; i++) {
		char key[64];
		const char *said;
		snprintf(key, sizeof(key), "process.%" PRIu64, t.procs[i].pid);
		said = kvfile_get(m, key);
		uint64_t ev = gm_counts_events(t.procs[i].c);
		char want[64];
		snprintf(want, sizeof(want), " events=%" PRIu64 " ", ev);
		if (!said || !strstr(said, want)) {
			gm_error("process %" PRIu64 " emitted %" PRIu64 " events "
				 "by its counter file; the manifest's %s says '%s'",
				 t.procs[i].pid, ev, key, said ? said : "nothing");
			goto out;
		}
	}
	if (manifest_u64(m, "events.emitted", &v)) {
		goto out;
	}
	if (v != t.emitted) {
		differs("events emitted", t.emitted, "events.emitted", v);
		goto out;
	}
	/* A loss key a manifest lacks was not a loss yet when it was
	 * written: 0, which its counter files (converted) say too. */
#define LOSS_(name, what)                                                      \
	v = 0;                                                                 \
	if (kvfile_get(m, "loss." #name) &&                                    \
	    manifest_u64(m, "loss." #name, &v)) {                              \
		goto out;                                                      \
	}                                                                      \
	if (v != t.loss.name) {                                                \
		differs(what, t.loss.name, "loss." #name, v);                  \
		goto out;                                                      \
	}
	GM_LOSSES(LOSS_)
#undef LOSS_
	if (t.missing) {
		gm_error("%" PRIu64 " event%s the counter files count %s missing "
			 "from the trace: %s", t.missing, t.missing == 1 ? "" : "s",
			 t.missing == 1 ? "is" : "are", t.why.buf);
		goto out;
	}
	ret = 0;
out:
	tally_release(&t);
	return ret;
}

void bundle_result_release(struct bundle_result *res)
{
	free(res->summary);
	free(res->incomplete);
	free(res->path);
	memset(res, 0, sizeof(*res));
}
