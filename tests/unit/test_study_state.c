/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the study state: round trips through the file (records,
 * reasons with awkward characters, executable fingerprints), replacing
 * and forgetting records, malformed files, the lock, and the executable
 * fingerprint cache (size + mtime reuse the recorded hash, content
 * decides).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "study/study_exe_fingerprint.h"
#include "study/study_state.h"
#include "test.h"

static char dir[] = "/tmp/gpumix-state-XXXXXX";

static char *in_dir(const char *name)
{
	return gm_path_join(dir, name);
}

static void test_round_trip(void)
{
	struct study_state st, back;
	char *path = in_dir("state");

	CHECK_INT(study_state_load(&st, path, "demo"), 0, "a missing state is empty");
	CHECK_INT(st.nr, 0, "  no records");
	study_state_set(&st, "capture mm", "done", "k1", NULL, 1.5);
	study_state_set(&st, "replay mm+spmv.cuda", "hung",
			"k2", "watchdog:\tno progress\nin 'k' \\ 60 s", 61.25);
	study_state_set(&st, "report", "running", "k3", NULL, 0);
	study_state_set(&st, "report", "done", "k4", NULL, 2);
	study_state_set_exe(&st, "/bin/x y", 123, -5, "h1");
	CHECK_INT(st.nr, 3, "setting a record twice replaces it");
	CHECK_INT(study_state_save(&st), 0, "the state saves");
	study_state_release(&st);

	CHECK_INT(study_state_load(&back, path, "demo"), 0, "and loads back");
	CHECK_INT(back.nr, 3, "  three records");
	struct state_record *r = study_state_find(&back, "replay mm+spmv.cuda");
	CHECK(r != NULL, "  found by id");
	if (r) {
		CHECK_STR(r->status, "hung", "  status");
		CHECK_STR(r->key, "k2", "  input hash");
		CHECK_STR(r->reason, "watchdog:\tno progress\nin 'k' \\ 60 s",
			  "  a reason with tabs, newlines and backslashes");
		CHECK_NEAR(r->seconds, 61.25, 1e-9, "  seconds");
	}
	r = study_state_find(&back, "report");
	CHECK(r && !strcmp(r->key, "k4") && !r->reason, "the replaced record");
	CHECK(study_state_find(&back, "capture mm")->reason == NULL, "no reason");
	struct exe_record *e = study_state_exe(&back, "/bin/x y");
	CHECK(e && e->size == 123 && e->mtime_ns == -5 && !strcmp(e->hash, "h1"),
	      "an executable fingerprint round-trips (even a negative mtime)");
	study_state_forget(&back, "capture mm");
	study_state_forget(&back, "nothing");
	CHECK_INT(back.nr, 2, "forget removes one record");
	CHECK(study_state_find(&back, "capture mm") == NULL, "  that one");
	CHECK(study_state_find(&back, "report") != NULL, "  and keeps the others");
	study_state_release(&back);
	free(path);
}

static void expect_bad(const char *text, const char *want, const char *what)
{
	struct study_state st;
	char *path = in_dir("bad");

	gm_write_file_atomic(path, text, strlen(text), 1);
	gm_error_clear();
	CHECK_INT(study_state_load(&st, path, "demo"), -1, what);
	char *full = gm_xasprintf(want, path);
	CHECK_STR(gm_error_cause(1), full, "  the cause names the file");
	free(full);
	full = gm_xasprintf("cannot read the study state '%s'", path);
	CHECK_STR(gm_error_message(), full, "  the headline names the state");
	free(full);
	gm_error_clear();
	study_state_release(&st);
	free(path);
}

