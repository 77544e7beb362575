#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix run end to end on the CPU, each stage a child process of the fake
# gpumix (tests/data/study/fake-gpumix, which writes the documented files):
# a whole study (each workload reconstructed once and replayed under each
# variant, with exactly the knobs its variant takes in the variant table),
# a second invocation that does nothing, what a changed binary, command,
# parameter or knob redoes, failed / hung / crashed / timed-out
# stages recorded with their reasons while the study goes on, and the
# errors that stop a study before it starts.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch

# ---- a whole study ----
# Variants single, cuda and nss over the pairs of a, b and c: 3 single
# baselines and 3 x 2 pair runs; 6 workloads (a, b, c and the pairs),
# each reconstructed once and replayed by each of its runs.
d=$tmp/s1
make_study "$d" "a b c" "" "single, cuda, nss"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run counts one reconstruct per workload" \
	"^to do: 3 captures, 6 reconstructs, 9 replays, 9 analyses, 1 report$" "$plan"
check_eq "the dry run lists the builds, in the order they are needed" \
	"a b c a+b a+c b+c" \
	"$(echo "$plan" | sed -n '/^builds/,/^$/s/^  \([^ ]*\) *to do: reconstruct$/\1/p' | tr '\n' ' ' | sed 's/ $//')"
check_match "the dry run shows a run of a pair to replay and analyze" \
	'^  a\+b\.nss +to do: replay analyze$' "$plan"
out=$("$GPUMIX" run study.yaml 2>"$d/err")
check_eq "the study succeeds" 0 $?
check_eq "28 stages: 3 captures, 6 reconstructs, 9 x (replay, analyze), report" \
	"28 3 6 9 9 1" "$(stages log) $(stages log '^capture') \
$(stages log '^reconstruct') $(stages log '^replay') $(stages log '^analyze') \
$(stages log '^report')"
check_eq "each workload is reconstructed exactly once" "a b c a+b a+c b+c" \
	"$(sed -n 's/^reconstruct //p' log | tr '\n' ' ' | sed 's/ $//')"
check_eq "one build per workload, none per run" "a a+b a+c b b+c c" \
	"$(ls results/t/builds | tr '\n' ' ' | sed 's/ $//')"
check_eq "reconstruct is not given a variant" \
	"reconstruct a+b:" "$(grep '^reconstruct a+b:' args)"
check_eq "single runs are one per program, shared by the pairs" \
	"a.single b.single c.single" \
	"$(sed -n 's/^replay \(.*\.single\)$/\1/p' log | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "each pair replays once per variant, right after its reconstruct" \
	"reconstruct a+b|replay a+b.cuda|analyze a+b.cuda|replay a+b.nss|analyze a+b.nss" \
	"$(grep -A4 '^reconstruct a+b$' log | tr '\n' '|' | sed 's/|$//')"
check_eq "single replays get --variant single and no knob" \
	"replay a.single: --variant single" "$(grep '^replay a\.single:' args)"
check_eq "cuda replays get --variant cuda and no knob" \
	"replay a+b.cuda: --variant cuda" "$(grep '^replay a+b\.cuda:' args)"
check_eq "nss replays get the knobs nss takes (table), with the defaults" \
	"replay a+b.nss: --variant nss --timeslice-us 1000 --copy-chunk 4194304 --completion event" \
	"$(grep '^replay a+b\.nss:' args)"
check_eq "analyze replaces an earlier run of the same configuration" \
	"analyze a+b.nss: --force" "$(grep '^analyze a+b\.nss:' args)"
check_eq "no replay but nss is given a knob" "0" \
	"$(grep '^replay' args | grep -v '\.nss:' | grep -c -- '--timeslice-us\|--copy-chunk\|--completion\|--policy')"
check_eq "every replay, of every variant, spends the captured host time (--host-time captured)" \
	"9 9" "$(ls results/t/runs | wc -l) $(cat results/t/runs/*/manifest | grep -c '^host_time = captured$')"
check_eq "  without a limit" 0 "$(cat results/t/runs/*/manifest | grep -c '^max_host_gap_s')"
check_eq "the runs of a pair replay the pair's one build" "a+b a+b nss" \
	"$(sed -n 's/^workload = //p' results/t/runs/a+b.cuda/manifest) \
$(sed -n 's/^workload = //p' results/t/runs/a+b.nss/manifest) \
$(sed -n 's/^variant = //p' results/t/runs/a+b.nss/manifest)"
check_match "the summary counts the runs" \
	'^- runs: 9: 9 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$out"
