/* SPDX-License-Identifier: MIT */
/*
 * Run-directory writer: the exact activity.tsv / replays.tsv lines of
 * doc/run-directory.md, escaping, the END line, the manifest's required
 * keys, and refusing to replace a run directory without --force.
 */
#include <stdlib.h>
#include <unistd.h>

#include "replay/run_writer.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "test.h"

static char *slurp(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = gm_path_join(dir, name);

	if (gm_read_file(path, &sb) < 0) {
		gm_error_clear();
	}
	free(path);
	return strbuf_detach(&sb, NULL);
}

static void full_manifest(struct kvfile *kv)
{
	static const char *const kvs[][2] = {
		{ "format", RUN_FORMAT }, { "workload", "a+b" },
		{ "variant", "cuda" }, { "policy", "none" },
		{ "programs", "1" }, { "program.0.name", "a" },
		{ "program.0.bundle", "traces/a" },
		{ "program.0.deterministic", "1" },
		{ "device.name", "NVIDIA H100 80GB HBM3" },
		{ "device.cc", "9.0" }, { "device.sm_count", "132" },
		{ "device.max_threads_per_sm", "2048" },
		{ "device.max_blocks_per_sm", "32" },
		{ "device.regs_per_sm", "65536" },
		{ "device.smem_per_sm", "233472" },
		{ "driver_version", "13000" }, { "runtime_version", "13000" },
		{ "cuda_device_max_connections", "8" }, { "streams", "1" },
		{ "min_replays", "7" }, { "gpumix_version", "0.1" },
		{ "started_at", "2025-01-01T00:00:00Z" },
		{ "finished_at", "2025-01-01T00:00:01Z" },
		{ "status", "ok" }, { "cupti.dropped_records", "0" },
	};
	for (size_t i = 0; i < sizeof(kvs) / sizeof(kvs[0]); i++) {
		kvfile_set(kv, kvs[i][0], kvs[i][1]);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/gpumix-rw.XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *run = gm_path_join(dir, "run");
	struct strbuf sb = STRBUF_INIT;
	struct run_activity ra;
	struct kvfile kv = KVFILE_INIT;
	char *text;

	{
		struct run_kernel_rec k = {
			.program = "bfs", .correlation_id = 7, .start = 100,
			.end = 200, .queued = 50, .submitted = 60,
			.device_id = 0, .context_id = 1, .stream_id = 13,
			.grid = { 4, 2, 1 }, .block = { 256, 1, 1 },
			.registers = 32, .static_smem = 1024,
			.dynamic_smem = 0, .name = "_Z3fooPi",
		};
		gm_run_format_kernel(&sb, &k);
		CHECK_STR(sb.buf, "KERNEL\tbfs\t7\t100\t200\t50\t60\t0\t1\t13"
			  "\t4\t2\t1\t256\t1\t1\t32\t1024\t0\t_Z3fooPi\n",
			  "kernel line");
	}
	strbuf_reset(&sb);
	{
		struct run_memcpy_rec m = { "a\tb", 3, 10, 20, "HTOD", 4096, 7 };
		gm_run_format_memcpy(&sb, &m);
		CHECK_STR(sb.buf, "MEMCPY\ta\\tb\t3\t10\t20\tHTOD\t4096\t7\n",
			  "memcpy line, program name escaped");
	}
	strbuf_reset(&sb);
	{
		struct run_memset_rec m = { "p", 4, 11, 21, 64, 255, 9 };
		gm_run_format_memset(&sb, &m);
		CHECK_STR(sb.buf, "MEMSET\tp\t4\t11\t21\t64\t255\t9\n",
			  "memset line");
	}
	strbuf_reset(&sb);
	{
		struct run_api_rec a = { "p", 7, 90, 95, "driver", 307,
					 "cuLaunch\\Kernel\n", 4242 };
		gm_run_format_api(&sb, &a);
		CHECK_STR(sb.buf, "API\tp\t7\t90\t95\tdriver\t307\t"
			  "cuLaunch\\\\Kernel\\n\t4242\n",
			  "api line, backslash and newline escaped");
	}

	CHECK_INT(gm_run_dir_prepare(run, 0), 0, "create a run directory");
	CHECK(gm_run_dir_prepare(run, 0) < 0, "refuse an existing one");
	CHECK(strstr(gm_error_message(), "already exists") != NULL,
	      "error says why");
	gm_error_clear();
	CHECK_INT(gm_run_dir_prepare(run, 1), 0, "--force replaces it");

	CHECK_INT(gm_run_activity_open(&ra, run), 0, "open activity.tsv");
	gm_run_activity_add(&ra, &sb);
	gm_run_activity_add(&ra, &sb);
	CHECK(!gm_path_exists("activity.tsv"), "nothing under the final name yet");
	CHECK_INT(gm_run_activity_commit(&ra), 0, "commit");
	text = slurp(run, "activity.tsv");
	CHECK(strstr(text, "\nEND\t2\n") != NULL, "END line counts records");
	free(text);

	{
		struct run_replay_rec r[2] = {
			{ "a", 0, 1000, 2000, 5, 1 },
			{ "a", 1, 2000, 3100, 0, 0 },
		};
		CHECK_INT(gm_run_write_replays(run, r, 2), 0, "write replays.tsv");
		text = slurp(run, "replays.tsv");
		CHECK_STR(text, "program\treplay\tstart_ns\tend_ns\tio_ns\tkept\n"
			  "a\t0\t1000\t2000\t5\t1\na\t1\t2000\t3100\t0\t0\n",
			  "replays.tsv content");
		free(text);
	}

	full_manifest(&kv);
	kvfile_set(&kv, "program.0.bundle", "");
	CHECK_INT(gm_run_write_manifest(run, &kv), 0, "complete manifest written");
	{
		struct kvfile back = KVFILE_INIT;
		char *path = gm_path_join(run, "manifest");
		CHECK_INT(kvfile_read(&back, path), 0, "manifest reads back");
		CHECK_STR(kvfile_get(&back, "status"), "ok", "status");
		kvfile_release(&back);
		free(path);
	}
	kvfile_release(&kv);
	kvfile_init(&kv);
	full_manifest(&kv);
	kvfile_set(&kv, "programs", "2");
	CHECK(gm_run_write_manifest(run, &kv) < 0, "missing program.1.* refused");
	CHECK_STR(gm_error_message(), "run manifest lacks 'program.1.name'",
		  "error names the key");
	gm_error_clear();
	kvfile_release(&kv);

	strbuf_release(&sb);
	gm_remove_tree(dir);
	free(run);
	return test_done();
}
