#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Repetitions and intervals (doc/database.md, "Intervals" and "Noise") on
# the hand-written study tests/data/runs/good/repeats: workload a+b under
# single, cuda, nss and green, three repetitions each (run.repetition 0,
# 1, 2). Every number below was computed by hand from the run
# directories, with t(0.975, 2) = 4.30265273:
#
#   alone times (a, b), us:   r0 (100, 200)  r1 (110, 220)  r2 (90, 180)
#   cuda  (a, b):             r0 (200, 250)  r1 (220, 264)  r2 (180, 240)
#   nss   (a, b):             r0 (125, 200)  r1 (125, 220)  r2 (100, 200)
#   green (a, b):             r0 (125, 250)  r1 (110, 220)  r2 (100, 200)
#
# Each repetition's STP uses the alone times of the same repetition (the
# pairing): cuda 1.3, 1.3333, 1.25 (mean 1.294444, s 0.041944, interval
# 1.294444 +- 0.104194); with repetition 0's alone times for all three it
# would be 1.3, 1.2121, 1.3889 (mean 1.300337): breaking the pairing
# fails the first check. nss 1.8, 1.88, 1.8; green 1.6, 2.0, 1.8.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
study=tests/data/runs/good/repeats
db=$tmp/rep.db

"$GPUMIX" -q analyze "$study" -o "$db"
check_eq "load the three repetitions" 0 "$?"
check_eq "12 runs, repetitions 0 to 2 of each" "0|4 1|4 2|4" \
	"$(sqlite3 "$db" "SELECT repetition, count(*) FROM runs GROUP BY 1" | tr '\n' ' ' | sed 's/ $//')"

table() { "$GPUMIX" -q report "$db" --format csv --table "$@"; }
expect() { check_eq "$1" "$(cat)" "$(table "$1")"; }

# Per workload: the means over the repetitions and their t intervals.
# cuda ANTT: (2 + 1.25)/2, (2 + 1.2)/2, (2 + 1.3333)/2 = 1.625, 1.6,
# 1.666667; MTSpeedup of nss: 250/200, 264/220, 240/200 = 1.25, 1.2, 1.2.
expect workloads <<'CSV'
workload,programs,variant,stp,antt,workload_time_ms,mtspeedup,repetitions,stp_lo,stp_hi,antt_lo,antt_hi,workload_time_ms_lo,workload_time_ms_hi,mtspeedup_lo,mtspeedup_hi
a+b,2,cuda,1.29444444,1.63055556,0.251333333,1,3,1.19025095,1.39863794,1.54689286,1.71421825,0.221385991,0.281280676,1,1
a+b,2,nss,1.82666667,1.10143098,0.206666667,1.21666667,3,1.71192926,1.94140407,1.02785036,1.17501159,0.177982315,0.235351018,1.14495579,1.28837755
a+b,2,green,1.8,1.12037037,0.223333333,1.13333333,3,1.30317246,2.29682754,0.809214888,1.43152585,0.160817239,0.285849428,0.846489818,1.42017685
CSV

# Improvement over cuda: per repetition STP_v / STP_cuda of the same
# repetition; nss 1.384615, 1.41, 1.44 (geomean 1.411357, interval above
# 1: better); green 1.230769, 1.5, 1.44: [1.0687, 1.7957], better; its
# MTSpeedup 250/250, 264/220, 240/200 = 1, 1.2, 1.2: [0.869, 1.467], no
# difference. cuda against itself: exactly 1.
expect improvement <<'CSV'
programs,variant,workloads,stp,antt,mtspeedup_workloads,mtspeedup,stp_vs_cuda,antt_vs_cuda,mtspeedup_vs_cuda,stp_lo,stp_hi,antt_lo,antt_hi,mtspeedup_lo,mtspeedup_hi
2,cuda,1,1,1,1,1,no difference,no difference,no difference,1,1,1,1,1,1
2,nss,1,1.41135712,1.48054735,1,1.2164404,better,better,better,1.34419184,1.48187846,1.40392607,1.56135034,1.14726548,1.28978625
2,green,1,1.38529881,1.46122871,1,1.12924323,better,better,no difference,1.06872025,1.79565493,1.12220288,1.90267677,0.869409462,1.46673154
CSV

