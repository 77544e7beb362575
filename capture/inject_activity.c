/* SPDX-License-Identifier: MIT */
/*
 * CUPTI's activity records: the GPU start and end of each kernel, copy
 * and memset, with the correlation id of the call that made it, emitted
 * as act_kernel, act_memcpy and act_memset events. CUPTI fills buffers
 * this file hands it and gives them back full, on its own thread or on a
 * program thread inside a driver call; records CUPTI dropped and buffers
 * that could not be had are counted as losses.
 */
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "emit.h"
#include "inject.h"

#define ACT_BUF_SIZE (8u << 20)

/*
 * CUPTI's buffer callbacks run on its own thread, but may run on a
 * program thread inside a driver call: their time is the capture's too.
 * Returns 1 when this call opened the bracket.
 */
static int own_open(void)
{
	struct gm_thread *t;

	if (!gm_capture_ready()) {
		return 0;
	}
	t = gm_capture_thread();
	if (t->in_own) {
		return 0;
	}
	gm_capture_own_begin(t);
	return 1;
}

static void own_close(int opened)
{
	if (opened) {
		gm_capture_own_end(gm_capture_thread());
	}
}

/*
 * The words every activity event begins with (record.h), from the CUPTI
 * record @rec of a kernel, copy or memset (the same member names in all).
 */
struct act_head {
	uint64_t start, end, corr, device, context, stream;
};
#define ACT_HEAD(w, rec)                                                       \
	(*(struct act_head *)(w) = (struct act_head){                          \
		 (rec)->start, (rec)->end, (rec)->correlationId,               \
		 (rec)->deviceId, (rec)->contextId, (rec)->streamId })
_Static_assert(offsetof(struct gm_ev_act_kernel, stream) ==
			       offsetof(struct act_head, stream) &&
		       offsetof(struct gm_ev_act_memcpy, stream) ==
			       offsetof(struct act_head, stream) &&
		       offsetof(struct gm_ev_act_memset, stream) ==
			       offsetof(struct act_head, stream),
	       "activity events begin start, end, corr, device, context, "
	       "stream");

static void emit_activity(CUpti_Activity *rec)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_act_kernel)] = { 0 };

	r.args = w;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)rec;
		struct gm_ev_act_kernel *e = (struct gm_ev_act_kernel *)w;
		ACT_HEAD(w, k);
		e->gridX = (uint64_t)k->gridX;
		e->gridY = (uint64_t)k->gridY;
		e->gridZ = (uint64_t)k->gridZ;
		e->blockX = (uint64_t)k->blockX;
		e->blockY = (uint64_t)k->blockY;
		e->blockZ = (uint64_t)k->blockZ;
		e->staticSmem = (uint64_t)k->staticSharedMemory;
		e->dynamicSmem = (uint64_t)k->dynamicSharedMemory;
		e->registers = k->registersPerThread;
		e->queued = k->queued;
		e->submitted = k->submitted;
		e->launchType = k->launchType;
		r.corr = k->correlationId;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_kernel);
		gm_capture_str(&r, k->name);
		gm_capture_emit(GM_EV_ACT_KERNEL, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;
		struct gm_ev_act_memcpy *e = (struct gm_ev_act_memcpy *)w;
		ACT_HEAD(w, m);
		e->bytes = m->bytes;
		e->copyKind = m->copyKind;
		e->srcKind = m->srcKind;
		e->dstKind = m->dstKind;
		r.corr = m->correlationId;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_memcpy);
		gm_capture_emit(GM_EV_ACT_MEMCPY, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)rec;
		struct gm_ev_act_memset *e = (struct gm_ev_act_memset *)w;
		ACT_HEAD(w, m);
		e->bytes = m->bytes;
		e->value = m->value;
		r.corr = m->correlationId;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_memset);
		gm_capture_emit(GM_EV_ACT_MEMSET, &r);
		break;
	}
	default:
		/* Only the kinds enabled in activity_enable() arrive. */
		gm_capture_loss(cupti_errors);
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
				      size_t *max_records)
{
	int own = own_open();

	*buf = aligned_alloc(8, ACT_BUF_SIZE);
	*size = *buf ? ACT_BUF_SIZE : 0;
	*max_records = 0;
	if (!*buf) {
		gm_capture_loss(cupti_errors);
	}
	own_close(own);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
				      uint8_t *buf, size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;
	CUptiResult rc;
	int own = own_open();

	(void)size;
	while ((rc = cuptiActivityGetNextRecord(buf, valid, &rec)) ==
	       CUPTI_SUCCESS) {
		emit_activity(rec);
	}
	if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED) {
		gm_capture_loss(cupti_errors);
	}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
		    CUPTI_SUCCESS && dropped) {
		gm_capture_add(loss.cupti_dropped, dropped);
	}
	free(buf);
	own_close(own);
}

void activity_enable(void)
{
	if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) !=
	    CUPTI_SUCCESS) {
		gm_capture_loss(cupti_errors);
		return;
	}
	if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) !=
		    CUPTI_SUCCESS ||
	    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
	    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS) {
		gm_capture_loss(cupti_errors);
	}
}
