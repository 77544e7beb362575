#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The open-loop tables on the hand-computed study
# tests/data/runs/good/open-loop (doc/database.md, "Open-loop metrics"):
# workload s+b, the service s alone 100 us and the batch b alone 200 us
# (single); under cuda s serves 10 Poisson requests at 2000/s with the
# SLO 2x, b replays in 250 us; under mps 4 requests of a trace rescaled
# to 4000/s with the SLO 0.3ms, b in 400 us. Every number below was
# computed by hand; the percentiles are linear interpolation between
# closest ranks (h = (n-1)p/100).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
db=$tmp/ol.db
"$GPUMIX" -q analyze tests/data/runs/good/open-loop -o "$db"
check_eq "load the study" 0 "$?"
check_eq "open_loop rows: program, process, requests, seed, slo" \
"cuda s poisson:2000 10 1 2x
mps s trace:azure.csv#TIMESTAMP@4000 4 1 0.3ms" \
	"$(sqlite3 -separator ' ' "$db" "SELECT r.variant, p.name, o.arrivals,
	   o.requests, o.seed, o.slo FROM open_loop o JOIN runs r ON r.id = o.runId
	   JOIN programs p ON p.id = o.programId ORDER BY r.variant")"
check_eq "requests rows: the cuda run's 10, the mps run's 4" "cuda 10
mps 4" "$(sqlite3 -separator ' ' "$db" "SELECT r.variant, count(*) FROM
	   requests q JOIN runs r ON r.id = q.runId GROUP BY r.variant ORDER BY 1")"
check_eq "the single run has none" 0 "$(sqlite3 "$db" "SELECT count(*) FROM
	   requests q JOIN runs r ON r.id = q.runId WHERE r.variant = 'single'")"

table() { "$GPUMIX" -q report "$db" --format csv --table "$1"; }
expect() { check_eq "$1" "$(cat)" "$(table "$1")"; }

# cuda, requests (arrival, start, end in us): 0 0 100, 50 100 200, 500 500
# 620, 1000 1000 1300, 1100 1300 1400, 2000 2000 2100, 2500 2500 2700,
# 3000 3000 3110, 4000 4000 4500, 4500 4500 4600.
#   latencies sorted: 100 100 100 110 120 150 200 300 300 500;
#   p50: h = 4.5 -> (120 + 150) / 2 = 135; p95: h = 8.55 -> 300 + 0.55 x
#   200 = 410; p99: h = 8.91 -> 482; p99.9: h = 8.991 -> 498.2.
#   queueing: 50 (request 1) + 200 (request 4) over 10 = 25; service:
#   1730 / 10 = 173. SLO 2 x 100 = 200 us: 7 of 10 within (the 200 one
#   too) = 70%. Offered 2000/s (the process's); achieved 10 requests /
#   4600 us = 2173.91304/s; load 2000 x 100 us = 0.2; batch 200 / 250 =
#   0.8.
# mps: 0 0 100, 250 250 400, 500 500 900, 750 900 1000: latencies 100 150
#   250 400; p50 h = 1.5 -> 200; p95 h = 2.85 -> 250 + 0.85 x 150 =
#   377.5; p99 395.5; p99.9 399.55; queueing 150 / 4 = 37.5; service 750
#   / 4 = 187.5; SLO 0.3 ms: 3 of 4 = 75%; offered 4000 (the @4000
#   rescale), achieved 4 / 1000 us = 4000; load 0.4; batch 200 / 400 =
#   0.5.
expect open-loop <<'CSV'
workload,variant,repetition,program,arrivals,load,offered_req_s,achieved_req_s,requests,p50_ms,p95_ms,p99_ms,p99_9_ms,queueing_ms,service_ms,slo_ms,slo_attained_pct,batch_throughput_x_alone
s+b,cuda,0,s,poisson:2000,0.2,2000,2173.91304,10,0.135,0.41,0.482,0.4982,0.025,0.173,0.2,70,0.8
s+b,mps,0,s,trace:azure.csv#TIMESTAMP@4000,0.4,4000,4000,4,0.2,0.3775,0.3955,0.39955,0.0375,0.1875,0.3,75,0.5
CSV
expect open-loop-load <<'CSV'
program,variant,load,runs,p99_ms,slo_attained_pct,batch_throughput_x_alone
s,cuda,0.2,1,0.482,70,0.8
s,mps,0.4,1,0.3955,75,0.5
CSV

# The figures' data: the CDF of each variant's requests (cuda's 10
# latencies sorted, each at its rank / 10), the p99 and SLO against load
# with the batch throughput (the open-loop-load rows).
"$GPUMIX" -q report "$db" -o "$tmp/rep" >/dev/null 2>&1
check_eq "report -o: exit 0" 0 "$?"
check_eq "the CDF: cuda's first and last points, mps's last" \
	"0.1 0.1|0.5 1|0.4 1" \
	"$(awk '/^# cuda/ { b = "c" } /^# mps/ { b = "m" } /^[0-9]/ { last[b] = $0; if (!first[b]) first[b] = $0 }
	   END { print first["c"] "|" last["c"] "|" last["m"] }' "$tmp/rep/figures/open-loop-cdf-all.dat")"
check_eq "the CDF: 10 and 4 points" "14" \
	"$(grep -c '^[0-9]' "$tmp/rep/figures/open-loop-cdf-all.dat")"
check_eq "p99 and SLO against load: load, p99 (ms), SLO %, batch x alone" \
	"0.2 0.482 70 0.8|0.4 0.3955 75 0.5" \
	"$(grep '^[0-9]' "$tmp/rep/figures/open-loop-p99.dat" | tr '\n' '|' | sed 's/|$//')"
check_match "the SLO figure plots the attainment column" "using 1:3" \
	"$(cat "$tmp/rep/figures/open-loop-slo.gp")"

# Without the single run: no alone time, so no load, no relative SLO.
"$GPUMIX" -q analyze tests/data/runs/good/open-loop/s+b.cuda -o "$tmp/nosingle.db"
out=$("$GPUMIX" -q report "$tmp/nosingle.db" --format csv --table open-loop)
check_eq "no alone time: load, SLO and attainment left empty, the rest there" \
	"s+b,cuda,0,s,poisson:2000,,2000,2173.91304,10,0.135,0.41,0.482,0.4982,0.025,0.173,,," \
	"$(printf '%s\n' "$out" | sed -n 2p)"

done_testing
