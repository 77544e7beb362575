/* SPDX-License-Identifier: MIT */
/*
 * One checking macro per foreign API used by the replay runtime: the CUDA
 * driver (CU_CHECK) and CUPTI (CUPTI_CHECK). Each records the call's text,
 * file:line and the decoded error as an error cause and evaluates to -1,
 * or to 0 on success, so callers write "if (CU_CHECK(cuInit(0))) goto out;".
 */
#ifndef GM_CU_CHECK_H
#define GM_CU_CHECK_H

#include <cuda.h>
#include <cupti.h>

int gm_cu_check(CUresult r, const char *call, const char *file, int line);
int gm_cupti_check(CUptiResult r, const char *call, const char *file,
		   int line);

#define CU_CHECK(call) gm_cu_check((call), #call, __FILE__, __LINE__)
#define CUPTI_CHECK(call) gm_cupti_check((call), #call, __FILE__, __LINE__)

#endif
