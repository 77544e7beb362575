#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: what a capture says about a program's results (tests/gpu/progs):
# - event_reuse: async results synchronized through events (event sync,
#   polled query, a stream that waited for the event, an event on the
#   legacy stream), the pinned buffer reused right after: captured, then
#   replayed with every result verified alone (single) and in a cuda pair
#   with a suite program (mm);
# - fault: a kernel with an illegal address, later calls returning 700:
#   the capture warns with the first failing call, the manifest counts it,
#   gpumix reconstruct refuses it unless --allow-failed-calls;
# - clock_result: a result holding GPU time: two captures differ in that
#   copy only (gpumix trace diff), the replay fails naming the copy and
#   suggesting --nondeterministic, and passes with it.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch capture_results
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

# event_reuse
out=$("$GPUMIX" capture -o "$tmp/event_reuse" -- "$T/event_reuse" 2>"$tmp/er.err"); rc=$?
check_eq "event_reuse: capture exits 0" 0 "$rc"
check_match "event_reuse: PASS under capture" "^PASS event_reuse" "$out"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/er.err"
check_eq "event_reuse: no warning" "" "$(grep -v '^gpumix: captured' "$tmp/er.err")"
reconstruct_replay event_reuse single 2 "$tmp/event_reuse"
if suite_bundle mm; then
	reconstruct_replay event_reuse+mm cuda 2 "$tmp/event_reuse" "$SUITE_CACHE/mm"
fi

# fault
out=$("$GPUMIX" capture -o "$tmp/fault" -- "$T/fault" 2>&1 >/dev/null); rc=$?
check_eq "fault: capture exits 0 (the program's status)" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
check_match "fault: the capture warns with the first error" \
	"warning: [0-9]+ CUDA calls? of the program failed; the first error: event [0-9]+ \([a-zA-Z0-9_]+\) returned (700 CUDA_ERROR_ILLEGAL_ADDRESS|719 CUDA_ERROR_LAUNCH_FAILED)" "$out"
check_match "fault: the manifest counts them" "^failed_calls.errors = [1-9]" \
	"$(cat "$tmp/fault/manifest")"
out=$("$GPUMIX" reconstruct -o "$tmp/r-fault" "$tmp/fault" 2>&1); rc=$?
check_eq "fault: reconstruct refuses it" 1 "$rc"
check_match "fault: ... naming the failed call" "program 'fault' failed: .* returned 7[01][0-9] CUDA_ERROR_" "$out"
out=$("$GPUMIX" -q reconstruct --allow-failed-calls -o "$tmp/r-fault" "$tmp/fault" 2>&1)
check_eq "fault: --allow-failed-calls reconstructs it" 0 "$?"

# clock_result
for i in 1 2; do
	out=$("$GPUMIX" -q capture -o "$tmp/clock_result.$i" -- "$T/clock_result" 2>&1)
	check_match "clock_result $i: PASS under capture" "^PASS clock_result" "$out"
done
out=$("$GPUMIX" trace diff "$tmp/clock_result.1" "$tmp/clock_result.2"); rc=$?
check_eq "clock_result: trace diff exits 1" 1 "$rc"
check_match "clock_result: the timer's copy differs" \
	"^result 0: differs: event [0-9]+ in A, [0-9]+ in B, cuMemcpyDtoH_v2 of 16 bytes" "$out"
check_match "clock_result: the other does not" "^1 of 2 paired results differ$" "$out"
"$GPUMIX" -q reconstruct --variant single -o "$tmp/r-clock" "$tmp/clock_result.1" >/dev/null 2>&1
out=$("$GPUMIX" replay --min-replays 2 --watchdog 60 -o "$tmp/run-clock" "$tmp/r-clock" 2>&1); rc=$?
check_eq "clock_result: replay fails" 1 "$rc"
check_match "clock_result: naming the copy, suggesting --nondeterministic" \
	"trace event [0-9]+.*the 16-byte device-to-host result .*--nondeterministic clock_result" \
	"$(field "$tmp/run-clock/manifest" failure)"
reconstruct_replay clock_result single 2 --nondeterministic clock_result.1 "$tmp/clock_result.1"

done_testing
