/* SPDX-License-Identifier: MIT */
/*
 * Error recording for CUDA driver and CUPTI calls (see cu_check.h).
 */
#include "cu_check.h"

#include <string.h>

#include "error.h"

static const char *base(const char *file)
{
	const char *s = strrchr(file, '/');

	return s ? s + 1 : file;
}

int gm_cu_check(CUresult r, const char *call, const char *file, int line)
{
	const char *name = NULL, *text = NULL;

	if (r == CUDA_SUCCESS) {
		return 0;
	}
	if (cuGetErrorName(r, &name) != CUDA_SUCCESS) {
		name = "unknown error";
	}
	if (cuGetErrorString(r, &text) != CUDA_SUCCESS) {
		text = "";
	}
	return gm_error("%s failed: %s (%d)%s%s [%s:%d]", call, name, (int)r,
			*text ? ": " : "", text, base(file), line);
}

int gm_cu_check_timed(CUresult r, const char *call, const char *file,
		      int line)
{
	gm_drv_end(call);
	return gm_cu_check(r, call, file, line);
}

CUresult gm_cu_timed(CUresult r, const char *call)
{
	gm_drv_end(call);
	return r;
}

int gm_cupti_check(CUptiResult r, const char *call, const char *file,
		   int line)
{
	const char *text = NULL;

	if (r == CUPTI_SUCCESS) {
		return 0;
	}
	if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) {
		text = "unknown error";
	}
	return gm_error("%s failed: %s (%d) [%s:%d]", call, text, (int)r,
			base(file), line);
}
