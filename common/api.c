/* SPDX-License-Identifier: MIT */
/*
 * The API descriptor table (see api.h), expanded from cuda_api.def. The
 * CUPTI callback-id header is a plain enum, so this file needs no CUPTI
 * library, only its include directory.
 */
#include "api.h"

#include <stdio.h>
#include <string.h>

#include <cupti_driver_cbid.h>

/* Per-call argument descriptors. */
#define GM_IN(type, field) { #field, GM_ARG_##type, GM_DIR_IN },
#define GM_OUT(type, field) { #field, GM_ARG_##type, GM_DIR_OUT },
#define GM_X(type, field) { #field, GM_ARG_##type, GM_DIR_X },
#define GM_CALL(name, cls, sp, rk, args)                                       \
	static const struct gm_arg_desc args_##name[] = { args };
#define GM_CALL0(name, cls, sp, rk)
#define GM_TWIN(name, base, fl, cls, sp, rk, args)                             \
	static const struct gm_arg_desc args_##name[] = { args };
#define GM_IGNORE(name)
#include "cuda_api.def"
#undef GM_CALL
#undef GM_CALL0
#undef GM_TWIN
#undef GM_IGNORE

/* The table itself. */
#define GM_ROW_(name, base, fl, cls, sp, rk, nr, args)                         \
	[GM_API_##name] = { #name, CUPTI_DRIVER_TRACE_CBID_##name,             \
			    GM_CLASS_##cls, GM_SP_##sp, GM_RK_##rk,            \
			    GM_API_##base, GM_FLAVOUR_##fl, nr, args },
#define GM_NR_(name) (sizeof(args_##name) / sizeof(args_##name[0]))
#define GM_CALL(name, cls, sp, rk, args)                                       \
	GM_ROW_(name, name, LEGACY, cls, sp, rk, GM_NR_(name), args_##name)
#define GM_CALL0(name, cls, sp, rk)                                            \
	GM_ROW_(name, name, LEGACY, cls, sp, rk, 0, NULL)
#define GM_TWIN(name, base, fl, cls, sp, rk, args)                             \
	GM_ROW_(name, base, fl, cls, sp, rk, GM_NR_(name), args_##name)
#define GM_IGNORE(name)                                                        \
	GM_ROW_(name, name, LEGACY, IGNORED, NONE, NONE, 0, NULL)
const struct gm_api_desc gm_api_table[GM_API_COUNT] = {
#include "cuda_api.def"
};
#undef GM_CALL
#undef GM_CALL0
#undef GM_TWIN
#undef GM_IGNORE
#undef GM_ROW_
#undef GM_NR_

/* The descriptor count must agree with the argument struct of each call. */
#define GM_CHECK_(name)                                                        \
	_Static_assert(sizeof(args_##name) / sizeof(args_##name[0]) ==         \
			       GM_NR_ARGS(name),                               \
		       "argument table of " #name);                            \
	_Static_assert(GM_NR_ARGS(name) <= GM_MAX_ARGS, "GM_MAX_ARGS");
#define GM_CALL(name, cls, sp, rk, args) GM_CHECK_(name)
#define GM_CALL0(name, cls, sp, rk)
/* A twin has the layout of its base call: one replay handler serves both. */
#define GM_TWIN(name, base, fl, cls, sp, rk, args)                             \
	GM_CHECK_(name)                                                        \
	_Static_assert(sizeof(struct gm_args_##name) ==                        \
			       sizeof(struct gm_args_##base),                  \
		       "layout of " #name " and " #base);
#define GM_IGNORE(name)
#include "cuda_api.def"
#undef GM_CALL
#undef GM_CALL0
#undef GM_TWIN
#undef GM_IGNORE
#undef GM_CHECK_
#undef GM_IN
#undef GM_OUT
#undef GM_X

int gm_api_lookup(const char *name)
{
	for (int i = 0; i < GM_API_COUNT; i++) {
		if (!strcmp(gm_api_table[i].name, name)) {
			return i;
		}
	}
	return -1;
}

int gm_api_by_cbid(int cbid)
{
	for (int i = 0; i < GM_API_COUNT; i++) {
		if (gm_api_table[i].cbid == cbid) {
			return i;
		}
	}
	return -1;
}

int gm_api_arg_index(int api, const char *arg)
{
	if (api < 0 || api >= GM_API_COUNT) {
		return -1;
	}
	for (unsigned i = 0; i < gm_api_table[api].nr_args; i++) {
		if (!strcmp(gm_api_table[api].args[i].name, arg)) {
			return (int)i;
		}
	}
	return -1;
}

/* The GPU operation of each replay kind (gm_api_gpu_op). */
static const unsigned char gpu_op_by_kind[GM_RK_COUNT] = {
	[GM_RK_H2D] = GM_GPU_OP_ENQUEUE,	[GM_RK_H2D_ASYNC] = GM_GPU_OP_ENQUEUE,
	[GM_RK_D2H] = GM_GPU_OP_ENQUEUE,	[GM_RK_D2H_ASYNC] = GM_GPU_OP_ENQUEUE,
	[GM_RK_D2D] = GM_GPU_OP_ENQUEUE,	[GM_RK_D2D_ASYNC] = GM_GPU_OP_ENQUEUE,
	[GM_RK_COPY] = GM_GPU_OP_ENQUEUE,	[GM_RK_COPY_ASYNC] = GM_GPU_OP_ENQUEUE,
	[GM_RK_MEMSET] = GM_GPU_OP_ENQUEUE,	[GM_RK_MEMSET_2D] = GM_GPU_OP_ENQUEUE,
	[GM_RK_LAUNCH] = GM_GPU_OP_ENQUEUE,	[GM_RK_GRAPH_LAUNCH] = GM_GPU_OP_ENQUEUE,
	[GM_RK_PREFETCH] = GM_GPU_OP_ENQUEUE,	[GM_RK_ATTACH_MEM] = GM_GPU_OP_ENQUEUE,
	[GM_RK_COPY_2D] = GM_GPU_OP_ENQUEUE,	[GM_RK_COPY_3D] = GM_GPU_OP_ENQUEUE,
	[GM_RK_COPY_ARRAY] = GM_GPU_OP_ENQUEUE,
	[GM_RK_CTX_SYNC] = GM_GPU_OP_WAIT,	[GM_RK_STREAM_SYNC] = GM_GPU_OP_WAIT,
	[GM_RK_EVENT_SYNC] = GM_GPU_OP_WAIT,
};

/* ... and of the special cases of calls not replayed yet (replay NONE). */
static const unsigned char gpu_op_by_special[GM_SP_COUNT] = {
	[GM_SP_H2D] = GM_GPU_OP_ENQUEUE,	[GM_SP_D2H] = GM_GPU_OP_ENQUEUE,
	[GM_SP_D2H_ASYNC] = GM_GPU_OP_ENQUEUE,	[GM_SP_COPY2D] = GM_GPU_OP_ENQUEUE,
	[GM_SP_COPY2D_ASYNC] = GM_GPU_OP_ENQUEUE,
	[GM_SP_COPY3D] = GM_GPU_OP_ENQUEUE,	[GM_SP_COPY3D_ASYNC] = GM_GPU_OP_ENQUEUE,
};

enum gm_gpu_op gm_api_gpu_op(int api)
{
	const struct gm_api_desc *d;

	if (api < 0 || api >= GM_API_COUNT) {
		return GM_GPU_OP_NONE;
	}
	d = &gm_api_table[api];
	if (d->cls != GM_CLASS_REPLAYED) {
		return GM_GPU_OP_NONE;
	}
	if (d->replay != GM_RK_NONE) {
		return (enum gm_gpu_op)gpu_op_by_kind[d->replay];
	}
	return (enum gm_gpu_op)gpu_op_by_special[d->special];
}

static const char *const type_names[GM_ARG_COUNT] = {
	[GM_ARG_DPTR] = "dptr",	  [GM_ARG_HPTR] = "hptr",
	[GM_ARG_PTR] = "ptr",	  [GM_ARG_SIZE] = "size",
	[GM_ARG_U32] = "u32",	  [GM_ARG_I32] = "i32",
	[GM_ARG_FLAGS] = "flags",	  [GM_ARG_ENUM] = "enum",
	[GM_ARG_DEV] = "dev",	  [GM_ARG_CTX] = "ctx",
	[GM_ARG_STREAM] = "stream", [GM_ARG_EVENT] = "event",
	[GM_ARG_MODULE] = "module", [GM_ARG_LIBRARY] = "library",
	[GM_ARG_FUNC] = "func",	  [GM_ARG_KERNEL] = "kernel",
	[GM_ARG_ARRAY] = "array",	  [GM_ARG_TEXOBJ] = "texobj",
	[GM_ARG_SURFOBJ] = "surfobj", [GM_ARG_GRAPH] = "graph",
	[GM_ARG_GEXEC] = "graphexec", [GM_ARG_GNODE] = "graphnode",
	[GM_ARG_MEMPOOL] = "mempool", [GM_ARG_MEMHANDLE] = "memhandle",
};

#define GM_NAME_(s) #s,
static const char *const special_names[GM_SP_COUNT] = {
	GM_SPECIALS(GM_NAME_)
};
static const char *const replay_kind_names[GM_RK_COUNT] = {
	GM_REPLAY_KINDS(GM_NAME_)
};
#undef GM_NAME_

/* @names[@i], or "?" beyond its @n entries. */
static const char *name_in(const char *const *names, unsigned n, unsigned i)
{
	return i < n ? names[i] : "?";
}

const char *gm_arg_type_name(enum gm_arg_type t)
{
	return name_in(type_names, GM_ARG_COUNT, t);
}

const char *gm_special_name(enum gm_special s)
{
	return name_in(special_names, GM_SP_COUNT, s);
}

const char *gm_replay_kind_name(enum gm_replay_kind k)
{
	return name_in(replay_kind_names, GM_RK_COUNT, k);
}

const char *gm_api_class_name(enum gm_api_class c)
{
	switch (c) {
	case GM_CLASS_REPLAYED:
		return "replayed";
	case GM_CLASS_IGNORED:
		return "ignored";
	case GM_CLASS_UNSUPPORTED:
		return "unsupported";
	}
	return "?";
}

const char *gm_copy_kind_name(unsigned kind)
{
	static const char *const names[] = { "unknown", "HtoD", "DtoH", "DtoD",
					     "HtoH" };
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *gm_image_kind_name(unsigned kind)
{
	static const char *const names[] = { "unknown", "fatbin", "cubin",
					     "ptx", "file" };
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

void gm_api_signature(int api, char *buf, size_t len)
{
	const struct gm_api_desc *d = &gm_api_table[api];
	size_t n;

	n = (size_t)snprintf(buf, len, "%s %s %s", d->name,
			     gm_api_class_name(d->cls),
			     gm_special_name(d->special));
	for (unsigned i = 0; i < d->nr_args && n < len; i++) {
		static const char dirs[] = { 'i', 'o', 'x' };
		n += (size_t)snprintf(buf + n, len - n, "%c%s:%s:%c",
				      i ? ',' : ' ', d->args[i].name,
				      gm_arg_type_name(d->args[i].type),
				      dirs[d->args[i].dir]);
	}
}
