/* SPDX-License-Identifier: MIT */
/*
 * gpumix_replay.h: the one header that generated replay programs include,
 * and the contract between `gpumix reconstruct` (which writes the tables
 * below as static const data) and libgpumix-replay (which executes them).
 *
 * A replay program is a workload of n programs. Each program is a list of
 * operations (struct gm_op, one per replayed CUDA call) plus the tables
 * its operations refer to by small integer ids: streams, events, modules,
 * kernels, globals, kernel parameter buffers with their relocations,
 * launch configurations, expected device-to-host hashes and texture
 * descriptions. Blobs (host-to-device source data) are shared by all
 * programs and read from the replay data directory at init. An address
 * operand is a reference (an allocation or a global, see GM_A and GM_G)
 * plus a byte offset, resolved when the operation runs; the one device
 * address the tables hold is each allocation's captured one (ALLOC's x),
 * where the runtime places it when the program's allocations can be at
 * their captured addresses (doc/gpumix-replay.md, "Addresses").
 *
 * Each program runs in its own thread, in three parts: init (untimed:
 * load modules eagerly, resolve kernels and globals, create streams and
 * events, reserve device memory), replay (timed, repeated) and cleanup.
 * The generated thread function is:
 *
 *	if (gm_prog_init(p) == 0) {
 *		while (gm_replay_next(p)) {
 *			gm_replay_ops(p, ops, nr_ops);
 *		}
 *	}
 *	gm_prog_cleanup(p);
 *
 * and main() is gm_replay_main(argc, argv, &workload). The library
 * decides how and when each program replays (the variant's scheduler,
 * repetition), verifies
 * results, profiles with CUPTI and writes the run directory
 * (doc/run-directory.md). The operation model is documented in
 * doc/replay-program.md.
 *
 * Only this header and <cuda.h> are needed to compile a generated program.
 */
#ifndef GPUMIX_REPLAY_H
#define GPUMIX_REPLAY_H

#include <stdint.h>

/* Bumped whenever a struct below changes; checked by gm_replay_main(). */
#define GM_REPLAY_ABI 6

/* "no id" in an operand (e.g. a D2H copy without a recorded hash). */
#define GM_NONE 0xffffffffu

/*
 * References (operand fields a and b of copies and memsets, and struct
 * gm_reloc): the top four bits say what the id names.
 */
#define GM_REF_KIND_MASK 0xf0000000u
#define GM_REF_ID_MASK 0x0fffffffu
#define GM_REF_ALLOC 0x00000000u	/* a device allocation (GM_OP_ALLOC) */
#define GM_REF_GLOBAL 0x10000000u	/* a module global (gm_global_desc) */
#define GM_REF_TEXTURE 0x20000000u	/* a texture object (relocs only) */
#define GM_REF_HOSTMEM 0x30000000u	/* mapped page-locked or managed
					   memory (gm_hostmem_desc) */
#define GM_REF_ARRAY 0x40000000u	/* a CUDA array (gm_array_desc):
					   texture descriptions only */
#define GM_A(id) ((uint32_t)(id) | GM_REF_ALLOC)
#define GM_G(id) ((uint32_t)(id) | GM_REF_GLOBAL)
#define GM_T(id) ((uint32_t)(id) | GM_REF_TEXTURE)
#define GM_H(id) ((uint32_t)(id) | GM_REF_HOSTMEM)
#define GM_R(id) ((uint32_t)(id) | GM_REF_ARRAY)

/*
 * The traits of an operation (GM_OPS's fourth column): what the replay's
 * executors do with it (replay/op_traits.h reads them).
 */
enum gm_op_trait {
	GM_OPT_KNOWN = 0x01,	/* the code has its row (set for every row) */
	GM_OPT_GRAPH = 0x02,	/* a graph operation: graph_ops.c runs it */
	GM_OPT_HOSTMEM = 0x04,	/* touches mapped or managed memory:
				   hostmem.c runs it */
	GM_OPT_RESULT = 0x08,	/* yields a result to hash (a check) */
	GM_OPT_NSS_REFUSED = 0x10,	/* the nss scheduler refuses it */
	/* The nss scheduler's two streams per program and runtime
	 * dependencies do not map onto a captured or explicit graph. */
	GM_OPT_GRAPH_OP = GM_OPT_GRAPH | GM_OPT_NSS_REFUSED,
};

