#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Profile the Parboil-style suite on the GPU and print the Markdown tables
# of doc/workloads.md: per kernel its grid, block, registers, static and
# dynamic shared memory, resident blocks per SM and limiting resource (from
# the programs' -r report: cudaFuncGetAttributes + common/occupancy.c,
# cross-checked against cudaOccupancyMaxActiveBlocksPerMultiprocessor),
# launches and GPU time (CUPTI, via build/libgpumix-gputime.so); per program
# its launches, bytes moved and GPU busy time. With cuobjdump available, the
# raw `cuobjdump --dump-resource-usage` output is appended for reference.
# usage: bench/suite_profile.sh [RAWLOG]
set -u
B=${GPUMIX_BUILD:-build}
raw=${1:-/dev/null}
progs=${GPUMIX_BENCH_PROGS:-"bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf"}
if ! "$B/tests/has-gpu" >/dev/null 2>&1; then
	echo "suite profile: no GPU on this machine" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ms() { awk -v v="${1:-0}" 'BEGIN { printf "%.2f", v / 1e6 }'; }
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

echo "| program | kernel | grid | block | regs | smem static | smem dyn | blocks/SM | limit | launches | GPU ms (total) | GPU ms (max) |"
echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
for p in $progs; do
	exe=$B/workloads/parboil/$p
	GPUMIX_GPUTIME_OUT=$tmp/$p.gt CUDA_INJECTION64_PATH=$PWD/$B/libgpumix-gputime.so \
		"$exe" -r >"$tmp/$p.out" 2>&1
	{ echo "## $p"; cat "$tmp/$p.out" "$tmp/$p.gt"; } >>"$raw"
	grep '^resource ' "$tmp/$p.out" | while read -r line; do
		k=$(val "$line" kernel)
		# CUPTI names are mangled; match the kernel by substring.
		gl=$(grep "^kernel name=[^ ]*$k" "$tmp/$p.gt" | head -1)
		tot=$(val "$gl" total_ns); mx=$(val "$gl" max_ns)
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
			"$p" "$k" "$(val "$line" grid)" "$(val "$line" block)" \
			"$(val "$line" regs)" "$(val "$line" smem_static)" \
			"$(val "$line" smem_dynamic)" "$(val "$line" blocks_per_sm)" \
			"$(val "$line" limit)" "$(val "$line" launches)" \
			"$(ms "${tot:-0}")" "$(ms "${mx:-0}")"
	done
done
echo
echo "| program | result | kernel launches | copies | H2D MB | D2H MB | largest H2D MB | GPU busy ms |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for p in $progs; do
	g=$(grep '^gputime' "$tmp/$p.gt")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" \
		"$(grep -oE '^(PASS|FAIL)' "$tmp/$p.out" | head -1)" \
		"$(val "$g" kernels)" "$(val "$g" memcpys)" \
		"$(ms "$(val "$g" h2d_bytes)")" \
		"$(ms "$(val "$g" d2h_bytes)")" \
		"$(ms "$(val "$g" max_h2d_bytes)")" \
		"$(ms "$(val "$g" busy_ns)")"
done
if command -v cuobjdump >/dev/null 2>&1; then
	for p in $progs; do
		{ echo "## cuobjdump --dump-resource-usage $p"
		  cuobjdump --dump-resource-usage "$B/workloads/parboil/$p"; } >>"$raw" 2>&1
	done
fi
