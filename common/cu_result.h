/* SPDX-License-Identifier: MIT */
/*
 * CUresult codes in words, and whether a failure is one a working program
 * meets in normal use (see cu_result.c).
 */
#ifndef GM_CU_RESULT_H
#define GM_CU_RESULT_H

/* "CUDA_ERROR_ILLEGAL_ADDRESS" for 700; "unknown error" when not known. */
const char *gm_cu_result_name(int code);

/*
 * 1 for success and the failures a working program meets (out of memory,
 * not found, not ready, peer access or host registration already in the
 * asked state, the driver deinitialized at exit); 0 for the others.
 */
int gm_cu_result_tolerated(int code);

#endif
