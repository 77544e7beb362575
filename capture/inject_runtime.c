/* SPDX-License-Identifier: MIT */
/*
 * The runtime calls around a recorded driver call (see inject_runtime.h):
 * each thread's stack of runtime calls, their rt_enter and rt_exit
 * events, and the "unsupported" events, which name the runtime call they
 * happened in. inject.c and the special cases' handlers (inject_*.c)
 * call these; nothing here calls back into them.
 */
#include <cupti.h>
#include <stdint.h>

#include "emit.h"
#include "inject_runtime.h"

/* ---- runtime context ----------------------------------------------------- */

void rt_push(struct gm_thread *t, const CUpti_CallbackData *cb, unsigned cbid)
{
	if (t->rt_depth < GM_RT_DEPTH) {
		struct gm_rt_frame *f = &t->rt[t->rt_depth];
		f->cbid = cbid;
		f->corr = cb->correlationId;
		f->name = cb->functionName;
		f->emitted = 0;
	}
	t->rt_depth++;
}

void rt_pop(struct gm_thread *t, const CUpti_CallbackData *cb)
{
	struct gm_rt_frame *f;
	int status = 0;

	if (t->rt_depth <= 0) {
		return;
	}
	t->rt_depth--;
	if (t->rt_depth >= GM_RT_DEPTH) {
		return;
	}
	f = &t->rt[t->rt_depth];
	if (cb->functionReturnValue) {
		status = *(const int *)cb->functionReturnValue;
	}
	/*
	 * Driver events name their runtime call by rt_corr; an rt_exit is only
	 * worth its cost (a quarter of a launch's events) when the runtime
	 * call failed.
	 */
	if (f->emitted && status) {
		struct gm_record r = { 0 };
		r.api = (uint16_t)f->cbid;
		r.corr = f->corr;
		r.rt_corr = t->rt_depth ? t->rt[t->rt_depth - 1].corr : 0;
		r.status = status;
		gm_capture_str(&r, f->name);
		gm_capture_emit(GM_EV_RT_EXIT, &r);
	}
}

uint32_t rt_context(struct gm_thread *t)
{
	int depth = t->rt_depth < GM_RT_DEPTH ? t->rt_depth : GM_RT_DEPTH;

	for (int i = 0; i < depth; i++) {
		struct gm_rt_frame *f = &t->rt[i];
		if (!f->emitted) {
			struct gm_record r = { 0 };
			r.api = (uint16_t)f->cbid;
			r.corr = f->corr;
			r.rt_corr = i ? t->rt[i - 1].corr : 0;
			gm_capture_str(&r, f->name);
			gm_capture_emit(GM_EV_RT_ENTER, &r);
			f->emitted = 1;
		}
	}
	return depth ? t->rt[depth - 1].corr : 0;
}

/* ---- unsupported uses ---------------------------------------------------- */

void unsupported_at(uint32_t corr, uint32_t rt_corr, unsigned cbid,
		    int runtime, const char *name)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_unsupported)];
	struct gm_ev_unsupported *u = (struct gm_ev_unsupported *)w;

	u->cbid = cbid;
	u->domain = runtime ? CUPTI_CB_DOMAIN_RUNTIME_API
			    : CUPTI_CB_DOMAIN_DRIVER_API;
	r.api = (uint16_t)cbid;
	r.flags = runtime ? GM_RF_RUNTIME : 0;
	r.corr = corr;
	r.rt_corr = rt_corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_unsupported);
	gm_capture_str(&r, name);
	gm_capture_loss(unsupported_calls);
	gm_capture_emit(GM_EV_UNSUPPORTED, &r);
}

void unsupported_call(const CUpti_CallbackData *cb, unsigned cbid,
		      int runtime, const char *name, struct gm_thread *t)
{
	unsupported_at(cb->correlationId, rt_context(t), cbid, runtime, name);
}
