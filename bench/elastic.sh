#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of the elastic transformation (needs a GPU): each elastic
# kernel of the corpus alone, original vs transformed, on the same
# physical grid (elasticity off), the grids enlarged ELASTIC_SCALE times
# (default 256); median of ELASTIC_REPS launches (default 21). Prints a
# Markdown table (time ratio = transformed / original; "notification":
# with the completion notification on) and the median ratio, and writes it
# to build/elastic-bench.md for doc/elastic.md.
# make bench runs benchmarks with sh; this one needs bash
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
GPUMIX=$GPUMIX_BUILD/gpumix
run=$GPUMIX_BUILD/tests/elastic-run
corpus=$GPUMIX_TOP/tests/data/ptx
dir=$GPUMIX_BUILD/elastic-gpu
out=$GPUMIX_BUILD/elastic-bench.md
mkdir -p "$dir"
if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "elastic bench: no GPU, skipped" >&2
	exit 0
fi
{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
		sed 's/^/device: /'
	first=1
	for cu in "$corpus"/*.cu; do
		base=$(basename "$cu" .cu)
		grep -q 'gpumix-test:' "$cu" || continue
		"$GPUMIX" elastic -f -o "$dir/$base.elastic.ptx" "$corpus/$base.ptx" >/dev/null 2>&1 || {
			echo "elastic bench: gpumix elastic failed on $base" >&2
			exit 1
		}
		specs=()
		while read -r name grid block smem n o; do
			cls=$(awk -v f="$base.ptx" -v k="$name" '$1 == f && $2 == k { print $3 }' \
				"$corpus/classes.txt")
			specs+=("$name ${cls:-not-elastic} $grid $block $smem $n $o")
		done < <(sed -n 's/^.*gpumix-test: //p' "$cu")
		"$run" --bench --scale "${ELASTIC_SCALE:-256}" --reps "${ELASTIC_REPS:-21}" \
			"$corpus/$base.ptx" "$dir/$base.elastic.ptx" "${specs[@]}" |
			if [ $first = 1 ]; then cat; else tail -n +3; fi
		first=0
	done
} | tee "$out.tmp"
awk -F'|' '/^\| [a-z_0-9]+ \| (thread|block)-elastic/ { print $9 + 0 }' "$out.tmp" | sort -g |
	awk '{ v[NR] = $1 } END { if (NR) { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "\nmedian time ratio (elastic / original, elasticity off): %.3f over %d kernels\n", m, NR } }' |
	tee -a "$out.tmp"
mv "$out.tmp" "$out"
echo "elastic bench: table in $out" >&2
