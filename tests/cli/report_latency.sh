#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The latency tables and figure on the hand-computed study
# tests/data/runs/good/latency (doc/database.md, "Latency"): workload x+y
# under single, cuda and priority (x at the high priority), five kept
# replays and one discarded per program. Every number below was computed
# by hand; the percentiles are linear interpolation between closest ranks
# (h = (n-1)p/100), and several of them differ from nearest-rank ones.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
db=$tmp/latency.db
"$GPUMIX" -q analyze tests/data/runs/good/latency -o "$db"
check_eq "load the study" 0 "$?"
check_eq "the manifest's priority.program is stored" "x+y.priority x" \
	"$(sqlite3 -separator ' ' "$db" "SELECT w.name || '.' || r.variant, p.name
	   FROM programs p JOIN runs r ON r.id = p.runId
	   JOIN workloads w ON w.id = r.workloadId WHERE p.highPriority = 1")"

table() { "$GPUMIX" -q report "$db" --format csv --table "$1"; }
expect() { check_eq "$1" "$(cat)" "$(table "$1")"; }

# x alone: 100 100 100 100 120 (us, sorted; the discarded 500 left out):
#   p95: h = 4 x 0.95 = 3.8 -> 100 + 0.8 x 20 = 116 (nearest rank: 120);
#   p99: h = 3.96 -> 119.2. y alone: 210 - 10 (I/O) and 200 x 4: 200.
# x under cuda: 100 200 300 400 500 (written unsorted; discarded 2000):
#   p50 300, p95 400 + 0.8 x 100 = 480 (nearest rank: 500), p99 496;
#   slowdowns 300/100 = 3, 480/116 = 4.13793103, 496/119.2 = 4.16107383.
# y under cuda: 200 200 220 240 400: p50 220, p95 240 + 0.8 x 160 = 368,
#   p99 393.6; slowdowns 1.1, 1.84, 1.968.
# x under priority (high): 110 ... 150: 130, 148, 149.6; slowdowns 1.3,
#   148/116 = 1.27586207, 149.6/119.2 = 1.25503356.
# y under priority: 300 400 500 600 1000: 500, 600 + 0.8 x 400 = 920,
#   984; slowdowns 2.5, 4.6, 4.92.
expect latency-runs <<'CSV'
workload,variant,program,priority,kept_replays,p50_ms,p95_ms,p99_ms,p50_slowdown,p95_slowdown,p99_slowdown,alone_time_from,repetitions,p50_ms_lo,p50_ms_hi,p95_ms_lo,p95_ms_hi,p99_ms_lo,p99_ms_hi,p50_slowdown_lo,p50_slowdown_hi,p95_slowdown_lo,p95_slowdown_hi,p99_slowdown_lo,p99_slowdown_hi
x+y,single,x,,5,0.1,0.116,0.1192,1,1,1,x+y.single,1,,,,,,,,,,,,
x+y,single,y,,5,0.2,0.2,0.2,1,1,1,x+y.single,1,,,,,,,,,,,,
x+y,cuda,x,,5,0.3,0.48,0.496,3,4.13793103,4.16107383,x+y.single,1,,,,,,,,,,,,
x+y,cuda,y,,5,0.22,0.368,0.3936,1.1,1.84,1.968,x+y.single,1,,,,,,,,,,,,
x+y,priority,x,high,5,0.13,0.148,0.1496,1.3,1.27586207,1.25503356,x+y.single,1,,,,,,,,,,,,
x+y,priority,y,,5,0.5,0.92,0.984,2.5,4.6,4.92,x+y.single,1,,,,,,,,,,,,
CSV
# cuda: p50 geomean sqrt(3 x 1.1) = 1.81659021, p99 sqrt(4.16107383 x
# 1.968) = 2.86164171, worst x (4.16). priority: sqrt(1.3 x 2.5) =
# 1.80277564, sqrt(1.25503356 x 4.92) = 2.48490746, worst y (4.92); its
# high-priority program x: 1.25503356, the other (y) 4.92, and x under
# cuda 4.16107383.
expect latency <<'CSV'
programs,variant,program_runs,p50_slowdown_geomean,p99_slowdown_geomean,p99_slowdown_worst,worst_in,high_priority_runs,high_priority_p99_slowdown_geomean,high_priority_p99_slowdown_worst,others_p99_slowdown_geomean,high_priority_programs_under_cuda,their_p99_slowdown_geomean_under_cuda,p50_slowdown_geomean_lo,p50_slowdown_geomean_hi,p99_slowdown_geomean_lo,p99_slowdown_geomean_hi
2,cuda,2,1.81659021,2.86164171,4.16107383,x+y.cuda: x,0,,,,0,,,,,
2,priority,2,1.80277564,2.48490746,4.92,x+y.priority: y,1,1.25503356,1.25503356,4.92,1,4.16107383,,,,
CSV

