/* SPDX-License-Identifier: MIT */
/*
 * A mock CUPTI (libcupti.so.13, symbols versioned like the real one) for
 * CPU-only tests of the replay runtime: it delivers the activity records
 * of the mock driver through the registered buffer callbacks. It also has
 * the callback API's one subscriber (at the end of the file).
 *
 * Knobs: MOCK_CUPTI_DROPPED=N reports N dropped records once;
 * MOCK_CUPTI_FAIL=1 refuses activity profiling (insufficient privileges);
 * MOCK_CUPTI_SUBSCRIBER=taken refuses the subscriber.
 */
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "mock.h"

static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static int dropped_reported;

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	return type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ?
		       CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(
	CUpti_BuffersCallbackRequestFunc req,
	CUpti_BuffersCallbackCompleteFunc comp)
{
	if (getenv("MOCK_CUPTI_FAIL")) {
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	}
	requested = req;
	completed = comp;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableLatencyTimestamps(uint8_t enable)
{
	mock_enable_latency(enable);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	if (kind == CUPTI_ACTIVITY_KIND_KERNEL) {
		return CUPTI_ERROR_INVALID_KIND;	/* the tests forbid it */
	}
	mock_enable_kind(kind);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid,
						  uint8_t enable)
{
	mock_enable_driver_api(cbid, enable);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	(void)kind;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag;
	while (requested && completed && mock_pending_records()) {
		uint8_t *buf = NULL;
		size_t size = 0, max = 0, n;
		requested(&buf, &size, &max);
		if (!buf) {
			return CUPTI_ERROR_OUT_OF_MEMORY;
		}
		n = mock_take_records(buf, size);
		completed(NULL, 0, buf, size, n);
		if (!n) {
			break;
		}
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context,
						       uint32_t streamId,
						       size_t *dropped)
{
	const char *d = getenv("MOCK_CUPTI_DROPPED");

	(void)context;
	(void)streamId;
	*dropped = 0;
	if (d && !dropped_reported) {
		*dropped = strtoul(d, NULL, 10);
		dropped_reported = 1;
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer,
						size_t validBufferSizeBytes,
						CUpti_Activity **record)
{
	uint8_t *p = (uint8_t *)*record;

	if (!p) {
		p = buffer;
	} else {
		p += (mock_record_size((*record)->kind) + 7) & ~(size_t)7;
	}
	if (p >= buffer + validBufferSizeBytes) {
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	}
	*record = (CUpti_Activity *)p;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain,
					  uint32_t cbid, const char **name)
{
	(void)domain;
	switch (cbid) {
	case 307:
		*name = "cuLaunchKernel";
		break;
	case 279:
		*name = "cuMemcpyHtoDAsync_v2";
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
		*name = "cuGraphLaunch";
		break;
	default:
		*name = "cuMockCall";
		break;
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream,
					uint8_t perThreadStream,
					uint32_t *streamId)
{
	(void)context;
	(void)perThreadStream;
	*streamId = mock_stream_id(stream);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *contextId)
{
	if (!contextId) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	*contextId = mock_ctx_id(context);
	return *contextId ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_CONTEXT;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result,
					  const char **str)
{
	(void)result;
	*str = "mock CUPTI error";
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(
	CUpti_ExternalCorrelationKind kind, uint64_t id)
{
	if (kind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	return mock_push_external(id) ? CUPTI_ERROR_INVALID_OPERATION :
					CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(
	CUpti_ExternalCorrelationKind kind, uint64_t *lastId)
{
	uint64_t id = 0;

	if (kind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	if (mock_pop_external(&id)) {
		return CUPTI_ERROR_QUEUE_EMPTY;
	}
	if (lastId) {
		*lastId = id;
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	*timestamp = mock_now();
	return CUPTI_SUCCESS;
}

/*
 * The callback API: one subscriber (as CUPTI allows), whose driver-API
 * callbacks the mock driver raises at the calls it marks (mock_cuda.c).
 * MOCK_CUPTI_SUBSCRIBER=taken makes cuptiSubscribe fail as when another
 * tool already holds CUPTI.
 */
static struct {
	CUpti_CallbackFunc fn;
	void *userdata;
	int taken;
} subscriber;

static void trampoline(void *userdata, int domain, uint32_t cbid,
		       const void *data)
{
	(void)userdata;
	subscriber.fn(subscriber.userdata, (CUpti_CallbackDomain)domain,
		      (CUpti_CallbackId)cbid, data);
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber_,
				    CUpti_CallbackFunc callback, void *userdata)
{
	const char *t = getenv("MOCK_CUPTI_SUBSCRIBER");

	if (subscriber.taken || (t && !strcmp(t, "taken"))) {
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	subscriber.fn = callback;
	subscriber.userdata = userdata;
	subscriber.taken = 1;
	*subscriber_ = (CUpti_SubscriberHandle)&subscriber;
	mock_set_subscriber(trampoline, NULL);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle handle)
{
	if (handle != (CUpti_SubscriberHandle)&subscriber || !subscriber.taken) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	mock_set_subscriber(NULL, NULL);
	subscriber.taken = 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable,
					 CUpti_SubscriberHandle handle,
					 CUpti_CallbackDomain domain,
					 CUpti_CallbackId cbid)
{
	if (handle != (CUpti_SubscriberHandle)&subscriber || !subscriber.taken) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		mock_enable_callback(cbid, (int)enable);
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable,
				       CUpti_SubscriberHandle handle,
				       CUpti_CallbackDomain domain)
{
	if (handle != (CUpti_SubscriberHandle)&subscriber || !subscriber.taken) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		for (uint32_t cbid = 0; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
			mock_enable_callback(cbid, (int)enable);
		}
	}
	return CUPTI_SUCCESS;
}
