#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Read a gpumix database's metrics from Python (doc/database.md,
# "run_metrics", "program_metrics"): each run's STP, ANTT and MTSpeedup,
# and each program's slowdown and p99 replay time, as `gpumix report`
# computes them, with nothing but the standard library. With pandas the
# same queries are one line each:
#     pandas.read_sql(RUNS, sqlite3.connect(path))
# Usage: metrics.py results.db
# Prints one line per run, then one per program: tab-separated, with a
# header line each.
import sqlite3
import sys

RUNS = """
SELECT w.name AS workload, m.variant, r.repetition, m.stp, m.antt,
       m.mtspeedup
FROM run_metrics m
JOIN runs r ON r.id = m.runId
JOIN workloads w ON w.id = r.workloadId
WHERE m.stp IS NOT NULL
ORDER BY w.name, m.variant, r.repetition
"""

PROGRAMS = """
SELECT w.name AS workload, m.variant, r.repetition, p.name AS program,
       pm.slowdown, pm.p99 / 1e6 AS p99_ms, pm.p99Slowdown
FROM program_metrics pm
JOIN run_metrics m ON m.runId = pm.runId
JOIN runs r ON r.id = pm.runId
JOIN workloads w ON w.id = r.workloadId
JOIN programs p ON p.id = pm.programId
WHERE pm.slowdown IS NOT NULL
ORDER BY w.name, m.variant, r.repetition, p.name
"""


def show(db, query):
    cur = db.execute(query)
    print("\t".join(d[0] for d in cur.description))
    for row in cur:
        print("\t".join(f"{v:.6g}" if isinstance(v, float) else str(v)
                        for v in row))


def main():
    # Read-only: a study may still be loading runs into it.
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    show(db, RUNS)
    show(db, PROGRAMS)


main()