check_match "the summary table lists each run" '^\| a\+b\.nss \| a\+b \| nss \| ok \|' "$out"
check_eq "the summary is also written to paths.summary" "$out" "$(cat results/t/summary.md)"
check_match "the summary names the report" '^- report: results/t/report$' "$out"
check_eq "each run was loaded into the database" 9 \
	"$(sqlite3 results/t/results.db 'SELECT count(*) FROM runs WHERE status = "ok"')"
check "the report was written" test -s results/t/report/index.md
check_eq "replay got the study's parameters" "3" \
	"$(sed -n 's/^min_replays = //p' results/t/runs/a+b.cuda/manifest)"
check_eq "a single baseline reconstructs one bundle" "a" \
	"$(sed -n 's/^programs = //p' results/t/builds/a/manifest)"
check_match "progress names a workload's reconstruct" \
	'^\[runs 3/9, stage 13/28\] a\+b: reconstruct \([0-9]+s elapsed, [^)]* left\)$' \
	"$(cat err)"
check_match "progress names runs, stage, workload and variant" \
	'^\[runs 4/9, stage 16/28\] a\+b nss: replay \([0-9]+s elapsed, [^)]* left\)$' \
	"$(cat err)"
check_match "stderr ends with a one-line summary" \
	"^study 't': 9 runs: 9 ok, 0 failed, 0 hung, 0 skipped in [0-9]+s; summary in results/t/summary.md$" \
	"$(tail -n 1 err)"
check_eq "the bundle records the program's command" "progs/a -s 1" \
	"$(sed -n 's/^command = //p' results/t/bundles/a/manifest)"
check_eq "capture runs in the program's directory (root by default)" "$d" \
	"$(sed -n 's/^cwd = //p' results/t/bundles/a/manifest)"

# ---- a second invocation does nothing ----
out=$("$GPUMIX" run study.yaml 2>err)
check_eq "the second invocation succeeds" 0 $?
check_eq "it runs no stage" 28 "$(stages log)"
check_match "it says so" '^- this invocation: 0 stages run \(0 failed\)' "$out"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run shows every run done" "^to do: 0 captures, 0 reconstructs, 0 replays, 0 analyses, 0 report$" "$plan"
check_match "the dry run shows captured programs" "^  a +captured +progs/a -s 1$" "$plan"
check_match "the dry run shows reconstructed workloads" "^  a\+b +reconstructed$" "$plan"
"$GPUMIX" -q run study.yaml >/dev/null 2>err
check_eq "-q silences progress and the final line" "" "$(cat err)"

# ---- what changes redo ----
# last N: the stages of the last invocation that ran N stages.
last() { tail -n "$1" log | sed 's/ /:/' | tr '\n' ' ' | sed 's/ $//'; }
touch -d '2001-01-01' progs/b
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "a new mtime with the same bytes redoes nothing" 28 "$(stages log)"
echo "# changed" >>progs/b
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run shows the recapture" "^  b +recapture +progs/b -s 1$" "$plan"
check_match "and the missing capture" "^captures missing: b$" "$plan"
check_match "and the workloads to reconstruct again" "^  b\+c +to do: reconstruct$" "$plan"
check_match "and the ones that stay" "^  a\+c +reconstructed$" "$plan"
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "a changed binary redoes its capture, its 3 workloads' builds, their 5 runs and the report" \
	"43 1 3 5 5 1" "$(stages log) $(tail -n 15 log | grep -c '^capture b') \
$(tail -n 15 log | grep -c '^reconstruct') $(tail -n 15 log | grep -c '^replay') \
$(tail -n 15 log | grep -c '^analyze') $(tail -n 15 log | grep -c '^report')"
check_eq "the builds redone are the ones with b" "b a+b b+c" \
	"$(tail -n 15 log | sed -n 's/^reconstruct //p' | tr '\n' ' ' | sed 's/ $//')"
check_eq "the runs redone are the ones with b" "b.single a+b.cuda a+b.nss b+c.cuda b+c.nss" \
	"$(tail -n 15 log | sed -n 's/^replay //p' | tr '\n' ' ' | sed 's/ $//')"
sed -i 's|progs/c -s 1|progs/c -s 2|' study.yaml
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "a changed command line redoes that program's capture, builds and runs" \
	"58 capture c" "$(stages log) $(tail -n 15 log | head -n 1)"
