/* SPDX-License-Identifier: MIT */
/*
 * The cost of timing the replay's driver calls (replay/drvcalls.h): the
 * time of N timed empty calls (gm_drv_begin(), gm_drv_end() on one of a
 * few call sites, as CU_CHECK does around each driver call) with the
 * thread's table attached, against the same loop with none (what a
 * thread without a table pays). Prints nanoseconds per call, the median
 * of 5 rounds of each. No GPU needed: the driver call itself is not part
 * of the cost.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "replay/drvcalls.h"

#define N 2000000
#define ROUNDS 5

static const char *const sites[] = {
	"cuLaunchKernel(f, ...)", "cuMemcpyHtoDAsync(dst, ...)",
	"cuStreamSynchronize(s)", "cuEventRecord(e, s)",
};

static double round_ns(void)
{
	uint64_t t0 = gm_now_ns();

	for (int i = 0; i < N; i++) {
		gm_drv_begin();
		gm_drv_end(sites[i & 3]);
	}
	return (double)(gm_now_ns() - t0) / N;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of_rounds(void)
{
	double v[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		v[r] = round_ns();
	}
	qsort(v, ROUNDS, sizeof(v[0]), cmp);
	return v[ROUNDS / 2];
}

int main(void)
{
	struct gm_drvcalls *t = calloc(1, sizeof(*t));
	double off, on;

	off = median_of_rounds();
	gm_drv_attach(t, 0);
	gm_drv_phase(GM_DRV_REPLAY);
	on = median_of_rounds();
	gm_drv_attach(NULL, 0);
	printf("driver-call timing: %.1f ns per call with the thread's table, "
	       "%.1f ns without (median of %d rounds of %d calls)\n", on, off,
	       ROUNDS, N);
	free(t);
	return 0;
}
