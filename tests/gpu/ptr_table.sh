#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: device pointers stored in device memory (tests/gpu/progs/
# ptr_table.cu: arrays of matrix pointers copied to the device for a
# batched multiply, as for cublasSgemmBatched, and a linked list across
# four allocations; doc/gpumix-replay.md, "Addresses"). Captured with
# nothing unsupported, every pointer of its copies gets a PTR_STORE; the
# replay verifies every result alone at its captured addresses (single:
# the manifest must say captured), alone relocated (--addresses
# relocated: the PTR_STOREs patch the tables), and in a cuda pair with a
# suite program (mm), where the program is placed first (it has pointers
# to patch) and mm, captured at the same addresses, is relocated.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch ptr_table
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

out=$("$GPUMIX" capture -o "$tmp/ptr_table" -- "$T/ptr_table" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS ptr_table" "$out"
check_eq "no unsupported call" 0 "$(field "$tmp/ptr_table/manifest" loss.unsupported_calls)"

# where NAME.VARIANT I: what program I's allocations got, as a comment
where() {
	local m=$tmp/run-$1/manifest
	echo "# $1: program $2 $(field "$m" "program.$2.name"): $(field "$m" "program.$2.addresses")" \
		"$(field "$m" "program.$2.address_ranges") ranges, $(field "$m" "program.$2.address_bytes") bytes" \
		"$(field "$m" "program.$2.addresses_why")"
}

# placed RUN I WHAT: program I of RUN at its captured addresses; a visible
# skip where the driver put the reservation elsewhere with nothing mapped
# at the captured range in the process (the address is a hint to it, and
# the H200s of 2026-11-28 never took it: doc/gpumix-replay.md, "Addresses")
placed() {
	local m=$tmp/run-$1/manifest
	if [ "$(field "$m" "program.$2.addresses")" != captured ] &&
		field "$m" "program.$2.addresses_why" |
		grep -q 'the range is in use in this process: nothing (per /proc/self/maps)'; then
		skip "$3: the driver did not take the captured address as its hint, with nothing mapped there"
		return
	fi
	check_eq "$3" captured "$(field "$m" "program.$2.addresses")"
}

reconstruct_replay ptr_table single 2 "$tmp/ptr_table"
check_match "every pointer copied into device memory has its PTR_STORE (32 x 3 + 1023)" \
	"note: program 'ptr_table': 1119 device pointers copied into device memory are relocated" \
	"$recon_out"
where ptr_table.single 0
placed ptr_table.single 0 "single: at its captured addresses"
REPLAY_OPTS="--addresses relocated" reconstruct_replay ptr_table-relocated single 2 "$tmp/ptr_table"
check_eq "--addresses relocated: relocated, the tables patched" relocated \
	"$(field "$tmp/run-ptr_table-relocated.single/manifest" program.0.addresses)"
if suite_bundle mm; then
	reconstruct_replay ptr_table+mm cuda 2 "$tmp/ptr_table" "$SUITE_CACHE/mm"
	where ptr_table+mm.cuda 0
	where ptr_table+mm.cuda 1
	placed ptr_table+mm.cuda 0 "cuda pair: ptr_table placed first"
fi

done_testing
