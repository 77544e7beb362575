/* SPDX-License-Identifier: MIT */
/*
 * What every scheduler does the same way with an operation: resolve its
 * references, check a device-to-host result against the captured hash
 * (at once, or later for an asynchronous copy), allocate and free
 * through the program's bulk allocator (no CUDA call, no device-wide
 * serialization), create and destroy texture objects, and the loop that
 * hands each operation to the variant's scheduler. Issuing work on
 * streams is the schedulers' (sched_*.c).
 */
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "addr_space.h"
#include "clock.h"
#include "copy_nd.h"
#include "cu_check.h"
#include "sched.h"
#include "error.h"
#include "replay_int.h"

const char *gm_op_name(unsigned code)
{
	static const char *const names[GM_OP_COUNT] = {
#define GM_OP_NAME_(name, what, group, traits, operands) [GM_OP_##name] = what,
#define GM_OPND_NONE_(field, kind)
		GM_OPS(GM_OP_NAME_, GM_OPND_NONE_)
#undef GM_OP_NAME_
#undef GM_OPND_NONE_
	};
	return code < GM_OP_COUNT && names[code] ? names[code] : "unknown";
}

/* Here, not in copy_nd.c: what a reference names now is ops.c's, and
 * copy_nd.c asks it (no circle of files). */
CUarray gm_array_live(struct gm_prog *p, uint32_t id)
{
	if (id >= p->d->nr_arrays || !p->array_live[id]) {
		gm_error("array %" PRIu32 " is not live", id);
		return NULL;
	}
	return p->arrays[id];
}

int gm_resolve(struct gm_prog *p, uint32_t ref, uint64_t off, uint64_t len,
	       CUdeviceptr *out)
{
	uint32_t id = ref & GM_REF_ID_MASK;
	uint64_t base, size;

	switch (ref & GM_REF_KIND_MASK) {
	case GM_REF_ALLOC:
		if (id >= p->d->nr_allocs || !p->alloc_ptr[id]) {
			return gm_error("allocation %" PRIu32 " is not live",
					id);
		}
		base = p->alloc_ptr[id];
		size = p->alloc_size[id];
		break;
	case GM_REF_GLOBAL:
		if (id >= p->d->nr_globals) {
			return gm_error("no global %" PRIu32, id);
		}
		base = p->globals[id];
		size = p->global_size[id];
		break;
	case GM_REF_HOSTMEM:
		if (id >= p->d->nr_hostmems || !p->hm_dev || !p->hm_dev[id]) {
			return gm_error("mapped or managed memory %" PRIu32
					" is not allocated", id);
		}
		base = p->hm_dev[id];
		size = p->d->hostmems[id].size;
		break;
	case GM_REF_TEXTURE:
		if (id >= p->d->nr_textures || !p->tex[id]) {
			return gm_error("texture object %" PRIu32
					" is not live", id);
		}
		*out = (CUdeviceptr)p->tex[id];
		return 0;
	default:
		return gm_error("bad reference 0x%" PRIx32, ref);
	}
	/* An offset equal to the size is a one-past-the-end pointer. */
	if (off > size || len > size - off) {
		return gm_error("%" PRIu64 " bytes at offset %" PRIu64
				" do not fit in %s %" PRIu32 " (%" PRIu64
				" bytes)", len, off,
				(ref & GM_REF_KIND_MASK) == GM_REF_GLOBAL ?
				"global" :
				(ref & GM_REF_KIND_MASK) == GM_REF_HOSTMEM ?
				"mapped or managed memory" : "allocation", id,
				size);
	}
	*out = base + off;
	return 0;
}

/* @op's result hashes to @got: 0, or -1 (cause recorded) when it is not
 * the captured hash. */
static int verify_hash(struct gm_prog *p, const struct gm_op *op,
		       struct gm_hash got)
{
	if (got.hi != p->checks[op->b].hi || got.lo != p->checks[op->b].lo) {
		char want[GM_HASH_HEX_LEN + 1], have[GM_HASH_HEX_LEN + 1];
		gm_hash_hex(p->checks[op->b], want);
		gm_hash_hex(got, have);
		/* A program may compute a result differently on every run
		 * (GPU timers, clock64 loops, time-seeded input): then the
		 * cure is to mark it, not to chase a bug. */
		gm_error_hint("'gpumix trace diff' of two captures of '%s' "
			      "shows which results differ between its own runs",
			      p->d->name);
		return gm_error("result differs from the captured run: the %"
				PRIu64 "-byte device-to-host result hashes to "
				"%s, expected %s; if program '%s' computes it "
				"differently on every run (GPU timers, clock64, "
				"time-seeded input), mark it nondeterministic "
				"(gpumix reconstruct --nondeterministic %s; "
				"deterministic: false in a study)", op->z,
				have, want, p->d->name, p->d->name);
	}
	return 0;
}

