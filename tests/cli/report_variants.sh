#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every variant reaches every part of the report, not only single and
# cuda: a synthetic study (bench/gen_study) with single, cuda, nss and
# elastic runs gives an nss row in every table that has a variant or run
# column, an nss series with points in the data file of every per-variant
# figure, and, with --run on an nss run, the kernel figure and the
# timeline of that run. The two baselines come from the variant table's
# flags (common/variant.h): the single runs give the alone times (no STP
# row of their own, and they are what Table 2 is measured on); cuda is
# what the improvements are measured against (its improvement is 1).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
gen=$GPUMIX_BUILD/bench/gen_study

"$gen" -o "$tmp/runs" --kernels 3000 --workloads 3 \
	--variants single,cuda,nss,elastic.median >/dev/null
check_eq "generate a study with single, cuda, nss and elastic runs" 0 "$?"
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/r.db"
check_eq "load it" 0 "$?"
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep"
check_eq "report it" 0 "$?"
T=$tmp/rep/tables
F=$tmp/rep/figures

# rows COLUMN VALUE FILE: how many CSV rows have VALUE in column COLUMN
# (named by the header; no quoted commas in these files).
rows() {
	awk -F, -v col="$1" -v want="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		c && $c == want { n++ }
		END { print n + 0 }' "$3"
}

for t in summary improvement workloads programs waiting waiting-runs \
	 overlap overlap-runs utilization utilization-runs; do
	check_match "table $t: an nss row" "^[1-9][0-9]*$" "$(rows variant nss "$T/$t.csv")"
done
check_eq "table runs: one row per nss run" 3 \
	"$(grep -c '^[^,]*\.nss,ok,' "$T/runs.csv")"
check_match "table resources has no variant column: kernels of the alone runs" \
	'From the `single` runs\.' "$(cat "$T/resources.md")"
check_eq "variants in the table's order (single, cuda, nss, elastic)" \
	"single cuda nss elastic+median" \
	"$(sed 1d "$T/overlap.csv" | cut -d, -f1 | tr '\n' ' ' | sed 's/ $//')"
check_eq "the alone variant has no summary row (it is the STP baseline)" \
	"0 1 1 1" "$(rows variant single "$T/summary.csv") \
$(rows variant cuda "$T/summary.csv") $(rows variant nss "$T/summary.csv") \
$(rows variant elastic+median "$T/summary.csv")"
check_eq "nss workloads have an STP (alone times from the single runs)" 0 \
	"$(awk -F, '$3 == "nss" && $4 == ""' "$T/workloads.csv" | wc -l | tr -d ' ')"
check_eq "improvements are over cuda, the table's reference" "1 1" \
	"$(awk -F, '$2 == "cuda" { print $4, $5 }' "$T/improvement.csv")"
check_match "  and the title says so" "^## Improvement over cuda \(paper Table 5\)" \
	"$(cat "$T/improvement.md")"
check_match "nss is measured against cuda" "^2,nss,3,[0-9.]+,[0-9.]+,3,[0-9.]+$" \
	"$(cat "$T/improvement.csv")"

# points FILE NAME: data lines of the series "# NAME" of a figure's data.
points() {
	awk -v want="# $2" '
		$0 == want { on = 1; next }
		on && /^$/ { exit }
		on && !/^#/ { n++ }
		END { print n + 0 }' "$1"
}
check_match "fig08-overlap.dat: an nss bar" '^"nss" [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+$' \
	"$(cat "$F/fig08-overlap.dat")"
for f in fig09-waiting fig10-stp fig11-antt fig12-running fig13-threads; do
	check_eq "$f.dat: an nss series with a point per workload" 3 \
		"$(points "$F/$f.dat" nss)"
	check_match "$f.gp: the nss series is drawn" "title 'nss'" "$(cat "$F/$f.gp")"
done
check_eq "fig10-stp.dat: no single series (alone runs have no STP)" 0 \
	"$(points "$F/fig10-stp.dat" single)"

"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/nss" --run bfs+cutcp.nss
check_eq "report --run an nss run" 0 "$?"
for f in fig07-kernel timeline; do
	check "$f.dat of the nss run has points" test -s "$tmp/nss/figures/$f.dat"
	check_match "$f: drawn for the nss run" "^set title '.* in bfs\+cutcp\.nss|^set title '.* of bfs\+cutcp\.nss" \
		"$(cat "$tmp/nss/figures/$f.gp")"
done

done_testing