/*
 * The operations: one row each, the only description of them. The code
 * generator prints rows from it (reconstruct/model/codegen.c), the runtime
 * checks them (replay/prog.c) and names them in messages (replay/ops.c),
 * the model counts them (reconstruct/model/model.c), the executors read
 * their traits (replay/op_traits.c).
 *
 *   GM_OP(NAME, what, group, traits, operands)
 *
 * NAME      enum gm_opcode GM_OP_NAME, and GM_NAME(ev, ...) the row
 *           constructor below, whose arguments after the trace event are
 *           the operands in this order
 * what      how messages name the operation
 * group     GM_OPG_*: what the operation is, for counts
 * traits    GM_OPT_* (0: none): which executor runs it, which refuses it,
 *           whether it yields a result to hash
 * operands  GM_OPND(field, kind) per argument: the struct gm_op field it
 *           fills and what it holds (unused fields are 0):
 *             STREAM   program-local stream id (0: the program's legacy
 *                      default stream), below nr_streams
 *             FLAGS    GM_F_*
 *             REF      a reference (GM_A/GM_G), checked against the tables
 *             ALLOC, LAUNCH, EVENT, TEXTURE, TEXDESC, CHECK
 *                      an id into the program's table of that name (CHECK
 *                      may be GM_NONE: no check)
 *             BLOB     a workload blob id; y and z are an offset and a
 *                      length inside it
 *             HOST     an offset into the program's host arena; z bytes
 *                      from it fit
 *             NUM      a plain number: byte offset, count, value
 *             ADDR     a captured device address (printed in hex)
 *
 * ALLOC: allocation a of z bytes, captured at address x.
 *
 * PTR_STORE: the 8 bytes at x in a hold the replay's address of b + y: a
 * device pointer the captured program copied from the host into a module
 * global (cudaMemcpyToSymbol of a pointer, as cuFFT does) or into an
 * allocation (a table of pointers, as batched cuBLAS reads them), after
 * the host-to-device copy it patches. One that stores the address of an
 * allocation is skipped when the program's allocations are at their
 * captured addresses: the copied word is right already.
 *
 * HOST_FUNC: the program's host function (cuLaunchHostFunc,
 * cuStreamAddCallback) in its stream position: later work in the stream
 * waits for it. x: the nanoseconds it took in the captured run (0:
 * unknown); the replay runs an empty function, or one that spends x
 * (--host-callbacks timed).
 *
 * D2H: the result lands in the program's host arena at offset y (see
 * gm_program_desc.host_arena) and, unless check is GM_NONE, its hash is
 * compared with checks[check]: at once for a GM_F_SYNC copy, at the next
 * synchronization of its stream (or of the program) otherwise.
 *
 * COPY_IN, COPY_OUT and COPY_DEV: a 2-D or 3-D copy, or one with a CUDA
 * array at an end (cuMemcpy2D*, cuMemcpy3D*, cuMemcpyHtoA and kin), as
 * copy description a says (struct gm_copy_desc): from host data (blob b
 * at offset y, its rows packed), into the host arena (offset y, rows
 * packed, checked like a D2H copy's result against check b), or between
 * device memory and arrays; z is the bytes on the host side (COPY_DEV:
 * 0). ARRAY_CREATE and ARRAY_DESTROY: array a (made at init, as the
 * program made it) becomes live, or not.
 *
 * HOST_FILL and HOST_CHECK are the program's own host accesses to mapped
 * or managed memory (a GM_H reference): the fill writes what the captured
 * program had written there before a launch that reads it, the check
 * hashes what it read back after a synchronization. Both run on the
 * replaying thread, in order, like the captured program's accesses.
 * PREFETCH and ADVISE: c (and ADVISE's b, the CUmem_advise) say where to,
 * GM_LOC_*. ATTACH: the managed memory at x in a (z bytes, 0: the whole
 * allocation) attached to the stream in its order, c the CUmemAttach_flags
 * (cuStreamAttachMemAsync).
 */
