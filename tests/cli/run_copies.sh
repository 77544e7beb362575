#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# N copies of one program in a study on a CPU (mock driver; the SPMD
# workloads of PAPER-NOTES 2.3, doc/study-yaml.md "copies"):
# `{program: basic, copies: 3}` and `[basic, {program: threads,
# copies: 2}]` under every implemented variant, through the real gpumix
# reconstruct (the same bundle given N times), replay (one thread or one
# process per copy, each copy's results verified), analyze and report.
# The instances are basic#1 ... basic#3 in the builds, the run manifests
# and the database; each copy's alone time is basic's own `single` run
# (the analyzer maps it through the bundle), so every run has an STP;
# the study's per-program options (high_priority, sm_share, mps_threads)
# reach the copies; each kernel's sharing scenario counts the copies. Then `baseline: workload`: the copies' own single
# run gives each its alone time, by instance name.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH	# a stand-in MPS daemon
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp	# the MPS pipe directories go here
out=$tmp/out

write_study() { # write_study FILE OUTPUT [MORE]
	cat >"$1" <<EOF
study: copies
root: $GPUMIX_TOP
programs:
  - bundle: tests/data/reconstruct/bundles/basic
  - bundle: tests/data/reconstruct/bundles/threads
workloads:
  - {program: basic, copies: 3}
  - [basic, {program: threads, copies: 2}]
variants: [single, cuda, nss, elastic, priority, green, procs, mps]
policies: [mpmax]
replay: {min_replays: 2, watchdog: 30s, high_priority: threads,
         sm_share: {basic: 16}, mps_threads: {basic: 40}}
repeats: 1
paths: {output: $2}
${3:-}
EOF
}
write_study "$tmp/study.yaml" "$out"

plan=$("$GPUMIX" run --dry-run "$tmp/study.yaml" 2>&1)
check_match "the dry run lists the copies' build" '^  basic#1-3 ' "$plan"
check_match "... and the other's" '^  basic\+threads#1-2 ' "$plan"