static void test_bad_files(void)
{
	expect_bad("format = something else\n",
		   "%s: not a study state file of format 'gpumix-study-state 1'",
		   "another format is refused");
	expect_bad("format = gpumix-study-state 1\nstage.0.id = capture a\n",
		   "%s: missing key 'stage.0.status'", "a record without status");
	expect_bad("format = gpumix-study-state 1\nstage.0.id = x\n"
		   "stage.0.status = done\nstage.0.key = k\n"
		   "stage.0.seconds = soon\n",
		   "%s: key 'stage.0.seconds' is not a number: 'soon'",
		   "a malformed duration");
	expect_bad("format = gpumix-study-state 1\nstage.0.id = x\n"
		   "stage.0.status = done\nstage.0.key = k\nstage.0.seconds = 1\n"
		   "stage.1.id = x\nstage.1.status = done\nstage.1.key = k\n"
		   "stage.1.seconds = 1\n",
		   "%s: stage 'x' is recorded twice", "a stage recorded twice");
	expect_bad("format = gpumix-study-state 1\ntruncated",
		   "%s:2: truncated line (no newline at end of file)",
		   "a truncated file");
}

static void test_lock(void)
{
	struct study_state a, b;
	char *path = in_dir("locked");

	study_state_load(&a, path, "demo");
	study_state_load(&b, path, "demo");
	CHECK_INT(study_state_lock(&a), 0, "the first study takes the lock");
	gm_error_clear();
	CHECK_INT(study_state_lock(&b), -1, "a second one cannot");
	char *want = gm_xasprintf("study 'demo' is already running (lock '%s.lock' "
				  "is held)", path);
	CHECK_STR(gm_error_message(), want, "  and says why");
	free(want);
	gm_error_clear();
	study_state_release(&a);
	CHECK_INT(study_state_lock(&b), 0, "released, it can be taken again");
	study_state_release(&b);
	free(path);
}

static void test_fingerprint(void)
{
	struct study_state st;
	char *exe = in_dir("prog"), *path = in_dir("fp-state");
	char h1[GM_HASH_HEX_LEN + 1], h2[GM_HASH_HEX_LEN + 1];
	char h3[GM_HASH_HEX_LEN + 1];

	gm_write_file_atomic(exe, "#!/bin/sh\n", 10, 1);
	chmod(exe, 0755);
	study_state_load(&st, path, "demo");
	char *found = study_exe_resolve("prog", dir);
	CHECK(found == NULL, "a bare name is looked up in PATH, not in cwd");
	gm_error_clear();
	free(found);
	found = study_exe_resolve("./prog", dir);
	CHECK_STR(found, exe, "a name with a slash is relative to cwd");
	free(found);
	found = study_exe_resolve("sh", "/");
	CHECK(found && found[0] == '/', "a bare name is found in PATH");
	free(found);
	gm_error_clear();
	found = study_exe_resolve("./missing", dir);
	CHECK(found == NULL, "a missing executable");
	char *want = gm_xasprintf("'./missing' is not an executable file (looked "
				  "for '%s/missing')", dir);
	CHECK_STR(gm_error_message(), want, "  is named with where it was looked for");
	free(want);
	gm_error_clear();

	CHECK_INT(study_exe_fingerprint(&st, exe, h1), 0, "a fingerprint");
	CHECK_INT(st.nr_exes, 1, "  is cached");
	/* Same size and mtime: the cached hash is reused, even if stale. */
	free(st.exes[0].hash);
	st.exes[0].hash = gm_xstrdup("cached");
	CHECK_INT(study_exe_fingerprint(&st, exe, h2), 0, "a second fingerprint");
	CHECK_STR(h2, "cached", "  reuses the cache while size and mtime match");
	gm_write_file_atomic(exe, "#!/bin/sh\n#\n", 12, 1);
	CHECK_INT(study_exe_fingerprint(&st, exe, h3), 0, "after a change");
	CHECK(strcmp(h3, h1) && strcmp(h3, "cached"), "  the content is hashed again");
	study_state_release(&st);
	free(exe);
	free(path);
}

/*
 * Task records: written beside the state without its lock, read in by
 * every load (a shared holder keeps the files), removed by the next save
 * of the exclusive holder; a half-written one (a task killed in its
 * write) is ignored, a malformed one is an error naming it.
 */
