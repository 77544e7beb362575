/* SPDX-License-Identifier: MIT */
/*
 * Bundle preparation and finalisation: the temporary directory, the
 * refusal to overwrite, loss detection by counting back (missing events,
 * a process that did not exit, events without counters, library loss
 * counters), the manifest, the atomic rename, --force, and a manifest
 * that still gets written on a full disk; other captures' streams pruned
 * before a second reading.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "capture/bundle.h"
#include "capture/counts.h"
#include "fs.h"
#include "kvfile.h"
#include "record.h"
#include "test.h"

static char dir[256];
/* children_without_counts of the next counter files written */
static uint64_t children_lost;
/* bundle_found.foreign_pruned of the next finalize() */
static uint64_t foreign_pruned;

static void write_counts(const char *tmp, uint64_t pid, uint64_t events,
			 uint64_t state, uint64_t blob_failures)
{
	struct gm_counts *c = calloc(1, sizeof(*c));
	char *path = gm_xasprintf("%s/procs/%llu.counts", tmp,
				  (unsigned long long)pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memcpy(c->magic, GM_COUNTS_MAGIC, 8);
	c->version = GM_COUNTS_VERSION;
	c->size = sizeof(*c);
	c->pid = pid;
	c->state = state;
	c->nr_slots = 1;
	c->slots[0].tid = pid;
	c->slots[0].events = events;
	c->loss.blob_failures = blob_failures;
	c->children_without_counts = children_lost;
	c->driver_calls[gm_api_table[GM_API_cuMemAlloc_v2].cbid] = 3;
	c->driver_calls[gm_api_table[GM_API_cuDeviceGetAttribute].cbid] = 7;
	c->driver_calls[999] = 1;	/* not in the table: unsupported */
	c->runtime_calls[20] = 4;
	if (fd >= 0) {
		if (write(fd, c, sizeof(*c)) != (ssize_t)sizeof(*c)) {
			printf("# short write\n");
		}
		close(fd);
	}
	free(c);
	free(path);
}

static const char *mget(const struct kvfile *m, const char *key)
{
	const char *v = kvfile_get(m, key);
	return v ? v : "(missing)";
}

static void read_manifest(const char *bundle, struct kvfile *m)
{
	char *path = gm_path_join(bundle, "manifest");
	kvfile_release(m);
	kvfile_init(m);
	if (kvfile_read(m, path)) {
		gm_error_clear();
	}
	free(path);
}

static char *const argv_prog[] = { "./prog", "-s", "a b", NULL };

static int finalize(const char *final, struct gm_thread_count *threads,
		    size_t nr, uint64_t events, int sig, int force,
		    struct bundle_result *res, char **tmp_out, uint64_t state,
		    uint64_t counted, uint64_t blob_failures)
{
	struct bundle_found f = { 0 };
	struct bundle_run run = { 0 };
	char *tmp;
	int ret;

	if (bundle_prepare(final, force, &tmp)) {
		return -2;
	}
	write_counts(tmp, 100, counted, state, blob_failures);
	/* per-process stream directories, as LTTng names them */
	for (size_t i = 0; i < nr; i++) {
		char *s = gm_xasprintf("%s/ctf/ust/pid/my-prog-%u-20260101-000000",
				       tmp, threads[i].pid);
		gm_mkdir_p(s, 0755);
		free(s);
	}
	f.threads = threads;
	f.nr_threads = nr;
	f.events = events;
	f.foreign_pruned = foreign_pruned;
	run.argv = argv_prog;
	run.tool_version = "gpumix test";
	run.started = 1;
	run.signal = sig;
	run.start_ns = 1000000000;
	run.end_ns = 3500000000ull;
	ret = bundle_finalize(tmp, final, force, &run, &f, res);
	*tmp_out = tmp;
	return ret;
}

int main(void)
{
	struct gm_thread_count good[1] = { { 100, 100, 50 } };
	struct gm_thread_count extra[2] = { { 100, 100, 50 }, { 200, 200, 5 } };
	struct bundle_result res;
	struct kvfile m = KVFILE_INIT;
	char *final, *tmp = NULL, *path;

	snprintf(dir, sizeof(dir), "%s/gpumix-bundle.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "scratch directory");
		return test_done();
	}
	final = gm_xasprintf("%s/traces/prog", dir);

	/* A good capture. */
	CHECK_INT(finalize(final, good, 1, 50, 0, 0, &res, &tmp, GM_STATE_EXITED,
			   50, 0), 0, "a good capture is finalised");
	CHECK(res.complete && res.losses == 0, "... complete, no losses");
	CHECK(gm_is_dir(final) && !gm_path_exists(tmp),
	      "... renamed into place, no temporary left");
	read_manifest(final, &m);
	CHECK_STR(mget(&m, "format"), GM_BUNDLE_FORMAT, "manifest: format");
	CHECK_STR(mget(&m, "complete"), "yes", "manifest: complete");
	CHECK_STR(mget(&m, "losses"), "0", "manifest: losses");
	CHECK_STR(mget(&m, "command"), "./prog -s 'a b'", "manifest: command, quoted");
	CHECK_STR(mget(&m, "argv.2"), "a b", "manifest: exact arguments");
	CHECK_STR(mget(&m, "program"), "prog", "manifest: program");
	CHECK_STR(mget(&m, "capture.seconds"), "2.500", "manifest: duration");
	CHECK_STR(mget(&m, "calls.cuMemAlloc_v2"), "3", "manifest: recorded calls by name");
	CHECK_STR(mget(&m, "ignored.cuDeviceGetAttribute"), "7",
		  "manifest: ignored calls by name");
	CHECK_STR(mget(&m, "unsupported.driver_cbid_999"), "1",
		  "manifest: unsupported calls by id when unnamed");
	CHECK_STR(mget(&m, "runtime.runtime_cbid_20"), "4", "manifest: runtime calls");
	path = gm_path_join(final, "manifest.reserve");
	CHECK(!gm_path_exists(path), "the space reserve is gone");
	free(path);
	path = gm_path_join(final, "api-table");
	CHECK(gm_path_exists(path), "the API table is in the bundle");
	free(path);
	bundle_result_release(&res);
	free(tmp);

	/* Refuse an existing bundle. */
	CHECK(bundle_prepare(final, 0, &tmp) != 0, "an existing bundle is refused");
	CHECK(strstr(gm_error_message(), "already exists") != NULL,
	      "... 'already exists'");
	gm_error_clear();

	/*
	 * Missing events, killed program, a forked child that could not
	 * create its counter file, and the events of a process with no
	 * counter file here: another capture's (running beside this one).
	 */
	children_lost = 1;
	CHECK_INT(finalize(final, extra, 2, 55, 9, 1, &res, &tmp, GM_STATE_RUNNING,
			   60, 2), 0, "a bad capture is still finalised (--force)");
	children_lost = 0;
	CHECK(!res.complete, "... incomplete");
	CHECK_INT(res.losses, 10 + 2 + 1, "... losses: 10 missing + 2 blob "
		  "failures + 1 child without counters (the other capture's "
		  "process is none)");
	read_manifest(final, &m);
	CHECK_STR(mget(&m, "complete"), "no", "manifest: complete = no");
	CHECK(strstr(mget(&m, "incomplete"), "killed by signal 9") != NULL,
	      "manifest: why incomplete (signal)");
	CHECK(strstr(mget(&m, "incomplete"), "process 100 did not exit normally") != NULL,
	      "manifest: why incomplete (process state)");
	CHECK(strstr(mget(&m, "losses.summary"),
		     "thread 100 emitted 60 events, the trace has 50") != NULL,
	      "manifest: the missing events, by thread");
	CHECK(strstr(mget(&m, "losses.summary"), "1 forked process could not "
		     "create its counter file") != NULL,
	      "manifest: a child without its counter file");
	CHECK(strstr(mget(&m, "losses.summary"), "process 200") == NULL,
	      "manifest: another capture's process is no loss");
	CHECK_STR(mget(&m, "foreign.processes"), "1", "manifest: foreign.processes");
	CHECK_STR(mget(&m, "foreign.events"), "5", "manifest: foreign.events");
	CHECK_STR(mget(&m, "events.found"), "50", "manifest: events.found are ours");
	path = gm_path_join(final, "ctf/ust/pid");
	char *mine = gm_path_join(path, "my-prog-100-20260101-000000");
	char *theirs = gm_path_join(path, "my-prog-200-20260101-000000");
	CHECK(gm_is_dir(mine) && !gm_path_exists(theirs),
	      "the other capture's streams left the bundle, ours stayed");
	free(mine);
	free(theirs);
	free(path);
	CHECK(strstr(mget(&m, "losses.summary"), "2 payloads that could not be "
		     "stored") != NULL, "manifest: library losses in words");
	CHECK_STR(mget(&m, "events.missing"), "10", "manifest: events.missing");
	CHECK_STR(mget(&m, "loss.blob_failures"), "2", "manifest: loss.blob_failures");
	CHECK_STR(mget(&m, "exit"), "signal 9", "manifest: exit by signal");
	bundle_result_release(&res);
	free(tmp);

	/* A process that died inside its exit handlers says so. */
	CHECK_INT(finalize(final, good, 1, 50, 0, 1, &res, &tmp, GM_STATE_EXITING,
			   50, 0), 0, "a process stopped while exiting: finalised");
	CHECK(!res.complete, "... incomplete");
	read_manifest(final, &m);
	CHECK(strstr(mget(&m, "incomplete"), "process 100 did not exit normally "
		     "(it stopped inside its exit handlers)") != NULL,
	      "manifest: it stopped inside its exit handlers");
	bundle_result_release(&res);
	free(tmp);

	/* Other captures' streams removed before a second reading (the first
	 * could not read the trace): those without a counter file go. */
	{
		char *b = gm_path_join(dir, "prune");
		static const char *const streams[] = {
			"my-prog-100-20260101-000000",	/* ours: procs/100.counts */
			"other-300-20260101-000000",	/* another capture's */
			"a-b-c-400-20260101-000000",	/* NAME with dashes */
			"odd",				/* no PID: left alone */
		};
		static const int stays[] = { 1, 0, 0, 1 };
		uint64_t n = 1;

		gm_mkdir_p(b, 0755);
		path = gm_path_join(b, "procs");
		gm_mkdir_p(path, 0755);
		free(path);
		write_counts(b, 100, 50, GM_STATE_EXITED, 0);
		for (size_t i = 0; i < 4; i++) {
			path = gm_xasprintf("%s/ctf/ust/pid/%s", b, streams[i]);
			gm_mkdir_p(path, 0755);
			free(path);
		}
		CHECK_INT(bundle_prune_foreign(b, &n), 0, "prune another capture's streams");
		CHECK_INT(n, 3, "... two processes added to the count");
		for (size_t i = 0; i < 4; i++) {
			path = gm_xasprintf("%s/ctf/ust/pid/%s", b, streams[i]);
			CHECK_INT(gm_is_dir(path), stays[i], streams[i]);
			free(path);
		}
		free(b);
	}
	foreign_pruned = 2;
	CHECK_INT(finalize(final, good, 1, 50, 0, 1, &res, &tmp, GM_STATE_EXITED,
			   50, 0), 0, "finalised after pruning two processes");
	read_manifest(final, &m);
	CHECK_STR(mget(&m, "foreign.processes"), "2",
		  "manifest: the pruned processes are foreign.processes");
	CHECK_STR(mget(&m, "complete"), "yes", "... and the bundle is complete");
	bundle_result_release(&res);
	free(tmp);
	foreign_pruned = 0;

	/* A bundle that appears under the final name during the capture. */
	gm_remove_tree(final);
	{
		struct bundle_found f = { 0 };
		struct bundle_run run = { 0 };
		char *t2;
		run.argv = argv_prog;
		run.started = 1;
		CHECK_INT(bundle_prepare(final, 0, &t2), 0, "prepare");
		mkdir(final, 0755);
		CHECK_INT(bundle_finalize(t2, final, 0, &run, &f, &res), -1,
			  "a bundle that appeared meanwhile is not overwritten");
		CHECK(gm_is_dir(t2) && res.path && !strcmp(res.path, t2),
		      "... the capture stays in its temporary directory");
		gm_error_clear();
		bundle_result_release(&res);
		gm_remove_tree(t2);
		free(t2);
	}

	/* A full disk: the reserve lets the manifest be written. */
	{
		char *mnt = gm_path_join(dir, "full"), cmd[512], *b;
		mkdir(mnt, 0755);
		snprintf(cmd, sizeof(cmd),
			 "mount -t tmpfs -o size=3m tmpfs '%s' 2>/dev/null", mnt);
		if (system(cmd) != 0) {
			test_skip("cannot mount a small tmpfs (needs root)");
		} else {
			struct bundle_found f = { 0 };
			struct bundle_run run = { 0 };
			char *t3, *junk;
			int fd;
			b = gm_path_join(mnt, "b");
			run.argv = argv_prog;
			run.started = 1;
			CHECK_INT(bundle_prepare(b, 0, &t3), 0, "prepare on a small disk");
			write_counts(t3, 100, 0, GM_STATE_EXITED, 0);
			junk = gm_path_join(mnt, "junk");
			fd = open(junk, O_WRONLY | O_CREAT, 0644);
			{
				char blk[65536] = { 0 };
				while (write(fd, blk, sizeof(blk)) > 0) {
				}
			}
			close(fd);
			CHECK_INT(bundle_finalize(t3, b, 0, &run, &f, &res), 0,
				  "a full disk still gets its manifest written");
			read_manifest(b, &m);
			CHECK_STR(mget(&m, "format"), GM_BUNDLE_FORMAT,
				  "... and the manifest is whole");
			bundle_result_release(&res);
			unlink(junk);
			free(junk);
			free(t3);
			free(b);
			snprintf(cmd, sizeof(cmd), "umount '%s'", mnt);
			if (system(cmd) != 0) {
				printf("# could not unmount %s\n", mnt);
			}
		}
		free(mnt);
	}
	kvfile_release(&m);
	free(final);
	gm_remove_tree(dir);
	return test_done();
}
