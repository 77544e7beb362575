#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: 2-D and 3-D copies and CUDA arrays (tests/gpu/progs/arrays2d.cu:
# an image in an array read through a texture object, pitched memory,
# tiles moved on two streams as cuBLAS-XT does, a volume in a 3-D array,
# a row across arrays, arrays freed and made again). The capture records
# every call (nothing unsupported, nothing lost); the replay makes the
# arrays, issues each copy with the program's call and verifies every
# result alone (single) and in a cuda pair with a suite program (mm).
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch arrays2d
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

out=$("$GPUMIX" capture -o "$tmp/arrays2d" -- "$T/arrays2d" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS arrays2d" "$out"
info=$("$GPUMIX" trace info "$tmp/arrays2d" 2>&1)
check_match "no losses" "^losses: 0$" "$info"
check_match "array and 2-D copy calls recorded" "cuArray(3D)?Create_v2 .*" "$info"
reconstruct_replay arrays2d single 2 "$tmp/arrays2d"
check_match "single: every result verifiable, nothing unsupported" \
	"program 'arrays2d': .* 0 results not verifiable, 0 unsupported calls" "$recon_out"
if suite_bundle mm; then
	reconstruct_replay arrays2d+mm cuda 2 "$tmp/arrays2d" "$SUITE_CACHE/mm"
fi

done_testing
