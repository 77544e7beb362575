#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# CUDA graphs as XLA's command buffers (JAX) build them, capture to replay
# on a CPU: cmdbuf-emitter (tests/tools/cmdbuf_emitter.c) runs on the mock
# CUDA driver under `gpumix capture`, through the real CUPTI subscriber:
# a stream traced into a graph the program made
# (cuStreamBeginCaptureToGraph, no dependencies), an outer graph of
# generic nodes (cuGraphAddNode_v2: kernel, child graph, copy back, empty
# node), and a second trace into the outer graph after its empty node.
# Nothing is unsupported, each generic node is recorded and counted as the
# typed call that makes it, the traces replay as captures into their
# graphs (the second one after its node), and each launch checks both
# copies back; the replay on the mock verifies every result, alone and
# beside another program.
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
check_eq "the generic nodes are counted as the typed calls" "1 1 1 1" \
	"$(field "$B/manifest" calls.cuGraphAddKernelNode_v2) $(field "$B/manifest" calls.cuGraphAddChildGraphNode) $(field "$B/manifest" calls.cuGraphAddMemcpyNode) $(field "$B/manifest" calls.cuGraphAddEmptyNode)"
check_eq "... and not as unsupported" "" "$(field "$B/manifest" unsupported.cuGraphAddNode_v2)"
check_eq "two traces into graphs" 2 "$(field "$B/manifest" calls.cuStreamBeginCaptureToGraph)"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	check_match "$v: every result has its captured hash" \
		"^program 'cmdbuf': .* 0 results not verifiable, 0 unsupported calls" "$rec"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok "$(field "$tmp/run.$v/manifest" status)"
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
check_eq "each of the 3 launches checks both copies back" 6 \
	"$(grep -c 'GM_GRAPH_CHECK(' "$c")"

"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "beside another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_eq "beside another program: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

done_testing
