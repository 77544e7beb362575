/* SPDX-License-Identifier: MIT */
/*
 * Kernel profiles from run directories (see profile_build.h).
 */
#include "profile_build.h"

#include <stdlib.h>
#include <string.h>

#include "activity_reader.h"
#include "error.h"
#include "instance_name.h"
#include "run_reader.h"
#include "strbuf.h"
#include "variant.h"

static int add_run(struct gm_kprofile *p, const struct gm_run_dir *run)
{
	struct gm_activity_reader r;
	struct gm_activity a;
	int ret;

	if (gm_activity_reader_open(&r, run) < 0) {
		gm_activity_reader_close(&r);
		return -1;
	}
	while ((ret = gm_activity_reader_next(&r, &a)) == 1) {
		uint64_t blocks, threads;
		if (a.kind != GM_ACT_KERNEL || a.end < a.start) {
			continue;
		}
		blocks = (uint64_t)(a.grid[0] * a.grid[1] * a.grid[2]);
		threads = (uint64_t)(a.block[0] * a.block[1] * a.block[2]);
		if (!blocks || !threads || threads > 1024 ||
		    a.regs_per_thread < 0 || a.regs_per_thread > 255) {
			continue;
		}
		/* the copies "lbm#1" ... "lbm#N" of a program are one
		 * program of the suite: their rows add up under "lbm" */
		const char *prog = run->programs[a.program].name;
		char *name = gm_xasprintf("%.*s",
					  (int)gm_instance_program_len(prog), prog);
		gm_kprofile_add(p, name, a.name,
				run->device_name, blocks, (uint32_t)threads,
				(uint32_t)a.regs_per_thread,
				(uint64_t)a.static_smem,
				(uint64_t)a.dynamic_smem, 1,
				(double)(a.end - a.start));
		free(name);
	}
	gm_activity_reader_close(&r);
	return ret < 0 ? -1 : 0;
}

int gm_profile_build(struct gm_kprofile *p, char *const *paths, size_t n)
{
	const char *device = NULL;
	char *owned_device = NULL;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct gm_run_dir run;
		const struct gm_variant *v;

		memset(&run, 0, sizeof(run));
		if (gm_run_dir_read(&run, paths[i]) < 0) {
			gm_run_dir_release(&run);
			return gm_error("cannot profile '%s'", paths[i]);
		}
		v = gm_variant_find(run.variant);
		if (!v || !(v->flags & GM_VARIANT_ALONE)) {
			ret = gm_error("'%s' ran in variant '%s': a profile "
				       "comes from runs of programs alone "
				       "(single)", paths[i], run.variant);
		} else if (strcmp(run.status, "ok")) {
			ret = gm_error("'%s' did not end ok (status %s)",
				       paths[i], run.status);
		} else if (device && strcmp(device, run.device_name)) {
			ret = gm_error("'%s' ran on '%s', the others on '%s': a "
				       "profile is for one GPU model", paths[i],
				       run.device_name, device);
		} else {
			if (!device) {
				owned_device = gm_xstrdup(run.device_name);
				device = owned_device;
			}
			if (add_run(p, &run) < 0) {
				ret = gm_error("cannot profile '%s'", paths[i]);
			}
		}
		gm_run_dir_release(&run);
	}
	free(owned_device);
	gm_kprofile_sort(p);
	return ret;
}
