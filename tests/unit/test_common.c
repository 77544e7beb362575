/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for common/: error causes, strbuf, kvfile round trips and
 * parse errors, atomic writes, hashes, the PATH search, the clock, file
 * locks, temporary names and their leftovers, calls in a child process.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "child_call.h"
#include "clock.h"
#include "error.h"
#include "file_lock.h"
#include "fs.h"
#include "hash.h"
#include "instance_name.h"
#include "kvfile.h"
#include "replay_opts.h"
#include "strbuf.h"
#include "test.h"
#include "tmp_name.h"

static void test_errors(void)
{
	gm_error_clear();
	CHECK_INT(gm_error("inner %d", 1), -1, "gm_error returns -1");
	gm_error("outer");
	CHECK_STR(gm_error_message(), "outer", "newest message is the headline");
	CHECK_STR(gm_error_cause(1), "inner 1", "older message is a cause");
	CHECK(gm_error_cause(2) == NULL, "no third cause");
	for (int i = 0; i < 20; i++) {
		gm_error("m%d", i);
	}
	CHECK_INT(gm_error_count(), GM_ERROR_MAX_CAUSES, "stack is bounded");
	CHECK_STR(gm_error_message(), "m19", "newest kept when full");
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	gm_error_hint("try again");
	gm_error_report(f);
	fclose(f);
	CHECK(strstr(buf, "error: m19\n") == buf, "report starts with headline");
	CHECK(strstr(buf, "  caused by: m18\n") != NULL, "report lists causes");
	CHECK(strstr(buf, "hint: try again\n") != NULL, "report prints hint");
	CHECK(strstr(buf, "older causes not shown") != NULL,
	      "report says causes were dropped");
	CHECK_INT(gm_error_count(), 0, "report clears");
}

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 1000; i++) {
		strbuf_addf(&sb, "%d,", i);
	}
	CHECK_INT(sb.len, 3890, "strbuf grows through many appends");
	CHECK(!strncmp(sb.buf + sb.len - 4, "999,", 4), "last append intact");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "x  \n");
	strbuf_rtrim(&sb);
	CHECK_STR(sb.buf, "x", "rtrim");
	strbuf_release(&sb);
	CHECK_STR(sb.buf, "", "released buffer is empty");
	strbuf_add_shell_word(&sb, "build/gpumix");
	strbuf_addch(&sb, ' ');
	strbuf_add_shell_word(&sb, "it's a $dir");
	strbuf_addch(&sb, ' ');
	strbuf_add_shell_word(&sb, "");
	CHECK_STR(sb.buf, "build/gpumix 'it'\\''s a $dir' ''",
		  "shell words: plain when safe, else single-quoted");
	strbuf_release(&sb);
}

static void test_kvfile(const char *dir)
{
	struct kvfile kv = KVFILE_INIT, back = KVFILE_INIT;
	char *path = gm_path_join(dir, "manifest");

	kvfile_set(&kv, "format", "gpumix-test 1");
	kvfile_set(&kv, "command", "./a \"b c\"\nline2\\tab\t");
	kvfile_set_u64(&kv, "events", 18446744073709551615ULL);
	kvfile_set(&kv, "empty", "");
	kvfile_set(&kv, "events", "42");
	CHECK_INT(kv.nr, 4, "set replaces an existing key");
	CHECK_INT(kvfile_write(&kv, path, "test manifest"), 0, "kvfile_write");
	CHECK_INT(kvfile_read(&back, path), 0, "kvfile_read");
	CHECK_STR(kvfile_get(&back, "command"), "./a \"b c\"\nline2\\tab\t",
		  "escaped value round-trips");
	CHECK_STR(kvfile_get(&back, "empty"), "", "empty value round-trips");
	uint64_t n = 0;
	CHECK_INT(kvfile_get_u64(&back, "events", &n, "m"), 0, "get_u64");
	CHECK_INT(n, 42, "u64 value");
	gm_error_clear();
	CHECK_INT(kvfile_get_u64(&back, "format", &n, "m"), -1,
		  "get_u64 rejects text");
	CHECK_STR(gm_error_message(),
		  "m: key 'format' is not an unsigned integer: 'gpumix-test 1'",
		  "get_u64 error names key and value");
	gm_error_clear();
	CHECK_INT(kvfile_get_u64(&back, "nope", &n, "m"), -1, "missing key");
	CHECK_STR(gm_error_message(), "m: missing key 'nope'", "missing key error");
	gm_error_clear();
	/* Not a regular file: refused, nothing read or kept (LSan checks). */
	struct kvfile none = KVFILE_INIT;
	CHECK_INT(kvfile_read(&none, dir), -1, "kvfile_read of a directory fails");
	CHECK(strstr(gm_error_message(), "is not a regular file (a directory)") != NULL,
	      "... saying it is a directory");
	CHECK_INT(none.nr, 0, "... and reads nothing");
	gm_error_clear();

	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "a = 1\nb = 2", "t:2: truncated line (no newline at end of file)" },
		{ "a 1\n", "t:1: expected 'key = value'" },
		{ "a = 1\na = 2\n", "t:2: duplicate key 'a'" },
		{ "a = x\\q\n", "t:1: unknown escape '\\q'" },
		{ "a = x\\\n", "t:1: dangling backslash" },
		{ "# c\n\nk/x = 1\n", "t:3: expected 'key = value'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kvfile t = KVFILE_INIT;
		gm_error_clear();
		int r = kvfile_parse(&t, bad[i].text, strlen(bad[i].text), "t");
		CHECK_INT(r, -1, "bad manifest is rejected");
		CHECK_STR(gm_error_message(), bad[i].err, "exact parse error");
		kvfile_release(&t);
	}
	gm_error_clear();
	kvfile_release(&kv);
	kvfile_release(&back);
	free(path);
}

