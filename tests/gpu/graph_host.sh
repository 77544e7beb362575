#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: CUDA graphs with host nodes (tests/gpu/progs/graph_host.cu, the
# simpleCudaGraphs and jacobiCudaGraphs patterns, doc/graphs.md): a
# reduction graph by hand and by stream capture (with a free during the
# capture), each with a host node that checks the copied result and
# resets it to 0, launched repeatedly before one synchronization; a
# kernel node whose arguments change before each launch. The capture
# hashes each launch's result when its host node starts (before the
# program's function resets it) and loses nothing; the replay verifies
# every result alone (single) and in a cuda pair with a suite program
# (mm), one cuGraphLaunch per captured launch.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch graph_host
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs
LAUNCHES=15	# 3 + 3 (clone) by hand, 3 captured, 6 Jacobi

out=$("$GPUMIX" capture -o "$tmp/graph_host" -- "$T/graph_host" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS graph_host" "$out"
info=$("$GPUMIX" trace info "$tmp/graph_host" 2>&1)
check_match "no losses" "^losses: 0$" "$info"
check_eq "$LAUNCHES cuGraphLaunch calls recorded" $LAUNCHES \
	"$(sed -n 's/^  cuGraphLaunch  *//p' <<<"$info")"
check_eq "each launch's result hashed as its host node started (9)" 9 \
	"$("$GPUMIX" trace dump --events "$tmp/graph_host" | grep -c ' d2h_hash .* AT-HOST-NODE$')"

replay_ok() { # replay_ok NAME VARIANT BUNDLE...
	local name=$1 v=$2 n; shift 2
	reconstruct_replay "$name" "$v" 2 "$@"
	check_match "$name $v: every result verifiable" \
		"program 'graph_host': .* 0 results not verifiable, 0 unsupported calls" "$recon_out"
	n=$(awk -F'\t' '$1 == "graph_host"' "$tmp/run-$name.$v/replays.tsv" | wc -l)
	check_eq "$name $v: one graph launch per captured launch ($n replays)" \
		$((LAUNCHES * n)) \
		"$(awk -F'\t' '$1 == "API" && $2 == "graph_host" && $8 ~ /^cuGraphLaunch/' \
			"$tmp/run-$name.$v/activity.tsv" | wc -l)"
}
replay_ok graph_host single "$tmp/graph_host"
if suite_bundle mm; then
	replay_ok graph_host+mm cuda "$tmp/graph_host" "$SUITE_CACHE/mm"
fi

done_testing
