#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The block probe's cost per kernel (needs a GPU; doc/gpumix-replay.md,
# "The block probe"): each Parboil-style suite program captured at its
# default size (cache shared with the other suite benchmarks),
# reconstructed with --elastic (single variant) and replayed twice, R
# replays each, with the transformed kernels and elasticity off:
#   off     --elastic identity (the probe's code runs its two uniform
#           branches and nothing else)
#   probe   --elastic identity --probe blocks
# Per kernel: the median GPU duration of its launches in each run (CUPTI,
# activity.tsv) and their ratio, the launches probed; then the median and
# the worst ratio over the probed kernels, and the time the replay spent
# copying the records back (between replays). Prints a Markdown table and
# writes it to build/probe-bench.md.
#   GPUMIX_SUITE_BUNDLES=DIR (reuse captured bundles), GPUMIX_SUITE="spmv mm",
#   GPUMIX_PROBE_REPLAYS=R (5)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="probe overhead bench"
. "$(dirname "$0")/suite_bench.sh"
R=${GPUMIX_PROBE_REPLAYS:-5}
out=$GPUMIX_BUILD/probe-bench.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
suite_cache

# "NAME DURATION_NS GRID" per KERNEL record of run directory $1 (the last
# 12 digits of the nanosecond timestamps: exact in awk's doubles)
durations() {
	awk -F'\t' '$1 == "KERNEL" {
		s = substr($4, length($4) - 11) + 0; e = substr($5, length($5) - 11) + 0
		d = e - s; if (d < 0) d += 1e12
		print $NF, d, $11 * $12 * $13 }' "$1/activity.tsv"
}
median_of() { # median_of NAME FILE
	awk -v k="$1" '$1 == k { print $2 }' "$2" | median
}

: >"$tmp/rows"
: >"$tmp/copy"
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	if ! "$GPUMIX" -q reconstruct --variant single --elastic -o "$tmp/$p" \
		"$SUITE_CACHE/$p" 2>"$tmp/err"; then
		not_ok "$p: reconstruct --elastic failed"
		tail -3 "$tmp/err" >&2
		continue
	fi
	failed=0
	for m in off probe; do
		extra=()
		[ "$m" = probe ] && extra=(--probe blocks)
		if ! "$GPUMIX" -q replay --min-replays "$R" --elastic identity "${extra[@]}" \
			-o "$tmp/run-$p-$m" "$tmp/$p" >"$tmp/out" 2>&1; then
			not_ok "$p: replay ($m) failed"
			tail -3 "$tmp/out" >&2
			failed=1
			break
		fi
		durations "$tmp/run-$p-$m" >"$tmp/d-$m"
	done
	[ "$failed" = 0 ] || continue
	printf '%s %s %s %s\n' "$p" "$(field "$tmp/run-$p-probe/manifest" probe.copy_ns)" \
		"$(field "$tmp/run-$p-probe/manifest" probe.records)" \
		"$(awk 'NR > 1' "$tmp/run-$p-probe/replays.tsv" | wc -l)" >>"$tmp/copy"
	for k in $(awk '{ print $1 }' "$tmp/d-off" | awk '!seen[$0]++'); do
		probed=$(awk -F'\t' -v k="$k" '$5 == k { n++; if ($17 > 0) p++ }
			END { printf "%d/%d", p, n }' "$tmp/run-$p-probe/probe.tsv")
		printf '%s %s %s %s %s %s\n' "$p" "$k" \
			"$(awk -v k="$k" '$1 == k { print $3; exit }' "$tmp/d-off")" \
			"$(median_of "$k" "$tmp/d-off")" "$(median_of "$k" "$tmp/d-probe")" \
			"$probed" >>"$tmp/rows"
	done
done

{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
		sed 's/^/device: /'
	echo
	echo "| program | kernel | blocks | off (us) | probe (us) | ratio | launches probed |"
	echo "|---|---|---:|---:|---:|---:|---:|"
	awk '{
		r = ($4 > 0 && $5 != "nan") ? sprintf("%.3f", $5 / $4) : "-"
		printf "| %s | %s | %d | %.1f | %.1f | %s | %s |\n", $1, $2, $3, $4 / 1e3,
			$5 / 1e3, r, $6 }' "$tmp/rows"
	echo
	awk '$4 > 0 && $5 != "nan" && $6 !~ /^0\// { print $5 / $4 }' "$tmp/rows" |
		sort -g | awk '{ v[NR] = $1 } END {
		m = !NR ? 0 : (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "probe on / off, per kernel (median GPU time of its launches): median %.3f, worst %.3f, over %d probed kernels\n",
			m, NR ? v[NR] : 0, NR }'
	awk '$4 > 0 { printf "copying the records back: %s: %.2f ms per replay (%d records per replay)\n",
		$1, $2 / 1e6 / $4, $3 / $4 }' "$tmp/copy"
	echo "($R replays per run, the transformed kernels with elasticity off in both)"
} | tee "$out"
exit $status
