/* SPDX-License-Identifier: MIT */
/*
 * One checking macro per foreign API used by the replay runtime: the CUDA
 * driver (CU_CHECK) and CUPTI (CUPTI_CHECK). Each records the call's text,
 * file:line and the decoded error as an error cause and evaluates to -1,
 * or to 0 on success, so callers write "if (CU_CHECK(cuInit(0))) goto out;".
 * CU_CHECK also times the driver call in the calling thread's table
 * (drvcalls.h); CU_TIMED times a call whose result is not an error to
 * record (cuEventQuery's CUDA_ERROR_NOT_READY) and evaluates to it.
 */
#ifndef GM_CU_CHECK_H
#define GM_CU_CHECK_H

#include <cuda.h>
#include <cupti.h>

#include "drvcalls.h"

int gm_cu_check(CUresult r, const char *call, const char *file, int line);
int gm_cupti_check(CUptiResult r, const char *call, const char *file,
		   int line);

/* gm_cu_check() after the call's timing ends (drvcalls.h). */
int gm_cu_check_timed(CUresult r, const char *call, const char *file,
		      int line);
CUresult gm_cu_timed(CUresult r, const char *call);

/* (The comma operator: the timing starts before the call is evaluated.) */
#define CU_CHECK(call) \
	(gm_drv_begin(), gm_cu_check_timed((call), #call, __FILE__, __LINE__))
#define CU_TIMED(call) (gm_drv_begin(), gm_cu_timed((call), #call))
#define CUPTI_CHECK(call) gm_cupti_check((call), #call, __FILE__, __LINE__)

#endif
