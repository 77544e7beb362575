#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The elastic transformation on the GPU: every elastic kernel of the corpus
# (tests/data/ptx) is transformed by gpumix elastic, then the original and
# the transformed PTX are loaded with cuModuleLoadData and run by
# build/tests/elastic-run on the same inputs: elasticity off, physical
# grids of 1 block, 1 block per SM, the maximum resident blocks and the
# original size, timeslices of 1, 3 and a quarter of the blocks, other
# block sizes for thread-elastic kernels, and the completion notification.
# Every output must be bit-identical to the original's.
. "${GPUMIX_TOP:-.}/tests/lib.sh"
set -u
require_gpu
run=$GPUMIX_BUILD/tests/elastic-run
corpus=$GPUMIX_TOP/tests/data/ptx
dir=$GPUMIX_BUILD/elastic-gpu
mkdir -p "$dir"
[ -x "$run" ] || { not_ok "elastic-run is built"; done_testing; }

for cu in "$corpus"/*.cu; do
	base=$(basename "$cu" .cu)
	ptx=$corpus/$base.ptx
	grep -q 'gpumix-test:' "$cu" || continue
	if ! "$GPUMIX" elastic -f -o "$dir/$base.elastic.ptx" "$ptx" >"$dir/$base.table" 2>&1; then
		not_ok "$base: gpumix elastic"
		sed 's/^/#   /' "$dir/$base.table"
		continue
	fi
	specs=()
	while read -r name grid block smem n out; do
		cls=$(awk -v f="$base.ptx" -v k="$name" '$1 == f && $2 == k { print $3 }' \
			"$corpus/classes.txt")
		specs+=("$name ${cls:-not-elastic} $grid $block $smem $n $out")
	done < <(sed -n 's/^.*gpumix-test: //p' "$cu")
	"$run" "$ptx" "$dir/$base.elastic.ptx" "${specs[@]}"
	check "$base: every elastic kernel gives the original's results" test $? -eq 0
done
done_testing