int gm_verify(struct gm_prog *p, const struct gm_op *op)
{
	const uint8_t *host;
	struct gm_hash got;
	uint64_t t0, t1;

	if (op->b == GM_NONE || !p->d->deterministic) {
		return 0;
	}
	host = ((op->flags & GM_F_PINNED) ? p->arena_pinned : p->arena) + op->y;
	t0 = gm_now();
	got = gm_hash_bytes(host, op->z);
	t1 = gm_now();
	p->io_ns += t1 - t0;
	return verify_hash(p, op, got);
}

int gm_check_pending(struct gm_prog *p, int s)
{
	size_t keep = 0;
	int ret = 0;

	for (size_t i = 0; i < p->nr_pending; i++) {
		struct gm_pending *e = &p->pending[i];
		if (s >= 0 && e->op->stream != (unsigned)s) {
			p->pending[keep++] = *e;
			continue;
		}
		if (!ret && e->lh &&
		    atomic_load_explicit(&e->lh->done, memory_order_acquire) &&
		    p->d->deterministic && e->op->b != GM_NONE) {
			if (verify_hash(p, e->op, e->lh->hash) < 0) {
				gm_error("operation %" PRIu64 " (%s, trace "
					 "event %" PRIu64 ")", e->index,
					 gm_op_name(e->op->code), e->op->event);
				ret = -1;
			}
			continue;
		}
		if (!ret && gm_verify(p, e->op) < 0) {
			gm_error("operation %" PRIu64 " (%s, trace event %"
				 PRIu64 ")", e->index, gm_op_name(e->op->code),
				 e->op->event);
			ret = -1;
		}
	}
	p->nr_pending = keep;
	return ret;
}

static int grow_pool(struct gm_prog *p, uint64_t need)
{
	uint64_t size = need < (UINT64_C(64) << 20) ? (UINT64_C(64) << 20) : need;
	CUdeviceptr d;

	size = (size + (UINT64_C(2) << 20) - 1) & ~((UINT64_C(2) << 20) - 1);
	gm_log(p->run, "replay: program '%s' needs more device memory than "
	       "planned; allocating %" PRIu64 " more bytes during the replay",
	       p->d->name, size);
	if (CU_CHECK(cuMemAlloc(&d, size))) {
		return -1;
	}
	GM_ALLOC_GROW(p->chunks, p->nr_chunks + 1, p->alloc_chunks);
	p->chunks[p->nr_chunks++] = d;
	return gm_bulk_alloc_add_chunk(&p->pool, d, size);
}

int gm_op_nop(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	return 0;
}

int gm_op_alloc(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	uint64_t addr;
	int r;

	if (p->alloc_ptr[op->a]) {
		return gm_error("allocation %" PRIu32 " is already live", op->a);
	}
	if (gm_addr_captured(p)) {
		/* Inside the program's ranges (checked at init). */
		p->alloc_ptr[op->a] = op->x;
		p->alloc_size[op->a] = op->z;
		return 0;
	}
	if (!gm_bulk_alloc_round(&p->pool, op->z)) {
		return gm_error("allocation %" PRIu32 " of %" PRIu64 " bytes: "
				"larger than any device memory", op->a, op->z);
	}
	r = gm_bulk_alloc_get(&p->pool, op->z, &addr);
	if (r == 1) {
		if (grow_pool(p, gm_bulk_alloc_round(&p->pool, op->z)) < 0) {
			return -1;
		}
		r = gm_bulk_alloc_get(&p->pool, op->z, &addr);
	}
	if (r) {
		return gm_error("out of device memory for %" PRIu64 " bytes",
				op->z);
	}
	p->alloc_ptr[op->a] = addr;
	p->alloc_size[op->a] = op->z;
	return 0;
}