#define GM_OPS(GM_OP, GM_OPND)                                                 \
	GM_OP(NOP, "no-op", GM_OPG_OTHER, 0, )                                 \
	GM_OP(ALLOC, "allocation", GM_OPG_MEMORY, 0, GM_OPND(a, ALLOC)         \
	      GM_OPND(z, NUM) GM_OPND(x, ADDR))                                \
	GM_OP(FREE, "free", GM_OPG_MEMORY, 0, GM_OPND(a, ALLOC))               \
	GM_OP(H2D, "host-to-device copy", GM_OPG_COPY, 0,                      \
	      GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS) GM_OPND(a, REF)    \
	      GM_OPND(x, NUM) GM_OPND(b, BLOB) GM_OPND(y, NUM)                 \
	      GM_OPND(z, NUM))                                                 \
	GM_OP(D2H, "device-to-host copy", GM_OPG_COPY, GM_OPT_RESULT,          \
	      GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS) GM_OPND(a, REF)    \
	      GM_OPND(x, NUM) GM_OPND(b, CHECK) GM_OPND(y, HOST)               \
	      GM_OPND(z, NUM))                                                 \
	GM_OP(D2D, "device-to-device copy", GM_OPG_COPY, 0,                    \
	      GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS) GM_OPND(a, REF)    \
	      GM_OPND(x, NUM) GM_OPND(b, REF) GM_OPND(y, NUM)                  \
	      GM_OPND(z, NUM))                                                 \
	GM_OP(PTR_STORE, "device pointer store", GM_OPG_COPY, 0,               \
	      GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS) GM_OPND(a, REF)    \
	      GM_OPND(x, NUM) GM_OPND(b, REF) GM_OPND(y, NUM))                 \
	GM_OP(MEMSET8, "memset (8-bit)", GM_OPG_MEMSET, 0,                     \
	      GM_MEMSET_OPNDS(GM_OPND))                                        \
	GM_OP(MEMSET16, "memset (16-bit)", GM_OPG_MEMSET, 0,                   \
	      GM_MEMSET_OPNDS(GM_OPND))                                        \
	GM_OP(MEMSET32, "memset (32-bit)", GM_OPG_MEMSET, 0,                   \
	      GM_MEMSET_OPNDS(GM_OPND))                                        \
	GM_OP(LAUNCH, "kernel launch", GM_OPG_LAUNCH, 0,                       \
	      GM_OPND(stream, STREAM) GM_OPND(a, LAUNCH))                      \
	GM_OP(EVENT_RECORD, "event record", GM_OPG_OTHER, 0,                   \
	      GM_OPND(stream, STREAM) GM_OPND(a, EVENT))                       \
	GM_OP(STREAM_WAIT, "stream wait on event", GM_OPG_OTHER, 0,            \
	      GM_OPND(stream, STREAM) GM_OPND(a, EVENT))                       \
	GM_OP(EVENT_SYNC, "event synchronize", GM_OPG_SYNC, 0,                 \
	      GM_OPND(a, EVENT))                                               \
	GM_OP(STREAM_SYNC, "stream synchronize", GM_OPG_SYNC, 0,               \
	      GM_OPND(stream, STREAM))                                         \
	GM_OP(CTX_SYNC, "context synchronize", GM_OPG_SYNC, 0, )               \
	GM_OP(TEX_CREATE, "texture object create", GM_OPG_OTHER, 0,            \
	      GM_OPND(a, TEXTURE) GM_OPND(b, TEXDESC))                         \
	GM_OP(TEX_DESTROY, "texture object destroy", GM_OPG_OTHER, 0,          \
	      GM_OPND(a, TEXTURE))                                             \
	GM_OP(HOST_FILL, "host write of mapped or managed memory",             \
	      GM_OPG_OTHER, GM_OPT_HOSTMEM, GM_OPND(a, REF) GM_OPND(x, NUM)    \
	      GM_OPND(b, BLOB) GM_OPND(y, NUM) GM_OPND(z, NUM))                \
	GM_OP(HOST_CHECK, "host read of mapped or managed memory",             \
	      GM_OPG_OTHER, GM_OPT_HOSTMEM | GM_OPT_RESULT, GM_OPND(a, REF)    \
	      GM_OPND(x, NUM) GM_OPND(b, CHECK) GM_OPND(z, NUM))               \
	GM_OP(PREFETCH, "managed memory prefetch", GM_OPG_OTHER,               \
	      GM_OPT_HOSTMEM, GM_OPND(stream, STREAM) GM_OPND(a, REF)          \
	      GM_OPND(x, NUM) GM_OPND(z, NUM) GM_OPND(c, NUM))                 \
	GM_OP(ADVISE, "managed memory advice", GM_OPG_OTHER, GM_OPT_HOSTMEM,   \
	      GM_OPND(a, REF) GM_OPND(x, NUM) GM_OPND(z, NUM) GM_OPND(b, NUM)  \
	      GM_OPND(c, NUM))                                                 \
	GM_OP(HOST_FUNC, "host function", GM_OPG_OTHER, 0,                     \
	      GM_OPND(stream, STREAM) GM_OPND(x, NUM))                         \
	GM_GRAPH_OPS(GM_OP, GM_OPND)                                           \
	GM_OP(ATTACH, "managed memory stream attach", GM_OPG_OTHER,            \
	      GM_OPT_HOSTMEM, GM_OPND(stream, STREAM) GM_OPND(a, REF)          \
	      GM_OPND(x, NUM) GM_OPND(z, NUM) GM_OPND(c, NUM))                 \
	GM_OP(COPY_IN, "host-to-device copy (2-D, 3-D or array)",              \
	      GM_OPG_COPY, 0, GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS)    \
	      GM_OPND(a, COPYDESC) GM_OPND(b, BLOB) GM_OPND(y, NUM)            \
	      GM_OPND(z, NUM))                                                 \
	GM_OP(COPY_OUT, "device-to-host copy (2-D, 3-D or array)",             \
	      GM_OPG_COPY, GM_OPT_RESULT, GM_OPND(stream, STREAM)              \
	      GM_OPND(flags, FLAGS) GM_OPND(a, COPYDESC) GM_OPND(b, CHECK)     \
	      GM_OPND(y, HOST) GM_OPND(z, NUM))                                \
	GM_OP(COPY_DEV, "device-to-device copy (2-D, 3-D or array)",           \
	      GM_OPG_COPY, 0, GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS)    \
	      GM_OPND(a, COPYDESC))                                            \
	GM_OP(ARRAY_CREATE, "array create", GM_OPG_MEMORY, 0,                  \
	      GM_OPND(a, ARRAY))                                               \
	GM_OP(ARRAY_DESTROY, "array destroy", GM_OPG_MEMORY, 0,                \
	      GM_OPND(a, ARRAY))
/*
 * CUDA graphs (doc/graphs.md). Stream capture replays as captured: the
 * operations between CAPTURE_BEGIN and CAPTURE_END on a stream (and on
 * the streams that joined the capture through an event) become the nodes
 * of graph a; CAPTURE_TO and CAPTURE_AFTER begin a capture into graph a,
 * the program's (cuStreamBeginCaptureToGraph), the latter after its node
 * b, and CAPTURE_END ends it. An explicit graph's copy, memset and kernel nodes are the
 * ordinary operation between NODE_BEGIN and NODE_END on the program's
 * graph-building stream (captured into graph a, the node is b); its
 * other nodes are GRAPH_NODE rows (x: GM_GNODE_*, c: the child graph or
 * the event), its edges GRAPH_DEP rows (b before c). A device-to-host
 * copy node (flag GM_F_GRAPH) owns its room in the host arena; each
 * GRAPH_LAUNCH is followed by one GRAPH_CHECK per such node, checked like
 * an asynchronous copy at the next synchronization of its stream, or,
 * flagged GM_F_LAUNCH_END, hashed when the launch has run and compared
 * then.
 * KNODE_SET: c is an executable graph (cuGraphExecKernelNodeSetParams) or
 * GM_NONE (cuGraphKernelNodeSetParams); a gives the new parameters.
 * GRAPH_EDGE is a GRAPH_DEP of another kind than full completion (a
 * programmatic dependent launch's): x holds the 8 bytes of its
 * CUgraphEdgeData; CAPTURE_EDGE a CAPTURE_AFTER by such an edge (x) into
 * the first node of the capture. CHILD_SET: child graph node b of
 * executable graph a runs graph c (cuGraphExecChildGraphNodeSetParams).
 */
