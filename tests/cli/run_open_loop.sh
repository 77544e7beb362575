#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A study with an open-loop program on a CPU (mock driver; doc/study-
# yaml.md "Open-loop programs"): basic is latency-critical, Poisson
# arrivals at the loads 0.2 and 0.5 of its alone capacity, beside
# threads, under single, cuda and procs, through the real reconstruct,
# replay, analyze and report. The plan has one run per load point of
# each variant but single (which measures the alone time, back to back);
# each point's rate is its load over basic's mean kept replay time in
# its single run (the manifest's program.0.alone_s, checked against that
# run's replays.tsv), its seed and requests are the study's, every
# request is recorded and loaded, and the report's open-loop tables
# have a row per run and per load. Then the validator's errors, each at
# FILE:LINE:COL.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp
out=$tmp/out

cat >"$tmp/study.yaml" <<EOF
study: open-loop
root: $GPUMIX_TOP
programs:
  - {bundle: tests/data/reconstruct/bundles/basic, arrivals: poisson,
     load: [0.2, 0.5], seed: 3, requests: 6, slo: 3x}
  - bundle: tests/data/reconstruct/bundles/threads
workloads:
  - [basic, threads]
variants: [single, cuda, procs]
replay: {min_replays: 2, watchdog: 30s}
repeats: 1
paths: {output: $out}
EOF

plan=$("$GPUMIX" run --dry-run "$tmp/study.yaml" 2>&1)
check_eq "the dry run: exit 0" 0 "$?"
check_match "the plan: 2 alone runs and 2 points of cuda and procs" \
	"variants single, cuda, procs: 6 runs \(2 single baselines" "$plan"

summary=$("$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$out"/logs/*.log | tail -40
check_match "every run ok: 2 alone runs and 2 x 2 points" \
	'^- runs: 6: 6 ok, 0 failed' "$summary"
check_eq "the runs: one per point of each variant but single" \
	"basic+threads.cuda.load0.2 basic+threads.cuda.load0.5 basic+threads.procs.load0.2 basic+threads.procs.load0.5 basic.single threads.single" \
	"$(ls "$out/runs" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"

m=$out/runs/basic+threads.cuda.load0.5/manifest
check_eq "the point's label" load0.5 "$(field "$m" arrivals.label)"
check_eq "its load" 0.5 "$(field "$m" program.0.load)"
check_eq "the study's seed and SLO" "3 3x" \
	"$(field "$m" arrivals.seed) $(field "$m" arrivals.slo)"
check_eq "its requests" 6 "$(field "$m" program.0.requests)"
# (sums in the shell's integers: awk's doubles round ns since boot)
sum=0 n=0
while IFS=$'\t' read -r p r st en io k; do
	[ "$p" = basic ] && [ "$k" = 1 ] || continue
	sum=$((sum + en - st - io)) n=$((n + 1))
done <"$out/runs/basic.single/replays.tsv"
alone=$(awk -v s=$sum -v n=$n 'BEGIN { printf "%.6g", s / n / 1e9 }')
check_eq "its alone time: basic's mean kept replay in basic.single" "$alone" \
	"$(awk -v a="$(field "$m" program.0.alone_s)" 'BEGIN { printf "%.6g", a }')"
check_eq "its rate: the load over the alone time" \
	"$(awk -v a="$(field "$m" program.0.alone_s)" 'BEGIN { printf "%.6g", 0.5 / a }')" \
	"$(field "$m" program.0.arrivals | sed 's/^poisson://' | awk '{ printf "%.6g", $1 }')"
check_eq "6 requests recorded" 7 "$(wc -l < "$out/runs/basic+threads.cuda.load0.5/requests.tsv")"

db=$out/results.db
check_eq "every point's requests in the database" "cuda load0.2 6
cuda load0.5 6
procs load0.2 6
procs load0.5 6" "$(sqlite3 -separator ' ' "$db" "SELECT r.variant, r.openLoop,
	count(*) FROM requests q JOIN runs r ON r.id = q.runId GROUP BY r.id
	ORDER BY 1, 2")"
check_eq "the report: a row per run" 4 \
	"$("$GPUMIX" -q report "$db" --format csv --table open-loop | tail -n +2 | wc -l)"
check_eq "the report: the loads per variant" "cuda 0.2
cuda 0.5
procs 0.2
procs 0.5" "$("$GPUMIX" -q report "$db" --format csv --table open-loop-load |
	awk -F, 'NR > 1 { print $2, $3 }' | sort)"

# The validator: each error at FILE:LINE:COL.
bad() { # bad WHAT MESSAGE PROGRAM-LINE [MORE] [VARIANTS]
	cat >"$tmp/bad.yaml" <<EOF
study: bad
programs:
  - {bundle: b/svc, $3}
  - bundle: b/batch
workloads: [[svc, batch]]
variants: ${5:-[single, cuda]}
${4:-}
EOF
	local got
	got=$("$GPUMIX" run --dry-run "$tmp/bad.yaml" 2>&1)
	check_match "validator: $1" "$2" "$got"
}
bad "an unknown process" "bad.yaml:3:[0-9]+: 'arrivals' is 'poisson' or 'trace', not 'gamma'" \
	"arrivals: gamma, rate: 2"
bad "no load or rate" "bad.yaml:3:[0-9]+: a Poisson process needs a 'load'" \
	"arrivals: poisson"
bad "load and rate" "bad.yaml:3:[0-9]+: give 'load' or 'rate', not both" \
	"arrivals: poisson, load: 0.5, rate: 3"
bad "a load of 0" "bad.yaml:3:[0-9]+: 'load' must be a number above 0" \
	"arrivals: poisson, load: [0.5, 0]"
bad "a load twice" "bad.yaml:3:[0-9]+: 'load' lists 0.5 twice" \
	"arrivals: poisson, load: [0.5, 0.5]"
bad "a trace without its file" "bad.yaml:3:[0-9]+: 'arrivals: trace' needs a 'trace' file" \
	"arrivals: trace, rate: 3"
bad "a bad SLO" "bad.yaml:3:[0-9]+: a latency target .* not 'fast'" \
	"arrivals: poisson, rate: 3, slo: fast"
bad "a key without arrivals" "bad.yaml:3:[0-9]+: this key applies to an open-loop program" \
	"load: 0.5"
bad "a load without single" "bad.yaml:3:[0-9]+: a 'load' is a fraction .* add 'single'" \
	"arrivals: poisson, load: 0.5" "" "[cuda]"
bad "one-shot" "bad.yaml:3:[0-9]+: an open-loop program's requests start at their arrivals" \
	"arrivals: poisson, rate: 3" "replay: {one_shot: true}"

done_testing
