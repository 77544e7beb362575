#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix analyze: loading is idempotent (same run skipped, --force
# reloads), one run per workload/variant/policy (another is refused,
# --force replaces it), databases of other schema versions or other
# programs are refused with a clear message, usage errors exit 2.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
study=tests/data/runs/good/study
db=$tmp/r.db

q() { sqlite3 "$db" "$1"; }

out=$("$GPUMIX" analyze "$study" -o "$db" 2>&1)
check_eq "load a study directory: exit 0" 0 "$?"
check_match "one-line summary" \
	"^analyze: 5 runs loaded, 17 kernels, 35 records, into .*r\.db in [0-9.]+ s$" "$out"
check_eq "5 runs" 5 "$(q 'SELECT count(*) FROM runs')"
check_eq "schema version" 17 "$(q 'PRAGMA user_version')"
check_eq "which code each run ran, its timeslice and copy chunk (absent: off, NULL)" \
	"a+b.cuda|off|| a+b.nss|off||0 a+c.elastic|policy|1000.0|4194304" \
	"$(q "SELECT w.name || '.' || r.variant, r.elastic, r.timesliceUs, r.copyChunk
	      FROM runs r JOIN workloads w ON w.id = r.workloadId
	      WHERE r.variant != 'single' AND w.name || r.variant != 'a+ccuda'
	      ORDER BY w.name, r.variant" | tr '\n' ' ' | sed 's/ $//')"
check_eq "application id" 1735227441 "$(q 'PRAGMA application_id')"
# Where a run ran: its manifest's hostname and device.visible (the GPU a
# study pinned it to), NULL when absent; the report's runs table shows them.
cp -r "$study" "$tmp/where"
printf 'hostname = node7\ndevice.visible = GPU-5a3c1d2e-1111\n' >>"$tmp/where/a+b.cuda/manifest"
printf 'hostname = node8\n' >>"$tmp/where/a+b.nss/manifest"
"$GPUMIX" -q analyze "$tmp/where" -o "$tmp/where.db" 2>&1
# Captured host time: each program's, as its manifest says; a run made
# before host time was replayed has none (NULL).
cp -r "$study" "$tmp/host"
printf '%s\n' "host_time = captured" "max_host_gap_s = 1.5" \
	"program.0.host_time = captured" "program.0.host_gaps = 12" \
	"program.0.host_gap_s = 0.432000" "program.0.host_error_us_median = 3.500" \
	"program.0.host_error_us_p99 = 40.250" "program.0.host_error_us_max = 120.000" \
	"program.0.host_order_late = 2" "program.0.host_order_late_s = 0.010000" \
	"program.1.host_time = none" >>"$tmp/host/a+b.cuda/manifest"
"$GPUMIX" -q analyze "$tmp/host" -o "$tmp/host.db" 2>&1
check_eq "programs.host*: from each program's manifest keys (absent: NULL)" \
	"a+b.cuda|0|captured|1.5|12|0.432|3.5|40.25|120.0|2|0.01 a+b.cuda|1|none|1.5||||||| a+b.nss|0|||||||||" \
	"$(sqlite3 "$tmp/host.db" "SELECT w.name || '.' || r.variant, p.idx, p.hostTime,
		p.maxHostGap, p.hostGapCount, p.hostGapTime, p.hostErrorMedianUs, p.hostErrorP99Us,
		p.hostErrorMaxUs, p.hostOrderLateCount, p.hostOrderLateTime
	      FROM programs p JOIN runs r ON r.id = p.runId JOIN workloads w ON w.id = r.workloadId
	      WHERE w.name = 'a+b' AND r.variant IN ('cuda', 'nss') AND p.idx < 2
	      ORDER BY r.variant, p.idx LIMIT 3" | tr '\n' ' ' | sed 's/ $//')"
