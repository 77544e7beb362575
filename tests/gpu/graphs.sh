#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: CUDA graphs (tests/gpu/progs/graphs.cu, doc/graphs.md): a stream
# capture launched five times and an explicit graph of every node kind,
# changed, updated and cloned. The capture records every call (nothing
# unsupported) and hashes each graph launch's copies at the
# synchronization after it; the replay rebuilds the graphs and verifies
# every result alone (single) and beside a suite program (cuda pair with
# mm), and launches each graph as one cuGraphLaunch per captured launch.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch graphs
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs
LAUNCHES=9	# 5 of the captured graph, 4 of the explicit one and its clone

out=$("$GPUMIX" capture -o "$tmp/graphs" -- "$T/graphs" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS graphs" "$out"
info=$("$GPUMIX" trace info "$tmp/graphs" 2>&1)
check_eq "no unsupported call" 0 "$(field "$tmp/graphs/manifest" loss.unsupported_calls)"
[ "$(field "$tmp/graphs/manifest" loss.unsupported_calls)" = 0 ] ||
	sed -n '/^unsupported calls:/,/^runtime calls:/p' <<<"$info" | sed 's/^/#   /'
check_eq "nine cuGraphLaunch calls recorded" $LAUNCHES \
	"$(sed -n 's/^  cuGraphLaunch  *//p' <<<"$info")"

replay_ok() { # replay_ok NAME VARIANT BUNDLE...
	local name=$1 v=$2 n; shift 2
	reconstruct_replay "$name" "$v" 2 "$@"
	check_match "$name $v: every result verifiable" \
		"program 'graphs': .* 0 results not verifiable, 0 unsupported calls" "$recon_out"
	n=$(awk -F'\t' '$1 == "graphs"' "$tmp/run-$name.$v/replays.tsv" | wc -l)
	check_eq "$name $v: one graph launch per captured launch ($n replays)" \
		$((LAUNCHES * n)) \
		"$(awk -F'\t' '$1 == "API" && $2 == "graphs" && $8 ~ /^cuGraphLaunch/' \
			"$tmp/run-$name.$v/activity.tsv" | wc -l)"
	# (the replay builds explicit kernel nodes by capturing a launch: an
	# API record without a kernel; every kernel that ran is a graph's;
	# CUPTI may write a launch's kernels before its API record: two passes)
	check_eq "$name $v: every kernel of the program ran in a graph launch" 0 \
		"$(awk -F'\t' 'NR == FNR { if ($1 == "API" && $2 == "graphs" && $8 ~ /^cuGraphLaunch/) g[$3] = 1; next }
			$1 == "KERNEL" && $2 == "graphs" && !($3 in g) { n++ }
			END { print n + 0 }' "$tmp/run-$name.$v/activity.tsv" "$tmp/run-$name.$v/activity.tsv")"
}
replay_ok graphs single "$tmp/graphs"
if suite_bundle mm; then
	replay_ok graphs+mm cuda "$tmp/graphs" "$SUITE_CACHE/mm"
fi

done_testing
