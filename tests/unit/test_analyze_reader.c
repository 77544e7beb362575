/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for reading run directories: strict integer fields, text
 * escapes, kernel-name demangling and short names, the string map, the
 * run reader (manifest, replays, identity hash) and the streaming
 * activity reader (records, escapes, the END trailer). Run from the
 * repository root (tests/run does): it reads tests/data/runs.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/activity_reader.h"
#include "analyze/demangle.h"
#include "analyze/run_reader.h"
#include "strmap.h"
#include "analyze/tsv.h"
#include "error.h"
#include "fs.h"
#include "test.h"

#define STUDY "tests/data/runs/good/study"

static void test_tsv(void)
{
	int64_t v = -7;
	char buf[64];
	char *f[8];

	CHECK(!gm_tsv_int("0", 0, 10, &v) && v == 0, "0");
	CHECK(!gm_tsv_int("123", 0, INT64_MAX, &v) && v == 123, "123");
	CHECK(!gm_tsv_int("-5", -10, 10, &v) && v == -5, "negative when allowed");
	CHECK(gm_tsv_int("-5", 0, 10, &v), "negative when not allowed");
	CHECK(gm_tsv_int("", 0, 10, &v), "empty field");
	CHECK(gm_tsv_int("+1", 0, 10, &v), "no plus sign");
	CHECK(gm_tsv_int(" 1", 0, 10, &v), "no leading space");
	CHECK(gm_tsv_int("1 ", 0, 10, &v), "no trailing space");
	CHECK(gm_tsv_int("12a", 0, 100, &v), "no trailing junk");
	CHECK(gm_tsv_int("11", 0, 10, &v), "above the maximum");
	CHECK(!gm_tsv_int("9223372036854775807", 0, INT64_MAX, &v) && v == INT64_MAX,
	      "INT64_MAX");
	CHECK(gm_tsv_int("9223372036854775808", 0, INT64_MAX, &v), "overflow");
	CHECK(!gm_tsv_int("-9223372036854775808", INT64_MIN, 0, &v) && v == INT64_MIN,
	      "INT64_MIN");
	CHECK(gm_tsv_int("99999999999999999999", 0, INT64_MAX, &v), "long overflow");

	strcpy(buf, "a\\tb\\\\c\\nd");
	CHECK(!gm_tsv_unescape(buf) && !strcmp(buf, "a\tb\\c\nd"), "unescape");
	strcpy(buf, "bad\\q");
	CHECK(gm_tsv_unescape(buf), "unknown escape");
	strcpy(buf, "dangling\\");
	CHECK(gm_tsv_unescape(buf), "dangling backslash");
	strcpy(buf, "a\tb\t\tc");
	CHECK_INT(gm_tsv_split(buf, f, 8), 4, "split counts empty fields");
	CHECK_STR(f[2], "", "empty field");
	CHECK_STR(f[3], "c", "last field");
	strcpy(buf, "1\t2\t3");
	CHECK_INT(gm_tsv_split(buf, f, 2), 3, "split reports more fields than it stores");
}

static void check_names(const char *mangled, const char *dem, const char *shrt)
{
	char *d = gm_demangle(mangled);
	char *s = gm_short_name(d);
	char what[160];

	snprintf(what, sizeof(what), "demangle %s", mangled);
	CHECK_STR(d, dem, what);
	snprintf(what, sizeof(what), "short name of %s", mangled);
	CHECK_STR(s, shrt, what);
	free(d);
	free(s);
}

static void test_demangle(void)
{
	check_names("_Z7kernelAPf", "kernelA(float*)", "kernelA");
	check_names("kernel_b", "kernel_b", "kernel_b");
	check_names("_Z6kernelIfEvPT_", "void kernel<float>(float*)", "kernel");
	check_names("_ZN2ns3fooEv", "ns::foo()", "foo");
	check_names("_ZN12_GLOBAL__N_16helperEPi",
		    "(anonymous namespace)::helper(int*)", "helper");
	check_names("_ZN2ns1AIiE3runEv", "ns::A<int>::run()", "run");
	check_names("_Zgarbage", "_Zgarbage", "_Zgarbage");
	check_names("kernel_ünïcode_é", "kernel_ünïcode_é", "kernel_ünïcode_é");
}

static void test_strmap(void)
{
	struct gm_strmap m = GM_STRMAP_INIT;
	int64_t v = 0;
	char key[32];
	int ok = 1;

	CHECK(!gm_strmap_get(&m, "x", &v), "empty map");
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		gm_strmap_put(&m, key, i);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		ok &= gm_strmap_get(&m, key, &v) && v == i;
	}
	CHECK(ok, "5000 keys survive growth");
	gm_strmap_put(&m, "k7", 70);
	CHECK(gm_strmap_get(&m, "k7", &v) && v == 70 && m.nr == 5000, "overwrite");
	gm_strmap_clear(&m);
	CHECK(!gm_strmap_get(&m, "k7", &v) && m.nr == 0, "clear");
}