check_eq "hostname and gpu from the manifest (absent: NULL)" \
	"a+b.cuda|node7|GPU-5a3c1d2e-1111 a+b.nss|node8| a+b.single||" \
	"$(sqlite3 "$tmp/where.db" "SELECT w.name || '.' || r.variant, r.hostname, r.gpu
	      FROM runs r JOIN workloads w ON w.id = r.workloadId
	      WHERE w.name = 'a+b' ORDER BY r.variant" | tr '\n' ' ' | sed 's/ $//')"
"$GPUMIX" -q report --no-figures -o "$tmp/where-report" "$tmp/where.db" >/dev/null 2>&1
check_match "the report's runs table: host and gpu, - when absent" \
	"^a\+b\.cuda,ok,[^,]*,node7,GPU-5a3c1d2e-1111,2,.*
a\+b\.nss,ok,[^,]*,node8,-,2," \
	"$(grep '^a+b\.' "$tmp/where-report/tables/runs.csv" | sort)"
check_eq "2 workloads" "a+b|2 a+c|2" \
	"$(q 'SELECT name, programCount FROM workloads ORDER BY name' | tr '\n' ' ' | sed 's/ $//')"
check_eq "names are StringIds" "kernelA|kernelA(float*)|_Z7kernelAPf" \
	"$(q "SELECT s.value, d.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k
	      JOIN StringIds s ON s.id = k.shortName JOIN StringIds d ON d.id = k.demangledName
	      JOIN StringIds m ON m.id = k.mangledName LIMIT 1")"
check_eq "copies keep CUPTI's copyKind" "1|Host-to-Device" \
	"$(q 'SELECT m.copyKind, e.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m
	      JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind')"
check_eq "launch calls join kernels on correlationId" 16 \
	"$(q 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME a
	      ON a.runId = k.runId AND a.correlationId = k.correlationId')"

out=$("$GPUMIX" analyze "$study" -o "$db" 2>&1)
check_eq "reload: exit 0" 0 "$?"
check_match "reload: skipped with a note" \
	"note: 'tests/data/runs/good/study/a\+b.cuda' \(a\+b.cuda\) is already in .*; skipped \(--force reloads it\)" "$out"
check_match "reload: summary says so" "0 runs loaded.*; 5 already loaded$" "$out"
check_eq "reload: still 5 runs" 5 "$(q 'SELECT count(*) FROM runs')"
check_eq "reload: still 17 kernels" 17 "$(q 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL')"

out=$("$GPUMIX" analyze --force "$study/a+b.cuda" -o "$db" 2>&1)
check_eq "--force reload: exit 0" 0 "$?"
check_match "--force reload: replaced" "replaced the run loaded from" "$out"
check_eq "--force reload: still 17 kernels" 17 \
	"$(q 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL')"

# Another run of the same workload, variant and policy.
cp -r "$study/a+b.cuda" "$tmp/rerun"
sed -i 's/^finished_at = .*/finished_at = 2025-01-02T00:00:00Z/' "$tmp/rerun/manifest"
out=$("$GPUMIX" analyze "$tmp/rerun" -o "$db" 2>&1)
check_eq "another run of a+b.cuda: exit 1" 1 "$?"
check_match "another run: refused with the old path" \
	"error: cannot load run '.*rerun' \(nothing of it was loaded\)
  caused by: the database already holds another run of 'a\+b.cuda' \(loaded from 'tests/data/runs/good/study/a\+b.cuda'\)
hint: use --force to replace it" "$out"
"$GPUMIX" -q analyze -f "$tmp/rerun" -o "$db"
check_eq "--force replaces it: exit 0" 0 "$?"
check_eq "--force replaces it: still 5 runs" 5 "$(q 'SELECT count(*) FROM runs')"
check_eq "--force replaces it: new path" "$tmp/rerun" \
	"$(q "SELECT path FROM runs WHERE variant = 'cuda' AND workloadId =
	      (SELECT id FROM workloads WHERE name = 'a+b')")"
check_eq "--force replaces it: no orphan kernels" 17 \
	"$(q 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN runs r ON r.id = k.runId')"

