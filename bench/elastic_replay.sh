#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of the elastic suite kernels through the replay (needs a GPU):
# each Parboil-style suite program captured at its default size (cache
# shared with the other suite benchmarks), reconstructed with --elastic
# (single variant) and replayed three times, R replays each:
#   original   the captured modules (--elastic off)
#   identity   the elastic modules, elasticity off (--elastic identity):
#              the cost every non-elastic variant pays (fairness rule)
#   same grid  the elastic path on a physical grid of as many blocks as
#              the logical grid (--elastic orig; doc/gpumix-replay.md)
# Per kernel: the median GPU duration of its launches in each run (CUPTI,
# the run directory's activity.tsv), class and registers before and after
# (DIR/elastic/kernels.tsv), ratios to the original. Prints a Markdown
# table and the median ratios over the elastic kernels (target for
# identity: <= 1.05), and writes it to build/elastic-replay-bench.md.
#   GPUMIX_SUITE_BUNDLES=DIR (reuse captured bundles), GPUMIX_SUITE="bfs mm",
#   GPUMIX_ELASTIC_REPLAYS=R (5)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="elastic replay bench"
. "$(dirname "$0")/suite_bench.sh"
R=${GPUMIX_ELASTIC_REPLAYS:-5}
out=$GPUMIX_BUILD/elastic-replay-bench.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
suite_cache

# "NAME DURATION_NS GRID BLOCK" per KERNEL record of run directory $1.
# Timestamps are nanoseconds near 2^61: only their last 12 digits are
# subtracted (awk's doubles), kernels being far shorter than 1000 s.
durations() {
	awk -F'\t' '$1 == "KERNEL" {
		s = substr($4, length($4) - 11) + 0; e = substr($5, length($5) - 11) + 0
		d = e - s; if (d < 0) d += 1e12
		print $NF, d, $11 * $12 * $13, $14 * $15 * $16 }' "$1/activity.tsv"
}
median_of() { # median_of NAME FILE: median duration (ns) of kernel NAME
	awk -v k="$1" '$1 == k { print $2 }' "$2" | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan"; exit }
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: >"$tmp/rows"
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	if ! "$GPUMIX" -q reconstruct --variant single --elastic -o "$tmp/$p" \
		"$SUITE_CACHE/$p" 2>"$tmp/err"; then
		not_ok "$p: reconstruct --elastic failed"
		tail -3 "$tmp/err" >&2
		continue
	fi
	failed=0
	for m in off identity orig; do
		if ! "$GPUMIX" -q replay --min-replays "$R" --elastic "$m" \
			-o "$tmp/run-$p-$m" "$tmp/$p" >"$tmp/out" 2>&1; then
			not_ok "$p: replay --elastic $m failed"
			tail -3 "$tmp/out" >&2
			failed=1
			break
		fi
		durations "$tmp/run-$p-$m" >"$tmp/d-$m"
	done
	[ "$failed" = 0 ] || continue
	shaped=$(sed -n 's/^elastic.identity_shape_launches = //p' "$tmp/run-$p-orig/manifest")
	for k in $(awk '{ print $1 }' "$tmp/d-off" | awk '!seen[$0]++'); do
		row=$(awk -F'\t' -v k="$k" '$2 == k { print $3, $4, $5; exit }' \
			"$tmp/$p/elastic/kernels.tsv")
		[ -n "$row" ] || row="not-elastic - -"
		gb=$(awk -v k="$k" '$1 == k { print $3 " x " $4; exit }' "$tmp/d-off")
		printf '%s %s %s %s %s %s %s %s\n' "$p" "$k" "$row" "${gb// /_}" \
			"$(median_of "$k" "$tmp/d-off")" "$(median_of "$k" "$tmp/d-identity")" \
			"$(median_of "$k" "$tmp/d-orig")" "${shaped:-0}" >>"$tmp/rows"
	done
done

{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
		sed 's/^/device: /'
	echo
	echo "| program | kernel | class | grid x block | regs | regs' | original (us) | elastic, off (us) | ratio | elastic, same grid (us) | ratio |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk '{
		cls = $3; o = $7; i = $8; g = $9
		ri = (o > 0 && i != "nan") ? sprintf("%.3f", i / o) : "-"
		rg = (o > 0 && g != "nan" && cls != "not-elastic") ? sprintf("%.3f", g / o) : "-"
		if (cls == "not-elastic") { ri = ri " (unmodified)" }
		gb = $6; gsub(/_/, " ", gb)
		printf "| %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s | %.1f | %s |\n",
			$1, $2, cls, gb, $4, $5, o / 1e3, i / 1e3, ri, g / 1e3, rg
	}' "$tmp/rows"
	echo
	awk '$3 != "not-elastic" && $7 > 0 && $8 != "nan" { print $8 / $7 }' "$tmp/rows" |
		sort -g | awk '{ v[NR] = $1 } END {
		m = !NR ? 0 : (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "median time ratio (elastic / original, elasticity off): %.3f over %d kernels (target <= 1.05: %s)\n",
			m, NR, (NR && m <= 1.05) ? "met" : "MISSED" }'
	awk '$3 != "not-elastic" && $7 > 0 && $9 != "nan" { print $9 / $7 }' "$tmp/rows" |
		sort -g | awk '{ v[NR] = $1 } END {
		m = !NR ? 0 : (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "median time ratio (elastic path, same number of blocks / original): %.3f over %d kernels\n", m, NR }'
	awk '$10 > 0 { n[$1] = $10 } END { for (p in n) printf "note: %s: %d launches kept the identity path in the same-grid run (one block, or an odd 1-D grid above 65535 blocks)\n", p, n[p] }' "$tmp/rows"
	echo "($R replays per run; per kernel the median over all its launches)"
} | tee "$out"
exit $status
