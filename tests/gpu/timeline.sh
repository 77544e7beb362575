#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: timelines of real data. A suite program captured on the GPU is
# exported (gpumix trace export): the file follows the trace-event rules,
# its GPU records are aligned with its calls by the process events (none
# unaligned, every launch arrow points forward in time: a kernel cannot
# start before its launch call), it has a slice per call and per captured
# GPU record and an arrow per kernel. A replayed two-program workload
# (gen-workload, cuda variant) is analyzed and reported: its run's
# timeline matches the database record for record, arrows forward.
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured bundles
#   GPUMIX_TIMELINE_PROGRAM=P the suite program to capture (default mm)
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch timeline
suite_cache
tmp=$_scratch
chk=$GPUMIX_TOP/tests/tools/check_timeline.py
p=${GPUMIX_TIMELINE_PROGRAM:-mm}

if suite_bundle "$p"; then
	out=$("$GPUMIX" trace export -o "$tmp/$p.json" "$SUITE_CACHE/$p" 2>&1)
	check_eq "$p: export exits 0" 0 "$?"
	echo "# $out"
	got=$(python3 "$chk" --causal "$tmp/$p.json")
	check_eq "$p: the rules hold and every arrow points forward in time" 0 "$?"
	[ -z "$got" ] || grep -v '^other' <<<"$got" | sed 's/^/#   /'
	check_eq "$p: every process aligned by its process event" \
		"other unaligned_processes 0" "$(grep '^other unaligned' <<<"$got")"
	acts=$("$GPUMIX" trace dump --events "$SUITE_CACHE/$p" | awk '$4 == "act_kernel"' | wc -l)
	calls=$("$GPUMIX" trace dump --events "$SUITE_CACHE/$p" | awk '$4 == "enter"' | wc -l)
	check "$p: the capture holds kernel records ($acts)" test "$acts" -gt 0
	check_eq "$p: a slice per kernel record" "$acts" \
		"$(awk '/^slices kernel/ {print $3}' <<<"$got")"
	check_eq "$p: a slice per call" "$calls" "$(awk '/^slices call/ {print $3}' <<<"$got")"
	flows=$(awk '/^flows/ {print $2}' <<<"$got")
	check "$p: an arrow per kernel at least ($flows >= $acts)" test "$flows" -ge "$acts"
fi

GEN=$GPUMIX_BUILD/tests/gen-workload
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
check "the test kernels build as a fatbin" \
	"$NVCC" -fatbin -arch=sm_${SM:-90} -o "$tmp/k.fatbin" \
	"$GPUMIX_TOP/tests/gpu/replay_kernels.cu"
check "workload generated" "$GEN" tiny --variant cuda --fatbin "$tmp/k.fatbin" -o "$tmp/w"
mkdir -p "$tmp/runs"
out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/runs/tiny.cuda" "$tmp/w" 2>&1)
check_eq "replay exits 0" 0 "$?"
check_run "$tmp/runs/tiny.cuda" 2 3
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/r.db"
check_eq "analyze exits 0" 0 "$?"
# (tables only where gnuplot is missing: the timelines do not need it)
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --timeline-max 0 \
	$(have_gnuplot || echo --no-figures)
check_eq "report exits 0" 0 "$?"
f=$(ls "$tmp"/rep/timelines/*.json | head -1)
got=$(python3 "$chk" --causal "$f")
check_eq "run timeline: the rules hold and every arrow points forward" 0 "$?"
run=$(db_query "$tmp/r.db" "SELECT id FROM runs LIMIT 1")
for kind in KERNEL:kernel MEMCPY:memcpy; do
	row=$(db_query "$tmp/r.db" "SELECT count(*), coalesce(sum(end - start), 0)
		FROM CUPTI_ACTIVITY_KIND_${kind%%:*} WHERE runId = $run
		AND NOT (start = 0 AND end = 0)")
	check_eq "run timeline: ${kind#*:} slices and total ns = the database's" \
		"slices ${kind#*:} ${row/|/ }" "$(grep "^slices ${kind#*:} " <<<"$got")"
done
check "run timeline: arrows from launch calls" grep -q '^flows [1-9]' <<<"$got"
check "index.html written" test -s "$tmp/rep/index.html"
[ -z "${OUT:-}" ] || cp "$f" "$tmp/$p.json" "$_results/" 2>/dev/null

done_testing
