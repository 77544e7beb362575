#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: every elastic suite kernel, replayed from its capture, gives results
# bit-identical to the original run (the replay verifies every
# device-to-host result against the captured hash). Each Parboil-style
# suite program is captured at a small size (-s 0.05), reconstructed with
# --elastic (single variant) and replayed (2 replays) with:
#   - the elastic modules, elasticity off (--elastic identity);
#   - physical grids of 1 block, 1 block per SM, the maximum resident
#     blocks and the original size (--elastic 1 | sm | resident | orig);
#   - timeslices of 7 blocks and of a quarter of each grid (--elastic sm
#     --elastic-slice 7 | /4), and of 1 block when the program launches
#     at most $GPUMIX_ELASTIC_MAX_SLICED blocks per replay (20000).
# Every run must end with status ok; the grid and slice runs must have
# launched kernels elastically (elastic.launches > 0). Kernels that are
# not elastic (bfs_coop: cooperative) run as captured in every run.
#   GPUMIX_SUITE="bfs mm"        restricts the programs
#   GPUMIX_ELASTIC_SCALE=S       program size (-s S, default 0.05)
#   OUT=DIR                      keeps a summary (summary.tsv) in DIR/elastic_replay
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch elastic_replay
tmp=$_scratch
scale=${GPUMIX_ELASTIC_SCALE:-0.05}
max_sliced=${GPUMIX_ELASTIC_MAX_SLICED:-20000}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
printf 'program\tmode\tslice\tstatus\tlaunches\tphysical\tidentity\tunmodified\treplay_s\n' \
	>"$_results/summary.tsv"
start=$(now)

# blocks launched per replay: the sum over KERNEL records of the run,
# divided by the number of replays
blocks_per_replay() {
	awk -F'\t' 'FILENAME ~ /replays.tsv$/ { if (FNR > 1) n++; next }
		$1 == "KERNEL" { b += $11 * $12 * $13 }
		END { printf "%d\n", n ? b / n : b }' "$1/replays.tsv" "$1/activity.tsv"
}

# replay_mode P NAME ARGS...: one replay of program P, must verify
replay_mode() {
	local p=$1 name=$2 out rc st t0 t1 el
	shift 2
	t0=$(now)
	out=$("$GPUMIX" replay --min-replays 2 --watchdog 120 -o "$tmp/run-$p-$name" \
		"$@" "$tmp/$p" 2>&1); rc=$?
	t1=$(now)
	st=$(field "$tmp/run-$p-$name/manifest" status)
	check_eq "$p $name: status ok (every result bit-identical to the capture)" ok "$st"
	if [ "$st" != ok ]; then
		printf '%s\n' "$out" | tail -4 | sed 's/^/#   /'
		echo "#   failure: $(field "$tmp/run-$p-$name/manifest" failure)"
	fi
	check_eq "$p $name: exit 0" 0 "$rc"
	el=$(field "$tmp/run-$p-$name/manifest" elastic.launches)
	if [ "$name" != identity ]; then
		check "$p $name: kernels launched elastically (${el:-none})" test "${el:-0}" -gt 0
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$name" \
		"$(field "$tmp/run-$p-$name/manifest" elastic.slice)" "${st:-none}" "${el:-}" \
		"$(field "$tmp/run-$p-$name/manifest" elastic.physical_launches)" \
		"$(field "$tmp/run-$p-$name/manifest" elastic.identity_launches)" \
		"$(field "$tmp/run-$p-$name/manifest" elastic.unmodified_launches)" \
		"$(secs "$t0" "$t1")" >>"$_results/summary.tsv"
	[ "$st" = ok ]
}

for p in $SUITE_PROGRAMS; do
	exe=$GPUMIX_BUILD/workloads/parboil/$p
	if [ ! -x "$exe" ]; then
		not_ok "$p: $exe is built (make)"
		continue
	fi
	t0=$(now)
	out=$(cd "$GPUMIX_TOP" && "$GPUMIX" -q capture -o "$tmp/bundle-$p" -- "$exe" -s "$scale" 2>&1); rc=$?
	if [ "$rc" != 0 ] || ! grep -q "^PASS $p" <<<"$out"; then
		not_ok "$p: captured at -s $scale (exit $rc)"
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		continue
	fi
	out=$("$GPUMIX" reconstruct --variant single --elastic -o "$tmp/$p" \
		"$tmp/bundle-$p" 2>&1); rc=$?
	check_eq "$p: reconstruct --elastic exits 0" 0 "$rc"
	if [ "$rc" != 0 ]; then
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		continue
	fi
	check_match "$p: cubins assembled" "^reconstruct: elastic .*; cubins assembled$" "$out"
	grep '^elastic:' <<<"$out" | sed 's/^/# /'
	awk -F'\t' 'NR > 1 { print "# " $2 ": " $3 ", registers " $4 " -> " $5 }' \
		"$tmp/$p/elastic/kernels.tsv"
	t1=$(now)
	replay_mode "$p" identity --elastic identity || continue
	for m in 1 sm resident orig; do
		replay_mode "$p" "$m" --elastic "$m"
	done
	replay_mode "$p" slice7 --elastic sm --elastic-slice 7
	replay_mode "$p" quarter --elastic resident --elastic-slice /4
	nb=$(blocks_per_replay "$tmp/run-$p-identity")
	if [ "${nb:-0}" -le "$max_sliced" ]; then
		replay_mode "$p" slice1 --elastic sm --elastic-slice 1
	else
		echo "# $p: $nb blocks per replay: no slices of 1 block (more than $max_sliced)"
	fi
	rm -rf "$tmp"/run-"$p"-*/activity.tsv
	echo "# $p: capture and reconstruct $(secs "$t0" "$t1") s, replays $(secs "$t1" "$(now)") s"
done
echo "# elastic_replay: wall time $(secs "$start" "$(now)") s"
done_testing