summary=$("$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$out"/logs/*.log | tail -40
check_match "every run is ok: 2 alone runs and 2 x 7 others, results verified" \
	'^- runs: 16: 16 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$summary"
check_eq "one build per workload, the alone ones included" \
	"basic basic#1-3 basic+threads#1-2 threads" \
	"$(ls "$out/builds" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
b=$out/builds/basic#1-3/manifest
check_eq "reconstruct made three programs of the one bundle" \
	"3 basic#1 basic#2 basic#3" \
	"$(field "$b" programs) $(sed -n 's/^program\.[0-9]*\.name = //p' "$b" | tr '\n' ' ' | sed 's/ $//')"
check_eq "... the workload named after them" "basic#1-3" "$(field "$b" workload)"
for v in cuda nss elastic.mpmax priority green procs mps; do
	m=$out/runs/basic#1-3.$v/manifest
	check_eq "basic#1-3.$v: three copies replayed, results verified" \
		"ok 3 basic#1 basic#2 basic#3" \
		"$(field "$m" status) $(field "$m" programs) $(sed -n 's/^program\.[0-9]\.name = //p' "$m" | tr '\n' ' ' | sed 's/ $//')"
	check_eq "basic#1-3.$v: each copy replayed (at least 2 replays each)" \
		"basic#1|basic#2|basic#3" \
		"$(awk -F'\t' 'NR > 1 { n[$1]++ } END { for (p in n) if (n[p] >= 2) print p }' \
			"$out/runs/basic#1-3.$v/replays.tsv" | sort | tr '\n' '|' | sed 's/|$//')"
done
m=$out/runs/basic#1-3.procs/manifest
check_eq "procs: one process per copy" 3 "$(field "$m" processes.count)"
m=$out/runs/basic#1-3.mps/manifest
check_eq "mps: one process per copy, mps_threads basic: 40 reaches each" \
	"3 40 40 40" "$(field "$m" processes.count) $(field "$m" mps.program.0.active_threads) \
$(field "$m" mps.program.1.active_threads) $(field "$m" mps.program.2.active_threads)"
m=$out/runs/basic#1-3.green/manifest
check_eq "green: three partitions, sm_share basic: 16 for each copy" "16 16 16" \
	"$(field "$m" program.0.sm_count) $(field "$m" program.1.sm_count) $(field "$m" program.2.sm_count)"
m=$out/runs/basic+threads#1-2.green/manifest
check_eq "green beside copies of another: basic 16, the threads copies the rest" \
	"basic 16 threads#1 56 threads#2 56" \
	"$(for i in 0 1 2; do printf '%s %s ' "$(field "$m" program.$i.name)" "$(field "$m" program.$i.sm_count)"; done | sed 's/ $//')"
m=$out/runs/basic+threads#1-2.priority/manifest
check_eq "priority: high_priority threads is its first copy" "threads#1" \
	"$(field "$m" priority.program)"
m=$out/runs/basic#1-3.elastic.mpmax/manifest
check_match "elastic: the kernel profile of basic's alone run served the copies" \
	"profile" "$(field "$m" elastic.profile)"

db=$out/results.db
check_eq "the database has the copies as programs of their run" \
	"basic#1|basic|basic#2|basic|basic#3|basic" \
	"$(sqlite3 "$db" "SELECT p.name, (SELECT p2.name FROM programs p2 JOIN runs r2 ON r2.id = p2.runId JOIN workloads w2 ON w2.id = r2.workloadId WHERE w2.name = 'basic' AND p2.bundle = p.bundle) FROM programs p JOIN runs r ON r.id = p.runId JOIN workloads w ON w.id = r.workloadId WHERE w.name = 'basic#1-3' AND r.variant = 'cuda' ORDER BY p.idx" | tr '\n' '|' | sed 's/|$//')"
stp() { # stp DB WORKLOAD: the variant labels with an STP, and the copies' T_SP
	sqlite3 "$1" "SELECT variant FROM intervals WHERE workload = '$2' AND metric = 'STP' AND mean > 0 ORDER BY variant" | tr '\n' ' ' | sed 's/ $//'
}
check_eq "every run of the copies has an STP (each copy against basic alone)" \
	"cuda elastic+mpmax green mps nss priority procs" "$(stp "$db" 'basic#1-3')"
check_eq "... and the runs of basic beside copies of threads" \
	"cuda elastic+mpmax green mps nss priority procs" "$(stp "$db" 'basic+threads#1-2')"
check_eq "each copy's T_SP is basic's alone time" "basic#1 basic#2 basic#3" \
	"$(sqlite3 "$db" "SELECT i.program FROM intervals i WHERE i.workload = 'basic#1-3' AND i.variant = 'cuda' AND i.metric = 'T_SP (ns)' AND i.mean = (SELECT mean FROM intervals WHERE workload = 'basic' AND variant = 'single' AND metric = 'T_MP (ns)' AND program = 'basic') ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
csv=$(cat "$out/report/tables/summary.csv")
check_match "the report summarises the 3-program workloads" "^3,cuda,2," "$csv"

# The scenario column (common/sharing_scenario.h): basic's kernels of 16
# blocks fit an SM each, alone and as 3 copies (48 <= 132 SMs)
check_eq "scenario: every kernel of the copies and of basic alone is exclusive space" \
	"cuda exclusive-space|single exclusive-space" \
	"$(sqlite3 "$db" "SELECT DISTINCT r.variant || ' ' || k.scenario FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN runs r ON r.id = k.runId JOIN workloads w ON w.id = r.workloadId WHERE w.name IN ('basic', 'basic#1-3') AND r.variant IN ('cuda', 'single') ORDER BY 1" | tr '\n' '|' | sed 's/|$//')"
# ... grids of 45 blocks: 3 copies (135 blocks) share SMs, one alone not
mkdir "$tmp/grid45"
for r in 'basic#1-3.cuda' basic.single; do
	cp -r "$out/runs/$r" "$tmp/grid45/$r"
	awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "KERNEL" { $11 = 45 } { print }' \
		"$out/runs/$r/activity.tsv" >"$tmp/grid45/$r/activity.tsv"
done
"$GPUMIX" -q analyze "$tmp/grid45/basic#1-3.cuda" "$tmp/grid45/basic.single" \
	-o "$tmp/grid45.db" 2>/dev/null
check_eq "scenario: 3 copies of 45 blocks (135 > 132 SMs) are non-exclusive space; one alone is exclusive" \
	"cuda non-exclusive-space|single exclusive-space" \
	"$(sqlite3 "$tmp/grid45.db" "SELECT DISTINCT r.variant || ' ' || k.scenario FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN runs r ON r.id = k.runId ORDER BY 1" | tr '\n' '|' | sed 's/|$//')"
check_match "the report's scenarios table: the copies under cuda are exclusive space" \
	"^3,cuda,exclusive-space,2," "$(cat "$out/report/tables/scenarios.csv")"
check_match "... and with 45 blocks non-exclusive space" \
	"^\| 3 \| cuda \| non-exclusive-space \| 1 \|" \
	"$("$GPUMIX" report --table scenarios "$tmp/grid45.db" 2>/dev/null)"

# baseline: workload: the copies' own alone run, by instance name
out=$tmp/out2
write_study "$tmp/study2.yaml" "$out" "baseline: workload"
sed -i 's/variants: \[.*\]/variants: [single, cuda, elastic]/; s/high_priority: threads,//; s/sm_share: {basic: 16}, mps_threads: {basic: 40}//; s/watchdog: 30s,/watchdog: 30s/' "$tmp/study2.yaml"
summary=$("$GPUMIX" run "$tmp/study2.yaml" 2>"$tmp/err2")
rc=$?
check_eq "baseline: workload: the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err2" | tail -20
m=$out/runs/basic#1-3.single/manifest
check_eq "... the copies' own single run, each copy alone" \
	"single ok 3" "$(field "$m" variant) $(field "$m" status) $(field "$m" programs)"
check_eq "... the cuda and elastic runs have an STP" "cuda elastic+mpmax" "$(stp "$out/results.db" 'basic#1-3')"
check_eq "... the kernel profile counts the copies under their program" "basic threads" \
	"$(awk -F'\t' 'NR > 2 { print $1 }' "$out/profile.tsv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "... each copy's T_SP its own alone time in that run" "basic#1 basic#2 basic#3" \
	"$(sqlite3 "$out/results.db" "SELECT i.program FROM intervals i JOIN intervals s ON s.workload = i.workload AND s.program = i.program AND s.variant = 'single' AND s.metric = 'T_MP (ns)' WHERE i.workload = 'basic#1-3' AND i.variant = 'cuda' AND i.metric = 'T_SP (ns)' AND i.mean = s.mean ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
done_testing