#define GM_GRAPH_OPS(GM_OP, GM_OPND)                                           \
	GM_OP(CAPTURE_BEGIN, "stream capture begin", GM_OPG_OTHER,             \
	      GM_OPT_GRAPH_OP, GM_OPND(stream, STREAM))                        \
	GM_OP(CAPTURE_END, "stream capture end", GM_OPG_OTHER,                 \
	      GM_OPT_GRAPH_OP, GM_OPND(stream, STREAM) GM_OPND(a, GRAPH))      \
	GM_OP(CAPTURE_TO, "stream capture into a graph", GM_OPG_OTHER,         \
	      GM_OPT_GRAPH_OP, GM_OPND(stream, STREAM) GM_OPND(a, GRAPH))      \
	GM_OP(CAPTURE_AFTER, "stream capture into a graph after a node",       \
	      GM_OPG_OTHER, GM_OPT_GRAPH_OP, GM_OPND(stream, STREAM)           \
	      GM_OPND(a, GRAPH) GM_OPND(b, NODE))                              \
	GM_OP(GRAPH_CREATE, "graph create", GM_OPG_OTHER, GM_OPT_GRAPH_OP,     \
	      GM_OPND(a, GRAPH))                                               \
	GM_OP(NODE_BEGIN, "graph node begin", GM_OPG_OTHER, GM_OPT_GRAPH_OP,   \
	      GM_OPND(stream, STREAM) GM_OPND(a, GRAPH))                       \
	GM_OP(NODE_END, "graph node end", GM_OPG_OTHER, GM_OPT_GRAPH_OP,       \
	      GM_OPND(stream, STREAM) GM_OPND(a, GRAPH) GM_OPND(b, NODE))      \
	GM_OP(GRAPH_NODE, "graph node", GM_OPG_OTHER, GM_OPT_GRAPH_OP,         \
	      GM_OPND(a, GRAPH) GM_OPND(b, NODE) GM_OPND(x, NUM)               \
	      GM_OPND(c, NUM))                                                 \
	GM_OP(GRAPH_DEP, "graph dependency", GM_OPG_OTHER, GM_OPT_GRAPH_OP,    \
	      GM_OPND(a, GRAPH) GM_OPND(b, NODE) GM_OPND(c, NODE))             \
	GM_OP(GRAPH_INST, "graph instantiate", GM_OPG_OTHER, GM_OPT_GRAPH_OP,  \
	      GM_OPND(a, EXEC) GM_OPND(b, GRAPH))                              \
	GM_OP(GRAPH_LAUNCH, "graph launch", GM_OPG_OTHER, GM_OPT_GRAPH_OP,     \
	      GM_OPND(stream, STREAM) GM_OPND(a, EXEC))                        \
	GM_OP(GRAPH_CHECK, "graph device-to-host result", GM_OPG_OTHER,        \
	      GM_OPT_GRAPH_OP | GM_OPT_RESULT, GM_OPND(stream, STREAM)         \
	      GM_OPND(flags, FLAGS) GM_OPND(b, CHECK) GM_OPND(y, HOST)         \
	      GM_OPND(z, NUM))                                                 \
	GM_OP(GRAPH_UPDATE, "graph exec update", GM_OPG_OTHER,                 \
	      GM_OPT_GRAPH_OP, GM_OPND(a, EXEC) GM_OPND(b, GRAPH))             \
	GM_OP(KNODE_SET, "kernel node parameters", GM_OPG_OTHER,               \
	      GM_OPT_GRAPH_OP, GM_OPND(a, LAUNCH) GM_OPND(b, NODE)             \
	      GM_OPND(c, EXEC))                                                \
	GM_OP(GRAPH_CLONE, "graph clone", GM_OPG_OTHER, GM_OPT_GRAPH_OP,       \
	      GM_OPND(a, GRAPH) GM_OPND(b, GRAPH))                             \
	GM_OP(GRAPH_DESTROY, "graph destroy", GM_OPG_OTHER, GM_OPT_GRAPH_OP,   \
	      GM_OPND(a, GRAPH))                                               \
	GM_OP(EXEC_DESTROY, "graph exec destroy", GM_OPG_OTHER,                \
	      GM_OPT_GRAPH_OP, GM_OPND(a, EXEC))                               \
	GM_OP(GRAPH_EDGE, "graph dependency with edge data", GM_OPG_OTHER,     \
	      GM_OPT_GRAPH_OP, GM_OPND(a, GRAPH) GM_OPND(b, NODE)              \
	      GM_OPND(c, NODE) GM_OPND(x, ADDR))                               \
	GM_OP(CHILD_SET, "graph exec child graph", GM_OPG_OTHER,               \
	      GM_OPT_GRAPH_OP, GM_OPND(a, EXEC) GM_OPND(b, NODE)               \
	      GM_OPND(c, GRAPH))                                               \
	GM_OP(CAPTURE_EDGE,                                                    \
	      "stream capture into a graph after a node by edge data",        \
	      GM_OPG_OTHER, GM_OPT_GRAPH_OP, GM_OPND(stream, STREAM)           \
	      GM_OPND(a, GRAPH) GM_OPND(b, NODE) GM_OPND(x, ADDR))

/* Kinds of GRAPH_NODE (x). */
#define GM_GNODE_EMPTY 0
#define GM_GNODE_HOST 1		/* an empty host function */
#define GM_GNODE_CHILD 2	/* c: the child graph */
#define GM_GNODE_EVENT_RECORD 3	/* c: the event */
#define GM_GNODE_EVENT_WAIT 4	/* c: the event */

#define GM_MEMSET_OPNDS(GM_OPND)                                               \
	GM_OPND(stream, STREAM) GM_OPND(flags, FLAGS) GM_OPND(a, REF)          \
	GM_OPND(x, NUM) GM_OPND(c, NUM) GM_OPND(z, NUM)

/* What an operation is (the group column of GM_OPS). */
enum gm_op_group {
	GM_OPG_OTHER,
	GM_OPG_MEMORY,		/* allocation and free */
	GM_OPG_COPY,
	GM_OPG_MEMSET,
	GM_OPG_LAUNCH,
	GM_OPG_SYNC,		/* the thread waits */
};

