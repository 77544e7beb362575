/* SPDX-License-Identifier: MIT */
/*
 * The start barrier (common/start_barrier.h) and the co-run interposer
 * (libgpumix-corun.so) with stand-in programs (corun-standin) on the mock
 * CUDA driver, which loads the interposer at cuInit as CUDA does:
 *
 *   - the barrier: a slot counts once, a full house releases, a wait
 *     times out, a broken barrier lets its waiters go, bad files and
 *     slots are errors;
 *   - one program: its section lies between the stand-in's own marks
 *     around its GPU work, counts its GPU operations (not its
 *     allocations), names its first and last, and its stdout and exit
 *     status are what they are without the interposer;
 *   - two programs: the barrier holds the first until the second
 *     arrives (it is still waiting while the second is held back, and
 *     neither section starts before the last arrival);
 *   - a partner that never arrives: the section says timeout and names
 *     the missing slot; the command breaking the barrier: gave-up;
 *   - a program whose CUPTI subscriber is refused says why, and breaks
 *     the barrier so that its partner need not wait for the time limit.
 *
 * Nothing here is timed: the assertions are on what the processes did
 * and on the order of the times they wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "clock.h"
#include "corun/section.h"
#include "error.h"
#include "fs.h"
#include "start_barrier.h"
#include "strbuf.h"
#include "test.h"

static char *build;
static char *scratch;

struct prog {
	pid_t pid;
	char out_dir[1024];	/* GPUMIX_CORUN_OUT */
	char stdout_path[1024];	/* arrays: nothing to free (LSan) */
	int status;
};

/*
 * Start corun-standin with @args (NULL-terminated, after argv[0]) in a
 * program of its own: its sections go to a fresh directory @name, its
 * stdout to @name.out; @slot >= 0 puts it at the barrier in @barrier_dir;
 * @extra is one more NAME=VALUE for its environment (or NULL).
 */
static void start(struct prog *p, const char *name, int slot,
		  const char *barrier_dir, const char *timeout,
		  const char *extra, const char *const *args)
{
	char *exe = gm_xasprintf("%s/tests/corun-standin", build);
	char *lib = gm_xasprintf("%s/libgpumix-corun.so", build);

	snprintf(p->out_dir, sizeof(p->out_dir), "%s/%s", scratch, name);
	snprintf(p->stdout_path, sizeof(p->stdout_path), "%s/%s.out",
		 scratch, name);
	gm_mkdir_p(p->out_dir, 0755);
	fflush(NULL);
	p->pid = fork();
	if (!p->pid) {
		char slot_s[16];
		const char *argv[16] = { exe };
		int fd = open(p->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int n = 1;

		dup2(fd, 1);
		setenv("CUDA_INJECTION64_PATH", lib, 1);
		setenv(GM_CORUN_ENV_OUT, p->out_dir, 1);
		if (slot >= 0) {
			snprintf(slot_s, sizeof(slot_s), "%d", slot);
			setenv(GM_CORUN_ENV_SLOT, slot_s, 1);
			setenv(GM_CORUN_ENV_BARRIER, barrier_dir, 1);
		}
		if (timeout) {
			setenv(GM_CORUN_ENV_TIMEOUT, timeout, 1);
		}
		if (extra) {
			putenv((char *)extra);
		}
		for (int i = 0; args && args[i] && n < 15; i++) {
			argv[n++] = args[i];
		}
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	free(exe);
	free(lib);
}

static int finish(struct prog *p)
{
	while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR) {
	}
	return WIFEXITED(p->status) ? WEXITSTATUS(p->status) : 128;
}

/* The one section file in @p's directory (0), or -1. */
static int section_of(const struct prog *p, struct corun_section *s)
{
	char *path = gm_xasprintf("%s/section.%d", p->out_dir, (int)p->pid);
	int ret = corun_section_read(s, path);

	if (ret) {
		printf("#   %s\n", gm_error_message());
		gm_error_clear();
	}
	free(path);
	return ret;
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (gm_read_file(path, &sb)) {
		gm_error_clear();
		return gm_xstrdup("");
	}
	return strbuf_detach(&sb, NULL);
}

/* Sleep a millisecond (polling a process's progress, never a threshold). */
static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait until slot @slot of @b has arrived, as long as @p runs: 1 if so. */
static int await_arrival(struct gm_start_barrier *b, unsigned slot,
			 const struct prog *p)
{
	for (;;) {
		int st;
		if (gm_barrier_arrived(b, slot)) {
			return 1;
		}
		if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
			return 0;
		}
		nap();
	}
}

