#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# CUDA graphs as XLA's command buffers (JAX) build them, capture to replay
# on a CPU: cmdbuf-emitter (tests/tools/cmdbuf_emitter.c) runs on the mock
# CUDA driver under `gpumix capture`, through the real CUPTI subscriber:
# a stream traced into a graph the program made
# (cuStreamBeginCaptureToGraph, no dependencies), an outer graph of
# generic nodes (cuGraphAddNode_v2: kernel, child graph, copy back, empty
# node), kernel nodes after programmatic edges (cuGraphAddNode_v2's,
# cuGraphAddDependencies_v2's and cuStreamBeginCaptureToGraph's edge
# data), and a second trace into the outer graph after its empty node; before each launch a kernel node's
# parameters change in the executable graph, and before the last its
# child graph node gets a newly traced graph
# (cuGraphExecChildGraphNodeSetParams). Nothing is unsupported, each
# generic node is recorded and counted as the typed call that makes it
# (its programmatic edge as the cuGraphAddDependencies_v2 that adds it),
# the traces replay as captures into their graphs (the second one after
# its node), the replay makes the same programmatic edges (the mock's
# call log) and the same child graph update, and each launch checks its
# copies back, the child's where the update moved it; the replay on the
# mock verifies every result, alone and beside another program.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=$tmp/cmdbuf

out=$("$GPUMIX" -q capture -o "$B" -- "$GPUMIX_BUILD/tests/cmdbuf-emitter" 2>&1); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "the program's own checks passed on the mock" "cmdbuf-emitter: ok" "$out"
check_eq "no call is unsupported" 0 "$(field "$B/manifest" loss.unsupported_calls)"
check_eq "the generic nodes are counted as the typed calls" "3 1 2 1" \
	"$(field "$B/manifest" calls.cuGraphAddKernelNode_v2) $(field "$B/manifest" calls.cuGraphAddChildGraphNode) $(field "$B/manifest" calls.cuGraphAddMemcpyNode) $(field "$B/manifest" calls.cuGraphAddEmptyNode)"
check_eq "... and not as unsupported" "" "$(field "$B/manifest" unsupported.cuGraphAddNode_v2)"
check_eq "the programmatic edge of a generic node is one more cuGraphAddDependencies_v2" \
	2 "$(field "$B/manifest" calls.cuGraphAddDependencies_v2)"
check_eq "four traces into graphs" 4 "$(field "$B/manifest" calls.cuStreamBeginCaptureToGraph)"
check_eq "kernel node and child graph changes in the executable graph" "3 1" \
	"$(field "$B/manifest" calls.cuGraphExecKernelNodeSetParams_v2) $(field "$B/manifest" calls.cuGraphExecChildGraphNodeSetParams)"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	check_match "$v: every result has its captured hash" \
		"^program 'cmdbuf': .* 0 results not verifiable, 0 unsupported calls" "$rec"
	out=$(MOCK_CUDA_CALL_LOG=$tmp/calls.$v "$GPUMIX" replay --min-replays 3 \
		--watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok "$(field "$tmp/run.$v/manifest" status)"
	# The mock logs each edge that is not plain with its CUgraphEdgeData
	# bytes: programmatic (type 1) from port 1 (a node's and a trace's),
	# and from port 2.
	n=$(awk -F'\t' '$1 == "cmdbuf"' "$tmp/run.$v/replays.tsv" | wc -l)
	check_eq "$v: each of the $n replays makes the 3 programmatic edges" \
		"$((2 * n)) $n" "$(grep -c ' graph_edge 65537$' "$tmp/calls.$v") $(grep -c ' graph_edge 65538$' "$tmp/calls.$v")"
	check_eq "$v: ... and updates the child graph node" \
		"$n" "$(grep -c ' child_graph_set 2$' "$tmp/calls.$v")"
done
c=$tmp/w.cuda/replay.c
check_match "the first trace: a capture into graph 0, ended into it" \
	'cuStreamBeginCaptureToGraph \*/ GM_CAPTURE_TO\([0-9]+, 1, 0\),
.*GM_LAUNCH\([0-9]+, 1, [0-9]+\),
.*cuStreamEndCapture \*/ GM_CAPTURE_END\([0-9]+, 1, 0\),' "$(cat "$c")"
check_match "the second: into the outer graph, after its empty node" \
	'cuGraphAddEmptyNode \*/ GM_GRAPH_NODE\([0-9]+, 1, 3, 0, 0\),
.*
.*cuStreamBeginCaptureToGraph \*/ GM_CAPTURE_AFTER\([0-9]+, 1, 1, 3\),' "$(cat "$c")"
check_eq "each of the 3 launches checks its 4 copies back" 12 \
	"$(grep -c 'GM_GRAPH_CHECK(' "$c")"
check_match "the programmatic edges: their edge data, in order" \
	'cuGraphAddDependencies_v2 \*/ GM_GRAPH_EDGE\([0-9]+, 1, 0, 4, 0x10001\),
.*cuGraphAddDependencies_v2 \*/ GM_GRAPH_EDGE\([0-9]+, 1, 4, 6, 0x10002\),
.*cuStreamBeginCaptureToGraph \*/ GM_CAPTURE_EDGE\([0-9]+, 1, 1, 6, 0x10001\),' "$(cat "$c")"
check_eq "the kernel node after one changes before each launch" 3 \
	"$(grep -c 'cuGraphExecKernelNodeSetParams_v2 \*/ GM_KNODE_SET([0-9]*, [0-9]*, 4, 0)' "$c")"
check_match "the child graph node (1) of the executable graph runs the third trace (2)" \
	'cuGraphExecChildGraphNodeSetParams \*/ GM_CHILD_SET\([0-9]+, 0, 1, 2\),' "$(cat "$c")"

"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "beside another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_eq "beside another program: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

done_testing
