#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU, several GPUs: the demo study (workloads/demo.yaml, 12 runs, each
# 3 times: 36) on one GPU (--gpus 1) and on every GPU of the node (--gpus
# all): every run ok both times, no two replays on one GPU at once (the
# run manifests' finished_at and started_at, per device.visible), each
# workload's STP under each variant, the mean of its 3 repetitions,
# within 15% of the one-GPU study's (run-to-run noise), and the wall
# times and speed-up printed. Skips on a
# node with fewer than two GPUs. About 6 minutes on 2 H200s.
# TODO(issue 33): compare the two studies within their intervals over
# the repetitions (gpumix report --compare, or the database's interval
# columns) instead of a fixed 15%, once analyze gives them.
#   OUT=DIR keeps both studies in DIR/run_gpus
. "$(dirname "$0")/../lib.sh"
require_gpu
n=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
if [ "$n" -lt 2 ]; then
	skip "--gpus needs a node with two GPUs or more (this one has $n)"
	done_testing
fi
scratch_dir >/dev/null
out=${OUT:+$OUT/run_gpus}
out=${out:-$_scratch}
mkdir -p "$out"
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT GPUMIX_NVIDIA_SMI
cd "$GPUMIX_TOP" || exit 1
declare -A secs
for g in 1 all; do
	start=$(date +%s.%N)
	"$GPUMIX" run --gpus "$g" -o "$out/gpus-$g" workloads/demo.yaml \
		>"$out/gpus-$g.out" 2>"$out/gpus-$g.err"
	rc=$?
	secs[$g]=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	check_eq "--gpus $g: the study succeeds" 0 "$rc"
	[ "$rc" = 0 ] || tail -n 20 "$out/gpus-$g.err" | sed 's/^/#   /'
	check_match "--gpus $g: all 36 runs ok" "runs: 36: 36 ok" "$(cat "$out/gpus-$g.out")"
done
echo "# wall time: 1 GPU ${secs[1]} s, $n GPUs ${secs[all]} s, speed-up" \
	"$(awk -v a="${secs[1]}" -v b="${secs[all]}" 'BEGIN { printf "%.2f", a / b }')"
# Replays of one GPU never overlap: sorted by start, each starts after
# the previous one on that GPU has finished.
overlap=$(for m in "$out"/gpus-all/runs/*/manifest; do
	printf '%s %s %s\n' "$(sed -n 's/^device.visible = //p' "$m")" \
		"$(sed -n 's/^started_at = //p' "$m")" \
		"$(sed -n 's/^finished_at = //p' "$m")"
done | sort | awk '$1 == g && $2 < e { c++ } { g = $1; e = $3 } END { print c + 0 }')
check_eq "no two replays ran on one GPU at once" 0 "$overlap"
used=$(sed -n 's/^device.visible = //p' "$out"/gpus-all/runs/*/manifest | sort -u | wc -l)
check "the replays used more than one GPU" test "$used" -gt 1
# STP per workload and variant, both studies: the mean over the
# repetitions (the table has a row per run).
stp() {
	awk -F, 'NR > 1 { k = $1 "," $3; s[k] += $4; n[k]++ }
		END { for (k in s) printf "%s %.4f %d\n", k, s[k] / n[k], n[k] }' \
		"$1/report/tables/workloads.csv" | sort
}
far=$(join <(stp "$out/gpus-1") <(stp "$out/gpus-all") |
	awk '{ d = $4 / $2 - 1; if (d < 0) d = -d; if (d > 0.15) print $1, $2, $4 }')
echo "# STP (mean, repetitions), 1 GPU vs $n GPUs:"
join <(stp "$out/gpus-1") <(stp "$out/gpus-all") | sed 's/^/#   /'
check_eq "every workload and variant has its 3 repetitions in both" "" \
	"$(join <(stp "$out/gpus-1") <(stp "$out/gpus-all") | awk '$3 != 3 || $5 != 3')"
check_eq "each workload's mean STP within 15% of the one-GPU study's" "" "$far"
done_testing
