#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the real-library set (tests/libraries.sh: cuBLAS, cuFFT,
# cuRAND and cuSPARSE programs, a PyTorch training step with cuDNN
# convolutions, a CuPy raw kernel): each captured with no loss and its
# PASS line, then replayed with every result verified alone (single) and
# in a cuda pair with a suite program (mm). A program whose library this
# host lacks (no PyTorch, no CuPy) is skipped, saying so.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
. "$GPUMIX_TOP/tests/libraries.sh"
suite_scratch real_libraries
suite_cache
tmp=$_scratch
cd "$GPUMIX_TOP" || exit 1

have_mm=0
suite_bundle mm && have_mm=1
for line in "${LIBRARY_PROGRAMS[@]}"; do
	library_fields "$line"
	if [ -n "$lib_req" ] && ! (eval "$lib_req") >/dev/null 2>&1; then
		skip "$lib_name: its library is not usable here ($lib_req failed)"
		continue
	fi
	# shellcheck disable=SC2086
	out=$("$GPUMIX" capture -o "$tmp/$lib_name" -- $lib_cmd 2>"$tmp/$lib_name.err"); rc=$?
	check_eq "$lib_name: capture exits 0" 0 "$rc"
	[ "$rc" = 0 ] || tail -6 "$tmp/$lib_name.err" | sed 's/^/#   /'
	check_match "$lib_name: PASS under capture" "^PASS $lib_name" "$out"
	check_match "$lib_name: no losses" "^losses: 0$" "$("$GPUMIX" trace info "$tmp/$lib_name" 2>&1)"
	[ "$rc" = 0 ] || continue
	reconstruct_replay "$lib_name" single 2 "$tmp/$lib_name"
	[ "$have_mm" = 1 ] && reconstruct_replay "$lib_name+mm" cuda 2 "$tmp/$lib_name" "$SUITE_CACHE/mm"
done
done_testing