# The report directory: both tables, the summary inline, the figure with
# one series per variant and one for the high-priority programs.
out=$("$GPUMIX" -q report "$db" -o "$tmp/rep" 2>&1)
check_eq "report -o: exit 0" 0 "$?"
for t in latency latency-runs; do
	check "table $t: Markdown and CSV" test -s "$tmp/rep/tables/$t.md" -a \
		-s "$tmp/rep/tables/$t.csv"
done
check_match "index shows the latency table inline" \
	"^## Latency: replay-time slowdown per variant" "$(cat "$tmp/rep/index.md")"
check "latency-p99.png drawn" test -s "$tmp/rep/figures/latency-p99.png"
check "latency-p99.svg drawn" grep -q '</svg>' "$tmp/rep/figures/latency-p99.svg"
check_eq "latency-p99.dat: sorted p99 slowdowns per series" \
"# cuda
1 1.968
2 4.16107383


# priority
1 1.25503356
2 4.92


# priority (high-priority programs)
1 1.25503356" "$(cat "$tmp/rep/figures/latency-p99.dat")"

# A priority.program that names no program of the run is refused.
bad=$tmp/bad-priority
cp -r tests/data/runs/good/latency/x+y.priority "$bad"
sed -i 's/^priority.program = x$/priority.program = z/' "$bad/manifest"
err=$("$GPUMIX" -q analyze "$bad" -o "$tmp/bad.db" 2>&1)
check_eq "unknown priority.program: exit 1" 1 "$?"
check_match "... named" "'priority.program' is 'z', which is not a program of the run" "$err"

# No single run: the percentiles are there, the slowdowns n/a.
"$GPUMIX" -q analyze tests/data/runs/good/latency/x+y.cuda -o "$tmp/nosingle.db"
check_eq "no baseline: percentiles without slowdowns" \
"workload,variant,program,priority,kept_replays,p50_ms,p95_ms,p99_ms,p50_slowdown,p95_slowdown,p99_slowdown,alone_time_from,repetitions,p50_ms_lo,p50_ms_hi,p95_ms_lo,p95_ms_hi,p99_ms_lo,p99_ms_hi,p50_slowdown_lo,p50_slowdown_hi,p95_slowdown_lo,p95_slowdown_hi,p99_slowdown_lo,p99_slowdown_hi
x+y,cuda,x,,5,0.3,0.48,0.496,,,,,1,,,,,,,,,,,,
x+y,cuda,y,,5,0.22,0.368,0.3936,,,,,1,,,,,,,,,,,," \
	"$("$GPUMIX" -q report "$tmp/nosingle.db" --format csv --table latency-runs)"
# End to end on the CUDA mock: runs the replay runtime wrote (the
# priority variant names its high-priority program in the manifest) reach
# the latency tables; every kept replay counts, the discarded one not.
GEN=$GPUMIX_BUILD/tests/gen-workload
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$GEN" tiny --fatbin "$GPUMIX_TOP/tests/data/codegen/dummy.fatbin" -o "$tmp/wl" 2>/dev/null
for v in single cuda priority; do
	"$GPUMIX" -q replay --variant "$v" --min-replays 4 -o "$tmp/runs/$v" "$tmp/wl" 2>/dev/null
	check_eq "mock: $v replays" 0 "$?"
done
"$GPUMIX" -q replay --variant priority --high-priority scale-b --min-replays 4 \
	-o "$tmp/runs-b/priority" "$tmp/wl" 2>/dev/null
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/mock.db" &&
"$GPUMIX" -q analyze "$tmp/runs-b" -o "$tmp/mock-b.db"
check_eq "mock: analyze" 0 "$?"
csv=$("$GPUMIX" -q report "$tmp/mock.db" --format csv --table latency-runs)
check_eq "mock: the first program is the high-priority one, in the priority run only" \
	"scale-a+scale-b,priority,scale-a" \
	"$(awk -F, '$4 == "high" { print $1 "," $2 "," $3 }' <<<"$csv")"
kept() { awk -F'\t' -v p="$2" 'NR > 1 && $1 == p && $6 == 1' "$1/replays.tsv" | wc -l; }
for v in single cuda priority; do
	for p in scale-a scale-b; do
		check_eq "mock: $v $p: its kept replays" "$(kept "$tmp/runs/$v" "$p")" \
			"$(awk -F, -v v="$v" -v p="$p" '$2 == v && $3 == p { print $5 }' <<<"$csv")"
	done
done
check_match "mock: the priority row has one high-priority program and its time under cuda" \
	"^2,priority,2,[0-9.]+,[0-9.]+,[0-9.]+,[^,]+,1,[0-9.]+,[0-9.]+,[0-9.]+,1,[0-9.]+,,,,$" \
	"$("$GPUMIX" -q report "$tmp/mock.db" --format csv --table latency)"
check_eq "mock: --high-priority scale-b is the one stored" scale-b \
	"$(sqlite3 "$tmp/mock-b.db" "SELECT name FROM programs WHERE highPriority = 1")"
done_testing
