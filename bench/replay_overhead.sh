#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Replay host overhead (GPU): the synthetic program of gen-workload bench
# (many small copies and launches of tests/gpu/replay_kernels.cu) replayed
# alone; per kept replay, wall time of the replay part vs. the GPU time of
# its kernels, copies and memsets from the CUPTI log, and the host cost per
# operation. Without a GPU it says so and does nothing.
#   bench/replay_overhead.sh [RUNDIR]   analyse an existing run directory
# GPUMIX_BENCH_REPLAY_OPS sets the size (default 200000).
set -eu
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
ops=${GPUMIX_BENCH_REPLAY_OPS:-200000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ $# -ge 1 ]; then
	run=$1
else
	if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
		echo "replay overhead bench: skipped (no GPU)"
		exit 0
	fi
	nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
	"$nvcc" -fatbin -arch=sm_${SM:-90} -o "$tmp/k.fatbin" \
		"$GPUMIX_TOP/tests/gpu/replay_kernels.cu"
	"$GPUMIX_BUILD/tests/gen-workload" bench --variant single --ops "$ops" \
		--fatbin "$tmp/k.fatbin" -o "$tmp/wl" 2>/dev/null
	"$GPUMIX_BUILD/gpumix" -q replay --min-replays 4 -o "$tmp/run" "$tmp/wl"
	run=$tmp/run
fi

nops=0
if [ -f "$tmp/wl/manifest" ]; then
	nops=$(sed -n 's/^program\.0\.ops = //p' "$tmp/wl/manifest")
fi
awk -F'\t' -v nops="$nops" '
FNR == 1 && FILENAME ~ /replays.tsv$/ { next }
FILENAME ~ /replays.tsv$/ {
	if ($6 == 1) { n++; s[n] = $3; e[n] = $4; io[n] = $5; p[n] = $1 }
	next
}
$1 == "KERNEL" || $1 == "MEMCPY" || $1 == "MEMSET" {
	for (i = 1; i <= n; i++) {
		if ($4 >= s[i] && $5 <= e[i]) { gpu[i] += $5 - $4; cnt[i]++ }
	}
}
END {
	for (i = 1; i <= n; i++) {
		wall = e[i] - s[i] - io[i]
		printf "replay overhead bench: %s replay %d: wall %.3f ms, GPU work %.3f ms (%.1f%%), %d GPU records", p[i], i, wall / 1e6, gpu[i] / 1e6, wall ? 100 * gpu[i] / wall : 0, cnt[i]
		if (nops > 0) {
			printf ", host overhead %.2f us per operation", (wall - gpu[i]) / nops / 1e3
		}
		printf "\n"
	}
}' "$run/replays.tsv" "$run/activity.tsv"
