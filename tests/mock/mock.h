/* SPDX-License-Identifier: MIT */
/*
 * What the mock CUDA driver (mock_cuda.c and mock_device.c, libcuda.so.1)
 * exports to the mock CUPTI (mock_cupti.c, libcupti.so.13) and to its own
 * unit test: the activity records it produced, the knobs CUPTI turns, the
 * clock of the records and the callbacks of CUPTI's subscriber.
 */
#ifndef GM_MOCK_H
#define GM_MOCK_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

uint64_t mock_now(void);
void mock_enable_kind(int kind);
void mock_enable_latency(int on);
void mock_enable_driver_api(uint32_t cbid, int on);
size_t mock_record_size(int kind);
size_t mock_take_records(uint8_t *out, size_t room);
size_t mock_pending_records(void);
uint32_t mock_stream_id(CUstream s);
/* CUPTI's id of context @c (NULL: the caller's current one), 0 when
 * @c is not a context. */
uint32_t mock_ctx_id(CUcontext c);

/*
 * The CUPTI subscriber (mock_cupti.c): its callback, called at the entry
 * and exit of the driver calls whose callback ids are enabled.
 */
void mock_set_subscriber(void (*fn)(void *userdata, int domain, uint32_t cbid,
				    const void *data),
			 void *userdata);
void mock_enable_callback(uint32_t cbid, int on);

/*
 * External correlation (cuptiActivityPush/PopExternalCorrelationId): the
 * calling thread's stack of CUSTOM0 ids; while one is pushed, each API
 * record is preceded by an external correlation record pairing it with
 * the call's correlation id (when that kind is on). Push fails (-1) past
 * 16 ids, pop when none is pushed.
 */
int mock_push_external(uint64_t id);
int mock_pop_external(uint64_t *id);

#endif