# A repetition of a run is another run: it loads beside it, and only
# another run of the same repetition is refused.
rdb=$tmp/rep.db
"$GPUMIX" -q analyze "$study" -o "$rdb"
cp -r "$study/a+b.cuda" "$tmp/rep1"
sed -i 's/^finished_at = .*/finished_at = 2025-01-03T00:00:00Z/' "$tmp/rep1/manifest"
echo "run.repetition = 1" >>"$tmp/rep1/manifest"
out=$("$GPUMIX" -v analyze "$tmp/rep1" -o "$rdb" 2>&1)
check_eq "repetition 1 of a+b.cuda: exit 0" 0 "$?"
check_match "repetition 1: labelled .r1" "loaded '.*rep1' \(a\+b\.cuda\.r1\)" "$out"
check_eq "repetition 1: beside repetition 0" "0 1" \
	"$(sqlite3 "$rdb" "SELECT group_concat(repetition, ' ') FROM (SELECT repetition
	   FROM runs WHERE variant = 'cuda' AND workloadId = (SELECT id FROM workloads
	   WHERE name = 'a+b') ORDER BY repetition)")"
check_eq "repetition 0 of the others" 5 \
	"$(sqlite3 "$rdb" "SELECT count(*) FROM runs WHERE repetition = 0")"
cp -r "$tmp/rep1" "$tmp/rep1b"
sed -i 's/^finished_at = .*/finished_at = 2025-01-04T00:00:00Z/' "$tmp/rep1b/manifest"
out=$("$GPUMIX" analyze "$tmp/rep1b" -o "$rdb" 2>&1)
check_match "another run of repetition 1: refused, named" \
	"another run of 'a\+b\.cuda\.r1' \(loaded from '.*/rep1'\)" "$out"
check_eq "the replay times' CV per program (a: 100 and 100 us)" 0.0 \
	"$(sqlite3 "$rdb" "SELECT p.replayCv FROM programs p JOIN runs r ON r.id = p.runId
	   WHERE r.path = '$study/a+b.single' AND p.name = 'a'")"
check_eq "... NULL without two kept replays" 0 \
	"$(sqlite3 "$rdb" "SELECT count(*) FROM programs WHERE replayCv IS NOT NULL AND
	   runId IN (SELECT id FROM runs WHERE status != 'ok')")"

# Databases this gpumix must not use.
old=$tmp/old.db
sqlite3 "$old" "PRAGMA application_id = 1735227441; CREATE TABLE runs (id INTEGER);"
out=$("$GPUMIX" analyze "$study" -o "$old" 2>&1)
check_eq "older schema: exit 1" 1 "$?"
check_eq "older schema: message" "error: '$old' has schema version 0, older than version 17 that this gpumix reads and writes
hint: the database is only a cache of the run directories: remove it and load them again with gpumix analyze" "$out"
out=$("$GPUMIX" report "$old" 2>&1)
check_eq "older schema: report refuses too" 1 "$?"
check_match "older schema: report message" "has schema version 0, older than version 17" "$out"
# Each older schema version, with what it lacked, is refused.
while IFS=: read -r v lacked; do
	sqlite3 "$tmp/v$v.db" "PRAGMA application_id = 1735227441; PRAGMA user_version = $v; CREATE TABLE runs (id INTEGER);"
	out=$("$GPUMIX" analyze "$study" -o "$tmp/v$v.db" 2>&1)
	check_match "a database of schema $v ($lacked) is refused" \
		"has schema version $v, older than version 17" "$out"
done <<'VERSIONS'
1:no elastic column
2:no programs.highPriority
3:no runs.hostname, runs.gpu
4:no runs.repetition
5:no runs.oneShot, no co-runs
6:no probe or driver-call tables
7:no intervals table
8:no programs.host*
9:no CUPTI_ACTIVITY_KIND_KERNEL.scenario
10:no requests, open_loop
11:no stretch
12:no run_metrics, program_metrics
13:no runs.openLoop
14:no index for the call join
15:no sweep, sweep_cliffs
16:no runs.elastic*Launches, the elastic launch counters
VERSIONS