int gm_op_free(struct gm_prog *p, const struct gm_op *op)
{
	if (!p->alloc_ptr[op->a]) {
		return gm_error("allocation %" PRIu32 " is not live", op->a);
	}
	if (!gm_addr_captured(p) &&
	    gm_bulk_alloc_put(&p->pool, p->alloc_ptr[op->a],
			   p->alloc_size[op->a]) < 0) {
		return -1;
	}
	p->alloc_ptr[op->a] = 0;
	p->alloc_size[op->a] = 0;
	return 0;
}

int gm_ptr_store_skip(const struct gm_prog *p, const struct gm_op *op)
{
	return op->code == GM_OP_PTR_STORE &&
	       (op->b & GM_REF_KIND_MASK) == GM_REF_ALLOC &&
	       gm_addr_captured(p);
}

void gm_pending_add_hashed(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index, struct gm_launch_hash *lh)
{
	if (op->b == GM_NONE) {
		return;
	}
	GM_ALLOC_GROW(p->pending, p->nr_pending + 1, p->alloc_pending);
	p->pending[p->nr_pending].op = op;
	p->pending[p->nr_pending].index = index;
	p->pending[p->nr_pending].lh = lh;
	p->nr_pending++;
}

void gm_pending_add(struct gm_prog *p, const struct gm_op *op,
		    uint64_t index)
{
	gm_pending_add_hashed(p, op, index, NULL);
}

int gm_tex_create(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	const struct gm_texture_desc *t = &p->d->texdescs[op->b];
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC tex;
	CUdeviceptr base;
	uint64_t len = t->res_type == CU_RESOURCE_TYPE_PITCH2D ?
			       t->pitch * t->height : t->size_bytes;

	if (p->tex[op->a]) {
		return gm_error("texture object %" PRIu32 " is already live",
				op->a);
	}
	memset(&res, 0, sizeof(res));
	memset(&tex, 0, sizeof(tex));
	res.resType = (CUresourcetype)t->res_type;
	if (t->res_type == CU_RESOURCE_TYPE_ARRAY) {
		if (!(res.res.array.hArray =
			      gm_array_live(p, t->ref & GM_REF_ID_MASK))) {
			return -1;
		}
	} else if (gm_resolve(p, t->ref, t->offset, len, &base) < 0) {
		return -1;
	}
	if (t->res_type == CU_RESOURCE_TYPE_ARRAY) {
		/* the array says format and size */
	} else if (t->res_type == CU_RESOURCE_TYPE_PITCH2D) {
		res.res.pitch2D.devPtr = base;
		res.res.pitch2D.format = (CUarray_format)t->format;
		res.res.pitch2D.numChannels = t->channels;
		res.res.pitch2D.width = t->width;
		res.res.pitch2D.height = t->height;
		res.res.pitch2D.pitchInBytes = t->pitch;
	} else {
		res.res.linear.devPtr = base;
		res.res.linear.format = (CUarray_format)t->format;
		res.res.linear.numChannels = t->channels;
		res.res.linear.sizeInBytes = t->size_bytes;
	}
	for (int i = 0; i < 3; i++) {
		tex.addressMode[i] = (CUaddress_mode)t->address_mode[i];
	}
	tex.filterMode = (CUfilter_mode)t->filter_mode;
	tex.flags = t->flags;
	tex.maxAnisotropy = t->max_anisotropy;
	tex.mipmapFilterMode = (CUfilter_mode)t->mipmap_filter_mode;
	tex.mipmapLevelBias = t->mipmap_level_bias;
	tex.minMipmapLevelClamp = t->min_mipmap_level_clamp;
	tex.maxMipmapLevelClamp = t->max_mipmap_level_clamp;
	memcpy(tex.borderColor, t->border_color, sizeof(tex.borderColor));
	return CU_CHECK(cuTexObjectCreate(&p->tex[op->a], &res, &tex, NULL));
}

int gm_tex_destroy(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	if (!p->tex[op->a]) {
		return gm_error("texture object %" PRIu32 " is not live", op->a);
	}
	if (CU_CHECK(cuTexObjectDestroy(p->tex[op->a]))) {
		return -1;
	}
	p->tex[op->a] = 0;
	return 0;
}

/*
 * The program's host work is the program's, not the GPU's: by default it
 * is replaced by a function that returns at once, which keeps only the
 * ordering (later work in the stream waits for it). Timed, it spins for
 * the captured duration on CUDA's host-function thread, as the program's
 * function kept that thread (and the stream) busy; sleeping would
 * overshoot short functions by the scheduler's tick.
 */
