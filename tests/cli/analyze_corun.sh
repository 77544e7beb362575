#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Co-runs in the database and the report (doc/database.md, "Co-runs"):
# the committed corun directory tests/data/runs/good/corun/x+y.corun
# (native sections written by hand) and the one-shot and repeated replays
# of x+y beside it load into coruns and corun_sections; the corun table
# puts each program's native slowdown beside its replayed one, their
# ratio, and flags the rows more than 5% apart (hand-computed below); the
# one-shot runs take their alone times from the one-shot single run, the
# others from the repeated one; loading again, another co-run of the
# workload, a failed co-run and merging.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
D=tests/data/runs/good/corun
db=$tmp/c.db
q() { db_query "$db" "$1"; }

out=$("$GPUMIX" analyze "$D" -o "$db" 2>&1)
check_eq "the co-run and the runs load" 0 "$?"
check_match "... counted with the runs" "^analyze: 6 runs loaded" "$out"
check_eq "one co-run, its workload shared with the runs" \
	"x+y|3|procs,mps|ok|NVIDIA H100 80GB HBM3|1" \
	"$(q "SELECT w.name, c.repeats, c.mechanisms, c.status, c.deviceName,
		(SELECT count(*) FROM workloads) FROM coruns c
		JOIN workloads w ON w.id = c.workloadId")"
check_eq "its 18 sections: 2 programs x 3 runs x (alone, procs, mps)" 18 \
	"$(q "SELECT count(*) FROM corun_sections")"
check_eq "... each program's by index and name" "alone|0|1|y|200000" \
	"$(q "SELECT mode, repeat, idx, program, end - start FROM corun_sections
		WHERE program = 'y' ORDER BY mode, repeat LIMIT 1")"
check_eq "the one-shot runs are marked" \
	"x+y.mps|0
x+y.mps.one-shot|1
x+y.procs.one-shot|1
x+y.single|0
x+y.single.one-shot|1" \
	"$(q "SELECT substr(path, length('$D') + 2), oneShot FROM runs ORDER BY path")"

# Native (alone x 100 us, y 200 us): procs x 150, 160, 170 -> 1.5, 1.6,
# 1.7: mean 1.6, sd 0.1; y 220 -> 1.1; mps x 120 -> 1.2, y 210 -> 1.05.
# Replayed (one-shot, alone x 100, y 200): procs x 163.2 -> 1.632, ratio
# 1.02; y 242 -> 1.21, ratio 1.1 (differs); mps x 120 -> 1.2, ratio 1; y
# 190 -> 0.95, ratio 0.904761905 (differs).
check_eq "the corun table, hand-computed" \
	"workload,mechanism,program,native_slowdown,sd,runs,replayed_slowdown,replays,replayed_native,differs_5_pct
x+y,procs,x,1.6,0.1,3,1.632,1,1.02,no
x+y,procs,y,1.1,0,3,1.21,1,1.1,yes
x+y,mps,x,1.2,0,3,1.2,1,1,no
x+y,mps,y,1.05,0,3,0.95,1,0.904761905,yes" \
	"$("$GPUMIX" -q report "$db" --format csv --table corun)"
check_match "its caption counts the rows that differ" \
	"2 of 4 rows, in 1 workload, differ by more than 5%" \
	"$("$GPUMIX" -q report "$db" --table corun)"
# One-shot runs against the one-shot single (x 100, y 200), repeated
# runs against the repeated single (x 110, y 220).
check_eq "alone times: one-shot from one-shot, repeated from repeated" \
	"x+y,mps,x,2,0.165,0.11,0.666666667,x+y.single,1,,,,,,
x+y,mps,y,2,0.44,0.22,0.5,x+y.single,1,,,,,,
x+y,mps+one-shot,x,1,0.12,0.1,0.833333333,x+y.single.one-shot,1,,,,,,
x+y,mps+one-shot,y,1,0.19,0.2,1.05263158,x+y.single.one-shot,1,,,,,," \
	"$("$GPUMIX" -q report "$db" --format csv --table programs | grep '^x+y,mps')"
check_match "one-shot runs have labels of their own, after their variant's" \
	"^2,mps,.*
2,mps\+one-shot," "$("$GPUMIX" -q report "$db" --format csv --table summary)"
"$GPUMIX" -q report "$db" -o "$tmp/rep" --no-figures
check "the report directory has the corun table" test -s "$tmp/rep/tables/corun.csv"
check "... shown in its index" grep -q '^## Native and replayed slowdowns' "$tmp/rep/index.md"

# Identity.
out=$("$GPUMIX" analyze "$D/x+y.corun" -o "$db" 2>&1)
check_eq "loading the co-run again changes nothing" 0 "$?"
check_match "... it is skipped" "x\+y.corun.*already" "$out"
check_eq "... one co-run" 1 "$(q "SELECT count(*) FROM coruns")"
cp -r "$D/x+y.corun" "$tmp/other.corun"
sed -i 's/^finished_at = .*/finished_at = 2025-01-02T00:00:00Z/' "$tmp/other.corun/manifest"
err=$("$GPUMIX" -q analyze "$tmp/other.corun" -o "$db" 2>&1 >/dev/null)
check_eq "another co-run of the workload is refused" 1 "$?"
check_match "... saying which" \
	"already holds another co-run 'x\+y.corun' \(loaded from '$D/x\+y.corun'\)" "$err"
"$GPUMIX" -q analyze --force "$tmp/other.corun" -o "$db" >/dev/null 2>&1
check_eq "--force replaces it" "$tmp/other.corun|18" \
	"$(q "SELECT path, (SELECT count(*) FROM corun_sections) FROM coruns")"