static void test_barrier(void)
{
	char *path = gm_xasprintf("%s/b1", scratch);
	struct gm_start_barrier b, c;

	CHECK(gm_barrier_create(path, 0) < 0, "a barrier for 0 programs is refused");
	gm_error_clear();
	CHECK(gm_barrier_create(path, GM_BARRIER_MAX_PARTIES + 1) < 0,
	      "... and one for more than the maximum");
	gm_error_clear();
	CHECK(gm_barrier_create(path, 2) == 0, "a barrier for 2 programs");
	CHECK(gm_barrier_open(&b, path) == 0 && gm_barrier_parties(&b) == 2,
	      "it opens with its parties");
	CHECK(gm_barrier_open(&c, path) == 0, "a second mapping of it");
	CHECK_INT(gm_barrier_wait(&b, 0, 0.01), GM_BARRIER_TIMEOUT,
		  "alone at it: the wait times out");
	CHECK_INT(gm_barrier_wait(&c, 0, 0.01), GM_BARRIER_TIMEOUT,
		  "the same slot again (another process of the program) "
		  "does not count twice");
	CHECK_INT(gm_barrier_count(&b), 1, "one slot has arrived");
	CHECK(gm_barrier_arrived(&b, 0) && !gm_barrier_arrived(&b, 1),
	      "... slot 0");
	CHECK_INT(gm_barrier_release_ns(&b), 0, "not released yet");
	CHECK_INT(gm_barrier_wait(&c, 1, 0.01), GM_BARRIER_GO,
		  "the last slot releases it");
	CHECK(gm_barrier_release_ns(&b) > 0, "the release time is noted");
	CHECK_INT(gm_barrier_wait(&b, 0, 0.01), GM_BARRIER_GO,
		  "a released barrier lets everyone go");
	gm_barrier_break(&b);
	CHECK_INT(gm_barrier_state(&c), GM_BARRIER_RELEASED,
		  "breaking a released barrier changes nothing");
	CHECK(gm_barrier_wait(&b, 2, 0.01) < 0, "a slot beyond the parties is an error");
	gm_error_clear();
	gm_barrier_close(&b);
	gm_barrier_close(&c);

	CHECK(gm_barrier_create(path, 3) == 0 && gm_barrier_open(&b, path) == 0,
	      "a new barrier replaces the old file");
	CHECK_INT(gm_barrier_count(&b), 0, "... empty");
	gm_barrier_break(&b);
	CHECK_INT(gm_barrier_wait(&b, 0, 10), GM_BARRIER_GAVE_UP,
		  "a broken barrier lets its waiters go at once");
	gm_barrier_close(&b);

	CHECK(gm_write_file_atomic(path, "not a barrier", 13, 1) == 0 &&
	      gm_barrier_open(&b, path) < 0, "a file that is no barrier is refused");
	CHECK(strstr(gm_error_message(), "is not a start barrier") != NULL,
	      "... saying so");
	gm_error_clear();
	free(path);
}

/* "before NS\nafter NS\n" of corun-standin --marks */
static void read_marks(const char *path, unsigned long long *before,
		       unsigned long long *after)
{
	char *m = slurp(path);

	*before = *after = 0;
	if (sscanf(m, "before %llu\nafter %llu", before, after) != 2) {
		printf("#   bad marks file: '%s'\n", m);
	}
	free(m);
}