static void CUDA_CB host_func_empty(void *arg)
{
	(void)arg;
}

static void CUDA_CB host_func_timed(void *arg)
{
	const struct gm_op *op = arg;
	/* The monotonic clock: no CUPTI or CUDA call on CUDA's thread. */
	uint64_t end = gm_now_ns() + op->x;

	while (gm_now_ns() < end) {
		/* spend the time */
	}
}

int gm_host_func(struct gm_prog *p, const struct gm_op *op, CUstream st)
{
	int timed = p->run->opt.host_callbacks == GM_HOST_CALLBACKS_TIMED &&
		    op->x;

	/* The op is static data of the generated program: it outlives the
	 * call. */
	return CU_CHECK(cuLaunchHostFunc(st, timed ? host_func_timed :
						      host_func_empty,
					 (void *)op));
}

/*
 * Spending captured host time: sleep for the bulk of a gap, spin for its
 * last SPIN_NS (a sleep overshoots by tens of microseconds), and never
 * sleep longer than SLICE_NS at once, so that the watchdog sees progress
 * (a long gap is the program's, not a hang) and a stopping run is noticed.
 * A scheduler that holds work back (nss) is given the time meanwhile.
 */
#define SPIN_NS 200000u
#define SLICE_NS 50000000u

/* 0 at @due, 1 when the run stops first, -1 on a scheduler error. */
static int spend_host_gap(struct gm_prog *p, uint64_t due)
{
	const struct gm_sched *s = p->run->sched;

	for (;;) {
		uint64_t now = gm_now_ns(), left;
		int busy = 0;

		if (now >= due) {
			return 0;
		}
		left = due - now;
		if (s->idle && (busy = s->idle(p)) < 0) {
			return -1;
		}
		if (atomic_load_explicit(&p->run->stop, memory_order_relaxed)) {
			return 1;
		}
		if (busy) {
			watchdog_step(p->wd);
			sched_yield();
		} else if (left > SPIN_NS) {
			uint64_t nap = left - SPIN_NS;
			struct timespec ts;

			if (nap > SLICE_NS) {
				nap = SLICE_NS;
			}
			ts.tv_sec = 0;
			ts.tv_nsec = (long)nap;
			nanosleep(&ts, NULL);
			watchdog_step(p->wd);
		}
		/* else: spin on the clock */
	}
}

int gm_replay_ops(struct gm_prog *p, const struct gm_op *ops, uint64_t nr)
{
	struct gm_run *run = p->run;
	int (*exec)(struct gm_prog *, const struct gm_op *, uint64_t) =
		run->sched->exec;
	/* Host gaps belong to the program's own table of operations. */
	int gaps = gm_host_gaps_on(&p->hg) && ops == p->d->ops;

	p->cur_ops = ops;
	if (gaps) {
		gm_host_gaps_begin(&p->hg);
	}
	for (uint64_t i = 0; i < nr; i++) {
		const struct gm_op *op = &ops[i];

		watchdog_at(p->wd, i);
		if (gaps) {
			/* Before the operation is issued to the scheduler:
			 * one that defers work (nss) issues it no earlier. */
			uint64_t due = gm_host_gaps_due(&p->hg, i);
			int r = due ? spend_host_gap(p, due) : 0;
			if (r < 0) {
				gm_error("program '%s': operation %" PRIu64
					 " (%s, trace event %" PRIu64 "): cannot "
					 "go on while spending host time",
					 p->d->name, i, gm_op_name(op->code),
					 op->event);
				p->failed = 1;
				return -1;
			}
			if (r > 0) {
				return 0;
			}
			if (due) {
				gm_host_gaps_issued(&p->hg, due, gm_now_ns());
			}
		}
		if (exec(p, op, i) < 0) {
			gm_error("program '%s': operation %" PRIu64
				 " (%s, trace event %" PRIu64 ") failed",
				 p->d->name, i, gm_op_name(op->code),
				 op->event);
			p->failed = 1;
			return -1;
		}
		if (gaps) {
			gm_host_gaps_returned(&p->hg, i, gm_now_ns());
		}
		watchdog_step(p->wd);
		if (atomic_load_explicit(&run->stop, memory_order_relaxed)) {
			return 0;
		}
	}
	return 0;
}

int gm_prog_drain(struct gm_prog *p)
{
	const struct gm_sched *s = p->run->sched;

	return s->drain ? s->drain(p) : 0;
}
