/* SPDX-License-Identifier: MIT */
/*
 * The unsupported-call hints: the longest prefix wins over a shorter one
 * listed after it, runtime and driver names have their rows, and a call
 * no row names gets the general hint.
 */
#include <string.h>

#include "reconstruct/trace/unsupported_hint.h"
#include "test.h"

int main(void)
{
	const char *general = gm_unsupported_hint("cuSomethingNew");

	CHECK(strstr(gm_unsupported_hint("cuGraphLaunch"), "graph launch"),
	      "cuGraphLaunch: its own row, not cuGraph's");
	CHECK(strstr(gm_unsupported_hint("cuGraphLaunch.changed_host_source"),
		     "changed the host source"),
	      "a graph launch after its host source changed: its own row");
	CHECK(strstr(gm_unsupported_hint("cuGraphLaunch_ptsz"), "graph launch"),
	      "... its _ptsz spelling too");
	CHECK(strstr(gm_unsupported_hint("cuGraphRemoveDependencies_v2"),
		     "graph construction"), "cuGraph*: graph construction");
	CHECK(strstr(gm_unsupported_hint("cuMemPoolImportPointer"), "fault"),
	      "a pointer from another process's pool: kernels using it fault");
	CHECK(strstr(gm_unsupported_hint("cuMemPoolSetAccess"), "one device"),
	      "pool access from other devices: one device");
	CHECK(strstr(gm_unsupported_hint("cuGraphAddMemAllocNode"),
		     "memory node"), "cuGraphAddMem*: its own row");
	CHECK(strstr(gm_unsupported_hint("cuStreamBeginCaptureToGraph"),
		     "more than 8 of its nodes"),
	      "capture to a graph: not the capture row");
	CHECK(strstr(gm_unsupported_hint("cuGraphAddNode_v2.conditional"),
		     "conditional handle"),
	      "a generic conditional node: its own row");
	CHECK(strstr(gm_unsupported_hint("cuGraphAddNode_v2.memory"),
		     "memory"), "a generic node of another kind: the generic row");
	CHECK(strstr(gm_unsupported_hint("cuMemMap.alias"), "two places"),
	      "physical memory mapped twice: its own row");
	CHECK(strstr(gm_unsupported_hint("cuMemCreate.host"), "on the host"),
	      "physical memory on the host: its own row");
	CHECK(strstr(gm_unsupported_hint("cudaGraphLaunch_v10000"), "graph"),
	      "a runtime graph call");
	CHECK(strstr(general, "not replayed"), "an unknown call: the general hint");
	CHECK(gm_unsupported_hint("cuGraph") != general, "a bare prefix matches");
	return test_done();
}
