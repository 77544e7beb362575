/* SPDX-License-Identifier: MIT */
/*
 * The operation interpreter: gm_replay_ops() executes a program's
 * operation table on its own streams. Everything is asynchronous on the
 * program's (non-blocking) streams; an operation flagged GM_F_SYNC is
 * followed by a synchronization of its stream, which keeps the ordering
 * a synchronous call had for the host. Allocation and free go to the
 * program's bulk allocator (no CUDA call, no device-wide serialization);
 * memsets are cuMemsetD*Async on the program's stream (non-serializing).
 *
 * Legacy default stream: stream 0 of a program stands for its legacy
 * stream. When the program also used blocking streams, the implicit
 * synchronization between them is rebuilt with internal events (work on
 * stream 0 waits for earlier work on every blocking stream and the other
 * way round); programs that use only stream 0 pay nothing for it.
 */
#include <inttypes.h>
#include <string.h>

#include "cu_check.h"
#include "elastic_launch.h"
#include "error.h"
#include "replay_int.h"

const char *gm_op_name(unsigned code)
{
	static const char *const names[GM_OP_COUNT] = {
		[GM_OP_NOP] = "no-op",
		[GM_OP_ALLOC] = "allocation",
		[GM_OP_FREE] = "free",
		[GM_OP_H2D] = "host-to-device copy",
		[GM_OP_D2H] = "device-to-host copy",
		[GM_OP_D2D] = "device-to-device copy",
		[GM_OP_MEMSET8] = "memset (8-bit)",
		[GM_OP_MEMSET16] = "memset (16-bit)",
		[GM_OP_MEMSET32] = "memset (32-bit)",
		[GM_OP_LAUNCH] = "kernel launch",
		[GM_OP_EVENT_RECORD] = "event record",
		[GM_OP_STREAM_WAIT] = "stream wait on event",
		[GM_OP_EVENT_SYNC] = "event synchronize",
		[GM_OP_STREAM_SYNC] = "stream synchronize",
		[GM_OP_CTX_SYNC] = "context synchronize",
		[GM_OP_TEX_CREATE] = "texture object create",
		[GM_OP_TEX_DESTROY] = "texture object destroy",
	};
	return code < GM_OP_COUNT && names[code] ? names[code] : "unknown";
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
				"global" : "allocation", id, size);
	}
	*out = base + off;
	return 0;
}

/* Before an operation on stream @s: implicit legacy-stream ordering. */
static int enter_stream(struct gm_prog *p, unsigned s)
{
	if (!p->nr_blocking) {
		return 0;
	}
	if (s == 0) {
		for (uint32_t i = 0; i < p->nr_blocking; i++) {
			uint32_t t = p->blocking[i];
			if (!p->dirty[t]) {
				continue;
			}
			if (CU_CHECK(cuEventRecord(p->sync_events[t],
						   p->streams[t])) ||
			    CU_CHECK(cuStreamWaitEvent(p->streams[0],
						       p->sync_events[t], 0))) {
				return -1;
			}
			p->dirty[t] = 0;
		}
	} else if (p->dirty && (p->d->streams[s].flags & GM_STREAM_BLOCKING) &&
		   p->seen_gen[s] != p->legacy_gen) {
		if (p->legacy_event_gen != p->legacy_gen) {
			if (CU_CHECK(cuEventRecord(p->sync_events[0],
						   p->streams[0]))) {
				return -1;
			}
			p->legacy_event_gen = p->legacy_gen;
		}
		if (CU_CHECK(cuStreamWaitEvent(p->streams[s],
					       p->sync_events[0], 0))) {
			return -1;
		}
		p->seen_gen[s] = p->legacy_gen;
	}
	return 0;
}

static void leave_stream(struct gm_prog *p, unsigned s)
{
	if (!p->nr_blocking) {
		return;
	}
	if (s == 0) {
		p->legacy_gen++;
	} else if (p->d->streams[s].flags & GM_STREAM_BLOCKING) {
		p->dirty[s] = 1;
	}
}

static int stream_sync(struct gm_prog *p, unsigned s)
{
	return CU_CHECK(cuStreamSynchronize(p->streams[s]));
}

