/* SPDX-License-Identifier: MIT */
/*
 * One line per family of calls gpumix does not replay: what skipping them
 * (gpumix reconstruct --allow-unsupported) leaves out of the replay. The
 * first entry whose prefix starts the name wins, so longer prefixes come
 * first; runtime names (cuda...) have their own rows.
 */
#include "unsupported_hint.h"

#include <string.h>

struct hint {
	const char *prefix;
	const char *hint;
};

static const struct hint hints[] = {
	{ "cuStreamBeginCaptureToGraph", "capture into a graph after more "
	  "than 8 of its nodes or through programmatic edges: the nodes it "
	  "captures are missing from the replayed graph" },
	{ "cuStreamUpdateCaptureDependencies", "capture dependency change: "
	  "the replayed graph keeps stream order, its edges may differ" },
	{ "cuStreamBeginCapture", "stream capture by a gpumix without graph "
	  "support: the captured work runs only at launches not replayed" },
	{ "cuStreamEndCapture", "stream capture by a gpumix without graph "
	  "support: the captured graph is not built" },
	{ "cuStreamIsCapturing", "stream capture query: harmless alone" },
	{ "cuStreamGetCaptureInfo", "stream capture query: harmless alone" },
	{ "cuGraphLaunch.host_node_changed_source", "graph launch whose host "
	  "node changed the host source of one of the graph's copies: the "
	  "replay copies the content the copy node was made with" },
	{ "cuGraphLaunch.changed_host_source", "graph launch after the program "
	  "changed the host source of one of the graph's copies: the replay "
	  "copies the content the copy node was made with" },
	{ "cuGraphLaunch", "graph launch of a graph gpumix could not rebuild "
	  "(or captured without graph support): its work is missing from the "
	  "replay" },
	{ "cuGraphAddNode_v2.conditional", "conditional graph node (XLA's "
	  "while and if in command buffers): its conditional handle and body "
	  "graphs are not rebuilt, the replayed graph lacks it and its work" },
	{ "cuGraphAddNode_v2.edge_data", "graph node after more than 64 "
	  "dependencies, some of them programmatic edges: missing from the "
	  "replayed graph, and so is its work" },
	{ "cuGraphAddNode", "generic graph node of a kind the replay does not "
	  "rebuild (memory, external semaphore, batched memory operations): "
	  "missing from the replayed graph, and so is its work at every "
	  "launch" },
	{ "cuGraphAddMem", "graph memory node (allocation or free inside a "
	  "graph): not replayed, the graph's kernels using it fault" },
	{ "cuGraphNodeFindInClone", "node of a cloned graph: later changes "
	  "through it are not replayed" },
	{ "cuGraphExec", "change of an executable graph gpumix does not "
	  "rebuild: its launches replay the parameters it had before" },
	{ "cuGraph", "CUDA graph construction gpumix does not rebuild: the "
	  "replayed graph has only what the supported calls made "
	  "(doc/graphs.md)" },
	{ "cudaGraph", "CUDA graph (runtime): the graph's work is missing "
	  "from the replay" },
	{ "cuMemPoolSetAccess", "memory pool access from other devices: the "
	  "replay runs on one device" },
	{ "cuMemPoolExport", "memory pool shared with another process: the "
	  "other process is not in the replay" },
	{ "cuMemPoolImport", "memory pool of another process: its memory is "
	  "not in a replay, kernels using it fault" },
	/* The _v2 forms are replayed; these are the CUDA 12 ones. */
	{ "cuMemPrefetch", "managed memory prefetch (CUDA 12 form): not "
	  "replayed; results are the same, where the pages sit differs" },
	{ "cuMemAdvise", "managed memory advice (CUDA 12 form): not "
	  "replayed; results are the same, page placement may differ" },
	{ "cuMemRangeGet", "managed memory query: harmless alone" },
	{ "cuIpc", "inter-process memory or events: the other process's "
	  "memory is not in the replay" },
	{ "cuMemcpyPeer", "peer copy between devices: the replay runs on one "
	  "device, the copy is missing" },
	{ "cuCtxEnablePeerAccess", "peer access between devices: the replay "
	  "runs on one device" },
	{ "cuMemcpyBatch", "batched copies: none of the batch's copies is "
	  "replayed" },
	{ "cuMemMap.alias", "physical memory mapped at two places, or moved "
	  "to another: the replay keeps one copy where it was first mapped, "
	  "kernels reading it elsewhere fault or read stale data" },
	{ "cuMemCreate.host", "physical memory on the host, which the program "
	  "reads and writes directly: those accesses are not in the trace, "
	  "kernels using it fault" },
	{ "cuMulticast", "multicast object (NVLink multicast): not created in "
	  "a replay, kernels using it fault" },
	{ "cuMemRetainAllocationHandle", "virtual memory handle lookup: later "
	  "calls on the handle it returns are not replayed" },
	{ "cuMemExport", "physical memory shared with another process: the "
	  "other process is not in the replay" },
	{ "cuMemImport", "physical memory of another process: its memory is "
	  "not in a replay, kernels using it fault" },
	{ "cuTensorMap", "tensor map: kernels get the captured descriptor, "
	  "whose addresses are the capture's (they fault or read wrong data)" },
	{ "cuImportExternal", "external memory or semaphore: the other API's "
	  "resource is not in a replay" },
	{ "cuExternalMemory", "external memory: the other API's memory is not "
	  "in a replay" },
	{ "cuSignalExternal", "external semaphore: its ordering is not "
	  "replayed" },
	{ "cuWaitExternal", "external semaphore: its ordering is not "
	  "replayed" },
	{ "cuGraphics", "graphics interop: the graphics resource is not in a "
	  "replay" },
	{ "cuGL", "OpenGL interop: the graphics resource is not in a replay" },
	{ "cuEGL", "EGL interop: the resource is not in a replay" },
	{ "cuVDPAU", "VDPAU interop: the resource is not in a replay" },
};

const char *gm_unsupported_hint(const char *name)
{
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		if (!strncmp(name, hints[i].prefix, strlen(hints[i].prefix))) {
			return hints[i].hint;
		}
	}
	return "not replayed: whatever it did is missing from the replay";
}
