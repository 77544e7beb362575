/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: run directories (analyze/run_reader.c), their activity
 * logs (analyze/activity_reader.c), block probe files
 * (analyze/probe_reader.c) and driver-call times
 * (analyze/drivercalls_reader.c), and corun directories
 * (analyze/corun_reader.c), all the way through gpumix analyze: the input
 * is a run's manifest, replays.tsv, activity.tsv, probe.tsv, probe.bin,
 * drivercalls.tsv and a co-run's sections.tsv (FUZZ_SEP between them; a
 * missing part is a missing file), loaded into an in-memory database and
 * analysed as gpumix report would.
 */
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/db.h"
#include "analyze/loader.h"
#include "error.h"
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = { "manifest", "replays.tsv",
					     "activity.tsv", "probe.tsv",
					     "probe.bin", "drivercalls.tsv",
					     "sections.tsv" };
	const uint8_t *part[7];
	size_t len[7];
	const char *dir = fuzz_scratch();
	struct gm_db db = GM_DB_INIT;

	fuzz_split(data, size, part, len, 7);
	for (int i = 0; i < 7; i++) {
		fuzz_put(dir, files[i], part[i], len[i]);
	}
	if (!gm_db_open(&db, ":memory:", GM_DB_WRITE)) {
		struct gm_loader l;
		struct gm_load_info info;
		if (!gm_loader_init(&l, &db)) {
			if (!gm_loader_load(&l, dir, &info)) {
				struct gm_analysis a;
				struct gm_analysis_options opt;
				memset(&opt, 0, sizeof(opt));
				gm_analysis_compute(&a, &db, &opt);
				gm_analysis_release(&a);
			}
			gm_load_info_release(&info);
			gm_loader_release(&l);
		}
	}
	gm_db_close(&db);
	gm_error_clear();
	return 0;
}
