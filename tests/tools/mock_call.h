/* SPDX-License-Identifier: MIT */
/*
 * For the stand-in programs that run on the mock CUDA driver (tests/mock/)
 * under `gpumix capture`, through the real CUPTI subscriber of
 * libgpumix-capture.so (gm_capture_test_*: the callback data CUPTI would
 * give): MOCK_CALL(name, params, expr) makes the driver call @expr
 * between the entry and exit callbacks of driver call @name, with
 * @params its CUPTI parameter struct (whose pointers the subscriber
 * reads, and may change at the entry, as CUPTI lets it), and exits 2
 * naming the call when it fails. Every bundle such a program leaves is
 * what a GPU capture of the same calls would hold, and the mock computed
 * its results, so it also replays verified on the mock.
 */
#ifndef GM_TESTS_MOCK_CALL_H
#define GM_TESTS_MOCK_CALL_H

#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gm_capture_test_init(void);
void gm_capture_test_callback(int domain, unsigned cbid, const void *data);
void gm_capture_test_exit(void);

/* The program's name in messages, and the correlation ids it hands out. */
extern const char *mock_call_prog;
extern uint32_t mock_call_corr;
extern uint64_t mock_call_data;

#define MOCK_CALL(name, params, expr)                                          \
	do {                                                                   \
		CUpti_CallbackData cb_;                                        \
		CUresult ret_ = CUDA_SUCCESS;                                  \
		memset(&cb_, 0, sizeof(cb_));                                  \
		cb_.functionName = #name;                                      \
		cb_.functionParams = (params);                                 \
		cb_.functionReturnValue = &ret_;                               \
		cb_.correlationData = &mock_call_data;                         \
		cb_.correlationId = mock_call_corr++;                          \
		cb_.callbackSite = CUPTI_API_ENTER;                            \
		gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API,           \
					 CUPTI_DRIVER_TRACE_CBID_##name, &cb_);\
		ret_ = (expr);                                                 \
		cb_.callbackSite = CUPTI_API_EXIT;                             \
		gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API,           \
					 CUPTI_DRIVER_TRACE_CBID_##name, &cb_);\
		if (ret_ != CUDA_SUCCESS) {                                    \
			fprintf(stderr, "%s: %s failed: %d\n", mock_call_prog, \
				#name, (int)ret_);                             \
			exit(2);                                               \
		}                                                              \
	} while (0)

#endif
