#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The metrics in the database (doc/database.md, "run_metrics",
# "program_metrics"): after `gpumix analyze` each ok run has its STP,
# ANTT and MTSpeedup and each program its slowdown and replay-time
# percentiles, the very numbers `gpumix report` shows (the report's
# workloads, programs and latency-runs tables, read from --format json,
# are the rows' means over the repetitions). doc/examples/metrics.py runs
# against the databases of the committed mock-driver runs. Forgetting a
# run takes its rows; a merge recomputes them.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
if ! python3 -c 'import sqlite3' 2>/dev/null; then
	skip "python3 with sqlite3 is not installed"
	done_testing
	exit 0
fi

# compare DB: every (workload, variant[, program]) mean of the stored
# per-run metrics against the report's tables; prints "ok N" or the
# differences.
compare() {
	"$GPUMIX" -q report "$1" --format json >"$1.json" || return 1
	python3 - "$1" "$1.json" <<'PY'
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t = {x["name"]: x for x in json.load(open(sys.argv[2]))["tables"]}
def rows(name):
    x = t[name]
    return [dict(zip(x["columns"], r)) for r in x["rows"]]
bad, n = [], 0
def same(what, ours, theirs):
    global n
    n += 1
    if (ours is None) != (theirs is None) or (ours is not None and
            not math.isclose(ours, theirs, rel_tol=1e-6)):
        bad.append(f"{what}: database {ours}, report {theirs}")
q = """SELECT AVG(m.stp), AVG(m.antt), AVG(m.mtspeedup) FROM run_metrics m
       JOIN runs r ON r.id = m.runId JOIN workloads w ON w.id = r.workloadId
       WHERE w.name = ? AND m.variant = ?"""
for r in rows("workloads"):
    stp, antt, mts = db.execute(q, (r["workload"], r["variant"])).fetchone()
    same(f"{r['workload']} {r['variant']} STP", stp, r["stp"])
    same(f"{r['workload']} {r['variant']} ANTT", antt, r["antt"])
    same(f"{r['workload']} {r['variant']} MTSpeedup", mts, r["mtspeedup"])
q = """SELECT AVG(pm.tMp), AVG(pm.speedup), AVG(pm.p99), AVG(pm.p99Slowdown)
       FROM program_metrics pm JOIN run_metrics m ON m.runId = pm.runId
       JOIN runs r ON r.id = pm.runId JOIN workloads w ON w.id = r.workloadId
       JOIN programs p ON p.id = pm.programId
       WHERE w.name = ? AND m.variant = ? AND p.name = ?"""
lat = {(r["workload"], r["variant"], r["program"]): r for r in rows("latency-runs")}
for r in rows("programs"):
    k = (r["workload"], r["variant"], r["program"])
    mp, speed, p99, p99s = db.execute(q, k).fetchone()
    same(f"{k} T_MP", mp / 1e6, r["t_mp_ms"])
    same(f"{k} T_SP/T_MP", speed, r["t_sp_t_mp"])
    same(f"{k} p99", p99 / 1e6, lat[k]["p99_ms"])
    same(f"{k} p99 slowdown", p99s, lat[k]["p99_slowdown"])
print("\n".join(bad[:10]) if bad else f"ok {n}")
PY
}

for d in latency repeats study; do
	"$GPUMIX" -q analyze "tests/data/runs/good/$d" -o "$tmp/$d.db"
	check_eq "$d: analyze" 0 "$?"
	check_match "$d: the stored metrics are the report's" "^ok [1-9][0-9]*$" \
		"$(compare "$tmp/$d.db" 2>&1)"
done
check_eq "latency: a row per ok run" \
	"$(sqlite3 "$tmp/latency.db" "SELECT COUNT(*) FROM runs WHERE status = 'ok'")" \
	"$(sqlite3 "$tmp/latency.db" 'SELECT COUNT(*) FROM run_metrics')"
check_eq "latency: a row per program of an ok run" \
	"$(sqlite3 "$tmp/latency.db" "SELECT COUNT(*) FROM programs p JOIN runs r ON r.id = p.runId WHERE r.status = 'ok'")" \
	"$(sqlite3 "$tmp/latency.db" 'SELECT COUNT(*) FROM program_metrics')"

out=$(python3 doc/examples/metrics.py "$tmp/latency.db")
check_eq "doc/examples/metrics.py: exit 0" 0 "$?"
check_match "... prints each run's STP and ANTT" \
	"$(printf 'workload\tvariant\trepetition\tstp\tantt\tmtspeedup\nx\\+y\tcuda\t0\t1\\.14032\t2\\.07231\t1\n')" "$out"
check_match "... and each program's p99 slowdown" \
	"$(printf '\nx\\+y\tpriority\t0\tx\t1\\.25\t0\\.1496\t1\\.25503\n')" "$out"

run=$(sqlite3 "$tmp/latency.db" "SELECT path FROM runs WHERE variant = 'cuda'")
"$GPUMIX" -q analyze --forget "$run" -o "$tmp/latency.db"
check_eq "--forget: the run's metrics go with it" 0 \
	"$(sqlite3 "$tmp/latency.db" "SELECT COUNT(*) FROM run_metrics WHERE variant = 'cuda'")"
check_match "--forget: the others are still the report's" "^ok [1-9][0-9]*$" \
	"$(compare "$tmp/latency.db" 2>&1)"

"$GPUMIX" -q analyze tests/data/runs/good/latency -o "$tmp/lat2.db" &&
	"$GPUMIX" -q analyze --merge "$tmp/lat2.db" "$tmp/study.db" -o "$tmp/m.db"
check_eq "merge: exit 0" 0 "$?"
check_eq "merge: the metrics of both" \
	"$(( $(sqlite3 "$tmp/lat2.db" 'SELECT COUNT(*) FROM run_metrics') + $(sqlite3 "$tmp/study.db" 'SELECT COUNT(*) FROM run_metrics') ))" \
	"$(sqlite3 "$tmp/m.db" 'SELECT COUNT(*) FROM run_metrics')"
check_match "merge: the stored metrics are the report's" "^ok [1-9][0-9]*$" \
	"$(compare "$tmp/m.db" 2>&1)"

done_testing