static int verify(struct gm_prog *p, const struct gm_op *op, uint64_t index)
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
	if (got.hi != p->checks[op->b].hi || got.lo != p->checks[op->b].lo) {
		char want[GM_HASH_HEX_LEN + 1], have[GM_HASH_HEX_LEN + 1];
		gm_hash_hex(p->checks[op->b], want);
		gm_hash_hex(got, have);
		return gm_error("result differs from the captured run: %" PRIu64
				" bytes hash to %s, expected %s", op->z, have,
				want);
	}
	return 0;
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
		if (!ret && verify(p, e->op, e->index) < 0) {
			gm_error("operation %" PRIu64 " (%s, trace event %"
				 PRIu64 ")", e->index, gm_op_name(e->op->code),
				 e->op->event);
			ret = -1;
		}
	}
	p->nr_pending = keep;
	return ret;
}

int gm_prog_drain(struct gm_prog *p)
{
	for (uint32_t s = 0; s < p->nr_streams_created; s++) {
		if (stream_sync(p, s) < 0) {
			return -1;
		}
	}
	return gm_check_pending(p, -1);
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
	return bulk_alloc_add_chunk(&p->pool, d, size);
}

static int op_alloc(struct gm_prog *p, const struct gm_op *op)
{
	uint64_t addr;
	int r;

	if (p->alloc_ptr[op->a]) {
		return gm_error("allocation %" PRIu32 " is already live", op->a);
	}
	r = bulk_alloc_get(&p->pool, op->z, &addr);
	if (r == 1) {
		if (grow_pool(p, bulk_alloc_round(&p->pool, op->z)) < 0) {
			return -1;
		}
		r = bulk_alloc_get(&p->pool, op->z, &addr);
	}
	if (r) {
		return gm_error("out of device memory for %" PRIu64 " bytes",
				op->z);
	}
	p->alloc_ptr[op->a] = addr;
	p->alloc_size[op->a] = op->z;
	return 0;
}

static int op_free(struct gm_prog *p, const struct gm_op *op)
{
	if (!p->alloc_ptr[op->a]) {
		return gm_error("allocation %" PRIu32 " is not live", op->a);
	}
	/*
	 * cuMemFree waited for the device; with one stream, stream order
	 * already keeps later users of the recycled memory behind earlier
	 * ones. With several, wait for this program's streams (only).
	 */
	if (p->nr_streams_created > 1) {
		for (uint32_t s = 0; s < p->nr_streams_created; s++) {
			if (stream_sync(p, s) < 0) {
				return -1;
			}
		}
	}
	if (bulk_alloc_put(&p->pool, p->alloc_ptr[op->a],
			   p->alloc_size[op->a]) < 0) {
		return -1;
	}
	p->alloc_ptr[op->a] = 0;
	p->alloc_size[op->a] = 0;
	return 0;
}

static int op_copy(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	CUstream st = p->streams[op->stream];
	CUdeviceptr dst, src;

	if (enter_stream(p, op->stream) < 0) {
		return -1;
	}
	switch (op->code) {
	case GM_OP_H2D: {
		const uint8_t *host = p->run->blob_host[op->b];
		if (gm_resolve(p, op->a, op->x, op->z, &dst) < 0 ||
		    CU_CHECK(cuMemcpyHtoDAsync(dst, host + op->y, op->z, st))) {
			return -1;
		}
		break;
	}
	case GM_OP_D2H: {
		uint8_t *host = ((op->flags & GM_F_PINNED) ? p->arena_pinned :
							    p->arena) + op->y;
		if (gm_resolve(p, op->a, op->x, op->z, &src) < 0 ||
		    CU_CHECK(cuMemcpyDtoHAsync(host, src, op->z, st))) {
			return -1;
		}
		break;
	}
	case GM_OP_D2D:
		if (gm_resolve(p, op->a, op->x, op->z, &dst) < 0 ||
		    gm_resolve(p, op->b, op->y, op->z, &src) < 0 ||
		    CU_CHECK(cuMemcpyDtoDAsync(dst, src, op->z, st))) {
			return -1;
		}
		break;
	}
	leave_stream(p, op->stream);
	if (op->flags & GM_F_SYNC) {
		if (stream_sync(p, op->stream) < 0) {
			return -1;
		}
		if (op->code == GM_OP_D2H) {
			return verify(p, op, index);
		}
	} else if (op->code == GM_OP_D2H && op->b != GM_NONE) {
		GM_ALLOC_GROW(p->pending, p->nr_pending + 1, p->alloc_pending);
		p->pending[p->nr_pending].op = op;
		p->pending[p->nr_pending].index = index;
		p->nr_pending++;
	}
	return 0;
}

