#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every variant and policy reaches every part of the report, not only
# single and cuda: a synthetic study (bench/gen_study) with single, cuda,
# nss and elastic runs under its four policies gives an nss and an
# elastic+POLICY row in every table that has a variant or run column, a
# series with points for each in the data file of every per-variant
# figure, and, with --run on an nss run, the kernel figure and the
# timeline of that run. The two baselines come from the variant table's
# flags (common/variant.h): the single runs give the alone times (no STP
# row of their own, and they are what Table 2 is measured on); cuda is
# what the improvements are measured against (its improvement is 1).
# The comparison page puts each of the paper's numbers beside ours, each
# ours equal to the same number in the other tables, with the ratio; the
# index says which kernels the variants ran, from the run manifests.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
gen=$GPUMIX_BUILD/bench/gen_study

P="median mpmax equal queuemold"
"$gen" -o "$tmp/runs" --kernels 3000 --workloads 3 \
	--variants single,cuda,nss,elastic+median,elastic+mpmax,elastic+equal,elastic+queuemold \
	>/dev/null
check_eq "generate a study with single, cuda, nss and elastic runs (4 policies)" 0 "$?"
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
	for v in nss $(printf 'elastic+%s ' $P); do
		check_match "table $t: an $v row" "^[1-9][0-9]*$" "$(rows variant "$v" "$T/$t.csv")"
	done
done
check_eq "table runs: one row per elastic run" 12 \
	"$(grep -c '^[^,]*\.elastic\.[a-z]*,ok,' "$T/runs.csv")"
check_eq "table runs: one row per nss run" 3 \
	"$(grep -c '^[^,]*\.nss,ok,' "$T/runs.csv")"
check_match "table resources has no variant column: kernels of the alone runs" \
	'From the `single` runs\.' "$(cat "$T/resources.md")"
check_eq "variants in the table's order (single, cuda, nss, elastic), policies in theirs" \
	"single cuda nss elastic+median elastic+mpmax elastic+equal elastic+queuemold" \
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
check_match "nss is measured against cuda" "^2,nss,3,[0-9.]+,[0-9.]+,3,[0-9.]+,n/a,n/a,n/a," \
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
	for v in nss $(printf 'elastic+%s ' $P); do
		check_eq "$f.dat: an $v series with a point per workload" 3 \
			"$(points "$F/$f.dat" "$v")"
		check_match "$f.gp: the $v series is drawn" "title '${v//+/\\+}'" \
			"$(cat "$F/$f.gp")"
	done
done
for v in $(printf 'elastic+%s ' $P); do
	check_match "fig08-overlap.dat: an $v bar" \
		"^\"${v//+/\\+}\" [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+$" \
		"$(cat "$F/fig08-overlap.dat")"
done
check_eq "fig10-stp.dat: no single series (alone runs have no STP)" 0 \
	"$(points "$F/fig10-stp.dat" single)"

# ---- the comparison with the paper ----
C=$T/paper.csv
# key LABEL: the CSV header's key of a column label (doc/gpumix-report.md,
# "Tables for programs": lower case, % as pct, words joined by _)
key() {
	printf '%s' "$1" | tr 'A-Z' 'a-z' | sed -E 's/%/ pct /g; s/[^a-z0-9]+/_/g; s/^_+|_+$//g'
}
# cell SOURCE VARIANT METRIC COLUMN: a cell of the comparison
cell() {
	awk -F, -v src="$1" -v v="$2" -v m="$3" -v col="$(key "$4")" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == src && $3 == v && $4 == m { print $c }' "$C"
}
# value TABLE VARIANT COLUMN: a 2-program cell of another table
value() {
	awk -F, -v v="$2" -v col="$(key "$3")" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == 2 && $2 == v { print $c }' "$T/$1.csv"
}
check_eq "paper: a row per number the paper gives (paper_numbers.c)" 57 \
	"$(($(wc -l < "$C") - 1))"
check_eq "paper: Table 4's row for elastic+median, as printed" "1.24" \
	"$(cell 'Table 4' elastic+median 'STP geomean' 'paper (Fermi)')"
for v in cuda nss $(printf 'elastic+%s ' $P); do
	check_eq "paper: ours for $v's STP geomean is the summary's" \
		"$(value summary "$v" 'STP geomean')" "$(cell 'Table 4' "$v" 'STP geomean' ours)"
	check_eq "paper: ours for $v's ANTT worst is the summary's" \
		"$(value summary "$v" 'ANTT worst')" "$(cell 'Table 4' "$v" 'ANTT worst' ours)"
done
for v in nss $(printf 'elastic+%s ' $P); do
	check_eq "paper: ours for $v's ANTT improvement is Table 5's" \
		"$(value improvement "$v" ANTT)" \
		"$(cell 'Table 5' "$v" 'ANTT improvement over cuda' ours)"
	check_eq "paper: ours for $v's MTSpeedup is Table 5's" \
		"$(value improvement "$v" MTSpeedup)" \
		"$(cell 'Table 5' "$v" 'MTSpeedup over cuda' ours)"
