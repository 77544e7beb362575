#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The runtime checks every operand of every operation before it replays
# anything (replay/prog.c, from the operation table GM_OPS of
# gpumix_replay.h): a program whose table names a stream, launch, event,
# allocation, blob or host-arena range it does not have is refused with
# the operand named, and nothing runs.
. "$(dirname "$0")/../lib.sh"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset MOCK_CUDA_LATENCY_US MOCK_CUDA_ORDER MOCK_CUDA_SEED
scratch_dir >/dev/null
good=$_scratch/race

"$GPUMIX_BUILD/tests/gen-workload" race -o "$good" \
	--fatbin "$GPUMIX_TOP/tests/data/codegen/dummy.fatbin" 2>/dev/null
check_eq "gen-workload race" 0 "$?"
"$GPUMIX" replay --min-replays 2 -o "$_scratch/run-good" "$good" >/dev/null 2>&1
check_eq "the program as generated replays" 0 "$?"

# Each case: its name, the message, and the sed edit of the generated
# table that breaks every row of one kind.
N='\([0-9]*\)'
while IFS='|' read -r what msg edit; do
	dir=$_scratch/$what
	cp -rl "$good" "$dir" && rm -f "$dir/replay" "$dir/replay.c"
	sed -e "$edit" "$good/replay.c" > "$dir/replay.c"
	check_fails "$what: the edit changes the table" \
		cmp -s "$good/replay.c" "$dir/replay.c"
	msgs=$("$GPUMIX" replay --min-replays 2 -o "$_scratch/run-$what" \
		"$dir" 2>&1)
	check_eq "$what: refused (exit 1)" 1 "$?"
	check_match "$what: says '$msg'" "$msg" "$msgs"
done <<CASES
stream|stream 999 out of range|s/GM_LAUNCH($N, $N,/GM_LAUNCH(\1, 999,/
launch|launch 999 out of range|s/GM_LAUNCH($N, $N, $N)/GM_LAUNCH(\1, \2, 999)/
event|event 999 out of range|s/GM_EVENT_SYNC($N, $N)/GM_EVENT_SYNC(\1, 999)/
alloc|allocation 999 out of range|s/GM_FREE($N, $N)/GM_FREE(\1, 999)/
blob|blob 999 out of range|s/GM_H2D($N, $N, \([A-Z_0-9]*\), \(GM_[AG]($N)\), 0, $N,/GM_H2D(\1, \2, \3, \4, 0, 999,/
host|host arena offset out of range|s/GM_D2H(\([^)]*)\), $N, \([A-Z_0-9]*\), $N, $N)/GM_D2H(\1, \2, \3, 99999999999, 1)/
huge|allocates 18446744073709551615 bytes, more than any device memory|s/GM_ALLOC($N, $N, $N,/GM_ALLOC(\1, \2, 18446744073709551615ULL,/
CASES
done_testing