sed -i 's|min_replays: 3|min_replays: 4|' study.yaml
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "new replay parameters redo replays, analyses and report only" \
	"77 0 0 9 9 1" "$(stages log) $(tail -n 19 log | grep -c '^capture') \
$(tail -n 19 log | grep -c '^reconstruct') $(tail -n 19 log | grep -c '^replay') \
$(tail -n 19 log | grep -c '^analyze') $(tail -n 19 log | grep -c '^report')"
sed -i 's|min_replays: 4|min_replays: 4, timeslice: 500us|' study.yaml
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "a new timeslice redoes only the runs of the variant that takes it" \
	"84 replay:a+b.nss analyze:a+b.nss replay:a+c.nss analyze:a+c.nss replay:b+c.nss analyze:b+c.nss report:report" \
	"$(stages log) $(last 7)"
check_eq "  and reaches its replays" \
	"replay b+c.nss: --variant nss --timeslice-us 500 --copy-chunk 4194304 --completion event" \
	"$(grep '^replay b+c\.nss:' args | tail -n 1)"
sed -i 's|timeslice: 500us|timeslice: 500us, copy_chunk: 64KiB|' study.yaml
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "copy_chunk redoes the nss runs only" "91 3 0" \
	"$(stages log) $(tail -n 7 log | grep -c '^replay .*\.nss$') \
$(tail -n 7 log | grep -c '^replay .*\.\(cuda\|single\)$')"
check_eq "  and reaches their replays" \
	"replay a+b.nss: --variant nss --timeslice-us 500 --copy-chunk 65536 --completion event" \
	"$(grep '^replay a+b\.nss:' args | tail -n 1)"
sed -i 's|copy_chunk: 64KiB|copy_chunk: 64KiB, completion: poll|' study.yaml
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "completion: poll needs the elastic modules: every build is made again, every run replayed" \
	"116 6 9" "$(stages log) $(tail -n 25 log | grep -c '^reconstruct') \
$(tail -n 25 log | grep -c '^replay')"
check_eq "  each reconstructed with --elastic" "reconstruct a+b: --elastic" \
	"$(grep '^reconstruct a+b:' args | tail -n 1)"
check_eq "  nss gets --completion poll, and the transformed kernels with elasticity off" \
	"replay a+b.nss: --variant nss --timeslice-us 500 --copy-chunk 65536 --completion poll --elastic identity" \
	"$(grep '^replay a+b\.nss:' args | tail -n 1)"
check_eq "  and so do the others (same_kernels)" \
	"replay a+b.cuda: --variant cuda --elastic identity|replay a.single: --variant single --elastic identity" \
	"$(grep '^replay a+b\.cuda:' args | tail -n 1)|$(grep '^replay a\.single:' args | tail -n 1)"
rm -rf results/t/results.db
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "a deleted database is loaded again, run by run" "126 9" \
	"$(stages log) $(tail -n 10 log | grep -c '^analyze')"
rm -rf results/t/bundles results/t/builds
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "deleted bundles and builds are not needed when the runs are done" 126 "$(stages log)"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run says the builds are not needed" "^  a\+b +not needed$" "$plan"
unset FAKE_ARGS
cd "$tmp" || exit 1

# ---- failures are recorded and the study goes on ----
d=$tmp/s2
make_study "$d"
export FAKE_LOG=$d/log
cd "$d" || exit 1
out=$(FAKE_FAIL="replay:a+b.cuda" FAKE_HUNG="replay:a+c.cuda" \
	FAKE_CRASH="replay:b+c.cuda" "$GPUMIX" run study.yaml 2>err)
check_eq "a study with failed runs exits 1" 1 $?
check_match "it counts them" '^- runs: 6: 3 ok, 2 failed, 1 hung, 0 skipped, 0 not run yet$' "$out"
check_match "a failed run gives the run's own reason" \
	'^- a\+b\.cuda: failed: program a: result of cuMemcpyDtoH \(event 42\) differs from the capture \(log: results/t/logs/replay-a\+b\.cuda\.log\)$' "$out"
check_match "a hung run gives the watchdog's reason" \
	'^- a\+c\.cuda: hung: watchdog: no progress for 60 s; program a waits in kernel k \(event 7\)' "$out"