/* What an operand holds (the kind of GM_OPND). */
enum gm_operand_kind {
	GM_OPK_STREAM, GM_OPK_FLAGS, GM_OPK_REF, GM_OPK_ALLOC, GM_OPK_LAUNCH,
	GM_OPK_EVENT, GM_OPK_TEXTURE, GM_OPK_TEXDESC, GM_OPK_CHECK,
	GM_OPK_BLOB, GM_OPK_HOST, GM_OPK_NUM, GM_OPK_GRAPH, GM_OPK_EXEC,
	GM_OPK_NODE, GM_OPK_COPYDESC, GM_OPK_ARRAY, GM_OPK_ADDR,
};

enum gm_opcode {
#define GM_OP_ENUM_(name, what, group, traits, operands) GM_OP_##name,
#define GM_OPND_NONE_(field, kind)
	GM_OPS(GM_OP_ENUM_, GM_OPND_NONE_)
#undef GM_OP_ENUM_
#undef GM_OPND_NONE_
	GM_OP_COUNT		/* number of codes, not an operation */
};

/* Operation flags. */
#define GM_F_SYNC 0x01		/* the captured call was synchronous: the
				   thread waits for its stream afterwards */
#define GM_F_PINNED 0x02	/* the captured host buffer was page-locked */
#define GM_F_GRAPH 0x04		/* a D2H copy captured into a graph: its
				   room in the host arena is its own */
#define GM_F_HOST_WARM 0x08	/* a pageable D2H copy whose captured
				   destination pages were resident: each
				   replay touches its room beforehand */
#define GM_F_LAUNCH_END 0x10	/* a GRAPH_CHECK the captured program read
				   inside its launch (at a host node of the
				   graph that follows the copy): checked
				   when the launch has run, before a later
				   launch rewrites the room */

/* One replayed call: 48 bytes, written by generated code as table rows. */
struct gm_op {
	uint8_t code;		/* enum gm_opcode */
	uint8_t flags;		/* GM_F_* */
	uint16_t stream;	/* program-local stream id */
	uint32_t a, b, c;	/* ids and small operands, see the table */
	uint64_t x, y, z;	/* offsets and sizes, see the table */
	uint64_t event;		/* index of the call in its trace (messages) */
};

/* Row constructors for generated tables (argument order: trace event
 * first, then what the table above lists). */
#define GM_ALLOC(ev, id, bytes, at) \
	{ GM_OP_ALLOC, 0, 0, (id), 0, 0, (at), 0, (bytes), (ev) }
#define GM_FREE(ev, id) \
	{ GM_OP_FREE, 0, 0, (id), 0, 0, 0, 0, 0, (ev) }
#define GM_H2D(ev, s, f, dst, doff, blob, boff, n) \
	{ GM_OP_H2D, (f), (s), (dst), (blob), 0, (doff), (boff), (n), (ev) }
#define GM_D2H(ev, s, f, src, soff, check, hoff, n) \
	{ GM_OP_D2H, (f), (s), (src), (check), 0, (soff), (hoff), (n), (ev) }
#define GM_D2D(ev, s, f, dst, doff, src, soff, n) \
	{ GM_OP_D2D, (f), (s), (dst), (src), 0, (doff), (soff), (n), (ev) }
#define GM_PTR_STORE(ev, s, f, dst, doff, ref, addend) \
	{ GM_OP_PTR_STORE, (f), (s), (dst), (ref), 0, (doff), (addend), 0, (ev) }
#define GM_MEMSET8(ev, s, f, dst, doff, v, n) \
	{ GM_OP_MEMSET8, (f), (s), (dst), 0, (v), (doff), 0, (n), (ev) }
#define GM_MEMSET16(ev, s, f, dst, doff, v, n) \
	{ GM_OP_MEMSET16, (f), (s), (dst), 0, (v), (doff), 0, (n), (ev) }
#define GM_MEMSET32(ev, s, f, dst, doff, v, n) \
	{ GM_OP_MEMSET32, (f), (s), (dst), 0, (v), (doff), 0, (n), (ev) }
#define GM_LAUNCH(ev, s, l) \
	{ GM_OP_LAUNCH, 0, (s), (l), 0, 0, 0, 0, 0, (ev) }
#define GM_EVENT_RECORD(ev, s, e) \
	{ GM_OP_EVENT_RECORD, 0, (s), (e), 0, 0, 0, 0, 0, (ev) }
#define GM_STREAM_WAIT(ev, s, e) \
	{ GM_OP_STREAM_WAIT, 0, (s), (e), 0, 0, 0, 0, 0, (ev) }
#define GM_EVENT_SYNC(ev, e) \
	{ GM_OP_EVENT_SYNC, 0, 0, (e), 0, 0, 0, 0, 0, (ev) }
#define GM_STREAM_SYNC(ev, s) \
	{ GM_OP_STREAM_SYNC, 0, (s), 0, 0, 0, 0, 0, 0, (ev) }
#define GM_CTX_SYNC(ev) \
	{ GM_OP_CTX_SYNC, 0, 0, 0, 0, 0, 0, 0, 0, (ev) }
#define GM_TEX_CREATE(ev, t, d) \
	{ GM_OP_TEX_CREATE, 0, 0, (t), (d), 0, 0, 0, 0, (ev) }
#define GM_TEX_DESTROY(ev, t) \
	{ GM_OP_TEX_DESTROY, 0, 0, (t), 0, 0, 0, 0, 0, (ev) }
#define GM_HOST_FILL(ev, dst, doff, blob, boff, n) \
	{ GM_OP_HOST_FILL, 0, 0, (dst), (blob), 0, (doff), (boff), (n), (ev) }
#define GM_HOST_CHECK(ev, src, soff, check, n) \
	{ GM_OP_HOST_CHECK, 0, 0, (src), (check), 0, (soff), 0, (n), (ev) }
#define GM_PREFETCH(ev, s, dst, doff, n, where) \
	{ GM_OP_PREFETCH, 0, (s), (dst), 0, (where), (doff), 0, (n), (ev) }