static int op_memset(struct gm_prog *p, const struct gm_op *op)
{
	CUstream st = p->streams[op->stream];
	unsigned width = op->code == GM_OP_MEMSET8 ? 1 :
			 op->code == GM_OP_MEMSET16 ? 2 : 4;
	CUdeviceptr dst;
	int r;

	if (enter_stream(p, op->stream) < 0 ||
	    gm_resolve(p, op->a, op->x, op->z * width, &dst) < 0) {
		return -1;
	}
	if (width == 1) {
		r = CU_CHECK(cuMemsetD8Async(dst, (unsigned char)op->c, op->z,
					     st));
	} else if (width == 2) {
		r = CU_CHECK(cuMemsetD16Async(dst, (unsigned short)op->c,
					      op->z, st));
	} else {
		r = CU_CHECK(cuMemsetD32Async(dst, op->c, op->z, st));
	}
	if (r) {
		return -1;
	}
	leave_stream(p, op->stream);
	if ((op->flags & GM_F_SYNC) && stream_sync(p, op->stream) < 0) {
		return -1;
	}
	return 0;
}

static int op_launch(struct gm_prog *p, const struct gm_op *op,
		     uint64_t index)
{
	const struct gm_launch_desc *l = &p->d->launches[op->a];
	const struct gm_params_desc *pd = &p->d->params[l->params];
	CUstream st = p->streams[op->stream];
	CUfunction f = p->funcs[l->kernel];
	void **args = p->kargs[l->kernel];
	size_t size = pd->size;
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, p->param_buf,
			  CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
			  CU_LAUNCH_PARAM_END };
	void **ex = NULL;
	int el = p->el_class && p->el_class[l->kernel] != GM_ELASTIC_NONE;
	void *el_where = &p->el_args;

	if (pd->size) {
		memcpy(p->param_buf, pd->bytes, pd->size);
	}
	for (uint32_t i = 0; i < pd->nr_relocs; i++) {
		const struct gm_reloc *r = &pd->relocs[i];
		CUdeviceptr v;
		if (gm_resolve(p, r->ref, r->addend, 0, &v) < 0) {
			return gm_error("parameter bytes %" PRIu32 "-%" PRIu32
					" of '%s'", r->offset, r->offset + 7,
					p->d->kernels[l->kernel].name);
		}
		uint64_t w = (uint64_t)v;
		memcpy(p->param_buf + r->offset, &w, sizeof(w));
	}
	/* Without a recorded layout, the buffer goes as one block. */
	if (!p->d->kernels[l->kernel].nr_params && pd->size) {
		args = NULL;
		ex = extra;
	}
	if (el) {
		/* The appended parameter: elasticity off unless replaced. */
		gm_elastic_args_identity(&p->el_args, l->grid, l->block);
		if (ex) {
			size_t at = (size + GM_ELASTIC_PARAM_ALIGN - 1) &
				    ~(size_t)(GM_ELASTIC_PARAM_ALIGN - 1);
			el_where = p->param_buf + at;
			memcpy(el_where, &p->el_args, sizeof(p->el_args));
			size = at + GM_ELASTIC_PARAM_SIZE;
		}
	}
	if (enter_stream(p, op->stream) < 0) {
		return -1;
	}
	atomic_store_explicit(&p->last_launch, index + 1, memory_order_relaxed);
	/* Cooperative and cluster launches are never made elastic. */
	if (el && !l->cluster[0] && !(l->flags & GM_LAUNCH_COOPERATIVE) &&
	    p->run->opt.elastic.mode > GM_ELASTIC_IDENTITY) {
		if (gm_elastic_launch(p, op->a, f, args, ex, el_where, st) < 0) {
			return -1;
		}
		leave_stream(p, op->stream);
		return 0;
	}
	if (p->run->opt.elastic.mode != GM_ELASTIC_OFF) {
		atomic_fetch_add_explicit(el ? &p->run->el_count.identity :
					       &p->run->el_count.unmodified,
					  1, memory_order_relaxed);
	}
	if (l->cluster[0] || (l->flags & GM_LAUNCH_COOPERATIVE)) {
		CUlaunchAttribute attrs[2];
		CUlaunchConfig cfg;
		unsigned n = 0;

		memset(attrs, 0, sizeof(attrs));
		memset(&cfg, 0, sizeof(cfg));
		if (l->cluster[0]) {
			attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
			attrs[n].value.clusterDim.x = l->cluster[0];
			attrs[n].value.clusterDim.y = l->cluster[1] ? l->cluster[1] : 1;
			attrs[n].value.clusterDim.z = l->cluster[2] ? l->cluster[2] : 1;
			n++;
		}
		if (l->flags & GM_LAUNCH_COOPERATIVE) {
			attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
			attrs[n].value.cooperative = 1;
			n++;
		}
		cfg.gridDimX = l->grid[0];
		cfg.gridDimY = l->grid[1];
		cfg.gridDimZ = l->grid[2];
		cfg.blockDimX = l->block[0];
		cfg.blockDimY = l->block[1];
		cfg.blockDimZ = l->block[2];
		cfg.sharedMemBytes = l->smem;
		cfg.hStream = st;
		cfg.attrs = attrs;
		cfg.numAttrs = n;
		if (CU_CHECK(cuLaunchKernelEx(&cfg, f, args, ex))) {
			return -1;
		}
	} else if (CU_CHECK(cuLaunchKernel(f, l->grid[0], l->grid[1],
					   l->grid[2], l->block[0], l->block[1],
					   l->block[2], l->smem, st, args,
					   ex))) {
		return -1;
	}
	leave_stream(p, op->stream);
	return 0;
}

