#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make bench (real-library part), on the GPU: the real-library set
# (tests/libraries.sh: cuBLAS, cuFFT, cuRAND, cuSPARSE, a PyTorch
# training step, a CuPy raw kernel). Per program:
#   - capture overhead: wall time under `gpumix capture` over the native
#     wall time (median of R runs each; PyTorch's and CuPy's start-up is
#     part of both);
#   - trace size: the bundle's MB, and MB per second of captured GPU time
#     (kernels + copies + memsets, from the bundle's CUPTI records);
# then the replay fidelity of the same bundles (bench/replay_fidelity.sh:
# per-kernel and total GPU time replayed / captured).
# Prints numbers and ratios; exits 1 only when a program fails. Without a
# GPU it says so and skips.   GPUMIX_BENCH_RUNS=R (3)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="real libraries"
. "$(dirname "$0")/suite_bench.sh"
. "$GPUMIX_TOP/tests/libraries.sh"
runs=${GPUMIX_BENCH_RUNS:-3}
cache=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$cache")
cd "$GPUMIX_TOP" || exit 1

now() { date +%s%N; }

printf '%-14s %9s %10s %7s %8s %8s %10s %9s\n' program native_s captured_s ratio MB mod_MB gpu_ms MB/gpu_s
names=
for line in "${LIBRARY_PROGRAMS[@]}"; do
	library_fields "$line"
	if [ -n "$lib_req" ] && ! (eval "$lib_req") >/dev/null 2>&1; then
		echo "$lib_name: SKIPPED (its library is not usable here)"
		continue
	fi
	: >"$cache/native" ; : >"$cache/captured"
	for _ in $(seq "$runs"); do
		t0=$(now)
		# shellcheck disable=SC2086
		$lib_cmd >/dev/null 2>&1 || { not_ok "$lib_name: runs natively"; break; }
		echo $(( $(now) - t0 )) >>"$cache/native"
		rm -rf "${cache:?}/$lib_name"
		t0=$(now)
		# shellcheck disable=SC2086
		"$GPUMIX" -q capture -o "$cache/$lib_name" -- $lib_cmd >/dev/null 2>&1 ||
			{ not_ok "$lib_name: captured"; break; }
		echo $(( $(now) - t0 )) >>"$cache/captured"
	done
	[ -f "$cache/$lib_name/manifest" ] || continue
	names="$names $lib_name"
	nat=$(median <"$cache/native"); cap=$(median <"$cache/captured")
	mb=$(du -sk "$cache/$lib_name" | awk '{ printf "%.2f", $1 / 1024 }')
	# the library's own code (its modules, stored once) against the rest
	mod=$(du -sk "$cache/$lib_name/modules" | awk '{ printf "%.2f", $1 / 1024 }')
	gpu=$("$GPUMIX" trace info "$cache/$lib_name" | awk '
		/^  kernel_ms=/ { for (i = 1; i <= NF; i++) if ($i ~ /_ms=/) { split($i, a, "="); s += a[2] } }
		END { printf "%.3f", s }')
	awk -v n="$lib_name" -v a="$nat" -v b="$cap" -v mb="$mb" -v m="$mod" -v g="$gpu" 'BEGIN {
		printf "%-14s %9.3f %10.3f %7.2f %8s %8s %10s %9.1f\n", n, a / 1e9, b / 1e9,
			b / a, mb, m, g, (g > 0 ? mb / (g / 1000) : 0) }'
done
echo "real libraries: ratio = captured / native wall time (median of $runs); MB/gpu_s = bundle MB per second of captured GPU time; mod_MB = the modules (library code) in MB"
[ -n "$names" ] || exit $status
# library kernels last microseconds: compare every launch of 2 us or more
GPUMIX_FIDELITY_MIN_US=${GPUMIX_FIDELITY_MIN_US:-2} \
	GPUMIX_SUITE_BUNDLES=$cache GPUMIX_SUITE="${names# }" BENCH_NAME="real libraries fidelity" \
	bash "$GPUMIX_TOP/bench/replay_fidelity.sh" || status=1
exit $status