check_match "a crashed stage gives its signal and last words" \
	'^- b\+c\.cuda: failed: killed by signal 11 \(Segmentation fault\): fake replay of b\+c\.cuda crashes \(log: ' "$out"
check_match "the progress line reports the failure as it happens" \
	'^a\+c cuda: replay: hung: watchdog' "$(cat err)"
check_eq "failed runs are not analyzed; the others are" "3" \
	"$(sqlite3 results/t/results.db 'SELECT count(*) FROM runs')"
check "the report is written from the runs that worked" test -s results/t/report/index.md
n=$(stages log)
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_eq "failed runs are not repeated by the next invocation" "1 $n" "$? $(stages log)"
check_match "the summary still lists them" '^- a\+c\.cuda: hung: ' "$out"
out=$("$GPUMIX" run --retry-failed study.yaml 2>/dev/null)
check_eq "--retry-failed runs them again and the study succeeds" "0 $((n + 7))" \
	"$? $(stages log)"
cd "$tmp" || exit 1

d=$tmp/s3
make_study "$d"
cd "$d" || exit 1
out=$(FAKE_FAIL="capture:b" "$GPUMIX" run study.yaml 2>/dev/null)
check_eq "a failed capture exits 1" 1 $?
check_match "runs with that program are skipped, with the reason" \
	"^\| a\+b\.cuda \| a\+b \| cuda \| skipped \| capture of 'b' failed: exited with status 1: fake capture failure of 'b' \|$" "$out"
check_match "runs without it are done" '^- runs: 6: 3 ok, 0 failed, 0 hung, 3 skipped' "$out"
cd "$tmp" || exit 1

d=$tmp/s4
make_study "$d" "a b c" "" "single, cuda, nss"
export FAKE_LOG=$d/log
cd "$d" || exit 1
out=$(FAKE_FAIL="reconstruct:a+b analyze:c.single" "$GPUMIX" run study.yaml 2>err)
check_eq "a failed reconstruct is tried once for its workload" 1 \
	"$(stages log '^reconstruct a+b$')"
check_match "a failed reconstruct fails every run of its workload (cuda)" \
	"^- a\+b\.cuda: failed: reconstruct failed: exited with status 1: fake reconstruct failure of 'a\+b' \(log: results/t/logs/reconstruct-a\+b\.log\)$" "$out"
check_match "  (nss)" \
	"^- a\+b\.nss: failed: reconstruct failed: exited with status 1: fake reconstruct failure of 'a\+b' \(log: results/t/logs/reconstruct-a\+b\.log\)$" "$out"
check_eq "  none of them is replayed" 0 "$(stages log '^replay a+b\.')"
check_match "the other workloads go on" '^- runs: 9: 6 ok, 3 failed, 0 hung, 0 skipped' "$out"
check_match "progress counts both failed runs at once" \
	'^\[runs 5/9, stage 14/24\] a\+c: reconstruct ' "$(cat err)"
check_match "a failed analyze fails its run" \
	"^- c\.single: failed: analyze failed: exited with status 1: fake analyze failure of 'c\.single'" "$out"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run shows the failed build" \
	"^  a\+b +failed: exited with status 1: fake reconstruct failure of 'a\+b'$" "$plan"
check_match "  and its runs, kept as recorded" \
	"^  a\+b\.nss +failed: reconstruct failed: exited with status 1: " "$plan"
check_match "  and counts them" "^note: 3 failed or hung runs are kept as recorded" "$plan"
n=$(stages log)
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "the next invocation does not retry it" "$n" "$(stages log)"
plan=$("$GPUMIX" run --retry-failed --dry-run study.yaml)
check_match "--retry-failed plans one reconstruct for the two replays" \
	"^to do: 0 captures, 1 reconstructs, 2 replays, 3 analyses, 1 report$" "$plan"
out=$(FAKE_FAIL="report:report" "$GPUMIX" run --retry-failed study.yaml 2>/dev/null)
check_eq "a failed report exits 1" 1 $?
check_eq "--retry-failed reconstructs the workload once and replays each run" \
	"analyze:c.single reconstruct:a+b replay:a+b.cuda analyze:a+b.cuda replay:a+b.nss analyze:a+b.nss report:report" \
	"$(tail -n 7 log | sed 's/ /:/' | tr '\n' ' ' | sed 's/ $//')"
