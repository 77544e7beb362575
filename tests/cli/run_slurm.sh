#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix run --slurm on a real one-node SLURM cluster (slurmctld, slurmd
# and munged started here on loopback, in a private directory, and
# stopped at the end however the test ends; tests/slurm_cluster.sh). The
# study's stages run through the fake gpumix (no GPU): a prep job
# captures and reconstructs, a job array replays one run per task, the
# profile job and a second array serve the elastic runs, and the finish
# job loads every replayed run into the database and writes the report.
# One task is killed mid-replay with scancel: the finish job reports its
# run not run yet, and submitting the same command again replays only
# that run. A failed run is submitted again only with --retry-failed.
# Repetitions are array tasks like any run; under a precision target each
# submission runs the repetitions that can be decided.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"	# mock_study
. "$GPUMIX_TOP/tests/slurm_cluster.sh"
scratch_dir >/dev/null
tmp=$_scratch
trap 'slurm_stop; rm -rf "$tmp"' EXIT

missing=$(slurm_missing)
if [ -n "$missing" ]; then
	skip "no SLURM cluster can be started here: $missing"
	done_testing
fi
if ! slurm_start "$tmp/slurm"; then
	not_ok "the test's SLURM cluster starts (logs: see above)"
	done_testing
fi
ok "a one-node SLURM cluster runs on loopback ($(sinfo -h -o '%N %c CPUs'))"

d=$tmp/study
make_study "$d" "a b c" "" "single, cuda, elastic"
sed -i 's/^variants: .*/&\npolicies: [median]/' "$d/study.yaml"
cd "$d" || exit 1
out=$d/results/t
export FAKE_LOG=$d/log FAKE_MARK=$d/marks
mkdir -p "$FAKE_MARK"

wait_jobs() { # wait_jobs WHAT: every job has left the queue
	if slurm_wait_idle 60; then ok "$1"; else
		not_ok "$1"; squeue; tail -n 20 "$out"/logs/slurm-*.out; fi
}

# ---- the first submission: one run fails, one task is killed ----
sub=$(FAKE_FAIL="replay:a+b.cuda" FAKE_SLEEP="replay:b+c.cuda=60" \
	"$GPUMIX" run --slurm --partition gpumix study.yaml 2>"$tmp/err")
rc=$?
check_eq "the study is submitted" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_match "a prep job, the 6 runs that do not read the profile as an array, the profile job, the 3 elastic runs as a second array, a finish job" \
	"^study 't': submitted prep job [0-9]+ \(captures, reconstructs\), 6 runs as array [0-9]+, profile job [0-9]+, 3 runs as array [0-9]+, finish job [0-9]+ \(analyze, report\)$" "$sub"
read -r runs_job <<<"$(sed -n 's/^runs = //p' "$out/study.state.slurm")"
check_fails "submitting again while the jobs are queued is refused" \
	"$GPUMIX" run --slurm study.yaml
err=$("$GPUMIX" run study.yaml 2>&1)
check_match "so is running the study here meanwhile" \
	"^error: study 't' has SLURM jobs queued or running \((prep|runs) [0-9]+" "$err"
status=$("$GPUMIX" run --slurm --status study.yaml 2>&1)
check_match "--status lists the array" "gpumix-t-runs" "$status"

# The task that replays b+c.cuda: its line in the array's list.
task=$(grep -nx 'b+c.cuda' "$out/study.state.runs" | cut -d: -f1)
task=$((task - 1))
for _ in $(seq 3000); do	# (300 s: a hang guard, not a time to keep)
	[ -e "$FAKE_MARK/replay-b+c.cuda" ] && break
	sleep 0.1
done
check "the task of b+c.cuda is replaying" test -e "$FAKE_MARK/replay-b+c.cuda"
scancel "${runs_job}_$task"
wait_jobs "every job of the first submission ends"
status=$("$GPUMIX" run --slurm --status study.yaml 2>&1)
check_match "--status shows the killed task cancelled" \
	"${runs_job}_$task +gpumix-t-runs +CANCELLED" "$status"
check_match "--status counts the recorded replays and the loaded runs" \
	"^replays recorded: 7 ok, 1 failed, 0 hung; 7 runs loaded into the database$" "$status"
