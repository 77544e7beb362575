#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU, SLURM: a one-node cluster (tests/slurm_cluster.sh) with gres/gpu
# for this host's GPUs, and a small study (mm and spmv at -s 0.5 under
# single, cuda, mps, elastic: 5 runs) through `gpumix run --slurm --gres
# gpu:1` end to end: the prep job captures and reconstructs, the array
# tasks replay on the GPU SLURM gave them, the profile job and the elastic
# array, the finish job analyzes and reports. One array task is cancelled
# (scancel) while it runs; a second `gpumix run --slurm` replays only its
# run. Every run must end ok, the report must exist. Writes, per array
# task, SLURM's wall time (scontrol's StartTime to EndTime, 1 s
# resolution) against the run's own (its manifest) to
# $OUT/slurm/overhead.tsv. Skips where there is no GPU or no SLURM; a
# host without SLURM's packages gets them from the kit (doc/slurm.md):
#   GPUMIX_SLURM_DEBS=DIR   unpack and use build-aux/slurm-kit.sh's DIR
#   OUT=DIR                 keeps the study and overhead.tsv in DIR/slurm
. "$(dirname "$0")/../lib.sh"
require_gpu
if [ -n "${GPUMIX_SLURM_DEBS:-}" ]; then
	eval "$(sh "$GPUMIX_TOP/build-aux/slurm-kit.sh" env "$GPUMIX_SLURM_DEBS")" || {
		not_ok "the SLURM kit in $GPUMIX_SLURM_DEBS unpacks"; done_testing; exit; }
fi
. "$GPUMIX_TOP/tests/slurm_cluster.sh"
scratch_dir >/dev/null
tmp=$_scratch
out=${OUT:+$OUT/slurm}
out=${out:-$tmp/out}
mkdir -p "$out"
trap 'slurm_stop; rm -rf "$tmp"' EXIT
missing=$(slurm_missing)
if [ -n "$missing" ]; then
	skip "no SLURM cluster can be started here: $missing (GPUMIX_SLURM_DEBS: doc/slurm.md)"
	done_testing
	exit
fi
if ! slurm_start "$tmp/slurm" --gpus; then
	not_ok "the cluster starts with gres/gpu (logs above)"
	done_testing
	exit
fi
ok "a one-node cluster with gres/gpu: $(sinfo -h -o '%N %c CPUs %G')"
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT GPUMIX_NVIDIA_SMI

s=$out/study
rm -rf "$s"
mkdir -p "$s"
cat >"$s/study.yaml" <<YAML
study: slurm
root: $GPUMIX_TOP
programs:
  - name: mm
    command: build/workloads/parboil/mm -s 0.5
  - name: spmv
    command: build/workloads/parboil/spmv -s 0.5
workloads:
  - combinations: {size: 2}
variants: [single, cuda, mps, elastic]
repeats: 1
policies: [mpmax]
replay:
  min_replays: 3
  watchdog: 60s
stage_timeout: 10min
YAML
res=$s/results
cd "$s" || exit 1
wait_jobs() { # wait_jobs WHAT SECS: every job has left the queue
	if slurm_wait_idle "$2"; then ok "$1"; else
		not_ok "$1"; squeue; tail -n 20 "$res"/logs/slurm-*.out; fi
}
# overhead ARRAY LIST: a row per ended task of array ARRAY (run LIST's line)
overhead() {
	local i=0 run t st en m a b
	while read -r run; do
		t=$(scontrol -o show job "${1}_$i" 2>/dev/null)
		i=$((i + 1))
		case $t in *JobState=COMPLETED*) ;; *) continue ;; esac
		st=$(sed -n 's/.*StartTime=\([^ ]*\).*/\1/p' <<<"$t")
		en=$(sed -n 's/.*EndTime=\([^ ]*\).*/\1/p' <<<"$t")
		m=$res/runs/$run/manifest
		a=$(sed -n 's/^started_at = //p' "$m" 2>/dev/null)
		b=$(sed -n 's/^finished_at = //p' "$m" 2>/dev/null)
		[ -n "$a" ] && [ -n "$b" ] || continue
		printf '%s\t%s\t%s\t%s\n' "$run" \
			$(( $(date -d "$en" +%s) - $(date -d "$st" +%s) )) \
			"$(awk -v a="$(date -d "$a" +%s.%N)" -v b="$(date -d "$b" +%s.%N)" \
				'BEGIN { printf "%.1f", b - a }')" \
			"$(awk -v a="$(date -d "$a" +%s.%N)" -v b="$(date -d "$b" +%s.%N)" \
				-v w=$(( $(date -d "$en" +%s) - $(date -d "$st" +%s) )) \
				'BEGIN { printf "%.1f", w - (b - a) }')" >>"$out/overhead.tsv"
	done <"$2"
}
printf 'run\tslurm_wall_s\trun_s\toverhead_s\n' >"$out/overhead.tsv"