static int op_tex_create(struct gm_prog *p, const struct gm_op *op)
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
	if (gm_resolve(p, t->ref, t->offset, len, &base) < 0) {
		return -1;
	}
	memset(&res, 0, sizeof(res));
	memset(&tex, 0, sizeof(tex));
	res.resType = (CUresourcetype)t->res_type;
	if (t->res_type == CU_RESOURCE_TYPE_PITCH2D) {
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

static int exec_op(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	switch (op->code) {
	case GM_OP_NOP:
		return 0;
	case GM_OP_ALLOC:
		return op_alloc(p, op);
	case GM_OP_FREE:
		return op_free(p, op);
	case GM_OP_H2D:
	case GM_OP_D2H:
	case GM_OP_D2D:
		return op_copy(p, op, index);
	case GM_OP_MEMSET8:
	case GM_OP_MEMSET16:
	case GM_OP_MEMSET32:
		return op_memset(p, op);
	case GM_OP_LAUNCH:
		return op_launch(p, op, index);
	case GM_OP_EVENT_RECORD:
		if (enter_stream(p, op->stream) < 0 ||
		    CU_CHECK(cuEventRecord(p->events[op->a],
					   p->streams[op->stream]))) {
			return -1;
		}
		leave_stream(p, op->stream);
		return 0;
	case GM_OP_STREAM_WAIT:
		if (enter_stream(p, op->stream) < 0 ||
		    CU_CHECK(cuStreamWaitEvent(p->streams[op->stream],
					       p->events[op->a], 0))) {
			return -1;
		}
		leave_stream(p, op->stream);
		return 0;
	case GM_OP_EVENT_SYNC:
		return CU_CHECK(cuEventSynchronize(p->events[op->a]));
	case GM_OP_STREAM_SYNC:
		if (enter_stream(p, op->stream) < 0 ||
		    stream_sync(p, op->stream) < 0) {
			return -1;
		}
		leave_stream(p, op->stream);
		return gm_check_pending(p, op->stream);
	case GM_OP_CTX_SYNC:
		/* Only this program's work: the others are not ours. */
		return gm_prog_drain(p);
	case GM_OP_TEX_CREATE:
		return op_tex_create(p, op);
	case GM_OP_TEX_DESTROY:
		if (!p->tex[op->a]) {
			return gm_error("texture object %" PRIu32
					" is not live", op->a);
		}
		if (CU_CHECK(cuTexObjectDestroy(p->tex[op->a]))) {
			return -1;
		}
		p->tex[op->a] = 0;
		return 0;
	}
	return gm_error("unknown operation code %u", op->code);
}

int gm_replay_ops(struct gm_prog *p, const struct gm_op *ops, uint64_t nr)
{
	struct gm_run *run = p->run;

	p->cur_ops = ops;
	for (uint64_t i = 0; i < nr; i++) {
		const struct gm_op *op = &ops[i];

		watchdog_at(p->wd, i);
		if (exec_op(p, op, i) < 0) {
			gm_error("program '%s': operation %" PRIu64
				 " (%s, trace event %" PRIu64 ") failed",
				 p->d->name, i, gm_op_name(op->code),
				 op->event);
			p->failed = 1;
			return -1;
		}
		watchdog_step(p->wd);
		if (atomic_load_explicit(&run->stop, memory_order_relaxed)) {
			return 0;
		}
	}
	return 0;
}