# The summary's geomeans are per repetition, then over the repetitions
# on the log scale: cuda exp(mean(log 1.3, log 1.3333, log 1.25)).
check_eq "summary: cuda's STP geomean and its interval" "1.29398935,1.19357268,1.40285418" \
	"$(table summary | awk -F, '$2 == "cuda" { print $4 "," $9 "," $10 }')"
check_match "Markdown: each value with its interval" \
	'^\| 2 \| cuda \| 1 \| 1\.29 \[1\.19, 1\.40\] \| 1\.29 \[1\.19, 1\.40\] \| 1\.63 \[1\.55, 1\.72\] \|' \
	"$("$GPUMIX" -q report "$db" --table summary)"
check_match "Markdown: \"no difference\" where the interval holds 1" \
	'^\| 2 \| green \| 1 \| 1\.39 \[1\.07, 1\.80\] .*\| better \| better \| no difference \|$' \
	"$("$GPUMIX" -q report "$db" --table improvement)"

# Program times: cuda's a took 200, 220, 180 us (s 20: +- 49.683), alone
# 100, 110, 90 (s 10: +- 24.841); T_SP/T_MP 0.5 every time: a zero-width
# interval.
check_eq "programs: cuda's a, paired alone times" \
	"a+b,cuda,a,6,0.2,0.1,0.5,a+b.single,3,0.150317,0.249683,0.0751586,0.124841,0.5,0.5" \
	"$(table programs | grep '^a+b,cuda,a,' | awk -F, -v OFS=, '{ for (i = 10; i <= 15; i++) $i = sprintf("%.6g", $i); print }')"

# The ranking ranks only what the intervals tell apart: green / nss per
# repetition 0.889, 1.0638, 1 ([0.78, 1.23]: a tie at rank 1), cuda
# below both (cuda / nss [0.675, 0.744]).
rank=$(table ranking)
check_eq "ranking: nss and green tie, cuda third" "nss 1|green 1|cuda 3" \
	"$(awk -F, 'NR > 1 { printf "%s%s %s", (NR > 2 ? "|" : ""), $3, $2 }' <<<"$rank")"
check_eq "ranking: each against the first" "(first)|no difference|worse" \
	"$(awk -F, 'NR > 1 { printf "%s%s", (NR > 2 ? "|" : ""), $15 }' <<<"$rank")"
check_eq "ranking: green / nss, paired" "0.981536697,0.782425185,1.23131809" \
	"$(awk -F, '$3 == "green" { print $14 "," $22 "," $23 }' <<<"$rank")"
check_match "ranking: the caption says ties share a rank" \
	"variants that cannot be told apart share a rank" \
	"$("$GPUMIX" -q report "$db" --table ranking)"

check_eq "paper: ours with its interval (cuda's STP geomean)" "1.29398935,1.19357268,1.40285418" \
	"$(table paper | awk -F, '$1 == "Table 4" && $3 == "cuda" && $4 == "STP geomean" { print $7 "," $10 "," $11 }')"

# The same interval from the database's intervals table.
check_eq "intervals table: cuda's STP, t" "3|1.2944444444|1.1902509531|1.3986379358" \
	"$(sqlite3 "$db" "SELECT n, printf('%.10f|%.10f|%.10f', mean, lo, hi) FROM intervals
	   WHERE workload = 'a+b' AND variant = 'cuda' AND metric = 'STP' AND method = 't'")"
check_eq "intervals table: t unless asked" "t" \
	"$(sqlite3 "$db" "SELECT DISTINCT method || coalesce(seed, '') FROM intervals")"
cp "$db" "$tmp/boot.db"
"$GPUMIX" -q analyze --ci bootstrap:5 "$study/a+b.cuda" -o "$tmp/boot.db"
check_eq "analyze --ci bootstrap:5: the table by the bootstrap, its seed recorded" "bootstrap5" \
	"$(sqlite3 "$tmp/boot.db" "SELECT DISTINCT method || seed FROM intervals")"