new=$tmp/new.db
sqlite3 "$new" "PRAGMA application_id = 1735227441; PRAGMA user_version = 18; CREATE TABLE t (a);"
out=$("$GPUMIX" analyze "$study" -o "$new" 2>&1)
check_eq "newer schema: exit 1" 1 "$?"
check_match "newer schema: message" "has schema version 18, newer than version 17" "$out"

other=$tmp/other.db
sqlite3 "$other" "CREATE TABLE t (a);"
out=$("$GPUMIX" analyze "$study" -o "$other" 2>&1)
check_eq "not a gpumix database: exit 1" 1 "$?"
check_match "not a gpumix database: message" \
	"is a SQLite database but not a gpumix results database" "$out"
check_eq "not a gpumix database: left alone" "" "$(sqlite3 "$other" 'PRAGMA user_version' | grep -v '^0$')"

printf 'hello\n' >"$tmp/text.db"
out=$("$GPUMIX" analyze "$study" -o "$tmp/text.db" 2>&1)
check_eq "not SQLite: exit 1" 1 "$?"
check_match "not SQLite: message" "cannot read '.*text.db' as a SQLite database" "$out"

# The documented join of a kernel with its call (doc/database.md) looks
# the call up by (runId, correlationId) instead of scanning the run's calls.
join=$(sed -n '/^Example: waiting time of every kernel of one run/,/^```$/p' \
	"$GPUMIX_TOP/doc/database.md" | sed '1,2d;$d')
check_match "the kernel-to-call join is documented" "correlationId = k.correlationId" "$join"
plan=$(db_query "$db" "EXPLAIN QUERY PLAN $join")
check_match "... and its calls are looked up by the index" \
	"SEARCH a USING INDEX runtime_call \(runId=\? AND correlationId=\?\)" "$plan"
check_fails "... never scanned" grep -q "SCAN a" <<<"$plan"

# Nothing loaded into a database this command would create: none is left.
out=$("$GPUMIX" analyze "$tmp/no-such-run" -o "$tmp/none.db" 2>&1)
check_eq "a missing run directory: exit 1" 1 "$?"
check_match "... named" "cannot open run directory '.*no-such-run'" "$out"
check_fails "... and no empty database created" test -e "$tmp/none.db"
check_match "... the summary says so" "none.db not created" "$out"
check_eq "... nor its journal" "" "$(ls "$tmp" | grep '^none\.db')"
cp "$db" "$tmp/kept.db"
"$GPUMIX" analyze "$tmp/no-such-run" -o "$tmp/kept.db" >/dev/null 2>&1
check_eq "an existing database stays when nothing is loaded" \
	"$(db_query "$db" 'SELECT count(*) FROM runs')" \
	"$(db_query "$tmp/kept.db" 'SELECT count(*) FROM runs')"

out=$("$GPUMIX" report "$tmp/missing.db" 2>&1)
check_eq "report on a missing database: exit 1" 1 "$?"
check_match "report on a missing database: message" \
	"cannot open database '.*missing.db': No such file or directory" "$out"

: >"$tmp/empty.db"
out=$("$GPUMIX" report "$tmp/empty.db" 2>&1)
check_eq "report on an empty database: exit 1" 1 "$?"
check_match "report on an empty database: hint" "hint: load runs first" "$out"

"$GPUMIX" analyze >/dev/null 2>&1
check_eq "analyze without a run: usage error" 2 "$?"
"$GPUMIX" analyze --bogus "$study" >/dev/null 2>&1
check_eq "analyze with an unknown option: usage error" 2 "$?"
"$GPUMIX" analyze "$study" -o >/dev/null 2>&1
check_eq "analyze -o without a value: usage error" 2 "$?"
check_match "analyze --help" "^usage: gpumix analyze" "$("$GPUMIX" analyze --help)"
check_match "gpumix help lists analyze" \
	"analyze +load run directories into a SQLite database" "$("$GPUMIX" help)"
check_match "gpumix help lists report" \
	"report +print comparison tables and draw plots from a database" "$("$GPUMIX" help)"