/*
 * Manifests at the key limit parse, every key found, in time linear in
 * their size, and one key more is refused by name: the parse that looked
 * each key up in a list of the keys so far took 74 s for 100,000 keys and
 * would take hours here. A child under a CPU-time limit (not wall-clock
 * time: a loaded machine does not change it) does the parsing and says
 * by its exit status what it found.
 */
static int kvfile_limits_child(struct strbuf *text)
{
	struct rlimit cpu = { 120, 120 };
	struct kvfile kv = KVFILE_INIT;

	setrlimit(RLIMIT_CPU, &cpu);
	if (kvfile_parse(&kv, text->buf, text->len, "m")) {
		return 2;
	}
	for (int i = 0; i < KVFILE_MAX_KEYS; i += 1009) {
		char key[32], want[16];
		snprintf(key, sizeof(key), "key.%d", i);
		snprintf(want, sizeof(want), "%d", i);
		if (!kvfile_get(&kv, key) || strcmp(kvfile_get(&kv, key), want)) {
			return 3;
		}
	}
	if (kv.nr != KVFILE_MAX_KEYS) {
		return 4;
	}
	kvfile_release(&kv);
	strbuf_addf(text, "one.more = 1\n");
	if (!kvfile_parse(&kv, text->buf, text->len, "m")) {
		return 5;
	}
	if (strcmp(gm_error_message(), "m:1000001: more than 1000000 keys, "
		   "the limit for a manifest")) {
		return 6;
	}
	kvfile_release(&kv);
	return 0;
}

static void test_kvfile_limits(void)
{
	struct strbuf text = STRBUF_INIT;
	pid_t pid;
	int st = 0;

	for (int i = 0; i < KVFILE_MAX_KEYS; i++) {
		strbuf_addf(&text, "key.%d = %d\n", i, i);
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		_exit(kvfile_limits_child(&text));
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "1,000,000 keys parse, each found, one more refused by name, "
	      "all in under 120 s of CPU");
	if (WIFSIGNALED(st)) {
		printf("#   killed by signal %d (SIGXCPU: the parse is not linear)\n",
		       WTERMSIG(st));
	} else if (WEXITSTATUS(st)) {
		printf("#   step %d failed (2 parse, 3 lookup, 4 count, 5 limit, "
		       "6 message)\n", WEXITSTATUS(st));
	}
	strbuf_release(&text);
}

