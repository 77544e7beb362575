#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# CUDA graphs as public programs use them, capture to replay on a CPU:
# graph-emitter (tests/tools/graph_emitter.c) runs on the mock CUDA driver
# under `gpumix capture`, through the real CUPTI subscriber, and the
# bundle is reconstructed and replayed on the mock, alone (single, cuda)
# and beside another program, every result verified:
#   - a free while a stream captures: the replay's free waits for the
#     program's other streams, never for the capturing one (synchronizing
#     it fails, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, as on CUDA);
#   - simpleCudaGraphs (by hand and by stream capture over two streams):
#     copy nodes of a reduction and an accumulator, a host node after
#     them that reads the results and resets the buffer, launched three
#     times before one synchronization, and a clone: each launch's results
#     are hashed when its host node starts (AT-HOST-NODE), before the
#     program's function resets them, and checked when the replay's launch
#     has run (GM_F_LAUNCH_END); a copy no host node follows is
#     overwritten by the next launch (no result), the last one's checked
#     at the synchronization;
#   - jacobiCudaGraphs: kernel node arguments changed in the executable
#     graph before each launch;
#   - a host node that rewrites a graph's host source: the capture
#     reports it and exits 1 (the replay copies what the node was made
#     with).
# Without the host-node hash point, or with the replay checking those
# results at the synchronization, the replay fails.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=$tmp/graphs

out=$("$GPUMIX" -q capture -o "$B" -- "$GPUMIX_BUILD/tests/graph-emitter" 2>&1); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "the program's own checks passed on the mock" "graph-emitter: ok" "$out"
check_eq "no call is unsupported" 0 "$(field "$B/manifest" loss.unsupported_calls)"

dump=$("$GPUMIX" trace dump --events "$B" 2>&1)
# manual graph and clone: 6 launches x 2 copies; captured graph: 3 x 2
check_eq "each launch's copies a host node follows are hashed as it starts (18)" 18 \
	"$(grep -c ' d2h_hash .* result=.* AT-HOST-NODE$' <<<"$dump")"
check_eq "... on CUDA's thread, before the program's function reset them" 0 \
	"$(grep ' d2h_hash .* AT-HOST-NODE$' <<<"$dump" | grep -c 'result=2c0a8a99dc147d5445c3b49d035665b2:8')"
check_eq "the copy no host node follows: overwritten by the next launch (4 of 6)" 4 \
	"$(grep -c ' d2h_hash .* OVERWRITTEN$' <<<"$dump")"
check_match "trace info counts them" "^  d2h_overwritten=4$" "$("$GPUMIX" trace info "$B" 2>&1)"

# CUDA's thread may run a launch's host node before the launching call
# returns (always so with CUDA_LAUNCH_BLOCKING=1, which the mock honours
# for graph launches): each run is announced at the launch's entry.
out=$(CUDA_LAUNCH_BLOCKING=1 "$GPUMIX" -q capture -o "$tmp/blocking" -- \
	"$GPUMIX_BUILD/tests/graph-emitter" 2>&1)
check_eq "launches that return when done: capture exits 0" 0 "$?"
check_eq "... each launch's copies a host node follows still hashed as it starts (18)" 18 \
	"$("$GPUMIX" trace dump --events "$tmp/blocking" 2>&1 | grep -c ' d2h_hash .* result=.* AT-HOST-NODE$')"

# A host node that rewrites a host source of its graph.
out=$("$GPUMIX" -q capture -o "$tmp/writes" -- "$GPUMIX_BUILD/tests/graph-emitter" \
	--host-writes-source 2>&1); rc=$?
check_eq "a host node rewriting a graph's host source: capture exits 1" 1 "$rc"
# (the trampoline sees the change as the node returns, or the next
# launch sees its source changed first: which one names a launch depends
# on when CUDA's thread runs the node, the count of each name too)
check_match "... naming it" \
	"unsupported: cuGraphLaunch.host_node_changed_source \([1-6] calls?\)" "$out"
check_match "trace info says what it means for the replay" \
	"host node changed the host source of one of the graph's copies" \
	"$("$GPUMIX" trace info "$tmp/writes" 2>&1)"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	check_match "$v: every result has its captured hash" \
		"^program 'graphs': .* 0 results not verifiable, 0 unsupported calls" "$rec"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok "$(field "$tmp/run.$v/manifest" status)"
done
check_eq "results read inside their launch are checked at the launch's end (18)" 18 \
	"$(grep -c 'GM_GRAPH_CHECK(.*GM_F_LAUNCH_END, [0-9]' "$tmp/w.cuda/replay.c")"
# the last launch's side copy of each of the two executable graphs, the
# capture with a free (3 launches), the jacobi graph (4)
check_eq "the others at the next synchronization (9)" 9 \
	"$(grep 'GM_GRAPH_CHECK(' "$tmp/w.cuda/replay.c" | grep -v LAUNCH_END | grep -vc GM_NONE)"
check_eq "a kernel node's arguments change in the executable graph before each of 4 launches" \
	"4 4" "$(grep -c 'cuGraphExecKernelNodeSetParams_v2 \*/ GM_KNODE_SET([0-9]*, [0-9]*, [0-9]*, [0-9]*)' "$tmp/w.cuda/replay.c") $(grep -A1 'GM_KNODE_SET(' "$tmp/w.cuda/replay.c" | grep -c 'GM_GRAPH_LAUNCH(')"
check_eq "the free is replayed where the program made it, inside the capture" \
	"CAPTURE_BEGIN FREE CAPTURE_END" \
	"$(grep -o 'GM_CAPTURE_BEGIN\|cuMemFree_v2 \*/ GM_FREE\|GM_CAPTURE_END' "$tmp/w.cuda/replay.c" |
		sed 's/.*GM_//' | head -3 | tr '\n' ' ' | sed 's/ $//')"

"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "beside another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_eq "beside another program: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

done_testing