# --forget: what was loaded from a directory leaves the database, rows and
# all; the intervals follow; a directory never loaded is a note.
C=tests/data/runs/good/corun
"$GPUMIX" -q analyze "$study" "$C" -o "$tmp/f.db"
count() { sqlite3 "$tmp/f.db" "SELECT count(*) FROM $1"; }
before="$(count runs) $(count coruns) $(count replays)"
out=$("$GPUMIX" analyze --forget -o "$tmp/f.db" "$study/a+b.nss" "$C/x+y.corun" \
	"$study/nowhere" 2>&1)
check_eq "--forget: exit 0" 0 "$?"
check_match "--forget: the summary" \
	"^analyze: 2 runs forgotten from $tmp/f.db in [0-9.]+ s; some directories were not in it$" "$out"
check_match "--forget: a directory never loaded is a note" \
	"^note: nothing in $tmp/f.db was loaded from '$study/nowhere'$" "$out"
check_eq "--forget: one run and one co-run fewer ($before before)" \
	"9 0 0" "$(count runs) $(count coruns) $(sqlite3 "$tmp/f.db" \
	"SELECT count(*) FROM runs WHERE path = '$study/a+b.nss'")"
check_eq "--forget: none of its rows is left" "0 0" \
	"$(sqlite3 "$tmp/f.db" "SELECT count(*) FROM replays WHERE runId NOT IN
	   (SELECT id FROM runs)") $(sqlite3 "$tmp/f.db" "SELECT count(*) FROM
	   CUPTI_ACTIVITY_KIND_KERNEL WHERE runId NOT IN (SELECT id FROM runs)")"
"$GPUMIX" -q analyze "$study" "$C" -o "$tmp/g.db"
"$GPUMIX" -q analyze --forget -o "$tmp/g.db" "$study/a+b.nss" "$C/x+y.corun"
"$GPUMIX" -q analyze "$study/a+b.nss" "$C/x+y.corun" -o "$tmp/g.db"
"$GPUMIX" -q analyze "$study" "$C" -o "$tmp/h.db"
check_eq "--forget, then load again: the report of a database never forgotten" \
	"$("$GPUMIX" -q report "$tmp/h.db" --format csv 2>/dev/null)" \
	"$("$GPUMIX" -q report "$tmp/g.db" --format csv 2>/dev/null)"
check_eq "... and its intervals" \
	"$(sqlite3 "$tmp/h.db" "SELECT * FROM intervals ORDER BY 1, 2, 3, 4, 5")" \
	"$(sqlite3 "$tmp/g.db" "SELECT * FROM intervals ORDER BY 1, 2, 3, 4, 5")"
check_eq "--forget: the intervals follow the runs left" \
	"$("$GPUMIX" -q analyze "$study/a+b.cuda" "$study/a+b.single" "$study/a+c.cuda" \
	   "$study/a+c.elastic.median" "$C/x+y.mps" "$C/x+y.mps.one-shot" \
	   "$C/x+y.procs.one-shot" "$C/x+y.single" "$C/x+y.single.one-shot" \
	   -o "$tmp/k.db"; sqlite3 "$tmp/k.db" "SELECT * FROM intervals ORDER BY 1, 2, 3, 4, 5")" \
	"$(sqlite3 "$tmp/f.db" "SELECT * FROM intervals ORDER BY 1, 2, 3, 4, 5")"
out=$("$GPUMIX" analyze --forget -o "$tmp/none.db" "$study/a+b.nss" 2>&1)
check_eq "--forget on a missing database: exit 0, a note, nothing created" \
	"0 analyze: '$tmp/none.db' does not exist: nothing to forget no" \
	"$? $out $([ -e "$tmp/none.db" ] && echo yes || echo no)"
"$GPUMIX" analyze --forget -o "$tmp/f.db" >/dev/null 2>&1
check_eq "--forget without a directory: usage error" 2 "$?"
"$GPUMIX" analyze --forget --force -o "$tmp/f.db" "$study" >/dev/null 2>&1
check_eq "--forget --force: usage error" 2 "$?"

done_testing
