/* SPDX-License-Identifier: MIT */
/*
 * One program's kernels in a run alone (sweep_kernels.h): the run's
 * kernel records inside its kept replays, summed per kernel.
 */
#include "sweep_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "activity_reader.h"
#include "error.h"
#include "run_reader.h"
#include "strbuf.h"

const struct gm_sweep_kernel *gm_sweep_kernels_find(
	const struct gm_sweep_kernels *s, const char *name)
{
	for (size_t i = 0; i < s->nr; i++) {
		if (!strcmp(s->k[i].name, name)) {
			return &s->k[i];
		}
	}
	return NULL;
}

/* The kernel of record @a in @s, added at its first record. */
static struct gm_sweep_kernel *kernel_of(struct gm_sweep_kernels *s,
					 const struct gm_activity *a)
{
	struct gm_sweep_kernel *k =
		(struct gm_sweep_kernel *)gm_sweep_kernels_find(s, a->name);

	if (k) {
		return k;
	}
	GM_ALLOC_GROW(s->k, s->nr + 1, s->alloc);
	k = &s->k[s->nr++];
	memset(k, 0, sizeof(*k));
	k->name = gm_xstrdup(a->name);
	k->threads = (int)(a->block[0] * a->block[1] * a->block[2]);
	k->regs = (int)a->regs_per_thread;
	k->static_smem = a->static_smem;
	k->dynamic_smem = a->dynamic_smem;
	return k;
}

int gm_sweep_kernels_read(struct gm_sweep_kernels *out, const char *path,
			  uint64_t grid_check)
{
	struct gm_run_dir run;
	struct gm_activity_reader rd;
	struct gm_activity a;
	int ret = -1, got;

	memset(&rd, 0, sizeof(rd));
	if (gm_run_dir_read_alone(&run, path) < 0) {
		goto out;
	}
	for (size_t i = 0; i < run.nr_replays; i++) {
		out->kept += run.replays[i].kept != 0;
	}
	if (!out->kept || run.sm_count <= 0) {
		gm_error("the run has no kept replay or no SM count");
		goto out;
	}
	out->program = gm_xstrdup(run.programs[0].name);
	out->device_cc = gm_xstrdup(run.device_cc ? run.device_cc : "");
	out->sm_count = (unsigned)run.sm_count;
	out->device_name = gm_xstrdup(run.device_name ? run.device_name : "");
	gm_device_limits_for_run(&out->dev, out->device_name, out->device_cc,
				 run.sm_count, run.max_threads_per_sm,
				 run.max_blocks_per_sm, run.regs_per_sm,
				 run.smem_per_sm);
	if (gm_activity_reader_open(&rd, &run) < 0) {
		goto out;
	}
	while ((got = gm_activity_reader_next(&rd, &a)) == 1) {
		struct gm_sweep_kernel *k;
		long i;
		if (a.kind != GM_ACT_KERNEL || a.end <= a.start) {
			continue;
		}
		i = gm_run_kept_replay(&run, a.start, a.end);
		if (i < 0) {
			continue;
		}
		k = kernel_of(out, &a);
		k->time_ms += (double)(a.end - a.start) / 1e6;
		k->launches++;
		k->same_grid += grid_check &&
				(uint64_t)(a.grid[0] * a.grid[1] * a.grid[2]) ==
					grid_check;
	}
	if (got < 0) {
		goto out;
	}
	for (size_t i = 0; i < out->nr; i++) {
		out->k[i].time_ms /= (double)out->kept;
	}
	ret = 0;
out:
	gm_activity_reader_close(&rd);
	gm_run_dir_release(&run);
	if (ret < 0) {
		gm_error("cannot read the sweep's run '%s'", path);
	}
	return ret;
}

void gm_sweep_kernels_release(struct gm_sweep_kernels *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->k[i].name);
	}
	free(s->k);
	free(s->program);
	free(s->device_cc);
	free(s->device_name);
	memset(s, 0, sizeof(*s));
}
