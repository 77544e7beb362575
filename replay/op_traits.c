/* SPDX-License-Identifier: MIT */
/*
 * One row per operation code (op_traits.h). A code left out has no
 * GM_OPT_KNOWN, which the unit test reports.
 */
#include "gpumix_replay.h"
#include "op_traits.h"

#define K GM_OPT_KNOWN
/* The nss scheduler's two streams per program and runtime dependencies
 * do not capture into a graph: it refuses every graph operation. */
#define G (GM_OPT_KNOWN | GM_OPT_GRAPH | GM_OPT_NSS_REFUSED)

static const unsigned char traits[GM_OP_COUNT] = {
	[GM_OP_NOP] = K,
	[GM_OP_ALLOC] = K,
	[GM_OP_FREE] = K,
	[GM_OP_H2D] = K,
	[GM_OP_D2H] = K | GM_OPT_RESULT,
	[GM_OP_D2D] = K,
	[GM_OP_PTR_STORE] = K,
	[GM_OP_MEMSET8] = K,
	[GM_OP_MEMSET16] = K,
	[GM_OP_MEMSET32] = K,
	[GM_OP_LAUNCH] = K,
	[GM_OP_EVENT_RECORD] = K,
	[GM_OP_STREAM_WAIT] = K,
	[GM_OP_EVENT_SYNC] = K,
	[GM_OP_STREAM_SYNC] = K,
	[GM_OP_CTX_SYNC] = K,
	[GM_OP_TEX_CREATE] = K,
	[GM_OP_TEX_DESTROY] = K,
	[GM_OP_HOST_FILL] = K | GM_OPT_HOSTMEM,
	[GM_OP_HOST_CHECK] = K | GM_OPT_HOSTMEM | GM_OPT_RESULT,
	[GM_OP_PREFETCH] = K | GM_OPT_HOSTMEM,
	[GM_OP_ADVISE] = K | GM_OPT_HOSTMEM,
	[GM_OP_HOST_FUNC] = K,
	[GM_OP_CAPTURE_BEGIN] = G,
	[GM_OP_CAPTURE_END] = G,
	[GM_OP_CAPTURE_TO] = G,
	[GM_OP_CAPTURE_AFTER] = G,
	[GM_OP_GRAPH_CREATE] = G,
	[GM_OP_NODE_BEGIN] = G,
	[GM_OP_NODE_END] = G,
	[GM_OP_GRAPH_NODE] = G,
	[GM_OP_GRAPH_DEP] = G,
	[GM_OP_GRAPH_INST] = G,
	[GM_OP_GRAPH_LAUNCH] = G,
	[GM_OP_GRAPH_CHECK] = G | GM_OPT_RESULT,
	[GM_OP_GRAPH_UPDATE] = G,
	[GM_OP_KNODE_SET] = G,
	[GM_OP_GRAPH_CLONE] = G,
	[GM_OP_GRAPH_DESTROY] = G,
	[GM_OP_EXEC_DESTROY] = G,
	[GM_OP_GRAPH_EDGE] = G,
	[GM_OP_CHILD_SET] = G,
	[GM_OP_CAPTURE_EDGE] = G,
	[GM_OP_ATTACH] = K | GM_OPT_HOSTMEM,
	[GM_OP_COPY_IN] = K,
	[GM_OP_COPY_OUT] = K | GM_OPT_RESULT,
	[GM_OP_COPY_DEV] = K,
	[GM_OP_ARRAY_CREATE] = K,
	[GM_OP_ARRAY_DESTROY] = K,
};

unsigned gm_op_traits(unsigned code)
{
	return code < GM_OP_COUNT ? traits[code] : 0;
}