# A failed co-run: the runs measured before its failure count, with a note.
cp -r "$D/x+y.corun" "$tmp/failed.corun"
sed -i 's/^status = ok/status = failed\nfailure = program '"'y'"' failed (together under mps, repeat 1): exit status 3/' \
	"$tmp/failed.corun/manifest"
grep -v '^mps	[12]	' "$D/x+y.corun/sections.tsv" >"$tmp/failed.corun/sections.tsv"
"$GPUMIX" -q analyze --force "$tmp/failed.corun" -o "$db" >/dev/null 2>&1
out=$("$GPUMIX" report "$db" --format csv --table corun 2>&1)
check_match "a failed co-run is noted" \
	"co-run of 'x\+y' failed \(program 'y' failed \(together under mps, repeat 1\): exit status 3\)" "$out"
check_match "... and its measured runs still give slowdowns (mps: 1 run)" \
	"^x\+y,mps,x,1.2,,1,1.2,1,1,no$" "$out"

# Merging: a co-run once, by hash, and a conflicting one refused.
"$GPUMIX" -q analyze "$D" -o "$tmp/a.db" >/dev/null 2>&1
"$GPUMIX" -q analyze "$D/x+y.corun" -o "$tmp/b.db" >/dev/null 2>&1
"$GPUMIX" -q analyze --merge "$tmp/a.db" "$tmp/b.db" -o "$tmp/m.db" >/dev/null 2>&1
check_eq "merge: the co-run once, with its sections" "1|18|5" \
	"$(db_query "$tmp/m.db" "SELECT (SELECT count(*) FROM coruns),
		(SELECT count(*) FROM corun_sections), (SELECT count(*) FROM runs)")"
check_eq "... the same table" \
	"$("$GPUMIX" -q report "$tmp/a.db" --format csv --table corun)" \
	"$("$GPUMIX" -q report "$tmp/m.db" --format csv --table corun)"
"$GPUMIX" -q analyze "$tmp/other.corun" -o "$tmp/o.db" >/dev/null 2>&1
err=$("$GPUMIX" -q analyze --merge "$tmp/a.db" "$tmp/o.db" -o "$tmp/m2.db" 2>&1)
check_eq "merge: another co-run of the workload is refused" 1 "$?"
check_match "... naming both" "holds another co-run of 'x\+y' \(loaded from '$tmp/other.corun'\)" "$err"

# A second repetition of the co-run (a study's repeats): its runs pool
# with the first's, each against its own alone sections (x alone 200
# there, procs 300, 320, 340: 1.5, 1.6, 1.7 again).
cp -r "$D/x+y.corun" "$tmp/r1.corun"
printf 'run.repetition = 1\n' >>"$tmp/r1.corun/manifest"
awk -F'\t' -v OFS='\t' 'NR > 1 && $3 == "x" { $5 = sprintf("%.0f", $4 + 2 * ($5 - $4)) } { print }' \
	"$D/x+y.corun/sections.tsv" >"$tmp/r1.corun/sections.tsv"
db=$tmp/reps.db
"$GPUMIX" -q analyze "$D" -o "$db" >/dev/null 2>&1
out=$("$GPUMIX" -v analyze "$tmp/r1.corun" -o "$db" 2>&1)
check_eq "a second repetition loads beside the first" "0|2" \
	"$?|$(q "SELECT count(*) FROM coruns")"
check_match "... as x+y.corun.r1" "\(x\+y.corun.r1\): 18 GPU sections" "$out"
# six ratios 1.5, 1.6, 1.7, 1.5, 1.6, 1.7: mean 1.6, sd sqrt(0.04/5)
check_match "its runs pool with the first's" "^x\+y,procs,x,1.6,0.0894427191,6,1.632,1,1.02,no$" \
	"$("$GPUMIX" -q report "$db" --format csv --table corun)"
"$GPUMIX" -q analyze "$D/x+y.corun" -o "$tmp/r1.db" >/dev/null 2>&1
cp -r "$tmp/r1.corun" "$tmp/r1b.corun"
sed -i 's/^finished_at = .*/finished_at = 2025-01-03T00:00:00Z/' "$tmp/r1b.corun/manifest"
"$GPUMIX" -q analyze "$tmp/r1.corun" -o "$tmp/r1.db" >/dev/null 2>&1
"$GPUMIX" -q analyze "$tmp/r1b.corun" -o "$tmp/r1b.db" >/dev/null 2>&1
err=$("$GPUMIX" -q analyze --merge "$tmp/r1.db" "$tmp/r1b.db" -o "$tmp/r1m.db" 2>&1)
check_eq "merge: another co-run of the same repetition is refused" 1 "$?"
"$GPUMIX" -q analyze "$tmp/other.corun" -o "$tmp/o1.db" >/dev/null 2>&1
"$GPUMIX" -q analyze --merge "$tmp/r1b.db" "$tmp/o1.db" -o "$tmp/r1n.db" >/dev/null 2>&1
check_eq "... of another repetition, kept apart" 2 \
	"$(db_query "$tmp/r1n.db" "SELECT count(*) FROM coruns")"

# No co-run: the table says how to get one.
"$GPUMIX" -q analyze tests/data/runs/good/study -o "$tmp/s.db" >/dev/null 2>&1
check_match "without co-runs the table says how to make one" \
	"No co-runs in the database: .gpumix corun." \
	"$("$GPUMIX" -q report "$tmp/s.db" --table corun)"
done_testing
