#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: zero-copy (mapped pinned) and managed memory (tests/gpu/progs/
# zerocopy_managed.cu, runtime API: cudaHostAlloc(Mapped) +
# cudaHostGetDevicePointer, a cudaMallocHost buffer used at its host
# address, cudaMallocManaged with cudaMemAdvise and cudaMemPrefetchAsync,
# the host writing inputs and reading results between launches,
# cudaStreamAttachMemAsync of the managed memory to its stream). The
# capture records a snapshot where the host changed what a kernel reads
# and a result at each synchronization; the replay, alone (single) and in
# a cuda pair with a suite program (mm), allocates the same kinds of
# memory, writes the captured content before the launches and verifies
# every result the program read back.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch hostmem_replay
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

native=$("$T/zerocopy_managed")
check_match "zerocopy_managed: PASS natively" "^PASS zerocopy_managed [0-9]+$" "$native"
out=$("$GPUMIX" capture -o "$tmp/zc" -- "$T/zerocopy_managed" 2>"$tmp/zc.err"); rc=$?
check_eq "zerocopy_managed: capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/zc.err"
check_eq "zerocopy_managed: same result under capture" "$native" "$out"
check_eq "zerocopy_managed: no warning" "" "$(grep -v '^gpumix: captured' "$tmp/zc.err")"

dump=$("$GPUMIX" trace dump --events "$tmp/zc" 2>&1)
# Snapshots: mapped in+out (round 0), in (rounds 1, 2; not 3: unchanged),
# the cudaMallocHost buffer, managed memory before each of its two loops.
check_eq "7 snapshots, where the host changed the content" 7 \
	"$(printf '%s\n' "$dump" | grep -c ' hostmem .* role=1 ')"
# Results: in and out after each of 4 rounds, the cudaMallocHost buffer,
# managed memory after each loop.
check_eq "11 results, one per synchronization and allocation" 11 \
	"$(printf '%s\n' "$dump" | grep -c ' hostmem .* role=2 ')"
check_match "managed memory, its stream attachment, prefetch and advice recorded" \
	"cuMemAllocManaged.*cuStreamAttachMemAsync.*cuMemAdvise_v2.*cuMemPrefetchAsync_v2" \
	"$(printf '%s\n' "$dump" | grep -o 'enter cu\(MemAllocManaged\|StreamAttachMemAsync[a-z_]*\|MemAdvise_v2\|MemPrefetchAsync_v2[a-z_]*\)' | tr '\n' ' ')"

replay_ok() { # replay_ok NAME VARIANT BUNDLE...
	local name=$1 v=$2; shift 2
	reconstruct_replay "$name" "$v" 3 "$@"
	check_match "$name $v: regions, host writes and reads" \
		"program 'zc': 4 mapped or managed allocations .* 7 host writes replayed .* 11 host reads verified" "$recon_out"
}
replay_ok zc single "$tmp/zc"
if suite_bundle mm; then
	replay_ok zc+mm cuda "$tmp/zc" "$SUITE_CACHE/mm"
fi

done_testing
