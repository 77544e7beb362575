#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The block probe's and the driver calls' files through gpumix analyze and
# gpumix report, on the hand-written run tests/data/runs/good/probe/p+q.cuda
# (doc/database.md, "The block probe"): a device of 4 SMs, program p's
# kernel of 8 blocks in two waves (more blocks than fit at once), q's of 2
# blocks beside it, and q's kernel that was not probed. Every number below
# was computed by hand; the bad cases are in tests/data/runs/bad (probe-*,
# drivercalls-*, checked by analyze_corpus.sh).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
run=tests/data/runs/good/probe/p+q.cuda
db=$tmp/probe.db

for d in $run tests/data/runs/bad/probe-*; do
	[ -f "$d/probe.txt" ] || continue
	cp -r "$d" "$tmp/made"
	sh tests/data/runs/good/probe/make-probe.sh "$tmp/made"
	check "${d#tests/data/runs/}: probe.bin is what make-probe.sh writes from probe.txt" \
		cmp -s "$d/probe.bin" "$tmp/made/probe.bin"
	rm -rf "$tmp/made"
done

"$GPUMIX" -q analyze "$run" -o "$db"
check_eq "load the run" 0 "$?"
q() { sqlite3 "$db" "$1"; }
table() { "$GPUMIX" -q report "$db" --format csv --table "$1"; }
expect() { check_eq "$1" "$(cat)" "$(table "$1")"; }

# The clock: p's kernel starts at 10 us on CUPTI's clock and its first
# block at 5000010000 on the GPU's; q's likewise: an offset of
# 995000000000 ns.
check_eq "probe_runs: the clock offset and the counts" "995000000000|3|2|10" \
	"$(q 'SELECT clockOffset, launches, probedLaunches, blocks FROM probe_runs')"
check_eq "probe_blocks: a row per record, on CUPTI's clock" \
	"10|1000000010000|1000000050000" \
	"$(q 'SELECT count(*), min(start), max(end) FROM probe_blocks')"
check_eq "probe_blocks: p's last block, 2 us late on SM 3" "1|7|3|1000000032000|1000000050000" \
	"$(q "SELECT launch, block, sm, start, end FROM probe_blocks b JOIN programs p
		ON p.id = b.programId WHERE p.name = 'p' AND block = 7")"
check_eq "probe_launches: the one not probed, with why" "3|0|a reason of the transformer" \
	"$(q 'SELECT seq, records, notProbed FROM probe_launches WHERE notProbed IS NOT NULL')"
check_eq "probe_launches: joined to its kernel by correlation id" "_Z2kqPf|20000" \
	"$(q 'SELECT s.value, k.end - k.start FROM probe_launches l JOIN StringIds s
		ON s.id = l.mangledName JOIN CUPTI_ACTIVITY_KIND_KERNEL k
		ON k.runId = l.runId AND k.correlationId = l.correlationId WHERE l.seq = 2')"

# Window [0, 100) us (q's last replay ends at 100 us), 4 SMs: 400 us of
# SM-time. p holds 40 + 40 + 40 + 38 = 158 (39.5%), q 20 + 10 = 30
# (7.5%); both on one SM: SM 2 [20, 40) and SM 3 [25, 30) [32, 35), 28
# (7%); busy 160 (40%).
expect probe-sm <<'CSV'
workload,variant,program,sm_time_pct,shared_with_another_program_pct,sms,busy_pct,idle_pct,window_ms
p+q,cuda,p,39.5,7,4,40,60,0.1
p+q,cuda,q,7.5,7,2,40,60,0.1
CSV
# p's launch call at 0: first block 10 us, last 32 us, 4 SMs; q's at 5
# us: 20 and 25 us, 2 SMs; q's second kernel not probed.
expect probe-kernels <<'CSV'
workload,variant,program,kernel,launches,probed,launch_to_first_block_ms,launch_to_last_block_ms,sms_mean,sms_min,not_probed_because
p+q,cuda,p,kp,1,1,0.01,0.032,4,4,
p+q,cuda,q,kq,1,1,0.015,0.02,2,2,
p+q,cuda,q,kr,1,0,,,,,a reason of the transformer
CSV
# p's kernel waits 10 us: its copy before it in stream 7 ended at 8 us
# (8 queued behind its own stream, 2 waiting for SMs); q's wait 15 and 5
# us, their stream idle: 10 waiting for SMs on average.
expect waiting-split <<'CSV'
workload,variant,program,kernels,waiting_ms,queued_behind_its_own_stream_ms,waiting_for_sms_ms
p+q,cuda,p,1,0.01,0.008,0.002
p+q,cuda,q,2,0.01,0,0.01
CSV
# The timed part's calls only (p's module load is setup), longest first.
expect drivercalls <<'CSV'
workload,variant,program,call,kind,calls,total_ms,mean_us,max_ms
p+q,cuda,p,cuLaunchKernel,launch,1,0.003,3,0.003
p+q,cuda,q,cuTexObjectCreate,texture,2,205.003,102501.5,205
CSV
check_eq "drivercalls: both phases stored" "replay|2 setup|1" \
	"$(q 'SELECT phase, count(*) FROM drivercalls GROUP BY phase ORDER BY phase' | tr '\n' ' ' | sed 's/ $//')"