static void test_atomic(const char *dir)
{
	char *path = gm_path_join(dir, "out");
	struct atomic_file af;

	CHECK_INT(gm_write_file_atomic(path, "one", 3, 0), 0, "first write");
	gm_error_clear();
	CHECK_INT(gm_write_file_atomic(path, "two", 3, 0), -1,
		  "no overwrite without force");
	struct strbuf sb = STRBUF_INIT;
	gm_read_file(path, &sb);
	CHECK_STR(sb.buf, "one", "old content kept");
	CHECK_INT(atomic_file_open(&af, path, 1), 0, "open with force");
	atomic_file_write(&af, "partial", 7);
	atomic_file_abort(&af);
	strbuf_reset(&sb);
	gm_read_file(path, &sb);
	CHECK_STR(sb.buf, "one", "aborted write leaves the final name untouched");

	/* A full disk: /dev/full fails every write. */
	if (gm_path_exists("/dev/full")) {
		CHECK_INT(atomic_file_open(&af, path, 1), 0, "open again");
		int fd = open("/dev/full", O_WRONLY);
		dup2(fd, af.fd);
		close(fd);
		gm_error_clear();
		CHECK_INT(atomic_file_write(&af, "x", 1), -1, "write to full disk fails");
		CHECK_INT(atomic_file_commit(&af), -1, "commit refuses after failure");
		strbuf_reset(&sb);
		gm_read_file(path, &sb);
		CHECK_STR(sb.buf, "one", "full disk leaves the old file");
	}
	/* What a killed writer left: removed; lookalikes are not. */
	struct atomic_file dead;
	CHECK_INT(atomic_file_open(&dead, path, 1), 0, "a writer that will die");
	close(dead.fd);		/* (it dies: no commit, no abort) */
	char *other = gm_path_join(dir, "out.tmp.notours");
	char *near = gm_path_join(dir, "outx.tmp.ABCDEF");
	gm_write_file_atomic(other, "o", 1, 1);
	gm_write_file_atomic(near, "n", 1, 1);
	CHECK_INT(atomic_file_remove_stale(path), 1, "its temporary file is removed");
	CHECK(!gm_path_exists(dead.tmp_path), "... gone");
	CHECK(gm_path_exists(other) && gm_path_exists(near),
	      "... names that only look alike stay");
	CHECK(gm_path_exists(path), "... and the file itself stays");
	CHECK_INT(atomic_file_remove_stale(path), 0, "nothing left the second time");
	free(dead.path);
	free(dead.tmp_path);
	unlink(other);
	unlink(near);
	free(other);
	free(near);
	strbuf_release(&sb);
	gm_error_clear();
	free(path);
}

static void test_hash(void)
{
	char hex[GM_HASH_HEX_LEN + 1];
	struct gm_hash a = gm_hash_bytes("hello", 5), b;

	gm_hash_hex(a, hex);
	CHECK_INT(strlen(hex), 32, "hex is 32 digits");
	CHECK_INT(gm_hash_parse(hex, &b), 0, "hex parses");
	CHECK(a.hi == b.hi && a.lo == b.lo, "hex round-trips");
	struct gm_hasher *h = gm_hasher_new();
	gm_hasher_update(h, "hel", 3);
	gm_hasher_update(h, "lo", 2);
	b = gm_hasher_final(h);
	gm_hasher_free(h);
	CHECK(a.hi == b.hi && a.lo == b.lo, "incremental equals one-shot");
	b = gm_hash_bytes("hellp", 5);
	CHECK(a.hi != b.hi || a.lo != b.lo, "different input, different hash");
	CHECK_INT(gm_hash_parse("xyz", &b), -1, "bad hex rejected");
}

/* gm_path_search(): the shell's rules, relative entries from a directory. */
static void test_path_search(const char *dir)
{
	char *bin = gm_path_join(dir, "bin"), *prog = gm_path_join(bin, "gm-tool");
	char *sub = gm_path_join(dir, "bin/gm-dir"), *path, *found;
	const char *old = getenv("PATH");
	char *saved = old ? gm_xstrdup(old) : NULL;

	gm_mkdir_p(sub, 0755);
	close(open(prog, O_CREAT | O_WRONLY, 0755));
	path = gm_xasprintf("/nonexistent::%s", bin);
	setenv("PATH", path, 1);
	found = gm_path_search("gm-tool", NULL);
	CHECK_STR(found, prog, "found after an empty and a missing entry");
	free(found);
	CHECK(gm_program_exists("gm-tool"), "... and exists");
	CHECK(!gm_path_search("gm-dir", NULL), "a directory is not a program");
	chmod(prog, 0644);
	CHECK(!gm_path_search("gm-tool", NULL), "nor a file without x");
	chmod(prog, 0755);
	setenv("PATH", "bin", 1);
	found = gm_path_search("gm-tool", dir);
	CHECK_STR(found, prog, "relative entries from the given directory");
	free(found);
	if (saved) {
		setenv("PATH", saved, 1);
	}
	free(saved);
	free(path);
	free(sub);
	free(prog);
	free(bin);
}

/*
 * File locks: flock(2) locks of separate opens conflict within one
 * process too, so two takers here behave as two processes would.
 */