check_match "the summary says why" "^- report: failed: exited with status 1: fake report failure of 'report'$" "$out"
"$GPUMIX" run --retry-failed study.yaml >/dev/null 2>&1
check_eq "once the report works the study succeeds" 0 $?
unset FAKE_LOG
cd "$tmp" || exit 1

d=$tmp/s5
make_study "$d" "a b" "stage_timeout: 1s
"
cd "$d" || exit 1
out=$(FAKE_SLEEP="replay:a+b.cuda=60" "$GPUMIX" run study.yaml 2>/dev/null)
check_eq "a stage past the time limit fails the study, not the run before" 1 $?
check_match "it is recorded as hung with the limit (stopped, not finished)" \
	'^- a\+b\.cuda: hung: stopped after the stage time limit of 1s(: .*)? \(log: ' "$out"
cd "$tmp" || exit 1

# ---- determinism and paths reach the stages ----
d=$tmp/s6
make_study "$d" "a b"
sed -i 's|^  - name: b$|  - name: b\n    deterministic: false|' "$d/study.yaml"
mkdir "$d/work"
sed -i 's|^    command: progs/a -s 1$|    command: ../progs/a -s 1\n    cwd: work|' "$d/study.yaml"
cd "$d" || exit 1
"$GPUMIX" run -o "$tmp/elsewhere" study.yaml >/dev/null 2>&1
check_eq "-o puts the outputs elsewhere" 0 $?
check "  (the summary is there)" test -s "$tmp/elsewhere/summary.md"
check_eq "a nondeterministic program is named to reconstruct" "b" \
	"$(sed -n 's/^nondeterministic = //p' "$tmp/elsewhere/builds/a+b/manifest")"
check_eq "cwd is where the program is captured" "$d/work" \
	"$(sed -n 's/^cwd = //p' "$tmp/elsewhere/bundles/a/manifest")"
cd "$tmp" || exit 1

# ---- errors that stop a study before it starts ----
d=$tmp/s7
make_study "$d"
cd "$d" || exit 1
rm progs/b
out=$("$GPUMIX" run study.yaml 2>&1)
check_eq "a missing executable stops the study" 1 $?
check_eq "with its position and cause" \
	"error: study.yaml:6:14: program 'b' cannot be captured
  caused by: 'progs/b' is not an executable file (looked for '$d/progs/b')" "$out"