#define GM_ADVISE(ev, dst, doff, n, advice, where) \
	{ GM_OP_ADVISE, 0, 0, (dst), (advice), (where), (doff), 0, (n), (ev) }
#define GM_ATTACH(ev, s, dst, doff, n, flags) \
	{ GM_OP_ATTACH, 0, (s), (dst), 0, (flags), (doff), 0, (n), (ev) }
#define GM_COPY_IN(ev, s, f, desc, blob, boff, n) \
	{ GM_OP_COPY_IN, (f), (s), (desc), (blob), 0, 0, (boff), (n), (ev) }
#define GM_COPY_OUT(ev, s, f, desc, check, hoff, n) \
	{ GM_OP_COPY_OUT, (f), (s), (desc), (check), 0, 0, (hoff), (n), (ev) }
#define GM_COPY_DEV(ev, s, f, desc) \
	{ GM_OP_COPY_DEV, (f), (s), (desc), 0, 0, 0, 0, 0, (ev) }
#define GM_ARRAY_CREATE(ev, r) \
	{ GM_OP_ARRAY_CREATE, 0, 0, (r), 0, 0, 0, 0, 0, (ev) }
#define GM_ARRAY_DESTROY(ev, r) \
	{ GM_OP_ARRAY_DESTROY, 0, 0, (r), 0, 0, 0, 0, 0, (ev) }

/* Where PREFETCH and ADVISE mean (operand c). */
#define GM_LOC_DEVICE 0		/* the replay's device */
#define GM_LOC_HOST 1
#define GM_LOC_NONE 2		/* ADVISE: a setting without a location */
#define GM_HOST_FUNC(ev, s, ns) \
	{ GM_OP_HOST_FUNC, 0, (s), 0, 0, 0, (ns), 0, 0, (ev) }
#define GM_CAPTURE_BEGIN(ev, s) \
	{ GM_OP_CAPTURE_BEGIN, 0, (s), 0, 0, 0, 0, 0, 0, (ev) }
#define GM_CAPTURE_END(ev, s, g) \
	{ GM_OP_CAPTURE_END, 0, (s), (g), 0, 0, 0, 0, 0, (ev) }
#define GM_CAPTURE_TO(ev, s, g) \
	{ GM_OP_CAPTURE_TO, 0, (s), (g), 0, 0, 0, 0, 0, (ev) }
#define GM_CAPTURE_AFTER(ev, s, g, n) \
	{ GM_OP_CAPTURE_AFTER, 0, (s), (g), (n), 0, 0, 0, 0, (ev) }
#define GM_GRAPH_CREATE(ev, g) \
	{ GM_OP_GRAPH_CREATE, 0, 0, (g), 0, 0, 0, 0, 0, (ev) }
#define GM_NODE_BEGIN(ev, s, g) \
	{ GM_OP_NODE_BEGIN, 0, (s), (g), 0, 0, 0, 0, 0, (ev) }
#define GM_NODE_END(ev, s, g, n) \
	{ GM_OP_NODE_END, 0, (s), (g), (n), 0, 0, 0, 0, (ev) }
#define GM_GRAPH_NODE(ev, g, n, kind, arg) \
	{ GM_OP_GRAPH_NODE, 0, 0, (g), (n), (arg), (kind), 0, 0, (ev) }
#define GM_GRAPH_DEP(ev, g, from, to) \
	{ GM_OP_GRAPH_DEP, 0, 0, (g), (from), (to), 0, 0, 0, (ev) }
#define GM_GRAPH_INST(ev, e, g) \
	{ GM_OP_GRAPH_INST, 0, 0, (e), (g), 0, 0, 0, 0, (ev) }
#define GM_GRAPH_LAUNCH(ev, s, e) \
	{ GM_OP_GRAPH_LAUNCH, 0, (s), (e), 0, 0, 0, 0, 0, (ev) }
#define GM_GRAPH_CHECK(ev, s, f, check, hoff, n) \
	{ GM_OP_GRAPH_CHECK, (f), (s), 0, (check), 0, 0, (hoff), (n), (ev) }
#define GM_GRAPH_UPDATE(ev, e, g) \
	{ GM_OP_GRAPH_UPDATE, 0, 0, (e), (g), 0, 0, 0, 0, (ev) }
#define GM_KNODE_SET(ev, l, n, e) \
	{ GM_OP_KNODE_SET, 0, 0, (l), (n), (e), 0, 0, 0, (ev) }
#define GM_GRAPH_CLONE(ev, g, orig) \
	{ GM_OP_GRAPH_CLONE, 0, 0, (g), (orig), 0, 0, 0, 0, (ev) }
#define GM_GRAPH_DESTROY(ev, g) \
	{ GM_OP_GRAPH_DESTROY, 0, 0, (g), 0, 0, 0, 0, 0, (ev) }
#define GM_EXEC_DESTROY(ev, e) \
	{ GM_OP_EXEC_DESTROY, 0, 0, (e), 0, 0, 0, 0, 0, (ev) }
#define GM_GRAPH_EDGE(ev, g, from, to, edge) \
	{ GM_OP_GRAPH_EDGE, 0, 0, (g), (from), (to), (edge), 0, 0, (ev) }
#define GM_CHILD_SET(ev, e, n, g) \
	{ GM_OP_CHILD_SET, 0, 0, (e), (n), (g), 0, 0, 0, (ev) }
#define GM_CAPTURE_EDGE(ev, s, g, n, edge) \
	{ GM_OP_CAPTURE_EDGE, 0, (s), (g), (n), 0, (edge), 0, 0, (ev) }

/* Stream flags. Every replay stream is created non-blocking (programs
 * never touch the context's real legacy stream); these flags describe the
 * captured stream so the runtime keeps its ordering semantics. */
#define GM_STREAM_LEGACY 0x1	/* id 0: the program's legacy default stream */
#define GM_STREAM_BLOCKING 0x2	/* captured without CU_STREAM_NON_BLOCKING:
				   it synchronizes with the legacy stream */