static void test_file_lock(const char *dir)
{
	char *db = gm_path_join(dir, "x.db"), *name = gm_file_lock_path(db);
	char *want = gm_path_join(dir, "x.db.lock");
	struct gm_file_lock a = GM_FILE_LOCK_INIT, b = GM_FILE_LOCK_INIT;
	struct gm_file_lock c = GM_FILE_LOCK_INIT;
	struct gm_file_lock_wait nowait = { 0, NULL, NULL };

	CHECK_STR(name, want, "the lock of PATH is PATH.lock");
	free(want);
	CHECK_INT(gm_file_lock_take(&a, db, 0, &nowait), 0, "exclusive: taken");
	CHECK(gm_path_exists(name), "... its file exists while held");
	CHECK_INT(gm_file_lock_take(&b, db, 0, &nowait), 1,
		  "... a second taker finds it busy");
	CHECK_INT(gm_file_lock_take(&b, db, GM_FILE_LOCK_SHARED, NULL), 1,
		  "... a shared taker too");
	CHECK_INT(b.fd, -1, "... and holds nothing");
	gm_file_lock_release(&a);
	CHECK(!gm_path_exists(name), "released: its file is removed");
	CHECK_INT(gm_file_lock_take(&b, db, 0, &nowait), 0, "... and it can be taken again");
	gm_file_lock_release(&b);

	/* A file left by a killed holder is no obstacle. */
	close(open(name, O_CREAT | O_WRONLY, 0644));
	CHECK_INT(gm_file_lock_take(&a, db, 0, &nowait), 0,
		  "a crashed holder's file: taken");
	gm_file_lock_release(&a);

	CHECK_INT(gm_file_lock_take(&a, db, GM_FILE_LOCK_SHARED, NULL), 0,
		  "shared: taken");
	CHECK_INT(gm_file_lock_take(&b, db, GM_FILE_LOCK_SHARED, NULL), 0,
		  "... by two");
	CHECK_INT(gm_file_lock_take(&c, db, 0, &nowait), 1,
		  "... not exclusively meanwhile");
	gm_file_lock_release(&a);
	CHECK(gm_path_exists(name), "... a shared lock keeps its file");
	gm_file_lock_release(&b);
	unlink(name);

	CHECK_INT(gm_file_lock_take(&a, db, GM_FILE_LOCK_KEEP, NULL), 0,
		  "kept: taken");
	gm_file_lock_release(&a);
	CHECK(gm_path_exists(name), "... its file stays");
	unlink(name);

	free(name);
	name = gm_path_join(dir, "no/such/dir/x.db");
	CHECK_INT(gm_file_lock_take(&a, name, 0, NULL), -1,
		  "a lock that cannot be created: an error");
	CHECK(strstr(gm_error_message(), "cannot create the lock") &&
	      strstr(gm_error_message(), "x.db.lock"),
	      "... naming the lock file");
	gm_error_clear();
	free(name);
	free(db);
}

/* A PID that no process has: a child's, once it has been waited for. */
static long dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return (long)pid;
}

static void touch(const char *dir, const char *name)
{
	char *p = gm_path_join(dir, name);

	close(open(p, O_CREAT | O_WRONLY, 0644));
	free(p);
}

static int there(const char *dir, const char *name)
{
	char *p = gm_path_join(dir, name);
	int r = gm_path_exists(p);

	free(p);
	return r;
}