done
check_eq "paper: the ratio is ours / paper" ok "$(awk -F, 'NR > 1 && $7 != "" {
		r = $7 / $6; d = r - $8; if (d < 0) d = -d
		if (d > 1e-6 * r) bad++ }
	END { print bad ? "bad " bad : "ok" }' "$C")"
check_eq "paper: Fig. 9's ours is the mean of the runs' mean waits (ms)" ok \
	"$(awk -F, -v ours="$(cell 'Fig. 9 (§6.4.2)' cuda 'mean kernel waiting time (ms)' ours)" '
		NR > 1 && $2 == "cuda" { s += $4; n++ }
		END { d = s / n - ours; print (d < 1e-6 && d > -1e-6) ? "ok" : s / n " " ours }' \
		"$T/waiting-runs.csv")"
# One cuda kernel starting 5 ms late: its run's mean wait moves, not
# its median, and the comparison follows the mean.
cp "$tmp/r.db" "$tmp/late.db"
sqlite3 "$tmp/late.db" "UPDATE CUPTI_ACTIVITY_KIND_KERNEL
	SET start = start + 5000000, end = end + 5000000 WHERE rowid =
	(SELECT k.rowid FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN runs r ON r.id = k.runId
	 WHERE r.variant = 'cuda' LIMIT 1)"
"$GPUMIX" -q report "$tmp/late.db" --table waiting-runs --format csv >"$tmp/late-w.csv"
"$GPUMIX" -q report "$tmp/late.db" --table paper --format csv >"$tmp/late-p.csv"
check_eq "paper: Fig. 9's ours follows the runs' mean waits, not their medians" ok \
	"$(awk -F, -v ours="$(grep '^Fig. 9 (§6.4.2),2,cuda,' "$tmp/late-p.csv" | cut -d, -f7)" '
		NR > 1 && $2 == "cuda" { s += $4; m += $5; n++ }
		END { d = s / n - ours; print (d < 1e-6 && d > -1e-6 && s != m) ? "ok" : s / n " " m / n " " ours }' \
		"$tmp/late-w.csv")"
check_eq "paper: Fig. 12's ours is the mean of the runs' running kernels" ok \
	"$(awk -F, -v ours="$(cell 'Fig. 12 (§6.4.4)' nss 'average running kernels' ours)" '
		NR > 1 && $2 == "nss" { s += $5; n++ }
		END { d = s / n - ours; print (d < 1e-6 && d > -1e-6) ? "ok" : s / n " " ours }' \
		"$T/utilization-runs.csv")"
check_eq "paper: the four-program rows have no ours in a two-program study" "" \
	"$(cell '§6.4.1' elastic+median 'STP geomean' ours)"
check_match "paper: the timeslicing ablation needs a second study" \
	"needs a second study with 'timeslice: 0'" "$(grep '^§6.4.5' "$C")"
P_MD=$(cat "$T/paper.md")
check_match "paper: the caption says which kernels ran" \
	"Kernels: all variants ran the same transformed kernels \(elasticity off outside the elastic variant\)" \
	"$P_MD"
check_match "paper: the caption gives the timeslices and copy chunks" \
	"ranges of about 1000 us \(the paper: about 1 ms\)\. Copy chunks: 4194304 bytes" "$P_MD"
check_match "paper: Markdown shows small ratios with their digits" \
	'^\| Table 4 \| 2 \| cuda \| ANTT worst \| lower \| 194\.93 \| [0-9.]+ \[n/a\] \| 0\.00[0-9]+ \|' "$P_MD"
check_match "index: which kernels the variants ran" \
	"^Kernels: all variants ran the same transformed kernels \(elasticity off outside the elastic variant\)\.$" \
	"$(cat "$tmp/rep/index.md")"
check_match "index: a link to the comparison" '\]\(tables/paper\.md\)' "$(cat "$tmp/rep/index.md")"

"$gen" -o "$tmp/runs2" --kernels 600 --workloads 2 --captured-kernels \
	--variants single,cuda,nss,elastic+median,elastic+mpmax >/dev/null
"$GPUMIX" -q analyze "$tmp/runs2" -o "$tmp/r2.db"
out=$("$GPUMIX" report "$tmp/r2.db" -o "$tmp/rep2" --no-figures 2>&1)
want="the variants ran different code: the captured kernels in single, cuda, nss; the transformed kernels under a policy in elastic\\+median, elastic\\+mpmax"
check_match "different code: the index says so" "^Kernels: $want\.$" "$(cat "$tmp/rep2/index.md")"
check_match "  and a note on stderr" "^note: $want \(a difference between them" "$out"
check_match "  and the comparison's caption" "Kernels: $want \(the paper: the same" \
	"$(cat "$tmp/rep2/tables/paper.md")"

"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/nss" --run bfs+cutcp.nss
check_eq "report --run an nss run" 0 "$?"
for f in fig07-kernel timeline; do
	check "$f.dat of the nss run has points" test -s "$tmp/nss/figures/$f.dat"
	check_match "$f: drawn for the nss run" "^set title '.* in bfs\+cutcp\.nss|^set title '.* of bfs\+cutcp\.nss" \
		"$(cat "$tmp/nss/figures/$f.gp")"
done

done_testing