check_eq "every stage but the killed replay ran once" \
	"3 6 8 7 1 1" \
	"$(for s in capture reconstruct replay analyze profile report; do
		stages "$FAKE_LOG" "^$s "; done | tr '\n' ' ' | sed 's/ $//')"
check_match "the finish job's summary: b+c.cuda not run yet, a+b.cuda failed" \
	"runs: 9: 7 ok, 1 failed, 0 hung, 0 skipped, 1 not run yet" \
	"$(cat "$out/summary.md")"
check_match "the killed run is listed as not run yet" \
	'^\| b\+c\.cuda \| b\+c \| cuda \| not run yet \|' "$(cat "$out/summary.md")"
check_eq "the task records are in the state, their files gone" "" \
	"$(ls "$out/study.state.tasks" 2>/dev/null)"
check_eq "the loaded runs: all 7 ok ones" 7 \
	"$(db_query "$out/results.db" 'select count(*) from runs' 2>/dev/null || sed -n 's/^runs = //p' "$out/results.db")"

# ---- resubmission: only the killed run ----
: >"$FAKE_LOG"
sub=$("$GPUMIX" run --slurm study.yaml 2>"$tmp/err")
check_match "submitting again: only the killed run, no prep job" \
	"^study 't': submitted 1 run as array [0-9]+, finish job [0-9]+" "$sub"
wait_jobs "the resubmission's jobs end"
check_eq "it replayed b+c.cuda only, then loaded it and wrote the report" \
	"replay b+c.cuda analyze b+c.cuda report report" \
	"$(tr '\n' ' ' <"$FAKE_LOG" | sed 's/ $//')"
check_match "8 ok, the failed run kept as recorded" \
	"runs: 9: 8 ok, 1 failed, 0 hung, 0 skipped, 0 not run yet" \
	"$(cat "$out/summary.md")"

# ---- the failed run again, only with --retry-failed ----
: >"$FAKE_LOG"
sub=$("$GPUMIX" run --slurm study.yaml 2>&1)
check_match "without --retry-failed there is nothing to submit" \
	"nothing to submit" "$sub"
sub=$("$GPUMIX" run --slurm --retry-failed study.yaml 2>&1)
check_match "with --retry-failed, the failed run is submitted" \
	"^study 't': submitted 1 run as array [0-9]+, finish job" "$sub"
wait_jobs "the retry's jobs end"
check_match "every run is ok now" \
	"runs: 9: 9 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet" \
	"$(cat "$out/summary.md")"
check_eq "only a+b.cuda was replayed again" "replay a+b.cuda" \
	"$(grep '^replay' "$FAKE_LOG")"

# ---- repetitions: array tasks like any run ----
# Two repetitions: the array lists both (the elastic runs of both, after
# the profile, in the second). Under a precision target, each submission
# goes one repetition further: the next is decided from the replays of
# those before it, which a submission has not got yet.
r=$tmp/rep
make_study "$r" "a b c" "repeats: 2
" "single, cuda, elastic"
sed -i 's/^variants: .*/&\npolicies: [median]/' "$r/study.yaml"
cd "$r" || exit 1
: >"$FAKE_LOG"
sub=$("$GPUMIX" run --slurm study.yaml 2>&1)
check_match "2 repetitions: 12 runs in the first array, 6 elastic ones in the second" \
	"submitted prep job [0-9]+ \(captures, reconstructs\), 12 runs as array [0-9]+, profile job [0-9]+, 6 runs as array [0-9]+" "$sub"
check_eq "the arrays list every repetition, in plan order" \
	"$("$GPUMIX" run --dry-run study.yaml | sed -n '/^runs:$/,/^$/s/^  \([^ ]*\) .*/\1/p' | grep -v elastic)" \
	"$(cat "$r/results/t/study.state.runs")"
wait_jobs "the repetitions' jobs end"
check_match "every repetition of every run is ok" \
	"runs: 18: 18 ok, 0 failed" "$(cat "$r/results/t/summary.md")"
