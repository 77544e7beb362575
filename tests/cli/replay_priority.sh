#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The priority variant on the CPU (mock driver): the cuda variant whose
# streams get CUDA stream priorities, the workload's first program (or
# the one --high-priority names) at the device's greatest, the others at
# the least. The streams' priorities are read from the runtime's debug
# lines (what it passed to cuStreamCreateWithPriority); results verify.
. "$(dirname "$0")/../lib.sh"
GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
. "$GPUMIX_TOP/tests/replay_check.sh"

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
prios() { # prios OUTPUT PROGRAM: the priorities its streams were made with
	grep -o "created stream: program=$2, stream-id=[0-9]*, priority=-\?[0-9]*" <<<"$1" |
		sed 's/.*priority=//' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

out=$(GPUMIX_DEBUG=1 "$GPUMIX" replay --variant priority --min-replays 2 \
	-o "$tmp/run" "$tmp/wl" 2>&1); rc=$?
check_eq "priority: exit 0 (results verified)" 0 "$rc"
check_run "$tmp/run" 2 2
check_eq "the first program at the greatest priority" -5 "$(prios "$out" scale-a)"
check_eq "the other at the least" 0 "$(prios "$out" scale-b)"
check_eq "the manifest names it" scale-a "$(field "$tmp/run/manifest" priority.program)"
check_eq "and the device's range" "0..-5" "$(field "$tmp/run/manifest" priority.range)"

out=$(GPUMIX_DEBUG=1 "$GPUMIX" replay --variant priority --high-priority scale-b \
	--min-replays 2 -o "$tmp/run-b" "$tmp/wl" 2>&1); rc=$?
check_eq "--high-priority scale-b: exit 0" 0 "$rc"
check_eq "scale-b at the greatest priority" -5 "$(prios "$out" scale-b)"
check_eq "scale-a at the least" 0 "$(prios "$out" scale-a)"

out=$("$GPUMIX" replay --variant priority --high-priority nosuch --min-replays 2 \
	-o "$tmp/run-x" "$tmp/wl" 2>&1); rc=$?
check_eq "a program the workload lacks: exit 0" 0 "$rc"
check_match "with a warning naming who gets the priority instead" \
	"workload 'scale-a\+scale-b' has no program 'nosuch' \(--high-priority\): its first, 'scale-a', gets the highest priority" "$out"
out=$("$GPUMIX" replay --variant cuda --high-priority scale-a -o "$tmp/r" "$tmp/wl" 2>&1); rc=$?
check_eq "--high-priority with another variant: usage error" 2 "$rc"
check_match "naming the variant that takes it" \
	"--high-priority does not apply to variant 'cuda' \(it applies to: priority\)" "$out"
done_testing
