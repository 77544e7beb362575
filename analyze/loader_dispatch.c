/* SPDX-License-Identifier: MIT */
/*
 * gm_loader_load() (loader.h): which loader a directory needs, by what
 * it holds: a co-run (corun_load.c), a sweep (load_sweep.c), SM-stretch
 * curves (load_stretch.c) or a replay's run (loader.c). Apart from the
 * loaders so that they call loader.c's primitives and none of them calls
 * back up here.
 */
#include "loader.h"

#include <string.h>

#include "corun_reader.h"
#include "loader_int.h"

int gm_loader_load(struct gm_loader *l, const char *dir,
		   struct gm_load_info *info)
{
	memset(info, 0, sizeof(*info));
	if (gm_corun_dir_is(dir)) {
		return gm_loader_load_corun(l, dir, info);
	}
	if (gm_sweep_dir_is(dir)) {
		return gm_loader_load_sweep(l, dir, info);
	}
	if (gm_stretch_dir_is(dir)) {
		return gm_loader_load_stretch(l, dir, info);
	}
	return gm_loader_load_run(l, dir, info);
}
