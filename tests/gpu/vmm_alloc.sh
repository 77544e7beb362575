#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: virtual memory management (tests/gpu/progs/vmm_alloc.cu: the CUDA
# samples' vectorAddMMAP and a growing, shrinking segment as JAX's and
# PyTorch's allocators keep them; doc/replay-program.md, "Virtual
# memory"). Captured with every VMM call recorded and nothing
# unsupported; the reservation's mapped part replays as one allocation,
# verified alone (single, at its captured addresses when the driver gives
# them, and --addresses relocated) and in a cuda pair with a suite
# program (mm).
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch vmm_alloc
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

out=$("$GPUMIX" capture -o "$tmp/vmm_alloc" -- "$T/vmm_alloc" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS vmm_alloc" "$out"
check_eq "no unsupported call" 0 "$(field "$tmp/vmm_alloc/manifest" loss.unsupported_calls)"
info=$("$GPUMIX" trace info "$tmp/vmm_alloc" 2>&1)
for c in "cuMemAddressReserve 1" "cuMemCreate 5" "cuMemMap 5" "cuMemSetAccess 4" \
	"cuMemUnmap 5" "cuMemRelease 5" "cuMemAddressFree 1"; do
	check_match "recorded: $c" "^  ${c% *}  *${c#* }$" "$info"
done

reconstruct_replay vmm_alloc single 2 "$tmp/vmm_alloc"
check_match "one reservation, mapped five times, replayed as an allocation" \
	"note: program 'vmm_alloc': 1 virtual address reservations, 1 of them mapped \(5 mappings\)" \
	"$recon_out"
m=$tmp/run-vmm_alloc.single/manifest
echo "# vmm_alloc single: $(field "$m" program.0.addresses) $(field "$m" program.0.addresses_why)"
REPLAY_OPTS="--addresses relocated" reconstruct_replay vmm_alloc-relocated single 2 "$tmp/vmm_alloc"
if suite_bundle mm; then
	reconstruct_replay vmm_alloc+mm cuda 2 "$tmp/vmm_alloc" "$SUITE_CACHE/mm"
fi

done_testing
