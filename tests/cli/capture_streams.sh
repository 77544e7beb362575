#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Asynchronous device-to-host copies into page-locked memory on several
# streams with events and a reused buffer (simpleStreams, asyncAPI),
# capture to replay on a CPU: streams-emitter (tests/tools/
# streams_emitter.c) runs on the mock CUDA driver under `gpumix capture`,
# through the real CUPTI subscriber. Each round's copies land in the same
# page-locked buffer before any synchronization, so the program sees the
# last round's only: the earlier ones are no results (d2h_hash flagged
# OVERWRITTEN, doc/bundle-format.md), as is a pending copy that a
# synchronous copy overwrites. The rest verify in the replay on the mock,
# alone and beside another program; with every copy hashed at the
# synchronization instead (the rule before), replay 0 fails.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=$tmp/streams

out=$("$GPUMIX" -q capture -o "$B" -- "$GPUMIX_BUILD/tests/streams-emitter" 2>&1); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "the program's own checks passed on the mock" "streams-emitter: ok" "$out"

info=$("$GPUMIX" trace info "$B" 2>&1)
# 3 rounds of 4 copies: the first 8 overwritten, the last 4 results; the
# asyncAPI copy back; the copy the synchronous one overwrites, and that
# one; the pipeline's 3 rounds, each seen by its host function
check_match "trace info: 9 results, 9 copies overwritten before a synchronization" \
	"^  d2h_result_hashes=9
  d2h_overwritten=9$" "$info"
check_eq "each pipeline round is hashed when its host function starts, before the next round" 3 \
	"$("$GPUMIX" trace dump --events "$B" | awk '/ exit cuLaunchHostFunc/ { h = 1 } h && / d2h_hash .* result=/ { n++ } END { print n + 0 }')"
dump=$("$GPUMIX" trace dump --events "$B" 2>&1)
check_eq "each overwritten copy is a d2h_hash without a hash" 9 \
	"$(grep ' d2h_hash .* OVERWRITTEN$' <<<"$dump" | grep -vc 'result=')"
check_eq "the last round's four copies are hashed after the event synchronization" 4 \
	"$(grep -A12 'exit cuEventSynchronize' <<<"$dump" | grep -c ' d2h_hash .* result=')"

"$GPUMIX" -q capture -o "$B.2" -- "$GPUMIX_BUILD/tests/streams-emitter" >/dev/null 2>&1
out=$("$GPUMIX" trace diff "$B" "$B.2"); rc=$?
check_eq "two captures: the same results (trace diff exits 0)" 0 "$rc"
check_match "... the overwritten copies are not among them" "^A: .*, 9 results$" "$out"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	check_match "$v: every result has its hash" \
		"^program 'streams': .* 0 results not verifiable" "$rec"
	check_match "$v: the overwritten copies are said to be no results" \
		"^note: program 'streams': 9 device-to-host copies were overwritten by a later copy before the program synchronized with them: no result to verify$" "$rec"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok "$(field "$tmp/run.$v/manifest" status)"
done
check_eq "nine copies checked in the replay program, the nine others not" "9 9" \
	"$(grep -c 'GM_D2H([0-9]*, [0-9]*, [^,]*, GM_A([0-9]*), [0-9]*, [0-9]' "$tmp/w.cuda/replay.c") $(grep -c 'GM_D2H(.*, GM_NONE, ' "$tmp/w.cuda/replay.c")"

"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "beside another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_eq "beside another program: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

done_testing
