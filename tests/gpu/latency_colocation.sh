#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the shipped latency-critical co-location study
# (workloads/latency-colocation.yaml, issue 29): a PyTorch inference
# service at Poisson loads beside a training step and a suite program,
# under cuda, priority (the service high), green, mps, procs and elastic.
# Every run must be ok (every result of every request and every batch
# replay bit-identical to the capture); every point's run must hold its
# requests (each starting no earlier than it arrived, nor than the one
# before it ended) with the arrivals of the study's seed (the same
# offsets in every variant at one point); the report must have an
# open-loop row per run and its figures' data. The report and the
# open-loop tables are kept in OUT/latency_colocation.
#   GPUMIX_LC_LOADS="0.2, 0.9"  the loads (default: the study's)
#   GPUMIX_LC_REQUESTS=N        requests per run (default: the study's 200)
#   OUT=DIR                     keeps the report in DIR/latency_colocation
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
if ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	skip "no PyTorch with CUDA here: the study's service is a PyTorch program"
	done_testing
fi
scratch_dir >/dev/null
tmp=$_scratch
keep=${OUT:+$OUT/latency_colocation}

# The shipped study, with its output here and perhaps fewer points.
sed -e "s|^root: \.\.|root: $GPUMIX_TOP|" \
    -e "s|^stage_timeout: .*|&\npaths: {output: $tmp/out}|" \
    ${GPUMIX_LC_LOADS:+-e "s|load: \[.*\]|load: [$GPUMIX_LC_LOADS]|"} \
    ${GPUMIX_LC_REQUESTS:+-e "s|requests: 200|requests: $GPUMIX_LC_REQUESTS|"} \
    workloads/latency-colocation.yaml >"$tmp/study.yaml"
loads=$(sed -n 's/^ *load: \[\(.*\)\]/\1/p' "$tmp/study.yaml" | tr -d ' ' | tr ',' ' ')
requests=$(sed -n 's/^ *requests: //p' "$tmp/study.yaml")
nl=$(echo $loads | wc -w)
"$GPUMIX" run "$tmp/study.yaml" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check_eq "the study exits 0" 0 "$rc"
sed 's/^/# | /' "$tmp/stdout"
[ "$rc" = 0 ] || tail -20 "$tmp/stderr" | sed 's/^/#   /'
runs=$((3 + 2 * 6 * nl))
check_match "every run is ok: 3 alone runs and 2 workloads x 6 variants x $nl loads" \
	"^- runs: $runs: $runs ok, 0 failed" "$(cat "$tmp/stdout")"

R=$tmp/out/runs
# offsets DIR: each request's arrival less the first's (shell integers)
offsets() {
	local a0= p r a rest
	while IFS=$'\t' read -r p r a rest; do
		[ "$r" != request ] || continue
		[ -n "$a0" ] || a0=$a
		echo $((a - a0))
	done <"$1/requests.tsv"
}
for w in torch_infer+torch_train torch_infer+mm; do
	for l in $loads; do
		ref=
		for v in cuda priority green mps procs elastic.mpmax; do
			d=$R/$w.$v.load$l
			[ -f "$d/manifest" ] || { not_ok "$w.$v.load$l: no run"; continue; }
			check_eq "$w.$v.load$l: $requests requests, in order" \
				"$requests" "$(tail -n +2 "$d/requests.tsv" | wc -l)"
			check_eq "$w.$v.load$l: none before its arrival or the one before" "" \
				"$(awk -F'\t' 'NR > 1 && ($4 < $3 || $5 < $4 || (NR > 2 && $4 < end)) {
				   print $2 } NR > 1 { end = $5 }' "$d/requests.tsv" | head -3)"
			o=$(offsets "$d" | md5sum)
			[ -n "$ref" ] || ref=$o
			check_eq "$w.$v.load$l: the same arrivals as the point's other variants" "$ref" "$o"
		done
	done
done

rep=$tmp/out/report
t=$rep/tables/open-loop.csv
check "the report has the open-loop table" test -s "$t"
check_eq "an open-loop row per run at a load" $((2 * 6 * nl)) "$(tail -n +2 "$t" | wc -l)"
check "every row has p99, an SLO attainment and a batch throughput" \
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["p99_ms"] == "" || $c["slo_attained_pct"] == "" ||
		$c["batch_throughput_x_alone"] == "" { bad = 1 } END { exit bad }' "$t"
check "the p99-against-load figure's data" test -s "$rep/figures/open-loop-p99.dat"
check "a latency CDF per load" test -s "$rep/figures/open-loop-cdf-load$(echo $loads | cut -d' ' -f1).dat"
sed 's/^/# | /' "$rep/tables/open-loop-load.csv"
if [ -n "$keep" ]; then
	mkdir -p "$keep" && cp -r "$rep" "$keep/" && cp "$tmp/study.yaml" "$keep/"
fi
done_testing