/* Leftovers of killed writers: only gpumix's own names, only the dead. */
static void test_tmp_name(const char *dir)
{
	char *sub = gm_path_join(dir, "left"), *out = gm_path_join(sub, "out");
	char *mine = gm_tmp_name(out, "tmp"), *name, *p;
	long dead = dead_pid();
	const char *kept[] = { "out.tmp-", "out.tmp-12a", "out.tmpx-5",
			       "out.old-5-journal", "outx.tmp-5", "out",
			       "out.tmp-notes", "out.tmp.123456" };

	gm_mkdir_p(sub, 0755);
	p = gm_xasprintf("%s/out.tmp-%ld", sub, (long)getpid());
	CHECK_STR(mine, p, "the temporary name is PATH.tmp-PID");
	free(p);
	touch(sub, "out.tmp-1");	/* init's: alive */
	name = gm_xasprintf("out.tmp-%ld", dead);
	p = gm_path_join(sub, name);
	gm_mkdir_p(p, 0755);		/* a directory, with a file in it */
	touch(p, "manifest");
	free(p);
	free(name);
	name = gm_xasprintf("out.old-%ld", dead);
	touch(sub, name);
	free(name);
	name = gm_xasprintf("out.tmp-%ld-journal", dead);
	touch(sub, name);
	free(name);
	touch(sub, strrchr(mine, '/') + 1);	/* this process's */
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		touch(sub, kept[i]);
	}
	CHECK_INT(gm_tmp_remove_stale(out, GM_TMP_DEAD), 3,
		  "dead: a dead writer's tmp directory, old file and journal go");
	name = gm_xasprintf("out.tmp-%ld", dead);
	CHECK(!there(sub, name), "... the directory and what is in it");
	free(name);
	CHECK(there(sub, "out.tmp-1"), "... a live process's stays");
	CHECK(gm_path_exists(mine), "... and this process's");
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		p = gm_xasprintf("... a file not of that name stays: %s", kept[i]);
		CHECK(there(sub, kept[i]), p);
		free(p);
	}
	CHECK_INT(gm_tmp_remove_stale(out, GM_TMP_ANY), 1,
		  "any (under a lock): a live process's goes too");
	CHECK(!there(sub, "out.tmp-1") && gm_path_exists(mine),
	      "... but not this process's");
	CHECK(there(sub, "out.tmp-12a"), "... nor other names");
	p = gm_path_join(dir, "no-such-dir/out");
	CHECK_INT(gm_tmp_remove_stale(p, GM_TMP_ANY), 0,
		  "no directory: nothing to remove");
	free(p);
	gm_remove_tree(sub);
	free(mine);
	free(out);
	free(sub);
}

static void test_instance_names(void)
{
	const char *wl[] = { "lbm", "mm", "lbm", "lbm" };
	const char *odd[] = { "lbm", "lbm#1", "lbm" };
	char **n = gm_instance_names(wl, 4);

	CHECK_STR(n[0], "lbm#1", "copies are numbered from 1");
	CHECK_STR(n[1], "mm", "a program that appears once keeps its name");
	CHECK_STR(n[2], "lbm#2", "in the order they appear");
	CHECK_STR(n[3], "lbm#3", "... to N");
	CHECK(n[4] == NULL, "the array ends with NULL");
	for (size_t i = 0; i < 4; i++) {
		free(n[i]);
	}
	free(n);
	n = gm_instance_names(odd, 3);
	CHECK_STR(n[1], "lbm#1-2", "a program literally called lbm#1 is "
		  "made unique");
	CHECK(strcmp(n[0], n[2]) && strcmp(n[0], n[1]) && strcmp(n[1], n[2]),
	      "... every name differs");
	for (size_t i = 0; i < 3; i++) {
		free(n[i]);
	}
	free(n);
	{
		const char *a[] = { "lbm#1", "lbm#2", "lbm#3", "mm" };
		const char *b[] = { "lbm#1", "mm", "lbm#2" };
		const char *c[] = { "a", "b#2", "b#3", "b#5", "b#6-2" };
		char *w = gm_workload_name(a, 4);
		CHECK_STR(w, "lbm#1-3+mm", "copies in a row are written once");
		free(w);
		w = gm_workload_name(b, 3);
		CHECK_STR(w, "lbm#1+mm+lbm#2", "copies apart are not");
		free(w);
		w = gm_workload_name(c, 5);
		CHECK_STR(w, "a+b#2-3+b#5+b#6-2", "only consecutive numbers");
		free(w);
		w = gm_workload_name(a + 3, 1);
		CHECK_STR(w, "mm", "one program");
		free(w);
	}
	CHECK(gm_instance_of("lbm#3", "lbm"), "lbm#3 is an instance of lbm");
	CHECK(gm_instance_of("lbm#12", "lbm"), "... lbm#12 too");
	CHECK(gm_instance_of("lbm", "lbm"), "... and lbm itself");
	CHECK(!gm_instance_of("lbm#0", "lbm"), "instances count from 1");
	CHECK(!gm_instance_of("lbm#01", "lbm"), "no leading zero");
	CHECK(!gm_instance_of("lbm#", "lbm"), "a number is needed");
	CHECK(!gm_instance_of("lbm#2x", "lbm"), "only a number");
	CHECK(!gm_instance_of("lbm2", "lbm"), "lbm2 is another program");
	CHECK(!gm_instance_of("lb#1", "lbm"), "lb#1 is not lbm's");
	CHECK_INT(gm_mps_threads_for("lbm=40,mm=60", "lbm#2"), 40,
		  "--mps-threads: a copy takes its program's percentage");
	CHECK_INT(gm_mps_threads_for("lbm=40,lbm#2=20", "lbm#2"), 20,
		  "... unless named exactly");
	CHECK_INT(gm_mps_threads_for("lbm=40", "lbm2"), 0,
		  "... and another program none");
}

