#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every kernel of the Parboil-style suite (whatever workloads/parboil/*/*.cu
# exist in this tree) compiled to PTX with nvcc -arch=sm_$SM, made elastic
# by gpumix elastic, and both the original and the transformed PTX
# assembled with ptxas (gpumix elastic fails if either does not). The
# classes and registers are printed as TAP comments.
. "${GPUMIX_TOP:-.}/tests/lib.sh"
set -u
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
SM=${SM:-90}
dir=$GPUMIX_BUILD/elastic-suite
mkdir -p "$dir"
top=$GPUMIX_TOP/workloads/parboil
n=0
for cu in "$top"/*/*.cu; do
	[ -f "$cu" ] || continue
	name=$(basename "$cu" .cu)
	sub=$(dirname "$cu")
	n=$((n + 1))
	if ! "$NVCC" -arch=sm_$SM -ptx -I"$top/common" -I"$GPUMIX_TOP/common" \
		-I"$sub" -o "$dir/$name.ptx" "$cu" 2>"$dir/$name.nvcc.log"; then
		not_ok "$name: nvcc -ptx"
		sed 's/^/#   /' "$dir/$name.nvcc.log"
		continue
	fi
	if out=$("$GPUMIX" elastic -f --arch sm_$SM -o "$dir/$name.elastic.ptx" \
		"$dir/$name.ptx" 2>"$dir/$name.err"); then
		ok "$name: every kernel transformed or kept, and both versions assemble"
	else
		not_ok "$name: gpumix elastic"
		sed 's/^/#   /' "$dir/$name.err"
	fi
	printf '%s\n' "$out" | grep -v '^#' | sed 's/^/# /'
done
if [ "$n" -eq 0 ]; then
	skip "no suite programs (workloads/parboil/*/*.cu) in this tree"
fi
done_testing
