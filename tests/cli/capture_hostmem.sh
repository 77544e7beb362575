#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Mapped page-locked (zero-copy) and managed memory, capture to replay on
# a CPU: hostmem-emitter runs a zero-copy and managed-memory program on the
# mock CUDA driver (whose kernels read and write that memory on the host)
# under `gpumix capture`, through the real CUPTI subscriber. The bundle
# must hold a snapshot before each launch whose input the host changed
# (and none when it did not), a result at each synchronization; the
# replay, in `single`, `cuda`, `nss` and paired with another program, must
# allocate the same kinds of memory, write the captured content before the
# launches and verify what the program read back. A wrong expected result
# or a missing host write must fail the run.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=$tmp/hostmem

out=$("$GPUMIX" -q capture -o "$B" -- "$GPUMIX_BUILD/tests/hostmem-emitter" 2>&1); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "the program's own checks passed on the mock" "hostmem-emitter: ok" "$out"

dump=$("$GPUMIX" trace dump --events "$B" 2>&1)
snaps=$(printf '%s\n' "$dump" | grep -c ' hostmem .* role=1 ')
results=$(printf '%s\n' "$dump" | grep -c ' hostmem .* role=2 ')
# Snapshots: mapped in+out (round 1), in (round 2), none in round 3 (the
# host left the input as it was), the cudaMallocHost buffer, the managed
# buffer before its first launch (not before the next three: unsynced).
check_eq "a snapshot only when the content changed (5)" 5 "$snaps"
# Results: in and out after each of the 3 rounds, the cudaMallocHost
# buffer, the managed buffer after its stream's synchronization.
check_eq "a result at each synchronization that completes a launch (8)" 8 "$results"
check_match "snapshots are stored in the blob store" \
	"hostmem .* kind=2 role=1 .* data=blob:[0-9a-f]{32}:4096" "$dump"
check_match "results are hashes" \
	"hostmem .* kind=2 role=2 .* result=[0-9a-f]{32}:4096" "$dump"
first=$(printf '%s\n' "$dump" | grep -m1 ' hostmem ' | sed 's/^#\([0-9]*\).*/\1/')
launch=$(printf '%s\n' "$dump" | grep -m1 'enter cuLaunchKernel' | sed 's/^#\([0-9]*\).*/\1/')
check "the first snapshot precedes the first launch's entry" test "$first" -lt "$launch"
msnap=$(printf '%s\n' "$dump" | grep -m1 ' hostmem .* kind=2 role=1 ' | sed 's/^#\([0-9]*\).*/\1/')
pre=$(printf '%s\n' "$dump" | grep -m1 'enter cuMemPrefetchAsync_v2' | sed 's/^#\([0-9]*\).*/\1/')
check_eq "managed memory: its snapshot comes right before the prefetch to the device" \
	"$((pre - 1))" "$msnap"
check_match "prefetch and advice are recorded with their location" \
	"enter cuMemPrefetchAsync_v2\(.*locType=1, locId=0\)" "$dump"

check_match "trace info counts snapshots, their bytes and results" \
	"^  hostmem_snapshots=5 hostmem_snapshot_bytes=20480 hostmem_results=8$" \
	"$("$GPUMIX" trace info "$B" 2>&1)"

"$GPUMIX" -q capture -o "$B.2" -- "$GPUMIX_BUILD/tests/hostmem-emitter" >/dev/null 2>&1
out=$("$GPUMIX" trace diff "$B" "$B.2"); rc=$?
check_eq "two captures: trace diff finds the same results" 0 "$rc"
check_match "... the host reads of mapped and managed memory among them" \
	"^A: .*, 8 results$" "$out"
"$GPUMIX" -q capture -o "$B.3" -- "$GPUMIX_BUILD/tests/hostmem-emitter" --seed 1 >/dev/null 2>&1
out=$("$GPUMIX" trace diff "$B" "$B.3"); rc=$?
check_eq "another input: trace diff exits 1" 1 "$rc"
check_match "... naming the host reads that differ" \
	"^result 0: differs: event [0-9]+ in A, [0-9]+ in B, host read of mapped or managed memory of 4096 bytes" "$out"
