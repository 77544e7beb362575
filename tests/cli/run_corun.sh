#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A study's corun key on the mock driver (doc/study-yaml.md, "corun"):
# gpumix run co-runs each pair's original programs (the committed bundles
# basic and threads, their manifests pointed at corun-standin, which the
# co-run interposer measures through the mock's cuInit) under procs and
# mps (the stand-in MPS daemon), replays the pair once more in one-shot
# mode under both beside one-shot single runs, loads everything and
# reports native and replayed slowdowns side by side. Resuming redoes
# nothing; a new K redoes only the co-run (and what reads it); a study
# killed after its co-run finished redoes it; repeats give one co-run
# per repetition; a failing program fails the co-run, named, and the
# study goes on.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
S=$GPUMIX_BUILD/tests/corun-standin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH
unset CUDA_MPS_PIPE_DIRECTORY

# The bundles replay as captured; their programs are stand-ins.
mkdir -p "$tmp/bundles" "$tmp/home"
for b in basic threads; do
	cp -r "tests/data/reconstruct/bundles/$b" "$tmp/bundles/"
	sed -i "s|^argv.0 = .*|argv.0 = $S|; /^argv.[1-9]/d; s|^cwd = .*|cwd = $tmp/home|" \
		"$tmp/bundles/$b/manifest"
done
study() { # study FILE OUTPUT REPEATS CORUN
	cat >"$1" <<EOF
study: corun-mock
root: $tmp
programs:
  - bundle: bundles/basic
  - bundle: bundles/threads
workloads:
  - [basic, threads]
variants: [single, cuda]
repeats: $3
corun: $4
paths: {output: $2}
EOF
}