start=$(date +%s)
sub=$("$GPUMIX" run --slurm --gres gpu:1 -o "$res" study.yaml 2>"$tmp/err")
rc=$?
check_eq "the study is submitted with --gres gpu:1" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
echo "# $sub"
check_match "a prep job, the runs array, the profile job, the elastic array, a finish job" \
	"submitted prep job [0-9]+ .*runs as array [0-9]+, profile job [0-9]+, [0-9]+ runs? as array [0-9]+, finish job" "$sub"
runs_job=$(sed -n 's/^runs = //p' "$res/study.state.slurm")
fin=$(sed -n 's/^finish = //p' "$res/study.state.slurm")
check_match "the runs ask for a GPU" "TresPerNode=[^ ]*gpu" \
	"$(scontrol -o show job "$runs_job" 2>&1)"
check_eq "the finish job (analyze, report) asks for none" "" \
	"$(scontrol -o show job "$fin" 2>&1 | grep -o 'TresPerNode=[^ ]*gpu[^ ]*')"
cp "$res/study.state.runs" "$tmp/runs1"
cp "$res/study.state.runs2" "$tmp/runs2" 2>/dev/null
runs2_job=$(sed -n 's/^runs2 = //p' "$res/study.state.slurm")
# Cancel the cuda run's task once it replays (not a single run's: the
# profile, and so the elastic run, needs those).
task=$(grep -n '\.cuda$' "$tmp/runs1" | head -n 1 | cut -d: -f1)
victim=${runs_job}_$((task - 1))
for _ in $(seq 6000); do	# (600 s: a hang guard)
	squeue -h -t R -o %i 2>/dev/null | grep -qx "$victim" && break
	sleep 0.1
done
check_eq "the task of the cuda run runs" "$victim" \
	"$(squeue -h -t R -o %i | grep -x "$victim")"
scancel "$victim"
echo "# cancelled $victim"
wait_jobs "every job of the first submission ends" 900
echo "# first submission: $(( $(date +%s) - start )) s"
check_match "the finish job's summary: the cancelled run not run yet" \
	"runs: 5: 4 ok, 0 failed, 0 hung, 0 skipped, 1 not run yet" \
	"$(cat "$res/summary.md" 2>&1)"
overhead "$runs_job" "$tmp/runs1"
[ -n "$runs2_job" ] && overhead "$runs2_job" "$tmp/runs2"

sub=$("$GPUMIX" run --slurm --gres gpu:1 -o "$res" study.yaml 2>"$tmp/err")
check_match "resubmitting: only the cancelled run" \
	"submitted 1 run as array [0-9]+, finish job [0-9]+" "$sub"
runs_job=$(sed -n 's/^runs = //p' "$res/study.state.slurm")
cp "$res/study.state.runs" "$tmp/runs3"
wait_jobs "the resubmission's jobs end" 600
overhead "$runs_job" "$tmp/runs3"
echo "# whole study: $(( $(date +%s) - start )) s"
check_match "every run is ok" \
	"runs: 5: 5 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet" \
	"$(cat "$res/summary.md" 2>&1)"
check "the report exists" test -s "$res/report/index.md"
check_match "the summary names the node and GPU of each run" \
	"\| $(hostname): [0-9]+ \(" "$(cat "$res/summary.md" 2>&1)"
check_eq "overhead.tsv has a row per run" 5 "$(($(wc -l <"$out/overhead.tsv") - 1))"
sed 's/^/#   /' "$out/overhead.tsv"
done_testing