static void test_tasks(void)
{
	struct study_state st, task, back;
	char *path = in_dir("tstate"), *tdir = in_dir("tstate.tasks");

	CHECK_INT(study_state_load(&st, path, "demo"), 0, "an empty state");
	study_state_set(&st, "replay a.single", "ok", "old", NULL, 1);
	CHECK_INT(study_state_save(&st), 0, "  saved");
	study_state_release(&st);

	CHECK_INT(study_state_load(&task, path, "demo"), 0, "a task loads it");
	CHECK_INT(study_state_lock_shared(&task), 0, "  under the shared lock");
	CHECK_INT(study_state_write_task(&task, "replay a.single", "failed", "new",
					 "no GPU", 2.5), 0, "  writes a record");
	CHECK_INT(study_state_write_task(&task, "replay b/c.cuda", "ok", "k", NULL,
					 3), 0, "  and another (a '/' in the id)");
	struct study_state other;
	CHECK_INT(study_state_load(&other, path, "demo"), 0,
		  "a second task loads the state");
	CHECK_INT(study_state_lock_shared(&other), 0,
		  "  and shares the lock with the first");
	CHECK_INT(study_state_load(&back, path, "demo"), 0, "the study loads");
	CHECK_INT(study_state_lock(&back), -1,
		  "  the exclusive lock is refused meanwhile");
	gm_error_clear();
	study_state_release(&back);
	study_state_release(&other);
	study_state_release(&task);
	/* What a task killed in its write leaves. */
	char *tmp = gm_path_join(tdir, "replay_x.tmp.AbC123");
	gm_write_file_atomic(tmp, "format = gpu", 12, 1);

	CHECK_INT(study_state_load(&back, path, "demo"), 0, "the study loads");
	struct state_record *r = study_state_find(&back, "replay a.single");
	CHECK(r && !strcmp(r->status, "failed") && !strcmp(r->key, "new") &&
	      !strcmp(r->reason, "no GPU"), "  a task's record replaces the state's");
	r = study_state_find(&back, "replay b/c.cuda");
	CHECK(r && !strcmp(r->status, "ok") && !r->reason, "  and adds one");
	CHECK(study_state_find(&back, "replay x") == NULL,
	      "  a half-written record is ignored");
	CHECK_INT(study_state_save(&back), 0, "saved without the lock");
	char *f1 = gm_path_join(tdir, "replay_a.single");
	CHECK(gm_path_exists(f1), "  the task records stay (no lock: not ours)");
	CHECK_INT(study_state_lock(&back), 0, "the exclusive lock");
	CHECK_INT(study_state_save(&back), 0, "  saved");
	CHECK(!gm_path_exists(f1), "  the records read in are removed");
	CHECK(gm_path_exists(tmp), "  a record it did not read stays");
	study_state_release(&back);
	CHECK_INT(study_state_load(&back, path, "demo"), 0, "loaded again");
	r = study_state_find(&back, "replay a.single");
	CHECK(r && !strcmp(r->key, "new"), "  the records are in the state now");
	study_state_release(&back);

	char *bad = gm_path_join(tdir, "replay_bad");
	gm_write_file_atomic(bad, "format = gpumix-study-state 1\nid = x\n", 37, 1);
	gm_error_clear();
	CHECK_INT(study_state_load(&back, path, "demo"), -1,
		  "a task record without status is an error");
	const char *c1 = gm_error_cause(1);
	CHECK(strstr(gm_error_message(), "replay_bad") ||
	      (c1 && strstr(c1, "replay_bad")), "  naming it");
	study_state_release(&back);
	gm_error_clear();
	free(bad);
	free(f1);
	free(tmp);
	free(tdir);
	free(path);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	test_round_trip();
	test_bad_files();
	test_lock();
	test_fingerprint();
	test_tasks();
	gm_remove_tree(dir);
	return test_done();
}
