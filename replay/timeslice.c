/* SPDX-License-Identifier: MIT */
/*
 * Timeslice planning (see timeslice.h).
 */
#include "timeslice.h"

#include <math.h>

#include "error.h"

int gm_timeslice_plan(uint32_t blocks, double kernel_ms, uint32_t resident,
		      double slice_ms, struct gm_timeslice_plan *out)
{
	if (!blocks) {
		return gm_error("cannot timeslice a grid of 0 blocks");
	}
	if (!(kernel_ms > 0)) {
		return gm_error("cannot timeslice a kernel that took %g ms", kernel_ms);
	}
	if (!(slice_ms > 0)) {
		slice_ms = GM_TIMESLICE_DEFAULT_MS;
	}
	out->blocks = blocks;
	out->per_slice = blocks;
	out->count = 1;
	out->slice_ms = kernel_ms;
	if (kernel_ms <= 1.5 * slice_ms) {
		return 0;
	}
	double per;
	if (resident) {
		uint64_t waves = ((uint64_t)blocks + resident - 1) / resident;
		if (waves <= 1) {
			return 0;	/* one wave: ranges would not be shorter */
		}
		double wave_ms = kernel_ms / (double)waves;
		double w = floor(slice_ms / wave_ms + 0.5);
		if (w < 1) {
			w = 1;
		}
		per = w * resident;
	} else {
		per = floor((double)blocks * slice_ms / kernel_ms + 0.5);
		if (per < 1) {
			per = 1;
		}
	}
	if (per >= blocks) {
		return 0;
	}
	out->per_slice = (uint32_t)per;
	out->count = (uint32_t)(((uint64_t)blocks + out->per_slice - 1) /
				out->per_slice);
	out->slice_ms = kernel_ms * per / blocks;
	return 0;
}

void gm_timeslice_range(const struct gm_timeslice_plan *p, uint32_t i,
			uint32_t *offset, uint32_t *limit)
{
	uint64_t off = (uint64_t)i * p->per_slice;

	if (off >= p->blocks) {
		*offset = p->blocks;
		*limit = 0;
		return;
	}
	*offset = (uint32_t)off;
	*limit = p->blocks - *offset < p->per_slice ? p->blocks - *offset
						   : p->per_slice;
}
