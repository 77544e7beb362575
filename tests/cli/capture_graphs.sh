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
#     it fails, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, as on CUDA).
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
check_match "the free is replayed where the program made it, inside the capture" \
	'GM_CAPTURE_BEGIN\([0-9]+, 1\),
.*GM_LAUNCH\([0-9]+, 1, [0-9]+\),
.*cuMemFree_v2 \*/ GM_FREE\(' "$(cat "$tmp/w.cuda/replay.c")"

"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "beside another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_eq "beside another program: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

done_testing