check_eq "... the report's bootstrap:5 intervals" \
	"$("$GPUMIX" -q report "$db" --ci bootstrap:5 --format csv --table workloads |
	   awk -F, '$3 == "cuda" { printf "%.6f %.6f", $9, $10 }')" \
	"$(sqlite3 "$tmp/boot.db" "SELECT printf('%.6f %.6f', lo, hi) FROM intervals
	   WHERE workload = 'a+b' AND variant = 'cuda' AND metric = 'STP'")"
"$GPUMIX" -q analyze --ci normal "$study/a+b.cuda" -o "$tmp/boot.db" >/dev/null 2>&1
check_eq "analyze --ci normal: usage error" 2 "$?"
check_eq "intervals table: nss's STP improvement across workloads" "1.41135712|1.34419184|1.48187846" \
	"$(sqlite3 "$db" "SELECT printf('%.8f|%.8f|%.8f', mean, lo, hi) FROM intervals
	   WHERE workload IS NULL AND variant = 'nss' AND metric = 'STP improvement' AND method = 't'")"

# Merged from two databases (repetition 0; repetitions 1 and 2), the
# repetitions stay apart and the intervals table is the same.
"$GPUMIX" -q analyze "$study"/a+b.{single,cuda,nss,green} -o "$tmp/r0.db" &&
"$GPUMIX" -q analyze "$study"/*.r[12] -o "$tmp/r12.db" &&
"$GPUMIX" -q analyze --merge "$tmp/r0.db" "$tmp/r12.db" -o "$tmp/merged.db"
check_eq "merge the repetitions" 0 "$?"
rows() { sqlite3 "$1" "SELECT * FROM intervals ORDER BY 1, 2, 3, 4, 5, 6"; }
check_eq "merged: the same intervals as loaded at once" "$(rows "$db")" "$(rows "$tmp/merged.db")"
check_eq "merged: the same workloads table" "$(table workloads)" \
	"$("$GPUMIX" -q report "$tmp/merged.db" --format csv --table workloads)"

# The bootstrap: the same seed, the same intervals; another method,
# other ones.
b1=$(table workloads --ci bootstrap:7)
b2=$(table workloads --ci bootstrap:7)
check_eq "bootstrap:7 twice: the same intervals" "$b1" "$b2"
check "bootstrap and t differ" test "$b1" != "$(table workloads)"
check_eq "bootstrap keeps the means" "$(table workloads | cut -d, -f1-8)" \
	"$(cut -d, -f1-8 <<<"$b1")"
"$GPUMIX" -q report "$db" --ci normal >/dev/null 2>&1
check_eq "--ci normal: usage error" 2 "$?"

# One repetition: no interval anywhere, the ranking by value, nothing
# breaks.
check_eq "one repetition: ranked by value" "nss 1 1|green 2 1|cuda 3 1" \
	"$("$GPUMIX" -q report "$tmp/r0.db" --format csv --table ranking |
	   awk -F, 'NR > 1 { printf "%s%s %s %s", (NR > 2 ? "|" : ""), $3, $2, $13 }')"
check_match "one repetition: n/a for the interval" '^\| 2 \| nss \| 1 \| 1\.38 \[n/a\] \|' \
	"$("$GPUMIX" -q report "$tmp/r0.db" --table improvement)"
check_eq "one repetition: the verdicts are n/a" "n/a,n/a,n/a" \
	"$("$GPUMIX" -q report "$tmp/r0.db" --format csv --table improvement | awk -F, '$2 == "nss" { print $8 "," $9 "," $10 }')"

# Noise: green's r1 replays of b took 150 and 290 us (CV 45%); cuda's
# r2 ended at 1500 MHz, thermally throttled.
out=$("$GPUMIX" report "$db" --table noise --format csv 2>&1 >"$tmp/noise.csv")
check_match "noise: a note for the spread" \
	"note: run 'a\+b\.green\.r1': the replay times of 'b' spread unusually \(CV 45\.0%; the study's median is 3\.7%\)" "$out"
check_eq "noise: the table marks it, and only it" "a+b,green,1,b,2,45.0,yes" \
	"$(awk -F, '$7 == "yes" { printf "%s,%s,%s,%s,%s,%.1f,%s\n", $1, $2, $3, $4, $5, $6, $7 }' "$tmp/noise.csv")"
check_match "gpu: throttling noted" \
	"note: run 'a\+b\.cuda\.r2': the GPU's clock was held down at its end \(sw_thermal\)" "$out"
check_match "gpu: the clock change noted" \
	"note: run 'a\+b\.cuda\.r2': the SM clock changed from 1980 MHz at its start to 1500 MHz at its end" "$out"
check_eq "gpu: the table's warning" "a+b,cuda,2,1980,1500,45,88,none,sw_thermal,\"throttled, clock changed, clock below the study's\"" \
	"$(table gpu | grep throttled)"
check_eq "gpu: the other runs are quiet" 11 "$(table gpu | awk -F, 'NR > 1 && $10 == ""' | wc -l | tr -d ' ')"

# --compare: B is the study with nss 30% slower in repetitions 0-2.
cp -r "$study" "$tmp/slow"
for d in "$tmp"/slow/a+b.nss*; do
	awk -F'\t' -v OFS='\t' 'NR > 1 { $4 = sprintf("%.0f", $3 + ($4 - $3) * 1.3) } { print }' \
		"$d/replays.tsv" >"$d/r" && mv "$d/r" "$d/replays.tsv"
done
"$GPUMIX" -q analyze "$tmp/slow" -o "$tmp/slow.db"
cmp=$("$GPUMIX" -q report --compare "$db" "$tmp/slow.db" --format csv --table compare-workloads)
check_eq "compare: the same cuda: no difference" "no difference,no difference" \
	"$(awk -F, '$3 == "cuda" { print $7 "," $11 }' <<<"$cmp")"
check_eq "compare: nss 30% slower: STP lower, ANTT higher" "0.769,B lower,1.300,B higher" \
	"$(awk -F, '$3 == "nss" { printf "%.3f,%s,%.3f,%s\n", $6, $7, $10, $11 }' <<<"$cmp")"
check_match "compare: across workloads too" "^2,nss,1,[0-9.]+,[0-9.]+,0\.769[0-9]*,B lower," \
	"$("$GPUMIX" -q report --compare "$db" "$tmp/slow.db" --format csv --table compare-summary)"
check_match "compare: A and B named in the caption" "A: \`.*rep\.db\`, B: \`.*slow\.db\`" \
	"$("$GPUMIX" -q report --compare "$db" "$tmp/slow.db")"
check_eq "compare: one repetition on a side: n/a" "n/a" \
	"$("$GPUMIX" -q report --compare "$tmp/r0.db" "$db" --format csv --table compare-workloads | awk -F, '$3 == "nss" { print $7 }')"
out=$("$GPUMIX" report --compare "$tmp/r0.db" "$tmp/r12.db" --format json 2>&1 >/dev/null)
check_eq "compare: pairs in both are compared, without a note" "" "$out"
"$GPUMIX" -q report --compare "$db" >/dev/null 2>&1
check_eq "compare with one database: usage error" 2 "$?"
"$GPUMIX" -q report --compare "$db" "$db" -o "$tmp/x" >/dev/null 2>&1
check_eq "compare with -o: usage error" 2 "$?"
"$GPUMIX" -q report --compare "$db" "$db" --table summary >/dev/null 2>&1
check_eq "compare with a report table: usage error" 2 "$?"

# Fig. 10 draws each workload's mean with its interval.
if command -v "${GPUMIX_GNUPLOT:-gnuplot}" >/dev/null; then
	"$GPUMIX" -q report "$db" -o "$tmp/rep" --no-timelines
	check_eq "Fig. 10: mean, lo, hi of cuda" "1 1.29444444 1.19025095 1.39863794" \
		"$(awk '/^# cuda$/ { on = 1; next } on && !/^#/ { print; exit }' "$tmp/rep/figures/fig10-stp.dat")"
	check_match "Fig. 10: drawn with error bars" "with yerrorlines" "$(cat "$tmp/rep/figures/fig10-stp.gp")"
else
	skip "Fig. 10 error bars: no gnuplot"
fi
done_testing