struct gm_stream_desc {
	uint32_t flags;		/* GM_STREAM_* */
	int32_t priority;	/* as captured (cuStreamCreateWithPriority) */
};

/* A code image in the data directory: modules/<hash>, loaded with
 * cuLibraryLoadData (fatbin, cubin or PTX). */
struct gm_module_desc {
	const char *hash;	/* 32 hex digits */
	uint64_t size;		/* bytes, checked when read */
};

/* A function attribute set at init (cuFuncSetAttribute). */
struct gm_attr {
	int32_t attrib;		/* CUfunction_attribute */
	int32_t value;
};

/* A kernel: resolved at init by mangled name in its module. */
struct gm_kernel_desc {
	uint32_t module;
	const char *name;		/* mangled name */
	uint32_t nr_params;
	const uint32_t *param_offset;	/* byte offset of each parameter */
	const uint32_t *param_size;	/* byte size of each parameter */
	uint32_t nr_attrs;
	const struct gm_attr *attrs;
};

/* A module-scope variable (__device__/__constant__), resolved by name. */
struct gm_global_desc {
	uint32_t module;
	const char *name;
	uint64_t size;		/* as captured; checked at init */
};

/* Patch: the 8 bytes at @offset become address(@ref) + @addend (for a
 * texture reference: the texture object handle, addend 0). */
struct gm_reloc {
	uint32_t offset;
	uint32_t ref;
	uint64_t addend;
};

/* A kernel parameter buffer as laid out by the kernel's parameter offsets;
 * relocated words are 0 in @bytes and filled at launch. */
struct gm_params_desc {
	uint32_t size;
	uint32_t nr_relocs;
	const uint8_t *bytes;
	const struct gm_reloc *relocs;
};

/* Launch flags. */
#define GM_LAUNCH_COOPERATIVE 0x1	/* cuLaunchCooperativeKernel */

struct gm_launch_desc {
	uint32_t kernel;
	uint32_t params;	/* gm_params_desc id */
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t smem;		/* dynamic shared memory bytes */
	uint32_t cluster[3];	/* all 0: no cluster launch attribute */
	uint32_t flags;		/* GM_LAUNCH_* */
};

/* A texture object over device memory (linear or pitch 2-D) or a CUDA
 * array; the numbers are the CUDA driver API's enum values. */
struct gm_texture_desc {
	uint32_t res_type;	/* CUresourcetype: ARRAY (0), LINEAR (2) or
				   PITCH2D (3) */
	uint32_t ref;		/* memory: reference + offset; ARRAY: GM_R */
	uint64_t offset;
	uint32_t format;	/* CUarray_format */
	uint32_t channels;
	uint64_t size_bytes;	/* LINEAR */
	uint64_t width, height, pitch;	/* PITCH2D */
	uint32_t address_mode[3];	/* CUaddress_mode */
	uint32_t filter_mode;		/* CUfilter_mode */
	uint32_t flags;			/* CU_TRSF_* */
	uint32_t max_anisotropy;
	uint32_t mipmap_filter_mode;
	float mipmap_level_bias, min_mipmap_level_clamp, max_mipmap_level_clamp;
	float border_color[4];
};

/*
 * Memory the host and the kernels share: page-locked memory mapped into
 * the device's address space, or managed memory. Allocated at init
 * (untimed) and kept for the program's life; size 0: never referenced,
 * not allocated.
 */
#define GM_HOSTMEM_MAPPED 1	/* cuMemHostAlloc(DEVICEMAP) */
#define GM_HOSTMEM_MANAGED 2	/* cuMemAllocManaged */

struct gm_hostmem_desc {
	uint32_t kind;		/* GM_HOSTMEM_* */
	uint64_t size;
};

/*
 * A CUDA array (cuArrayCreate: depth 0; cuArray3DCreate), as captured:
 * made at init (untimed) and kept for the program's life; ARRAY_CREATE
 * and ARRAY_DESTROY say when the program had it. Arrays of the same
 * description whose lives do not overlap share an id.
 */
struct gm_array_desc {
	uint64_t width, height, depth;	/* elements, rows, slices */
	uint32_t format;		/* CUarray_format */
	uint32_t channels;
	uint32_t flags;			/* CUDA_ARRAY3D_* */
};

/* One end of a 2-D or 3-D copy (gm_copy_desc). */
#define GM_END_HOST 1		/* the op's host data or arena room, rows
				   packed: pitch = width, height = rows */
#define GM_END_DEVICE 2		/* device memory: ref + offset */
#define GM_END_ARRAY 3		/* array ref (an id) */

struct gm_copy_end {
	uint32_t kind;		/* GM_END_* */
	uint32_t ref;		/* DEVICE: a reference; ARRAY: an array id */
	uint64_t offset;	/* DEVICE: bytes past the reference */
	uint64_t x, y, z;	/* position: bytes, rows, slices */
	uint64_t pitch, height;	/* DEVICE: row pitch, rows per slice */
};

/* How the replay issues a copy (what the program called). */
#define GM_COPYCALL_2D 1	/* cuMemcpy2DAsync */
#define GM_COPYCALL_2D_UNALIGNED 2 /* cuMemcpy2DUnaligned (synchronous) */
#define GM_COPYCALL_3D 3	/* cuMemcpy3DAsync */

struct gm_copy_desc {
	uint32_t call;		/* GM_COPYCALL_* */
	struct gm_copy_end src, dst;
	uint64_t width, height, depth;	/* bytes, rows, slices */
};

/* Blob flags. */
#define GM_BLOB_PINNED 0x1	/* keep it in page-locked host memory */

/* Host-to-device source data: blobs/<hash> in the data directory. */
struct gm_blob_desc {
	const char *hash;
	uint64_t size;
	uint32_t flags;		/* GM_BLOB_* */
};

