#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU, several GPUs: the demo study (workloads/demo.yaml, 12 runs, each
# 3 times: 36) on one GPU (--gpus 1) and on every GPU of the node (--gpus
# all): every run ok both times, no two replays on one GPU at once (the
# run manifests' finished_at and started_at, per device.visible), each
# workload's STP under each variant, over its 3 repetitions,
# no different from the one-GPU study's within their 95% intervals over
# the repetitions (gpumix report --compare), and the wall times and
# speed-up printed. Skips on a node with fewer than two GPUs. About 6
# minutes on 2 H200s.
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
# Both studies side by side (doc/gpumix-report.md, "Comparing two
# studies"): each workload and variant with its 3 repetitions in both,
# and B/A's interval holding 1 across workloads for every variant; per
# workload, at a 95% level about one comparison in twenty differs by
# chance alone, so at most a tenth of them (and one) may.
cmp() {
	"$GPUMIX" -q report --compare "$out/gpus-1/results.db" \
		"$out/gpus-all/results.db" --format csv --table "$1"
}
echo "# STP, 1 GPU (A) vs $n GPUs (B):"
cmp compare-workloads | cut -d, -f1-7 | sed 's/^/#   /'
check_eq "every workload and variant has its 3 repetitions in both" "" \
	"$(cmp compare-workloads | awk -F, 'NR > 1 && ($12 != 3 || $13 != 3)')"
check_eq "across workloads, no variant's STP or ANTT differs" "" \
	"$(cmp compare-summary | awk -F, 'NR > 1 && ($7 != "no difference" || $11 != "no difference")')"
rows=$(cmp compare-workloads | awk 'NR > 1' | wc -l)
differ=$(cmp compare-workloads | awk -F, 'NR > 1 && $7 != "no difference"' | wc -l)
echo "# $differ of $rows workloads' STP differ between 1 and $n GPUs"
check "per workload, at most a tenth differ (chance alone: a twentieth)" \
	test "$differ" -le $((rows / 10 + 1))
done_testing
