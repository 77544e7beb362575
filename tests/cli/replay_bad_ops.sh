#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The runtime checks every operand of every operation before it replays
# anything (replay/prog.c, from the operation table GM_OPS of
# gpumix_replay.h): a program whose table names a stream, launch, event,
# allocation, blob or host-arena range it does not have is refused with
# the operand named, and nothing runs.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset MOCK_CUDA_LATENCY_US MOCK_CUDA_ORDER MOCK_CUDA_SEED
scratch_dir >/dev/null
tmp=$_scratch

"$GEN" race --fatbin "$FATBIN" -o "$tmp/race" 2>/dev/null
check_eq "gen-workload race" 0 "$?"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-good" "$tmp/race" 2>&1)
check_eq "the program as generated replays" 0 "$?"

# bad NAME SED_EXPR MESSAGE: the rows the edit changes make the
# replay fail before it starts, saying MESSAGE.
bad() {
	local name=$1 expr=$2 msg=$3 d=$tmp/bad-$1 out rc
	cp -rl "$tmp/race" "$d"
	rm -f "$d/replay" "$d/replay.c"
	sed -e "$expr" "$tmp/race/replay.c" > "$d/replay.c"
	if cmp -s "$tmp/race/replay.c" "$d/replay.c"; then
		not_ok "$name: the edit changed nothing"
		return
	fi
	out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-$name" "$d" 2>&1)
	rc=$?
	check_eq "$name: the replay fails" 1 "$rc"
	check_match "$name: $msg" "$msg" \
		"$out $(cat "$tmp/run-$name/manifest" 2>/dev/null)"
}
bad stream 's/GM_LAUNCH(\([0-9]*\), [0-9]*,/GM_LAUNCH(\1, 999,/' \
	"stream 999 out of range"
bad launch 's/GM_LAUNCH(\([0-9]*\), \([0-9]*\), [0-9]*)/GM_LAUNCH(\1, \2, 999)/' \
	"launch 999 out of range"
bad event 's/GM_EVENT_SYNC(\([0-9]*\), [0-9]*)/GM_EVENT_SYNC(\1, 999)/' \
	"event 999 out of range"
bad alloc 's/GM_FREE(\([0-9]*\), [0-9]*)/GM_FREE(\1, 999)/' \
	"allocation 999 out of range"
bad blob 's/GM_H2D(\([0-9]*\), \([0-9]*\), \([A-Z_0-9]*\), \(GM_[AG]([0-9]*)\), 0, [0-9]*,/GM_H2D(\1, \2, \3, \4, 0, 999,/' \
	"blob 999 out of range"
bad host 's/GM_D2H(\([^)]*)\), \([0-9]*\), \([A-Z_0-9]*\), [0-9]*, [0-9]*)/GM_D2H(\1, \2, \3, 99999999999, 1)/' \
	"host arena offset out of range"
done_testing