/*
 * Captured host time (doc/replay-program.md): host_gap[i] of a program is
 * the time the captured program spent on the host before its operation
 * i, since the previous operation of the same captured thread returned
 * (0 for a thread's first), which the replay spends before issuing it.
 * A gap is coded in 32 bits: below GM_HOST_GAP_US, nanoseconds (up to
 * 2.1 s); with GM_HOST_GAP_US set, the rest counts microseconds (up to
 * 35 minutes, the most a gap holds).
 */
#define GM_HOST_GAP_US 0x80000000u
#define GM_HOST_GAP_MAX_NS (UINT64_C(0x7fffffff) * 1000)

static inline uint64_t gm_host_gap_ns(uint32_t code)
{
	return (code & GM_HOST_GAP_US) ?
		       (uint64_t)(code & ~GM_HOST_GAP_US) * 1000 : code;
}

/* The code of @ns (at most GM_HOST_GAP_MAX_NS: more is kept at that). */
static inline uint32_t gm_host_gap_code(uint64_t ns)
{
	if (ns < GM_HOST_GAP_US) {
		return (uint32_t)ns;
	}
	if (ns > GM_HOST_GAP_MAX_NS) {
		ns = GM_HOST_GAP_MAX_NS;
	}
	return GM_HOST_GAP_US | (uint32_t)((ns + 500) / 1000);
}

struct gm_prog;

/* Everything about one program; every count may be 0 with a NULL table. */
struct gm_program_desc {
	const char *name;		/* unique in the workload */
	const char *bundle;		/* trace bundle it came from */
	int deterministic;		/* 0: do not verify its results */
	void *(*thread)(void *);	/* called with its struct gm_prog * */
	uint32_t nr_streams;		/* at least 1 (the legacy stream) */
	const struct gm_stream_desc *streams;
	uint32_t nr_events;
	const uint32_t *event_flags;	/* CUevent_flags as captured */
	uint32_t nr_allocs;		/* allocation ids are < nr_allocs */
	uint32_t nr_modules;
	const struct gm_module_desc *modules;
	uint32_t nr_kernels;
	const struct gm_kernel_desc *kernels;
	uint32_t nr_globals;
	const struct gm_global_desc *globals;
	uint32_t nr_params;
	const struct gm_params_desc *params;
	uint32_t nr_launches;
	const struct gm_launch_desc *launches;
	uint32_t nr_checks;
	const char *const *checks;	/* expected D2H hashes, 32 hex digits */
	uint32_t nr_textures;		/* texture ids are < nr_textures */
	uint32_t nr_texdescs;
	const struct gm_texture_desc *texdescs;
	uint64_t host_arena;		/* bytes of D2H destination space */
	uint32_t nr_hostmems;		/* GM_H ids are < nr_hostmems */
	const struct gm_hostmem_desc *hostmems;
	uint64_t nr_ops;
	const struct gm_op *ops;
	uint32_t nr_graphs;		/* CUDA graph ids are < nr_graphs, */
	uint32_t nr_execs;		/* executable graph ids < nr_execs, */
	uint32_t nr_nodes;		/* graph node ids < nr_nodes */
	uint32_t nr_arrays;		/* CUDA array ids are < nr_arrays */
	const struct gm_array_desc *arrays;
	uint32_t nr_copydescs;		/* 2-D, 3-D and array copies */
	const struct gm_copy_desc *copydescs;
	/* Captured host time: per operation its gap (gm_host_gap_ns()), or
	 * NULL when the program has none (a bundle without host times);
	 * per operation its captured thread (0 .. nr_host_threads - 1), or
	 * NULL when all came from one thread. */
	const uint32_t *host_gap;
	const uint16_t *host_thread;
	uint32_t nr_host_threads;
};

struct gm_workload_desc {
	uint32_t abi;			/* GM_REPLAY_ABI */
	const char *name;		/* e.g. "bfs+cutcp" */
	const char *variant;		/* default variant (gpumix reconstruct
					   --variant); --variant overrides */
	const char *policy;		/* "none" (--policy sets the run's) */
	uint32_t nr_programs;
	const struct gm_program_desc *const *programs;
	uint32_t nr_blobs;
	const struct gm_blob_desc *blobs;
};

/*
 * The replay program's main(). Options (common/replay_opts.h, `--help`):
 * --variant V (default w->variant), --data DIR (blobs/ and modules/,
 * default: the executable's directory), -o RUNDIR (default
 * runs/<workload>.<variant>), --min-replays R (default 7), --watchdog
 * SECONDS (default 60, 0 = off), --force, --no-profile, --warm-host, and
 * the knobs of the variant (--copy-chunk, --completion, --timeslice-us,
 * --policy, --elastic, --high-priority, --mps-threads). Exit status: 0
 * success, 1 failure (including a result mismatch, and the mps variant
 * on a host without MPS), 2 usage, 3 hung, 130 interrupted (mps).
 */
int gm_replay_main(int argc, char **argv, const struct gm_workload_desc *w);

/*
 * Per-program calls, made by the generated thread function with the
 * struct gm_prog * it received. gm_prog_init() returns 0 or -1 (the
 * failure is recorded for the run). gm_replay_next() ends the previous
 * replay (waits for its GPU work, verifies pending results, records its
 * times), then returns 1 when another replay should start (its start time
 * is taken) or 0 when the program is done or the run failed.
 * gm_replay_ops() executes @nr operations and returns 0 or -1.
 * gm_prog_cleanup() frees everything the program holds.
 */
int gm_prog_init(struct gm_prog *p);
int gm_replay_next(struct gm_prog *p);
int gm_replay_ops(struct gm_prog *p, const struct gm_op *ops, uint64_t nr);
void gm_prog_cleanup(struct gm_prog *p);

#endif
