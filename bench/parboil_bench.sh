#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make bench (suite part): each Parboil-style program's wall time and GPU
# time, median of 5 runs, on the GPU. GPU time comes from CUPTI activity
# records collected by build/libgpumix-gputime.so (busy time: the union of
# kernel, copy and memset intervals). Without a GPU it says so and skips.
#   GPUMIX_BENCH_RUNS=N    runs per program (default 5)
#   GPUMIX_BENCH_PROGS=".." programs (default: the whole suite)
#   GPUMIX_BENCH_LOG=FILE  also keep the raw gputime records there
set -u
B=${GPUMIX_BUILD:-build}
runs=${GPUMIX_BENCH_RUNS:-5}
progs=${GPUMIX_BENCH_PROGS:-"bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf"}
if ! "$B/tests/has-gpu" >/dev/null 2>&1; then
	echo "parboil bench: SKIPPED (no GPU on this machine)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }

printf '%-8s %10s %10s %8s %8s %9s %9s %9s %12s %s\n' program wall_ms gpu_ms ratio kernels copies h2d_MB d2h_MB max_kernel_ms status
status=0
for p in $progs; do
	exe=$B/workloads/parboil/$p
	: >"$tmp/$p.wall"; : >"$tmp/$p.gpu"; res=PASS
	for i in $(seq "$runs"); do
		out=$tmp/$p.$i.gputime
		t0=$(date +%s%N)
		if ! GPUMIX_GPUTIME_OUT=$out CUDA_INJECTION64_PATH=$PWD/$B/libgpumix-gputime.so \
			"$exe" >"$tmp/$p.$i.log" 2>&1; then
			res=FAIL status=1
		fi
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 )) >>"$tmp/$p.wall"
		grep '^gputime' "$out" | field busy_ns >>"$tmp/$p.gpu"
		[ -n "${GPUMIX_BENCH_LOG:-}" ] && { echo "# $p run $i"; cat "$out"; cat "$tmp/$p.$i.log"; } >>"$GPUMIX_BENCH_LOG"
	done
	wall=$(median <"$tmp/$p.wall")
	gpu=$(median <"$tmp/$p.gpu")
	last=$tmp/$p.$runs.gputime
	g=$(grep '^gputime' "$last")
	maxk=$(grep '^kernel ' "$last" | field max_ns | sort -n | tail -1)
	awk -v p="$p" -v w="$wall" -v g="$gpu" -v k="$(echo "$g" | field kernels)" \
	    -v c="$(echo "$g" | field memcpys)" -v h="$(echo "$g" | field h2d_bytes)" \
	    -v d="$(echo "$g" | field d2h_bytes)" -v mk="${maxk:-0}" -v r="$res" 'BEGIN {
		printf "%-8s %10.1f %10.1f %8.2f %8d %8d %9.1f %9.1f %12.2f %s\n",
		p, w/1000, g/1e6, (w/1000)/(g/1e6), k, c, h/1e6, d/1e6, mk/1e6, r }'
done
echo "(wall and GPU time: median of $runs runs; ratio = wall / GPU time)"
exit $status