check_eq "the profile from repetition 0's single runs, once" 1 "$(grep -c '^profile' "$FAKE_LOG")"
p=$tmp/prec
make_study "$p" "a b c" "repeats: 2
precision: 5%
max_repeats: 4
" "single, cuda"
cd "$p" || exit 1
export FAKE_NS="a+c.cuda.r1:a=2000000 a+c.cuda.r3:a=2000000"
sub=$("$GPUMIX" run --slurm study.yaml 2>&1)
check_match "precision: the first submission, the 2 repetitions asked for" \
	"submitted prep job [0-9]+ .*, 12 runs as array" "$sub"
check_match "  the others wait, and it says so" \
	"12 more runs wait for the precision target, decided from these: submit again once they have ended" "$sub"
wait_jobs "the first submission's jobs end"
sub=$("$GPUMIX" run --slurm study.yaml 2>&1)
check_match "the second: repetition 2 of a+c and of its programs' single runs only" \
	"submitted 3 runs as array" "$sub"
wait_jobs "the second submission's jobs end"
sub=$("$GPUMIX" run --slurm study.yaml 2>&1)
check_match "the third: repetition 3 of the same" "submitted 3 runs as array" "$sub"
wait_jobs "the third submission's jobs end"
check_match "then nothing is left" "nothing to submit" "$("$GPUMIX" run --slurm study.yaml 2>&1)"
check_match "the same runs as here or on GPUs" \
	'^- runs: 24: 18 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet, 6 not needed$' \
	"$(cat "$p/results/t/summary.md")"
unset FAKE_NS
cd "$d" || exit 1

# ---- the real stages on the mock CUDA driver (no GPU) ----
# The real reconstruct in the prep job, the real replay in each task
# (tests/mock/), the real analyze and report in the finish job.
m=$tmp/mock
mkdir -p "$m"
mock_study "$m/study.yaml" mock "single, cuda" \
	"min_replays: 2, watchdog: 30s" "$m/out"
# sbatch hands the jobs this environment: the real gpumix, the mock.
# (CUDA_VISIBLE_DEVICES as SLURM's --gres would set it.)
sub=$(env -u GPUMIX_STUDY_EXEC -u FAKE_LOG -u FAKE_MARK CUDA_VISIBLE_DEVICES=0 \
	LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$GPUMIX" run --slurm "$m/study.yaml" 2>&1)
check_match "real stages: a prep job (3 reconstructs), 3 runs, a finish job" \
	"submitted prep job [0-9]+ \(captures, reconstructs\), 3 runs as array [0-9]+, finish job" "$sub"
wait_jobs "the real stages' jobs end"
check_match "every run is ok: replayed on the mock driver by its task" \
	"runs: 3: 3 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet" \
	"$(cat "$m/out/summary.md" 2>&1)"
check_eq "the finish job loaded the 3 runs into the database" 3 \
	"$(db_query "$m/out/results.db" 'select count(*) from runs' 2>&1)"
check "and wrote the report" test -s "$m/out/report/index.md"
check_match "the summary names each run's node and GPU" \
	"^\| basic\+threads\.cuda \| basic\+threads \| cuda \| ok \| $(hostname): 0 \(.+\) \|" \
	"$(cat "$m/out/summary.md" 2>&1)"
check_eq "each run replayed in its own task" 3 \
	"$(ls "$m/out/logs"/slurm-runs-*.out 2>/dev/null | wc -l)"

# ---- errors ----
err=$("$GPUMIX" run --slurm --gpus all study.yaml 2>&1)
check_match "--slurm with --gpus is a usage error" "does not go with --gpus" "$err"
err=$("$GPUMIX" run --status study.yaml 2>&1)
check_match "--status without --slurm is a usage error" "go with --slurm" "$err"
make_study "$tmp/gres" "a b"
err=$(cd "$tmp/gres" && "$GPUMIX" run --slurm --gres gpu:1 study.yaml 2>&1)
check_match "sbatch's refusal is the error (this cluster has no GPU)" \
	"^error: sbatch failed: .*(gres|GRES|generic resource)" "$err"
check_eq "... and nothing is left queued" "" "$(squeue -h -o %i)"
check "... nor recorded as submitted" test ! -e "$tmp/gres/results/t/study.state.slurm"
rm -f "$out/study.state.slurm"
err=$("$GPUMIX" run --slurm --status study.yaml 2>&1)
check_match "--status of a study never submitted says so" \
	"was not submitted to SLURM" "$err"
done_testing