static int child_prints(void *ctx)
{
	fprintf(stderr, "to stderr %s\n", (const char *)ctx);
	printf("to stdout\n");	/* flushed as the child exits */
	return 0;
}

static int child_fails(void *ctx)
{
	(void)ctx;
	return -1;
}

static int child_aborts(void *ctx)
{
	(void)ctx;
	/* a handler of the parent's must not catch it in the child */
	fprintf(stderr, "last words\n");
	abort();
}

static int child_big_output(void *ctx)
{
	(void)ctx;
	for (int i = 0; i < 100000; i++) {
		printf("line %d\n", i);
	}
	fflush(stdout);
	return 0;
}

static int child_interrupted(void *ctx)
{
	(void)ctx;
	raise(SIGINT);
	return 0;
}

static int child_changes(void *ctx)
{
	*(int *)ctx = 42;
	return 0;
}

static void on_abort(int sig)
{
	(void)sig;
	_exit(99);
}

static void test_child_call(void)
{
	struct strbuf out = STRBUF_INIT;
	struct sigaction sa, old;
	int st, x = 1;

	st = gm_call_in_child(child_prints, "hello", &out);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a call that returns 0: the child exits 0");
	CHECK(strstr(out.buf, "to stderr hello\n") &&
	      strstr(out.buf, "to stdout\n"), "its stdout and stderr are kept");
	CHECK(!gm_child_crashed(st), "... and it did not crash");
	strbuf_reset(&out);
	st = gm_call_in_child(child_fails, NULL, &out);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a failed call exits 1");
	CHECK_STR(gm_child_status(st), "exited with status 1", "... in words");
	st = gm_call_in_child(child_changes, &x, &out);
	CHECK(WIFEXITED(st) && x == 1, "what the child changes stays there");

	/* a fuzzer's or sanitizer's handler of this process */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_abort;
	sigaction(SIGABRT, &sa, &old);
	strbuf_reset(&out);
	st = gm_call_in_child(child_aborts, NULL, &out);
	sigaction(SIGABRT, &old, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
	      "an abort kills the child, whatever handler this process has");
	CHECK(gm_child_crashed(st), "... a crash");
	CHECK_STR(gm_child_status(st), "was killed by signal 6 (Aborted)",
		  "... in words");
	CHECK_STR(out.buf, "last words\n", "... its last words kept");

	strbuf_reset(&out);
	st = gm_call_in_child(child_big_output, NULL, &out);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a child printing far more than a pipe holds ends");
	CHECK_INT((int)out.len, GM_CHILD_OUTPUT_MAX, "... its last bytes kept");
	CHECK(out.len >= 12 && !strcmp(out.buf + out.len - 11, "line 99999\n"),
	      "... up to its very last");

	signal(SIGINT, SIG_IGN);
	st = gm_call_in_child(child_interrupted, NULL, &out);
	signal(SIGINT, SIG_DFL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT && !gm_child_crashed(st),
	      "SIGINT ends the child (ignored here), and is no crash");
	strbuf_release(&out);
}

int main(void)
{
	char tmpl[] = "/tmp/gpumix-unit.XXXXXX";
	char *dir = mkdtemp(tmpl);

	test_errors();
	test_strbuf();
	test_kvfile(dir);
	test_kvfile_limits();
	test_atomic(dir);
	test_hash();
	test_path_search(dir);
	test_file_lock(dir);
	test_tmp_name(dir);
	test_instance_names();
	test_child_call();
	{
		double t0 = gm_now_s();
		uint64_t n0 = gm_now_ns();
		usleep(2000);
		CHECK(gm_now_s() - t0 >= 0.002 && gm_now_ns() - n0 >= 2000000,
		      "the monotonic clock advances");
	}
	CHECK_INT(gm_mkdir_p("/tmp/gpumix-unit-x/a/b", 0755), 0, "mkdir -p");
	CHECK(gm_is_dir("/tmp/gpumix-unit-x/a/b"), "directory exists");
	CHECK_INT(gm_remove_tree("/tmp/gpumix-unit-x"), 0, "remove tree");
	CHECK(!gm_path_exists("/tmp/gpumix-unit-x"), "tree is gone");
	gm_remove_tree(dir);
	return test_done();
}