static void test_alone(void)
{
	struct prog p, plain;
	struct corun_section s;
	unsigned long long before, after;
	char *marks = gm_xasprintf("%s/alone.marks", scratch);
	const char *args[] = { "--threads", "2", "--marks", marks, NULL };
	char *out, *plain_out;

	start(&p, "alone", -1, NULL, NULL, NULL, args);
	CHECK_INT(finish(&p), 0, "alone: the program exits 0 under the interposer");
	CHECK(section_of(&p, &s) == 0, "alone: it wrote its section");
	read_marks(marks, &before, &after);
	CHECK(before && before <= s.arrive_ns && s.arrive_ns <= s.start_ns &&
	      s.start_ns <= s.end_ns && s.end_ns <= after,
	      "the section lies inside the program's own marks around its "
	      "GPU work, its times in order");
	/* 2 threads x 3 rounds x (copy, memset, launch, copy, sync) + the
	 * final cuCtxSynchronize; the allocations, the module load and the
	 * free are not GPU operations. */
	CHECK_INT(s.ops, 31, "it counts the GPU operations, not the other calls");
	CHECK_STR(s.first_op, "cuMemcpyHtoDAsync_v2", "the first GPU operation is named");
	CHECK_STR(s.last_op, "cuCtxSynchronize", "... and the last");
	CHECK_STR(s.device, "Mock GPU", "the GPU is named");
	CHECK_INT(s.barrier, CORUN_BARRIER_NONE, "no barrier for a program alone");
	CHECK_STR(s.error, "", "no error");

	/* The same program without the interposer prints the same. */
	{
		const char *none[] = { "--threads", "2", NULL };
		char *exe = gm_xasprintf("%s/tests/corun-standin", build);
		snprintf(plain.stdout_path, sizeof(plain.stdout_path),
			 "%s/plain.out", scratch);
		fflush(NULL);
		plain.pid = fork();
		if (!plain.pid) {
			int fd = open(plain.stdout_path,
				      O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(fd, 1);
			unsetenv("CUDA_INJECTION64_PATH");
			execv(exe, (char *const *)(const char *[]){ exe, none[0],
								    none[1], NULL });
			_exit(127);
		}
		CHECK_INT(finish(&plain), 0, "without the interposer: exit 0 too");
		free(exe);
	}
	out = slurp(p.stdout_path);
	plain_out = slurp(plain.stdout_path);
	CHECK(*out && !strcmp(out, plain_out),
	      "its stdout is the same with the interposer as without");
	free(out);
	free(plain_out);
	free(marks);
}

static void test_pair(void)
{
	char *bdir = gm_xasprintf("%s/pair-barrier", scratch);
	char *bfile, *hold = gm_xasprintf("%s/pair.go", scratch);
	struct gm_start_barrier b;
	struct prog a, c;
	struct corun_section sa, sc;
	int waiting, running, st;
	const char *aargs[] = { NULL };
	const char *cargs[] = { "--hold", hold, NULL };

	gm_mkdir_p(bdir, 0755);
	bfile = gm_path_join(bdir, GM_BARRIER_FILE);
	gm_barrier_create(bfile, 2);
	gm_barrier_open(&b, bfile);
	start(&a, "pair-a", 0, bdir, "600", NULL, aargs);
	start(&c, "pair-c", 1, bdir, "600", NULL, cargs);
	CHECK(await_arrival(&b, 0, &a), "the first program arrives at the barrier");
	/* The second is held back: the first must still be waiting. */
	running = waitpid(a.pid, &st, WNOHANG) == 0;
	waiting = gm_barrier_state(&b) == GM_BARRIER_WAITING &&
		  !gm_barrier_arrived(&b, 1);
	CHECK(running && waiting, "... and waits there while its partner "
	      "has not arrived");
	gm_write_file_atomic(hold, "", 0, 1);
	CHECK_INT(finish(&a), 0, "both finish once the partner arrives (first)");
	CHECK_INT(finish(&c), 0, "... (second)");
	CHECK(section_of(&a, &sa) == 0 && section_of(&c, &sc) == 0,
	      "both wrote their sections");
	CHECK(sa.barrier == CORUN_BARRIER_GO && sc.barrier == CORUN_BARRIER_GO,
	      "both left the barrier released");
	CHECK(sa.arrive_ns <= sc.arrive_ns, "the first arrived first");
	CHECK(sa.start_ns >= sc.arrive_ns && sc.start_ns >= sc.arrive_ns,
	      "neither section starts before the last program arrived");
	CHECK(sa.start_ns >= gm_barrier_release_ns(&b) &&
	      sc.start_ns >= gm_barrier_release_ns(&b),
	      "... nor before the barrier's release");
	CHECK(sa.start_ns <= sa.end_ns && sc.start_ns <= sc.end_ns,
	      "the sections' times are in order");
	gm_barrier_close(&b);
	free(bfile);
	free(bdir);
	free(hold);
}

static void test_partner_missing(void)
{
	char *bdir = gm_xasprintf("%s/lone-barrier", scratch);
	char *bfile;
	struct gm_start_barrier b;
	struct prog a;
	struct corun_section s;
	const char *args[] = { NULL };
	char *out;

	gm_mkdir_p(bdir, 0755);
	bfile = gm_path_join(bdir, GM_BARRIER_FILE);
	gm_barrier_create(bfile, 3);

	/* slot 1 and 2 never come */
	start(&a, "lone", 0, bdir, "0.2", NULL, args);
	CHECK_INT(finish(&a), 0, "a program whose partners never arrive still "
		  "runs to its end");
	CHECK(section_of(&a, &s) == 0, "... and writes its section");
	CHECK_INT(s.barrier, CORUN_BARRIER_TIMEOUT, "the barrier timed out");
	CHECK_INT(s.arrived, 1, "... with 1 of 3 arrived");
	CHECK_STR(s.missing, "1,2", "... naming the slots that did not");
	CHECK(s.ops > 0, "it measured its section all the same");
	out = slurp(a.stdout_path);
	CHECK(strstr(out, "corun-standin: ok") != NULL, "its results are right");
	free(out);

	/* The command breaks the barrier (a partner ended early). */
	gm_barrier_create(bfile, 2);
	gm_barrier_open(&b, bfile);
	start(&a, "broken", 1, bdir, "600", NULL, args);
	CHECK(await_arrival(&b, 1, &a), "a program arrives in slot 1");
	gm_barrier_break(&b);
	CHECK_INT(finish(&a), 0, "breaking the barrier lets it go on");
	CHECK(section_of(&a, &s) == 0 && s.barrier == CORUN_BARRIER_GAVE_UP,
	      "its section says the barrier was given up");
	CHECK_STR(s.missing, "0", "... and which slot never came");
	gm_barrier_close(&b);

	/* A program the interposer cannot measure. */
	gm_barrier_create(bfile, 2);
	{
		struct prog t, ok;
		struct corun_section st, sok;
		start(&t, "taken", 0, bdir, "600", "MOCK_CUPTI_SUBSCRIBER=taken",
		      args);
		start(&ok, "partner", 1, bdir, "600", NULL, args);
		CHECK_INT(finish(&t), 0, "a refused CUPTI subscriber changes "
			  "nothing for the program");
		CHECK_INT(finish(&ok), 0, "... nor for its partner");
		CHECK(section_of(&t, &st) == 0 &&
		      strstr(st.error, "CUPTI refused the subscriber") &&
		      st.ops == 0, "its section says why it measured nothing");
		CHECK(section_of(&ok, &sok) == 0 &&
		      sok.barrier == CORUN_BARRIER_GAVE_UP,
		      "its partner is let go, not held until the time limit");
	}
	free(bfile);
	free(bdir);
}

static void test_no_section_outside(void)
{
	char *exe = gm_xasprintf("%s/tests/corun-standin", build);
	char *lib = gm_xasprintf("%s/libgpumix-corun.so", build);
	char *dir = gm_xasprintf("%s/outside", scratch);
	struct prog p = { 0 };
	int n = -1;
	FILE *f;
	char *ls;

	gm_mkdir_p(dir, 0755);
	fflush(NULL);
	p.pid = fork();
	if (!p.pid) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		if (chdir(dir)) {
			_exit(126);
		}
		setenv("CUDA_INJECTION64_PATH", lib, 1);
		unsetenv(GM_CORUN_ENV_OUT);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	CHECK_INT(finish(&p), 0, "without GPUMIX_CORUN_OUT the interposer "
		  "stays out of the way");
	ls = gm_xasprintf("ls -A '%s' | wc -l", dir);
	f = popen(ls, "r");
	if (f && fscanf(f, "%d", &n) != 1) {
		n = -1;
	}
	if (f) {
		pclose(f);
	}
	CHECK_INT(n, 0, "... and writes nothing (in the working directory "
		  "either)");
	free(ls);
	free(dir);
	free(exe);
	free(lib);
}

int main(void)
{
	char tmpl[] = "/tmp/gpumix-corun-test.XXXXXX";
	char *mock;

	build = realpath(getenv("GPUMIX_BUILD") ? getenv("GPUMIX_BUILD") :
			 "build", NULL);
	if (!build) {
		perror("realpath of the build directory");
		return 1;
	}
	mock = gm_xasprintf("%s/tests/mock", build);
	/* The interposer's libcupti is the mock's (the driver's is too,
	 * through corun-standin's rpath). */
	setenv("LD_LIBRARY_PATH", mock, 1);
	scratch = mkdtemp(tmpl);
	if (!scratch) {
		perror("mkdtemp");
		return 1;
	}
	test_barrier();
	test_alone();
	test_pair();
	test_partner_missing();
	test_no_section_outside();
	gm_remove_tree(scratch);
	free(mock);
	free(build);
	return test_done();
}
