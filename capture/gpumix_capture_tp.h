/* SPDX-License-Identifier: MIT */
/*
 * The `gpumix_capture` LTTng-UST provider: one event class carrying a
 * struct gm_record (record.h), instantiated once per event kind. Only
 * capture/provider.c creates the probes; capture/emit.c fires them. A
 * tracepoint takes at most 10 arguments, so all fields come from one
 * struct pointer; inline data is a sequence of 64-bit words because
 * babeltrace2 decodes each sequence element as its own field object.
 * Driver calls (enter, exit, d2h_hash) use the `call` class, whose `api`
 * is an enumeration generated from cuda_api.def (tp_api_enum.in), so
 * that other CTF tools show the call's name; the other kinds keep a plain
 * integer (a runtime or CUPTI callback id, or 0). Both encode a u16.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER gpumix_capture

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "capture/gpumix_capture_tp.h"

#if !defined(GM_CAPTURE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define GM_CAPTURE_TP_H

#include <lttng/tracepoint.h>

#include "api.h"
#include "record.h"
#include "capture/tp_api_enum.h"	/* generated: GM_TP_API_ENUM_VALUES */

LTTNG_UST_TRACEPOINT_ENUM(gpumix_capture, api,
	LTTNG_UST_TP_ENUM_VALUES(GM_TP_API_ENUM_VALUES))

/* Every field after `api`, shared by the two classes. */
#define GM_TP_FIELDS_                                                          \
	lttng_ust_field_integer_hex(uint16_t, flags, r->flags)                 \
	lttng_ust_field_integer(uint32_t, corr, r->corr)                       \
	lttng_ust_field_integer(uint32_t, rt_corr, r->rt_corr)                 \
	lttng_ust_field_integer(int32_t, status, r->status)                    \
	lttng_ust_field_sequence_hex(uint64_t, args, r->args, uint8_t,         \
				     r->nr_args)                               \
	lttng_ust_field_integer(uint32_t, data_len, r->data_len)               \
	lttng_ust_field_sequence_hex(uint64_t, data, r->data, uint16_t,        \
				     r->data_words)                            \
	lttng_ust_field_integer_hex(uint64_t, blob_hi, r->blob_hi)             \
	lttng_ust_field_integer_hex(uint64_t, blob_lo, r->blob_lo)             \
	lttng_ust_field_integer(uint64_t, blob_size, r->blob_size)             \
	lttng_ust_field_integer(uint64_t, host_ns, r->host_ns)                 \
	lttng_ust_field_string(str, r->str)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(gpumix_capture, call,
	LTTNG_UST_TP_ARGS(const struct gm_record *, r),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(gpumix_capture, api, uint16_t, api, r->api)
		GM_TP_FIELDS_
	)
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(gpumix_capture, record,
	LTTNG_UST_TP_ARGS(const struct gm_record *, r),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, api, r->api)
		GM_TP_FIELDS_
	)
)

#define GM_TP_INSTANCE_(cls, name)                                             \
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(gpumix_capture, cls,                \
		gpumix_capture, name,                                          \
		LTTNG_UST_TP_ARGS(const struct gm_record *, r))
GM_TP_INSTANCE_(call, enter)
GM_TP_INSTANCE_(call, exit)
GM_TP_INSTANCE_(record, rt_enter)
GM_TP_INSTANCE_(record, rt_exit)
GM_TP_INSTANCE_(record, unsupported)
GM_TP_INSTANCE_(call, d2h_hash)
GM_TP_INSTANCE_(record, layout)
GM_TP_INSTANCE_(record, act_kernel)
GM_TP_INSTANCE_(record, act_memcpy)
GM_TP_INSTANCE_(record, act_memset)
GM_TP_INSTANCE_(record, process)
GM_TP_INSTANCE_(record, device)
GM_TP_INSTANCE_(record, hostmem)
GM_TP_INSTANCE_(call, host_func)

#endif

#include <lttng/tracepoint-event.h>
