/* SPDX-License-Identifier: MIT */
/*
 * The API description (common/cuda_api.def) is consistent: names and
 * callback ids are unique, lookups round-trip, and every special case
 * finds the argument words its handler and the reader rely on.
 */
#include <stdlib.h>

#include "api.h"
#include "record.h"
#include "test.h"

static int has(int api, const char *arg)
{
	return gm_api_arg_index(api, arg) >= 0;
}

int main(void)
{
	int dup_name = 0, dup_cbid = 0, bad_lookup = 0, bad_special = 0;
	int replayed = 0, ignored = 0, max_args = 0;
	char sig[1024];

	for (int i = 0; i < GM_API_COUNT; i++) {
		const struct gm_api_desc *d = &gm_api_table[i];
		for (int j = 0; j < i; j++) {
			dup_name += !strcmp(d->name, gm_api_table[j].name);
			dup_cbid += d->cbid == gm_api_table[j].cbid;
		}
		bad_lookup += gm_api_lookup(d->name) != i ||
			      gm_api_by_cbid(d->cbid) != i || d->cbid <= 0;
		replayed += d->cls == GM_CLASS_REPLAYED;
		ignored += d->cls == GM_CLASS_IGNORED;
		if ((int)d->nr_args > max_args) {
			max_args = (int)d->nr_args;
		}
		switch (d->special) {
		case GM_SP_H2D:
			bad_special += !has(i, "srcHost") || !has(i, "ByteCount");
			break;
		case GM_SP_D2H:
		case GM_SP_D2H_ASYNC:
			bad_special += !has(i, "dstHost") || !has(i, "ByteCount");
			break;
		case GM_SP_MEMCPY:
		case GM_SP_MEMCPY_ASYNC:
			bad_special += gm_api_arg_index(i, "dst") != 0 ||
				       gm_api_arg_index(i, "src") != 1 ||
				       gm_api_arg_index(i, "ByteCount") != 2 ||
				       gm_api_arg_index(i, "kind") !=
					       (int)d->nr_args - 1;
			break;
		case GM_SP_COPY2D:
		case GM_SP_COPY2D_ASYNC:
		case GM_SP_COPY3D:
		case GM_SP_COPY3D_ASYNC:
			bad_special += !has(i, "srcXInBytes") || !has(i, "Height") ||
				       !has(i, "WidthInBytes");
			break;
		case GM_SP_LAUNCH:
		case GM_SP_LAUNCH_COOP:
		case GM_SP_LAUNCH_EX:
			bad_special += !has(i, "f") || !has(i, "gridDimX") ||
				       !has(i, "hStream");
			break;
		case GM_SP_GET_GLOBAL:
		case GM_SP_GET_KERNEL:
		case GM_SP_GET_FUNCTION:
			bad_special += !has(i, "name") ||
				       d->args[0].dir != GM_DIR_OUT;
			break;
		case GM_SP_STREAM_CREATE:
			bad_special += d->args[0].type != GM_ARG_STREAM ||
				       d->args[1].type != GM_ARG_FLAGS;
			break;
		case GM_SP_EVENT_SYNC:
			bad_special += d->args[0].type != GM_ARG_EVENT;
			break;
		default:
			break;
		}
		/* Only REPLAYED rows and sync queries carry arguments. */
		if (d->cls == GM_CLASS_IGNORED && d->nr_args &&
		    d->special != GM_SP_STREAM_SYNC && d->special != GM_SP_EVENT_SYNC) {
			bad_special++;
		}
	}
	CHECK_INT(dup_name, 0, "call names are unique");
	CHECK_INT(dup_cbid, 0, "CUPTI callback ids are unique");
	CHECK_INT(bad_lookup, 0, "lookups by name and by callback id round-trip");
	CHECK_INT(bad_special, 0, "every special case has the words it reads");
	CHECK(replayed > 100, "more than 100 recorded calls");
	CHECK(ignored > 80, "more than 80 query calls");
	CHECK(max_args <= GM_MAX_ARGS && GM_MAX_ARGS <= GM_RECORD_MAX_ARGS,
	      "argument words fit an event");

	CHECK_INT(gm_api_lookup("cuGraphicsMapResources"), -1,
		  "calls not in the table are unknown (unsupported)");
	CHECK_INT(gm_api_arg_index(GM_API_cuMemAlloc_v2, "bytesize"), 1,
		  "argument index by name");
	CHECK_INT(GM_NR_ARGS(cuLaunchKernel), 11, "cuLaunchKernel has 11 words");
	CHECK_INT(offsetof(struct gm_args_cuLaunchKernel, hStream) / 8, 8,
		  "struct gm_args_* follows the parameter order");
	CHECK_INT(gm_api_table[GM_API_cuLaunchKernel].args[0].type, GM_ARG_FUNC,
		  "argument types come from the table");

	gm_api_signature(GM_API_cuMemAlloc_v2, sig, sizeof(sig));
	CHECK_STR(sig, "cuMemAlloc_v2 replayed NONE dptr:dptr:o,bytesize:size:i",
		  "signature line");
	gm_api_signature(GM_API_cuDeviceGetAttribute, sig, sizeof(sig));
	CHECK_STR(sig, "cuDeviceGetAttribute ignored NONE", "signature of a query");

	/* The GPU operations of a co-run's GPU section (gm_api_gpu_op). */
	{
		static const struct { int api; enum gm_gpu_op op; } want[] = {
			{ GM_API_cuLaunchKernel, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuLaunchKernelEx_ptsz, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuLaunchCooperativeKernel, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemcpyHtoD_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemcpyDtoHAsync_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemcpyAsync, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemcpy2D_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemcpy3DAsync_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemcpyHtoA_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemsetD32Async, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemsetD2D8_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuGraphLaunch, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuMemPrefetchAsync_v2, GM_GPU_OP_ENQUEUE },
			{ GM_API_cuCtxSynchronize, GM_GPU_OP_WAIT },
			{ GM_API_cuStreamSynchronize_ptsz, GM_GPU_OP_WAIT },
			{ GM_API_cuEventSynchronize, GM_GPU_OP_WAIT },
			{ GM_API_cuStreamQuery, GM_GPU_OP_NONE },
			{ GM_API_cuMemAlloc_v2, GM_GPU_OP_NONE },
			{ GM_API_cuLibraryLoadData, GM_GPU_OP_NONE },
			{ GM_API_cuEventRecord, GM_GPU_OP_NONE },
			{ GM_API_cuStreamWaitEvent, GM_GPU_OP_NONE },
			{ GM_API_cuLaunchHostFunc, GM_GPU_OP_NONE },
			{ GM_API_cuDeviceGetAttribute, GM_GPU_OP_NONE },
		};
		int wrong = 0, ops = 0;
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			if (gm_api_gpu_op(want[i].api) != want[i].op) {
				printf("#   %s: %d, want %d\n",
				       gm_api_table[want[i].api].name,
				       (int)gm_api_gpu_op(want[i].api), (int)want[i].op);
				wrong++;
			}
		}
		CHECK_INT(wrong, 0, "launches, copies, memsets, graph launches "
			  "and synchronizations are GPU operations, the rest not");
		for (int i = 0; i < GM_API_COUNT; i++) {
			ops += gm_api_gpu_op(i) != GM_GPU_OP_NONE;
			/* a twin is what its base call is */
			wrong += gm_api_gpu_op(i) !=
				 gm_api_gpu_op(gm_api_table[i].base);
		}
		CHECK_INT(wrong, 0, "twins are the GPU operations of their base");
		CHECK(ops > 60, "more than 60 calls are GPU operations");
		CHECK_INT(gm_api_gpu_op(-1), GM_GPU_OP_NONE, "an unknown id is none");
	}

	CHECK_STR(gm_event_kind_name(GM_EV_ACT_KERNEL), "act_kernel", "event kind name");
	CHECK_INT(gm_event_kind_lookup("d2h_hash"), GM_EV_D2H_HASH, "event kind lookup");
	CHECK_INT(gm_event_kind_lookup("nope"), -1, "unknown event kind");
	CHECK(gm_event_arg_names(GM_EV_ENTER) == NULL, "call events name their "
	      "words from the API table");
	CHECK_STR(gm_event_arg_names(GM_EV_ACT_KERNEL)[2], "corr",
		  "activity words are named");
	CHECK_STR(gm_copy_kind_name(GM_COPY_D2H), "DtoH", "copy kind name");
	CHECK_STR(gm_image_kind_name(GM_IMAGE_PTX), "ptx", "image kind name");
	CHECK_STR(gm_special_name(GM_SP_LAUNCH_EX), "LAUNCH_EX", "special name");
	return test_done();
}
