#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The corpus again, compiled with nvcc -G (no inlining, local memory,
# calls, line information everywhere): the PTX interpreter test of the
# elastic transformation (build/tests/unit/test_elastic_exec) runs on it.
. "${GPUMIX_TOP:-.}/tests/lib.sh"
set -u
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/data/ptx"
for cu in "$GPUMIX_TOP"/tests/data/ptx/*.cu; do
	grep -q 'gpumix-test:' "$cu" || continue
	base=$(basename "$cu" .cu)
	cp "$cu" "$tmp/tests/data/ptx/"
	check "$base: nvcc -G -ptx" "$NVCC" -arch=sm_90 -G -ptx -o "$tmp/tests/data/ptx/$base.ptx" "$cu"
done
GPUMIX_TOP=$tmp "$GPUMIX_BUILD/tests/unit/test_elastic_exec" | sed 's/ - / - debug build: /'
check "the transformed debug builds compute what the originals do" test "${PIPESTATUS[0]}" -eq 0
done_testing
