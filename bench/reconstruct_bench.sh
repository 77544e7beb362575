#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Reconstruct benchmark (CPU): build a synthetic one-program model of about
# a million operations through the model API, generate its C, and build it
# against libgpumix-replay. Reports model+generation seconds, build seconds
# and the size of the C file; fails when the build takes 60 s or more.
# GPUMIX_BENCH_OPS changes the size (default 1000000).
set -eu
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
ops=${GPUMIX_BENCH_OPS:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

printf 'synthetic module image\n' > "$tmp/module"
t0=$(now)
"$GPUMIX_BUILD/tests/gen-workload" bench --ops "$ops" --fatbin "$tmp/module" \
	-o "$tmp/wl" 2> "$tmp/gen.log"
t1=$(now)
"$GPUMIX_BUILD/gpumix" -q replay --build-only "$tmp/wl"
t2=$(now)
gen=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
build=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
lines=$(wc -l < "$tmp/wl/replay.c")
bytes=$(wc -c < "$tmp/wl/replay.c")
nops=$(sed -n 's/^program\.0\.ops = //p' "$tmp/wl/manifest")
echo "reconstruct bench: $nops operations: model + C generation ${gen} s" \
	"($(awk -v n="$nops" -v t="$gen" 'BEGIN { printf "%.0f", n / (t > 0 ? t : 1) }') ops/s), C file $lines lines / $bytes bytes," \
	"build ${build} s (limit 60 s)"
sed 's/^/  /' "$tmp/gen.log"
if awk -v t="$build" 'BEGIN { exit !(t >= 60) }'; then
	echo "reconstruct bench: FAIL: building took ${build} s" >&2
	exit 1
fi
