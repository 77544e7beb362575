#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: host functions and stream-ordered memory pools (tests/gpu/progs/
# hostfunc_pools.cu: a pool with a release threshold, allocations from it
# and from the default pool in a loop, cudaLaunchHostFunc and
# cudaStreamAddCallback between kernels and copies, cudaFreeAsync). The
# capture leaves the program's own host functions running (it PASSes),
# times each of them, and hashes each round's result when the host
# function that takes it out of the reused staging buffer starts (so the
# replay verifies all 8); reconstruct puts them in their stream position
# with those durations and the pool allocations as relocated
# allocations; the replay verifies every result alone (single, with the
# default empty host functions and with --host-callbacks timed) and in a
# cuda pair with a suite program (mm).
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch hostfunc_pools
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

out=$("$GPUMIX" capture -o "$tmp/hf" -- "$T/hostfunc_pools" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "PASS under capture (the program's host functions ran, in order)" \
	"^PASS hostfunc_pools" "$out"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_eq "no warning" "" "$(grep -v '^gpumix: captured' "$tmp/cap.err")"
check_eq "each round's result hashed before the next copy reused the buffer (8 distinct)" 8 \
	"$("$GPUMIX" trace dump --events "$tmp/hf" | grep ' d2h_hash ' | grep -o 'result=[0-9a-f]*' | sort -u | wc -l)"
check_eq "every host function was timed (8 + 4 host_func events)" 12 \
	"$("$GPUMIX" trace dump --events "$tmp/hf" | grep -c ' host_func cu\(LaunchHostFunc\|StreamAddCallback\)')"

out=$("$GPUMIX" reconstruct --variant single -o "$tmp/r-hf" "$tmp/hf" 2>&1); rc=$?
check_eq "reconstruct exits 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_eq "12 host functions in the replay program" 12 \
	"$(grep -c 'GM_HOST_FUNC(' "$tmp/r-hf/replay.c")"
check_eq "... the 8 that check a round's 4 MiB with their time (over 100 us)" 8 \
	"$(grep -c 'GM_HOST_FUNC([0-9]*, [0-9]*, [1-9][0-9]\{5,\})' "$tmp/r-hf/replay.c")"
check_eq "... none without a time" "" "$(grep 'never ran during the capture' <<<"$out")"
check_eq "16 stream-ordered allocations (8 from the pool)" 16 \
	"$(grep -c 'cuMemAlloc\(FromPool\)\?Async\(_ptsz\)\? \*/ GM_ALLOC' "$tmp/r-hf/replay.c")"
check_match "pool settings reported as not applied" \
	"cuMemPoolSetAttribute \([0-9]+ calls?\): memory pool settings are not applied" "$out"

for hc in empty timed; do
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 60 --host-callbacks $hc \
		-o "$tmp/run-single.$hc" "$tmp/r-hf" 2>&1); rc=$?
	check_eq "single $hc: replay exits 0" 0 "$rc"
	check_eq "single $hc: status ok (every result verified)" ok \
		"$(field "$tmp/run-single.$hc/manifest" status)"
	[ "$rc" = 0 ] || echo "#   failure: $(field "$tmp/run-single.$hc/manifest" failure)"
done
if suite_bundle mm; then
	"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/r-pair" "$tmp/hf" \
		"$SUITE_CACHE/mm" >/dev/null 2>&1
	check_eq "hostfunc_pools+mm cuda: reconstruct exits 0" 0 "$?"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 60 --host-callbacks timed \
		-o "$tmp/run-pair" "$tmp/r-pair" 2>&1); rc=$?
	check_eq "hostfunc_pools+mm cuda: replay exits 0" 0 "$rc"
	check_eq "hostfunc_pools+mm cuda: status ok (every result verified)" ok \
		"$(field "$tmp/run-pair/manifest" status)"
	[ "$rc" = 0 ] || echo "#   failure: $(field "$tmp/run-pair/manifest" failure)"
	check_run "$tmp/run-pair" 2 3
fi
done_testing
