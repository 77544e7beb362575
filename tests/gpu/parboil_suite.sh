#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU: every Parboil-style program runs and prints PASS, at the default size
# and at a small size, and its -r resource report names one limiting
# resource per kernel that agrees with the CUDA occupancy API.
. "$GPUMIX_TOP/tests/lib.sh"
require_gpu
for p in bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf; do
	exe=$GPUMIX_BUILD/workloads/parboil/$p
	out=$("$exe" 2>&1); rc=$?
	check_match "$p passes at the default size (exit $rc)" "^PASS $p:" "$out"
	[ $rc -eq 0 ] || not_ok "$p exits 0"
	out=$("$exe" -s 0.05 2>&1)
	check_match "$p passes at -s 0.05" "^PASS $p:" "$out"
	rep=$("$exe" -s 0.05 -r 2>&1)
	check_match "$p -r prints resource lines" "^resource kernel=" "$rep"
	bad=$(printf '%s\n' "$rep" | awk '/^resource /{ for (i=2;i<=NF;i++){split($i,kv,"="); v[kv[1]]=kv[2]} if (v["blocks_per_sm"] != v["occupancy_api"]) print }')
	check_eq "$p: occupancy arithmetic agrees with the CUDA occupancy API" "" "$bad"
done
done_testing
