#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: CUDA graphs as XLA's command buffers (JAX) build them
# (tests/gpu/progs/cmdbuf.cu, doc/graphs.md): traces into graphs the
# program made (cudaStreamBeginCaptureToGraph, the second after a node),
# generic nodes (cudaGraphAddNode), kernel nodes after programmatic edges
# (programmatic dependent launch: edge data of cudaGraphAddNode,
# cudaGraphAddDependencies and cudaStreamBeginCaptureToGraph), kernel node parameters changed in the
# executable graph, and its child graph node given a newly traced graph
# (cudaGraphExecChildGraphNodeSetParams). Captured with nothing
# unsupported; the programmatic edges and the child graph update in the
# replay program; replayed verified alone (single) and in a cuda pair with
# a suite program (mm), one cuGraphLaunch per captured launch.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch cmdbuf
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs
LAUNCHES=4

out=$("$GPUMIX" capture -o "$tmp/cmdbuf" -- "$T/cmdbuf" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS cmdbuf" "$out"
info=$("$GPUMIX" trace info "$tmp/cmdbuf" 2>&1)
check_eq "no unsupported call" 0 "$(field "$tmp/cmdbuf/manifest" loss.unsupported_calls)"
[ "$(field "$tmp/cmdbuf/manifest" loss.unsupported_calls)" = 0 ] ||
	sed -n '/^unsupported calls:/,/^runtime calls:/p' <<<"$info" | sed 's/^/#   /'
check_eq "four traces into graphs" 4 \
	"$(sed -n 's/^  cuStreamBeginCaptureToGraph  *//p' <<<"$info")"
check_eq "one child graph update" 1 \
	"$(field "$tmp/cmdbuf/manifest" calls.cuGraphExecChildGraphNodeSetParams)"

for w in "cmdbuf:single:$tmp/cmdbuf" "cmdbuf+mm:cuda:$tmp/cmdbuf $SUITE_CACHE/mm"; do
	name=${w%%:*}; rest=${w#*:}; v=${rest%%:*}
	[ "$v" = cuda ] && ! suite_bundle mm && continue
	# shellcheck disable=SC2086
	reconstruct_replay "$name" "$v" 2 ${rest#*:}
	check_match "$name $v: every result verifiable" \
		"program 'cmdbuf': .* 0 results not verifiable, 0 unsupported calls" "$recon_out"
	# The edges' CUgraphEdgeData bytes: programmatic (type 1) from the
	# programmatic port (1), and from the launch completion port (2).
	c=$(cat "$tmp"/r-"$name".$v/replay*.c 2>/dev/null)
	check_eq "$name $v: the 3 programmatic edges in the replay program" "1 1 1" \
		"$(grep -c 'GM_GRAPH_EDGE([0-9]*, [0-9]*, [0-9]*, [0-9]*, 0x10001)' <<<"$c") $(grep -c 'GM_GRAPH_EDGE([0-9]*, [0-9]*, [0-9]*, [0-9]*, 0x10002)' <<<"$c") $(grep -c 'GM_CAPTURE_EDGE([0-9]*, [0-9]*, [0-9]*, [0-9]*, 0x10001)' <<<"$c")"
	check_eq "$name $v: the child graph update too" 1 "$(grep -c 'GM_CHILD_SET(' <<<"$c")"
	n=$(awk -F'\t' '$1 == "cmdbuf"' "$tmp/run-$name.$v/replays.tsv" | wc -l)
	check_eq "$name $v: one graph launch per captured launch ($n replays)" \
		$((LAUNCHES * n)) \
		"$(awk -F'\t' '$1 == "API" && $2 == "cmdbuf" && $8 ~ /^cuGraphLaunch/' \
			"$tmp/run-$name.$v/activity.tsv" | wc -l)"
done

done_testing
