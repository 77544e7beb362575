/* SPDX-License-Identifier: MIT */
/*
 * Every operation code has its traits (GM_OPS's column, gm_op_traits()),
 * and they say what the rest of GM_OPS says: the graph operations are GM_GRAPH_OPS's
 * and the nss scheduler refuses exactly those (by the flag, not by a
 * code missing from its table), a result to hash is an operation with
 * a CHECK operand, host memory is touched by the GM_H operations
 * hostmem.c runs. And every executor has a handler for each code it
 * must run (its table indexed by code): the serial schedulers' for
 * every code but the graph operations it hands to graph_ops.c,
 * graph_ops.c's for exactly the graph operations, hostmem.c's for
 * exactly those that touch host memory, the nss scheduler's for every
 * code it does not refuse.
 */
#include <stdio.h>

#include "replay/gpumix_replay.h"
#include "replay/graph_ops.h"
#include "replay/op_traits.h"
#include "replay/replay_int.h"
#include "replay/sched.h"
#include "test.h"

static const char *const names[GM_OP_COUNT] = {
#define GM_OP_NAME_(name, what, group, traits, operands) [GM_OP_##name] = #name,
#define GM_OPND_NONE_(field, kind)
	GM_OPS(GM_OP_NAME_, GM_OPND_NONE_)
#undef GM_OP_NAME_
#undef GM_OPND_NONE_
};

/* 1 for the codes of GM_GRAPH_OPS. */
static const unsigned char graph[GM_OP_COUNT] = {
#define GM_OP_ONE_(name, what, group, traits, operands) [GM_OP_##name] = 1,
#define GM_OPND_NONE_(field, kind)
	GM_GRAPH_OPS(GM_OP_ONE_, GM_OPND_NONE_)
#undef GM_OP_ONE_
#undef GM_OPND_NONE_
};

/* The number of CHECK operands of each code. */
static const unsigned char checks[GM_OP_COUNT] = {
#define GM_OP_SUM_(name, what, group, traits, operands) [GM_OP_##name] = 0 operands,
#define GM_OPND_CHECK_(field, kind) + (GM_OPK_##kind == GM_OPK_CHECK)
	GM_OPS(GM_OP_SUM_, GM_OPND_CHECK_)
#undef GM_OP_SUM_
#undef GM_OPND_CHECK_
};

int main(void)
{
	unsigned hostmem = 0;

	for (unsigned c = 0; c < GM_OP_COUNT; c++) {
		unsigned t = gm_op_traits(c);
		char what[96];
		snprintf(what, sizeof(what), "%s has its row", names[c]);
		CHECK(t & GM_OPT_KNOWN, what);
		snprintf(what, sizeof(what), "%s: a graph operation as "
			 "GM_GRAPH_OPS says", names[c]);
		CHECK(!!(t & GM_OPT_GRAPH) == graph[c], what);
		snprintf(what, sizeof(what), "%s: refused by nss if and only "
			 "if a graph operation", names[c]);
		CHECK(!!(t & GM_OPT_NSS_REFUSED) == graph[c], what);
		snprintf(what, sizeof(what), "%s: a result to hash if and "
			 "only if a CHECK operand", names[c]);
		CHECK(!!(t & GM_OPT_RESULT) == !!checks[c], what);
		hostmem += !!(t & GM_OPT_HOSTMEM);
		snprintf(what, sizeof(what), "%s: the serial executor has "
			 "its handler, or it is a graph operation", names[c]);
		CHECK(gm_serial_handles(c) || (t & GM_OPT_GRAPH), what);
		snprintf(what, sizeof(what), "%s: graph_ops.c has its handler "
			 "if and only if a graph operation", names[c]);
		CHECK(gm_graph_handles(c) == !!(t & GM_OPT_GRAPH), what);
		snprintf(what, sizeof(what), "%s: hostmem.c has its handler "
			 "if and only if it touches host memory", names[c]);
		CHECK(gm_hostmem_handles(c) == !!(t & GM_OPT_HOSTMEM), what);
		snprintf(what, sizeof(what), "%s: the nss scheduler has its "
			 "handler if and only if it does not refuse it",
			 names[c]);
		CHECK(gm_nss_handles(c) == !(t & GM_OPT_NSS_REFUSED), what);
	}
	CHECK_INT(hostmem, 5, "five operations touch host memory (HOST_FILL, "
		  "HOST_CHECK, PREFETCH, ADVISE, ATTACH)");
	CHECK(gm_op_traits(GM_OP_COUNT) == 0, "no row past the last code");
	CHECK(!gm_serial_handles(GM_OP_COUNT), "no serial handler past the "
	      "last code");
	CHECK(!gm_graph_handles(GM_OP_COUNT), "no graph handler past the "
	      "last code");
	CHECK(!gm_hostmem_handles(GM_OP_COUNT), "no host memory handler "
	      "past the last code");
	CHECK(!gm_nss_handles(GM_OP_COUNT), "no nss handler past the last "
	      "code");
	return test_done();
}