static void test_run_reader(void)
{
	struct gm_run_dir run, again;
	char *label;

	gm_error_clear();
	CHECK_INT(gm_run_dir_read(&run, STUDY "/a+b.cuda"), 0, "read a run directory");
	CHECK_STR(run.workload, "a+b", "workload");
	CHECK_STR(run.variant, "cuda", "variant");
	CHECK_STR(run.policy, "none", "policy");
	CHECK_STR(run.status, "ok", "status");
	CHECK_INT(run.nr_programs, 2, "programs");
	CHECK_STR(run.programs[1].name, "b", "program name");
	CHECK_STR(run.programs[1].bundle, "traces/b", "program bundle");
	CHECK_INT(run.nr_replays, 6, "replays");
	CHECK_INT(run.sm_count, 132, "device.sm_count");
	CHECK_INT(strlen(run.hash), 32, "identity hash: 32 hex digits");
	CHECK_INT(gm_run_dir_read(&again, STUDY "/a+b.cuda"), 0, "read again");
	CHECK_STR(again.hash, run.hash, "same content, same identity");
	gm_run_dir_release(&again);
	CHECK_INT(gm_run_dir_read(&again, STUDY "/a+b.nss"), 0, "another run");
	CHECK(strcmp(again.hash, run.hash), "different content, different identity");
	gm_run_dir_release(&again);
	CHECK_INT(gm_run_dir_find_program(&run, "b", 1), 1, "find program");
	CHECK_INT(gm_run_dir_find_program(&run, "bb", 1), 1, "find by length");
	CHECK_INT(gm_run_dir_find_program(&run, "z", 1), -1, "unknown program");
	label = gm_run_label("a+b", "elastic", "median", 0, 0);
	CHECK_STR(label, "a+b.elastic.median", "label with a policy");
	free(label);
	label = gm_run_label("a+b", "cuda", "none", 0, 0);
	CHECK_STR(label, "a+b.cuda", "label without one");
	free(label);
	label = gm_run_label("a+b", "elastic", "median", 0, 2);
	CHECK_STR(label, "a+b.elastic.median.r2", "label of repetition 2");
	free(label);
	label = gm_run_label("a+b", "mps", "none", 1, 3);
	CHECK_STR(label, "a+b.mps.one-shot.r3", "label of a one-shot run's repetition");
	free(label);
	CHECK_INT(run.repetition, 0, "no run.repetition: repetition 0");
	CHECK(run.gpu_start.sm_clock_mhz == -1 && !run.gpu_end.throttle,
	      "no gpu.* keys: no GPU state");

	struct gm_activity_reader r;
	struct gm_activity a;
	int kinds[4] = { 0 }, got;
	int64_t first_queued = -1;
	CHECK_INT(gm_activity_reader_open(&r, &run), 0, "open activity.tsv");
	while ((got = gm_activity_reader_next(&r, &a)) > 0) {
		kinds[a.kind]++;
		if (a.kind == GM_ACT_KERNEL && first_queued < 0) {
			first_queued = a.queued;
			CHECK_STR(a.name, "_Z7kernelAPf", "kernel name");
			CHECK_INT(a.block[0], 256, "blockX");
			CHECK_INT(a.regs_per_thread, 32, "registersPerThread");
		}
	}
	CHECK_INT(got, 0, "END reached and checked");
	CHECK_INT(kinds[GM_ACT_KERNEL], 11, "11 kernels");
	CHECK_INT(kinds[GM_ACT_API], 10, "10 launch calls");
	CHECK_INT(first_queued, 999999992000, "queued timestamp");
	CHECK_INT(gm_activity_reader_next(&r, &a), 0, "stays at the end");
	gm_activity_reader_close(&r);
	gm_run_dir_release(&run);

	/* Escaped text fields, in a scratch copy of a run. */
	char dir[] = "/tmp/gpumix-unit.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "scratch directory");
	CHECK_INT(gm_run_dir_read(&run, STUDY "/a+b.nss"), 0, "read a+b.nss");
	free(run.path);
	run.path = gm_xstrdup(dir);
	char *path = gm_path_join(dir, "activity.tsv");
	const char text[] =
		"API\ta\t1\t10\t20\truntime\t211\tcuda\\tLaunch\\\\Kernel\t5\n"
		"MEMCPY\tb\t2\t30\t40\tDTOD\t64\t3\n"
		"END\t2\n";
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	CHECK_INT(gm_activity_reader_open(&r, &run), 0, "open the scratch log");
	CHECK_INT(gm_activity_reader_next(&r, &a), 1, "API record");
	CHECK_STR(a.name, "cuda\tLaunch\\Kernel", "escapes undone");
	CHECK(a.domain == GM_API_RUNTIME && a.cbid == 211 && a.thread_id == 5,
	      "domain, cbid, thread");
	CHECK_INT(gm_activity_reader_next(&r, &a), 1, "MEMCPY record");
	CHECK_INT(a.copy_kind, 8, "DTOD is CUPTI's 8");
	CHECK_STR(gm_activity_copy_kind_name(a.copy_kind), "DTOD", "and back");
	CHECK_INT(a.program, 1, "program b");
	CHECK_INT(gm_activity_reader_next(&r, &a), 0, "END");
	gm_activity_reader_close(&r);

	f = fopen(path, "w");
	fputs("MEMSET\ta\t1\t10\t20\t64\t0\t3\n", f);
	fclose(f);
	gm_error_clear();
	CHECK_INT(gm_activity_reader_open(&r, &run), 0, "open a truncated log");
	CHECK_INT(gm_activity_reader_next(&r, &a), 1, "a record");
	CHECK_INT(gm_activity_reader_next(&r, &a), -1, "then the missing END");
	CHECK(strstr(gm_error_message(), "activity.tsv:2: unexpected end of file") != NULL,
	      "names file and line");
	gm_error_clear();
	gm_activity_reader_close(&r);
	unlink(path);

	/*
	 * A FIFO in place of the log is refused at once (opening it for
	 * reading used to wait for a writer forever; the alarm turns that
	 * back into a failing test).
	 */
	mkfifo(path, 0600);
	alarm(30);
	CHECK_INT(gm_activity_reader_open(&r, &run), -1, "a FIFO log is refused");
	alarm(0);
	CHECK(strstr(gm_error_message(), "activity.tsv' is not a regular file (a FIFO)") != NULL,
	      "... as not a regular file");
	gm_error_clear();
	gm_activity_reader_close(&r);
	unlink(path);
	free(path);
	gm_run_dir_release(&run);

	CHECK_INT(gm_run_dir_read(&run, "tests/data/runs/nonexistent"), -1,
		  "a missing directory");
	CHECK_STR(gm_error_message(), "cannot open run directory "
		  "'tests/data/runs/nonexistent': No such file or directory",
		  "says it does not exist (not that it is no directory)");
	gm_error_clear();
	gm_run_dir_release(&run);

	/* A symbolic link loop is not "not a directory" either. */
	char *loop = gm_path_join(dir, "loop");
	symlink("loop", loop);
	CHECK_INT(gm_run_dir_read(&run, loop), -1, "a symbolic link loop");
	CHECK(strstr(gm_error_message(), ": Too many levels of symbolic links") != NULL,
	      "says it is a loop");
	gm_error_clear();
	gm_run_dir_release(&run);
	unlink(loop);
	free(loop);

	/* Not a regular file: refused at once, never waited on. */
	char *fifo = gm_path_join(dir, "fifo");
	struct strbuf sb = STRBUF_INIT;
	mkfifo(fifo, 0600);
	CHECK_INT(gm_read_file(fifo, &sb), -1, "a FIFO is refused at once");
	CHECK(strstr(gm_error_message(), "fifo' is not a regular file (a FIFO)") != NULL,
	      "... saying what it is");
	CHECK(sb.alloc == 0, "... and nothing was allocated");
	gm_error_clear();
	CHECK_INT(gm_read_file(dir, &sb), -1, "a directory is refused");
	CHECK(strstr(gm_error_message(), "is not a regular file (a directory)") != NULL,
	      "... saying what it is");
	gm_error_clear();
	/* A read error (EISDIR) leaves the buffer as it was. */
	CHECK_INT(gm_read_file(dir, &sb), -1, "reading a directory fails");
	CHECK(sb.alloc == 0 && sb.len == 0, "... and the buffer owns nothing");
	strbuf_addstr(&sb, "kept");
	CHECK_INT(gm_read_file(dir, &sb), -1, "again, on a buffer with content");
	CHECK_STR(sb.buf, "kept", "... which is kept as it was");
	gm_error_clear();
	strbuf_release(&sb);
	unlink(fifo);
	free(fifo);
	rmdir(dir);
}

int main(void)
{
	test_tsv();
	test_demangle();
	test_strmap();
	test_run_reader();
	return test_done();
}
