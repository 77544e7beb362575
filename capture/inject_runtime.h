/* SPDX-License-Identifier: MIT */
/*
 * The runtime calls around a recorded driver call (inject_runtime.c),
 * internal to libgpumix-capture.so: each thread's stack of the runtime
 * calls it is inside, their events, and the "unsupported" events, which
 * name the runtime call they happened in.
 */
#ifndef GM_CAPTURE_INJECT_RUNTIME_H
#define GM_CAPTURE_INJECT_RUNTIME_H

#include <cupti.h>
#include <stdint.h>

#include "emit.h"

/* Runtime call @cb (callback id @cbid) entered on thread @t: pushed,
 * its rt_enter emitted only when a driver event needs it (rt_context()). */
void rt_push(struct gm_thread *t, const CUpti_CallbackData *cb, unsigned cbid);

/* Runtime call @cb returned on thread @t: popped, an rt_exit emitted when
 * its rt_enter was and it failed. */
void rt_pop(struct gm_thread *t, const CUpti_CallbackData *cb);

/* Emit the rt_enter of every enclosing runtime call not yet emitted; the
 * correlation id of the innermost (0: none), a driver event's rt_corr. */
uint32_t rt_context(struct gm_thread *t);

/*
 * An "unsupported" event named @name (a loss) for the call at @corr
 * (callback id @cbid, of the runtime API when @runtime) inside runtime
 * call @rt_corr (0: none).
 */
void unsupported_at(uint32_t corr, uint32_t rt_corr, unsigned cbid,
		    int runtime, const char *name);

/* The same for the call of @cb on thread @t, in its runtime context. */
void unsupported_call(const CUpti_CallbackData *cb, unsigned cbid,
		      int runtime, const char *name, struct gm_thread *t);

#endif