check "nothing ran" test ! -e results/t/logs/capture-a.log
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run shows it instead" "^  b +not found +progs/b -s 1 \('progs/b' is not an executable file" "$plan"
cp progs/a progs/b
mkdir -p results/t/report
out=$("$GPUMIX" run study.yaml 2>&1)
check_eq "a report directory that gpumix did not write stops it" \
	"error: the study cannot replace 'results/t/report' (its report, paths: report)
  caused by: '$d/results/t/report' exists and was not written by gpumix as a report (it has no '.gpumix' marker of one): it is not replaced
hint: remove it yourself if it may go, or set 'paths: report:' in 'study.yaml'" "$out"
rmdir results/t/report
# gpumix deletes only what it wrote (common/output_dir.h): a run or build
# directory, or a bundle, that holds the user's files stops the study
# before anything runs, and they stay.
for o in runs/a.single builds/a+b bundles/c; do
	mkdir -p "results/t/$o"
	echo mine >"results/t/$o/notes.txt"
	out=$("$GPUMIX" run study.yaml 2>&1)
	check_match "a directory in $o that gpumix did not write stops the study" \
		"^error: the study cannot replace 'results/t/${o//+/\\+}' \(its [a-z ]*, paths: ${o%%/*}\)" "$out"
	check_eq "... and what is in it stays" mine "$(cat "results/t/$o/notes.txt")"
	check "... nothing ran" test ! -e results/t/logs/capture-a.log
	rm -r "results/t/${o%%/*}"
done
echo mine >results/t/report
out=$("$GPUMIX" run study.yaml 2>&1)
check_match "a regular file where the report goes stops it" \
	"caused by: '$d/results/t/report' exists and is a regular file, not a report that gpumix wrote: it is not replaced" "$out"
check_eq "... and stays" mine "$(cat results/t/report)"
rm results/t/report
out=$(GPUMIX_STUDY_EXEC=$d/nothing "$GPUMIX" run study.yaml 2>&1)
check_match "a missing stage binary is named" \
	"^error: cannot run stages with '$d/nothing': No such file or directory" "$out"
check_match "  with a hint" "^hint: GPUMIX_STUDY_EXEC names the gpumix binary used for stages$" "$out"
echo "garbage" >results/t/study.state
out=$("$GPUMIX" run study.yaml 2>&1)
check_match "a corrupt state file is an error naming it" \
	"^error: cannot read the study state '$d/results/t/study.state'" "$out"
check_match "  with a hint" "^hint: delete it to start the study over$" "$out"

# ---- host_time and max_host_gap reach every variant's replays ----
d=$tmp/s9
make_study "$d" "a b" "" "single, cuda, nss"
sed -i 's|min_replays: 3|min_replays: 3, host_time: none, max_host_gap: 1.5s|' "$d/study.yaml"
cd "$d" || exit 1
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "a study with host_time and max_host_gap succeeds" 0 $?
check_eq "every replay got --host-time none" "4 4" \
	"$(ls results/t/runs | wc -l) $(cat results/t/runs/*/manifest | grep -c '^host_time = none$')"
check_eq "and --max-host-gap 1.5" 4 "$(cat results/t/runs/*/manifest | grep -c '^max_host_gap_s = 1.5$')"
cd "$tmp" || exit 1

# ---- no gnuplot: the report has its tables, and says so ----
d=$tmp/s8
make_study "$d"
cd "$d" || exit 1
out=$(GPUMIX_GNUPLOT=$d/no-gnuplot "$GPUMIX" run study.yaml 2>err)
check_eq "a study without gnuplot still succeeds" 0 $?
check_match "it warns before anything runs" \
	"^warning: '$d/no-gnuplot' was not found: the report will have its tables and its figures' data and gnuplot scripts, not the figures" \
	"$(head -n 1 err)"
check_match "the report is asked for the figures' data and scripts" "^figures: scripts$" \
	"$(cat results/t/report/index.md)"
check_match "the summary says so" \
	"^- report: results/t/report \\(figures not drawn: gnuplot was not found; 'gnuplot \\*\\.gp' in its figures/ draws them\\)\$" "$out"
plan=$(GPUMIX_GNUPLOT=$d/no-gnuplot "$GPUMIX" run --dry-run study.yaml 2>&1)
check_match "the dry run warns too" "^warning: '$d/no-gnuplot' was not found" "$plan"
ln -s "$(type -P true)" "$d/gnuplot"
out=$(GPUMIX_GNUPLOT=$d/gnuplot "$GPUMIX" run study.yaml 2>err)
check_eq "with gnuplot found again, the study succeeds" 0 $?
check_match "and the report is redrawn with its figures" "^figures: yes$" \
	"$(cat results/t/report/index.md)"
check_match "  and only the report" '^- this invocation: 1 stages run \(0 failed\)' "$out"
cd "$tmp" || exit 1
# ---- N copies of one program (doc/study-yaml.md, "copies") ----
# {program: a, copies: 3}: one build of the bundle given three times,
# its instances a#1 ... a#3 in its runs, and a's alone run their baseline.
d=$tmp/s9
make_study "$d" "a b" "" "single, cuda"
sed -i 's/^  - combinations: {size: 2}$/  - {program: a, copies: 3}\n  - [b, a, b]/' "$d/study.yaml"
cd "$d" || exit 1
plan=$("$GPUMIX" run --dry-run study.yaml 2>&1)
check_match "copies: the dry run lists their build" '^  a#1-3 +to do: reconstruct$' "$plan"
check_match "... and the one of b twice" '^  b#1\+a\+b#2 +to do: reconstruct$' "$plan"
check_match "... and their runs" '^  a#1-3\.cuda +to do: replay analyze$' "$plan"
out=$("$GPUMIX" run study.yaml 2>err)
check_eq "copies: the study succeeds" 0 $?
check_eq "... the alone runs are a's and b's" "a.single b.single" \
	"$(ls results/t/runs | grep '\.single$' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "... reconstruct is given a's bundle three times: a#1 a#2 a#3" "a#1 a#2 a#3" \
	"$(sed -n 's/^programs = //p' results/t/builds/a#1-3/manifest)"
check_eq "... the copies' run replayed them" "a#1 a#2 a#3" \
	"$(sed -n 's/^program\.[0-9]*\.name = //p' results/t/runs/a#1-3.cuda/manifest | tr '\n' ' ' | sed 's/ $//')"
check_match "... all runs ok" '^- runs: 4: 4 ok, 0 failed' "$out"
cd "$tmp" || exit 1
done_testing