study "$tmp/s.yaml" out 1 "{repeats: 2}"
sum=$("$GPUMIX" run "$tmp/s.yaml" 2>"$tmp/err"); rc=$?
check_eq "a study with co-runs succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$tmp"/out/logs/*.log | tail -20
check_match "every run is ok: 2 single, cuda, 2 one-shot single, procs and mps one-shot, the co-run" \
	'^- runs: 8: 8 ok, 0 failed' "$sum"
check_match "the co-run is a run of the summary" \
	'^\| basic\+threads.corun \| basic\+threads \| corun \| ok \|' "$sum"
check_match "... the one-shot replays too" \
	'^\| basic\+threads.mps.one-shot \| basic\+threads \| mps\+one-shot \| ok \|' "$sum"
R=$tmp/out/runs
m=$R/basic+threads.corun/manifest
check_eq "the co-run: its directory, both mechanisms, K = 2, ok" \
	"gpumix-corun 1|procs,mps|2|ok" \
	"$(field "$m" format)|$(field "$m" mechanisms)|$(field "$m" repeats)|$(field "$m" status)"
check_eq "... its programs named as reconstruct names them" "basic+threads" \
	"$(field "$m" workload)"
check_eq "... 2 x 2 alone and 2 x 2 per mechanism" 12 \
	"$(tail -n +2 "$R/basic+threads.corun/sections.tsv" | wc -l)"
check_match "... its stage log is the corun's" "corun: basic\+threads: 12 runs measured" \
	"$(cat "$tmp/out/logs/corun-basic+threads.corun.log")"
for r in basic.single.one-shot threads.single.one-shot \
	basic+threads.procs.one-shot basic+threads.mps.one-shot; do
	check_eq "$r: one-shot, one kept replay per program" \
		"1 $(field "$R/$r/manifest" programs)" \
		"$(field "$R/$r/manifest" replay.one_shot) $(awk -F'\t' 'NR > 1 && $6 == 1' "$R/$r/replays.tsv" | wc -l)"
done
check_eq "the repeated runs are not one-shot" "00" \
	"$(field "$R/basic+threads.cuda/manifest" replay.one_shot)$(field "$R/basic.single/manifest" replay.one_shot)"
db=$tmp/out/results.db
check_eq "the database: the co-run, 4 one-shot runs and 3 repeated ones" "1|4|3" \
	"$(db_query "$db" "SELECT (SELECT count(*) FROM coruns),
		(SELECT count(*) FROM runs WHERE oneShot = 1),
		(SELECT count(*) FROM runs WHERE oneShot = 0)")"
t=$(cat "$tmp/out/report/tables/corun.csv")
check_eq "the report's corun table: a row per mechanism and program" \
	"procs basic
procs threads
mps basic
mps threads" "$(printf '%s\n' "$t" | tail -n +2 | cut -d, -f2,3 | tr , ' ')"
check "... each with its native runs (2), its replays (1) and a ratio" \
	awk -F, 'NR > 1 && ($6 != 2 || $8 != 1 || $9 == "") { bad = 1 } END { exit bad }' \
	"$tmp/out/report/tables/corun.csv"

# Resuming: nothing to do.
sum=$("$GPUMIX" run "$tmp/s.yaml" 2>/dev/null)
check_match "run again: nothing is redone" '^- this invocation: 0 stages run' "$sum"

# A new K redoes the co-run, its analyze and the report only.
started=$(field "$R/basic+threads.mps.one-shot/manifest" started_at)
study "$tmp/s.yaml" out 1 "{repeats: 3}"
sum=$("$GPUMIX" run "$tmp/s.yaml" 2>/dev/null)
check_match "a new K: the co-run, its analyze and the report" \
	'^- this invocation: 3 stages run' "$sum"
check_eq "... with 3 runs each" 3 "$(field "$m" repeats)"
check_eq "... the replays stay" "$started" \
	"$(field "$R/basic+threads.mps.one-shot/manifest" started_at)"

# Killed once the co-run finished but before it was recorded: redone.
study "$tmp/s.yaml" out 1 "{repeats: 2}"
(cd "$tmp" && GPUMIX_STUDY_KILL_AT=corun-finished:1 "$GPUMIX" run s.yaml \
	>/dev/null 2>&1)
check_eq "a study killed after its co-run finished" 137 "$?"
sum=$("$GPUMIX" run "$tmp/s.yaml" 2>/dev/null)
check_match "... resumes: the co-run again, then the rest" \
	'^- this invocation: 3 stages run' "$sum"
check_eq "... to the new K" 2 "$(field "$m" repeats)"
check_match "... every run ok" '^- runs: 8: 8 ok' "$sum"

# Repetitions: one co-run each, pooled by the analyzer.
study "$tmp/r.yaml" rep 2 "{repeats: 1, mechanisms: [procs]}"
sum=$("$GPUMIX" run "$tmp/r.yaml" 2>/dev/null); rc=$?
check_eq "two repetitions of a study with co-runs" 0 "$rc"
check_match "... every run ok: 2 x (2 single, cuda, 2 one-shot single, procs one-shot, co-run)" \
	'^- runs: 14: 14 ok' "$sum"
check_eq "... the second co-run says it is repetition 1" 1 \
	"$(field "$tmp/rep/runs/basic+threads.corun.r1/manifest" run.repetition)"
check_eq "... both in the database" "0,1" \
	"$(db_query "$tmp/rep/results.db" "SELECT group_concat(repetition) FROM
		(SELECT repetition FROM coruns ORDER BY repetition)")"
check_match "... pooled: 2 native runs, 2 one-shot replays per row" \
	'^basic\+threads,procs,basic,[0-9.]+,[0-9.]*,2,[0-9.]+,2,' \
	"$(cat "$tmp/rep/report/tables/corun.csv")"

# A program that fails: the co-run fails, named; the study goes on.
sed -i "s|^argv.0 = .*|argv.0 = $S\nargv.1 = --fail|" "$tmp/bundles/threads/manifest"
study "$tmp/f.yaml" fail 1 "{repeats: 1, mechanisms: [procs]}"
sum=$("$GPUMIX" run "$tmp/f.yaml" 2>/dev/null); rc=$?
check_eq "a failing co-run does not stop the study (exit 1: a run failed)" 1 "$rc"
check_match "... its run fails, saying which program and how" \
	"^\| basic\+threads.corun \| basic\+threads \| corun \| failed \| program 'threads' failed \(alone, repeat 0\): exit status 3" \
	"$sum"
check_match "... the other runs are ok" '^- runs: 7: 6 ok, 1 failed' "$sum"
check "... and the report is written" test -s "$tmp/fail/report/tables/corun.csv"
done_testing
