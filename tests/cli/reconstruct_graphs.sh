#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# CUDA graphs, capture -> reconstruct -> replay on a CPU (doc/graphs.md):
# the corpus bundle "graphs" (recon-emitter graphs, through the real
# capture path) holds a stream-captured graph launched three times, one of
# its results accumulating over the launches, and an explicit graph of
# every node kind whose kernel node is changed in the executable graph,
# then in the graph (exec update), then cloned. Reconstructed, every graph
# launch stays one GRAPH_LAUNCH with one check per copy node, all hashed;
# replayed on the mock driver (which runs captured work only at launch)
# alone and beside the basic program, every result verifies, and each
# replay makes one cuGraphLaunch per captured one. A wrong hash of a
# launch's result fails naming the launch; a capture the program
# invalidated ends where its end failed; the nss scheduler refuses graphs
# with a reason.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir
tmp=$_scratch
R=tests/data/reconstruct/bundles

out=$("$GPUMIX" trace info "$R/graphs" 2>&1); rc=$?
check_eq "trace info exits 0" 0 "$rc"
check_match "no call of the graph program is unsupported" \
	"^unsupported calls:
  none$" "$out"
check_eq "... nor counted as a loss" 0 \
	"$(field "$R/graphs/manifest" loss.unsupported_calls)"

"$GPUMIX" -v reconstruct --variant cuda -o "$tmp/g" "$R/graphs" \
	>/dev/null 2>"$tmp/rec"; rc=$?
check_eq "reconstruct exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/rec"
check_match "every result has its captured hash" \
	"^program 'graphs': .* 0 results not verifiable, 0 unsupported calls" \
	"$(grep "^program 'graphs'" "$tmp/rec")"
c=$tmp/g/replay.c
check_eq "one stream capture" 1 "$(grep -c 'GM_CAPTURE_BEGIN(' "$c")"
check_eq "seven graph launches, each one launch" 7 \
	"$(grep -c 'cuGraphLaunch \*/ GM_GRAPH_LAUNCH(' "$c")"
check_eq "ten results of copy nodes (2 x 3 + 4 launches), each checked" 10 \
	"$(grep -c 'GM_GRAPH_CHECK([0-9]*, 1, GM_F_PINNED, [0-9]' "$c")"
check_eq "the accumulating result differs at each launch (3 checks)" 3 \
	"$(grep 'GM_GRAPH_CHECK(' "$c" | grep ', 16384, 16384)' | cut -d, -f4 | sort -u | wc -l)"
check_match "captured work is ordinary operations between begin and end" \
	'GM_CAPTURE_BEGIN\([0-9]+, 1\),
.*GM_MEMSET32\([0-9]+, 1, .*
.*GM_LAUNCH\([0-9]+, 1, 0\),' "$(cat "$c")"
check_match "a copy node keeps its room in the host arena (GM_F_GRAPH)" \
	'GM_D2H\([0-9]+, 1, GM_F_PINNED \| GM_F_GRAPH, GM_A\(1\), 0, GM_NONE, 0, 16384\)' \
	"$(cat "$c")"
for k in "GM_GRAPH_NODE([0-9]*, 1, [0-9]*, 1, 0)" "GM_GRAPH_NODE([0-9]*, 1, [0-9]*, 2, 2)" \
	"GM_GRAPH_NODE([0-9]*, 1, [0-9]*, 3, 0)" "GM_KNODE_SET([0-9]*, [0-9]*, 2, 1)" \
	"GM_KNODE_SET([0-9]*, [0-9]*, 2, GM_NONE)" "GM_GRAPH_UPDATE(" \
	"GM_GRAPH_CLONE(" "cuGraphAddDependencies_v2 \*/ GM_GRAPH_DEP("; do
	check "explicit graph: $k" grep -q "$k" "$c"
done

for v in single cuda; do
	out=$("$GPUMIX" replay --variant $v --min-replays 2 --watchdog 30 \
		-o "$tmp/run.$v" "$tmp/g" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok \
		"$(field "$tmp/run.$v/manifest" status)"
	n=$(($(wc -l < "$tmp/run.$v/replays.tsv") - 1))
	check_eq "$v: one cuGraphLaunch per captured launch ($n replays)" \
		$((7 * n)) "$(grep -c '	cuGraphLaunch	' "$tmp/run.$v/activity.tsv")"
done

# Beside another program, in the cuda variant.
"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$R/graphs" "$R/basic" \
	2>"$tmp/rec"; rc=$?
check_eq "graphs+basic: reconstruct exits 0" 0 "$rc"
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" \
	"$tmp/pair" 2>&1); rc=$?
check_eq "graphs+basic cuda: replay exits 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_run "$tmp/run.pair" 2 2

# A wrong expected hash of the accumulating result of the third launch.
ev=$(grep 'cuGraphLaunch \*/ GM_GRAPH_LAUNCH(' "$c" | sed -n '3s|^	/\* \([0-9]*\) .*|\1|p')
idx=$(grep "^	/\* $ev cuGraphLaunch \*/ GM_GRAPH_CHECK(" "$c" | tail -1 |
	sed 's/.*GM_F_PINNED, \([0-9]*\),.*/\1/')
h=$(grep -o "^	\"[0-9a-f]\{32\}\",	/\* $idx \*/" "$c" | cut -d'"' -f2)
cp -r "$tmp/g" "$tmp/bad"
sed -i "s/\"$h\"/\"00000000000000000000000000000000\"/" "$tmp/bad/replay.c"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-bad" "$tmp/bad" 2>&1); rc=$?
check_eq "a changed hash of a graph's result fails the run" 1 "$rc"
check_match "naming the graph launch ($ev)" \
	"operation [0-9]+ \(graph device-to-host result, trace event $ev\): result differs" \
	"$(field "$tmp/run-bad/manifest" failure)"

# A capture the program invalidated (its end failed): with
# --allow-failed-calls, the stream leaves the capture there, and the work
# after it runs and verifies.
# (captured without the mock driver first in the library path)
LD_LIBRARY_PATH=${LD_LIBRARY_PATH#"$GPUMIX_BUILD/tests/mock"} "$GPUMIX" -q \
	capture -o "$tmp/inv" -- "$GPUMIX_BUILD/tests/recon-emitter" \
	graph-invalid >/dev/null 2>&1
"$GPUMIX" -q reconstruct --allow-failed-calls -o "$tmp/r-inv" "$tmp/inv" \
	2>"$tmp/rec"; rc=$?
check_eq "invalidated capture: reconstruct exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed "s/^/#   /" "$tmp/rec"
check_match "... its capture still ends" 'cuStreamEndCapture \*/ GM_CAPTURE_END\(' \
	"$(cat "$tmp/r-inv/replay.c" 2>/dev/null)"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-inv" "$tmp/r-inv" 2>&1); rc=$?
check_eq "... the work after it runs and verifies" ok \
	"$(field "$tmp/run-inv/manifest" status)"

out=$("$GPUMIX" replay --variant nss --min-replays 2 -o "$tmp/run-nss" "$tmp/g" 2>&1); rc=$?
check_eq "nss refuses graphs" 1 "$rc"
check_match "with the reason" "CUDA graphs are not replayed by the nss scheduler" \
	"$(field "$tmp/run-nss/manifest" failure)"

done_testing