check_match "... the mapped ones only (6 of 8)" "^6 of 8 paired results differ$" "$out"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda nss; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	check_match "$v: 4 regions, 5 host writes, 8 host reads" \
		"4 mapped or managed allocations \(16384 bytes\) used by kernels, 5 host writes replayed \(20480 bytes\), 8 host reads verified" "$rec"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	check_eq "$v: status ok (results verified)" ok "$(field "$tmp/run.$v/manifest" status)"
done
check_match "kernel arguments point into the replay's own regions" \
	"\{ 0, GM_H\([0-9]+\), 0 \}" "$(cat "$tmp/w.cuda/replay.c")"
check_match "managed memory is replayed as managed memory" \
	"\{ GM_HOSTMEM_MANAGED, 4096 \}" "$(cat "$tmp/w.cuda/replay.c")"
check_match "... and the prefetch with it" "GM_PREFETCH\(" "$(cat "$tmp/w.cuda/replay.c")"
check_match "... attached to its stream (cuStreamAttachMemAsync, CU_MEM_ATTACH_SINGLE)" \
	"cuStreamAttachMemAsync \*/ GM_ATTACH\([0-9]+, 1, GM_H\(3\), 0, 0, 4\)" "$(cat "$tmp/w.cuda/replay.c")"

# An attach to another address than the allocation's start fails (as on
# CUDA: the mock checks it).
cp -r "$tmp/w.cuda" "$tmp/badattach"
sed -i 's|GM_ATTACH(\([0-9]*\), 1, GM_H(3), 0, 0, 4)|GM_ATTACH(\1, 1, GM_H(3), 64, 0, 4)|' "$tmp/badattach/replay.c"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run.badattach" "$tmp/badattach" 2>&1); rc=$?
check_eq "an attach inside the allocation fails the run" 1 "$rc"
check_match "... naming the call" "cuStreamAttachMemAsync.*failed" \
	"$(field "$tmp/run.badattach/manifest" failure)"

# Beside another program, in the cuda variant.
"$GPUMIX" reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic >/dev/null 2>&1
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "paired with another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_eq "paired: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

# A wrong expected result of a host read fails the run, naming it.
cp -r "$tmp/w.cuda" "$tmp/bad"
ev=$(sed -n 's|^	/\* \([0-9]*\) hostmem \*/ GM_HOST_CHECK(.*, 0, 4096),$|\1|p' "$tmp/bad/replay.c" | head -1)
h=$(grep -m1 -o '^	"[0-9a-f]\{32\}",	/\* 0 \*/' "$tmp/bad/replay.c" | cut -d'"' -f2)
# (Only the check's line: a blob may have the same content.)
zero_check() { sed -i "s|^	\"$h\",	/\* 0 \*/|	\"00000000000000000000000000000000\",	/* 0 */|" "$1"; }
zero_check "$tmp/bad/replay.c"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run.bad" "$tmp/bad" 2>&1); rc=$?
check_eq "a changed expected result fails the run" 1 "$rc"
check_match "naming the host read and its trace event ($ev)" \
	"operation [0-9]+ \(host read of mapped or managed memory, trace event $ev\) failed: result differs from the captured run: the 4096 bytes of mapped page-locked memory the program reads back hash to [0-9a-f]{32}, expected 0{32}" \
	"$(field "$tmp/run.bad/manifest" failure)"

# Without the host writes the kernels read what the replay left there.
cp -r "$tmp/w.cuda" "$tmp/nofill"
sed -i 's|GM_HOST_FILL(\([0-9]*\), .*),$|{ GM_OP_NOP, 0, 0, 0, 0, 0, 0, 0, 0, \1 },|' "$tmp/nofill/replay.c"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run.nofill" "$tmp/nofill" 2>&1); rc=$?
check_eq "without the captured host writes the results differ" 1 "$rc"
check_match "... at the first host read" "host read of mapped or managed memory.*result differs" \
	"$(field "$tmp/run.nofill/manifest" failure)"

# A nondeterministic program is not verified.
"$GPUMIX" reconstruct --nondeterministic hostmem -o "$tmp/nd" "$B" >/dev/null 2>&1
zero_check "$tmp/nd/replay.c"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run.nd" "$tmp/nd" 2>&1); rc=$?
check_eq "a nondeterministic program's host reads are not verified" 0 "$rc"

done_testing