check_eq "drivercalls_slow: the slow call" "cuTexObjectCreate|texture|205000000" \
	"$(q 'SELECT s.value, d.kind, d.end - d.start FROM drivercalls_slow d JOIN StringIds s ON s.id = d.nameId')"

# Loaded again with --force: replaced, not doubled; merged: copied.
"$GPUMIX" -q analyze --force "$run" -o "$db"
check_eq "--force: the rows replaced, not doubled" "1|3|10|3|1" \
	"$(q 'SELECT (SELECT count(*) FROM probe_runs), (SELECT count(*) FROM probe_launches),
		(SELECT count(*) FROM probe_blocks), (SELECT count(*) FROM drivercalls),
		(SELECT count(*) FROM drivercalls_slow)')"
"$GPUMIX" -q analyze tests/data/runs/good/study -o "$tmp/study.db"
"$GPUMIX" -q analyze --merge "$tmp/study.db" "$db" -o "$tmp/merged.db"
check_eq "--merge: the probe's rows follow their run" "1|3|10|3|p+q" \
	"$(sqlite3 "$tmp/merged.db" "SELECT (SELECT count(*) FROM probe_runs), (SELECT count(*) FROM probe_launches),
		(SELECT count(*) FROM probe_blocks), (SELECT count(*) FROM drivercalls),
		(SELECT w.name FROM probe_runs p JOIN runs r ON r.id = p.runId JOIN workloads w ON w.id = r.workloadId)")"
check_eq "--merge: the same SM-time" "$(table probe-sm)" \
	"$("$GPUMIX" -q report "$tmp/merged.db" --format csv --table probe-sm)"
# The report: an SM occupancy figure (with gnuplot) and SM tracks in the
# run's timeline: 7 slices, the segments of the example (SMs 0-2 one of
# p's each, SM 3 two of p's around q's, SM 2 one of q's).
if have_gnuplot; then
	"$GPUMIX" -q report "$db" -o "$tmp/rep"
	check_eq "report: the SM occupancy figure and its data" \
		"probe-sm-p+q.cuda-1.dat probe-sm-p+q.cuda-1.gp probe-sm-p+q.cuda-1.png probe-sm-p+q.cuda-1.svg" \
		"$(cd "$tmp/rep/figures" && ls probe-sm-* | tr '\n' ' ' | sed 's/ $//')"
	check_eq "report: its bars, ms from the window's start" \
		"0.010000 0.050000 0|0.010000 0.050000 1|0.010000 0.050000 2|0.010000 0.030000 3|0.032000 0.050000 3|0.020000 0.040000 2|0.025000 0.035000 3" \
		"$(grep -v '^#' "$tmp/rep/figures/probe-sm-p+q.cuda-1.dat" | grep . | tr '\n' '|' | sed 's/|$//')"
	check_match "index.md shows it" "Who held the SMs in p\+q\.cuda \(block probe\)" \
		"$(cat "$tmp/rep/index.md")"
else
	"$GPUMIX" -q report --no-figures "$db" -o "$tmp/rep"
	skip "gnuplot is not installed: no SM occupancy figure"
fi
tl=$tmp/rep/timelines/p+q.cuda.json
check_eq "timeline: a track per SM and program in the probe's process" \
	"SM 0 p,SM 0 q,SM 1 p,SM 1 q,SM 2 p,SM 2 q,SM 3 p,SM 3 q" \
	"$(grep -o '"name":"SM [0-9]* [pq]"' "$tl" | sed 's/"name":"//; s/"$//' | tr '\n' ',' | sed 's/,$//')"
if command -v python3 >/dev/null; then
	check "timeline: well-formed (tests/tools/check_timeline.py)" \
		python3 tests/tools/check_timeline.py "$tl"
fi
check_eq "timeline: 7 SM slices, 5 of p and 2 of q" "5 2" \
	"$(grep -o '"cat":"probe","name":"p"' "$tl" | wc -l) $(grep -o '"cat":"probe","name":"q"' "$tl" | wc -l)"
check_match "timeline: q's on SM 3 from 25 to 35 us" \
	'"ph":"X","pid":3,"tid":8,"cat":"probe","name":"q","ts":25(\.0+)?,"dur":10(\.0+)?' "$(cat "$tl")"
check_match "index.md counts them" "7 SM track slices \(block probe\)" "$(cat "$tmp/rep/index.md")"
done_testing
