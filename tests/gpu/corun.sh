#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: native co-runs (doc/gpumix-corun.md) through a study's corun stage
# (doc/study-yaml.md, "corun") on pairs of suite programs and real ones
# (tests/libraries.sh: cuBLAS, cuFFT, PyTorch), under procs and mps: every
# run of the study ok (the co-runs, their one-shot replays under single,
# procs and mps, every replayed result verified); each co-run measured
# every program in every run (alone, and together under both
# mechanisms), each together run started at the barrier with every
# partner there (barrier = go), its programs' own checks passed (their
# PASS lines) under the interposer, only the mps runs' programs MPS
# clients; and the report's corun table has a row per pair, mechanism and
# program with a native and a replayed slowdown and their ratio (printed
# here). A library this host lacks is skipped, saying so.
#   GPUMIX_SUITE_BUNDLES=DIR   reuse (and fill) the cache of captured bundles
#   GPUMIX_CORUN_PAIRS="a:b .."  the pairs (default: the six below)
#   GPUMIX_CORUN_K=K           runs alone and together (default 3)
#   OUT=DIR                    keeps the study's report and summary in
#                              DIR/corun
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
. "$GPUMIX_TOP/tests/libraries.sh"
. "$GPUMIX_TOP/tests/corun_pairs.sh"
suite_scratch corun
suite_cache
tmp=$_scratch
cd "$GPUMIX_TOP" || exit 1
K=${GPUMIX_CORUN_K:-3}
PAIRS=${GPUMIX_CORUN_PAIRS:-"mm:spmv spmv:stencil cutcp:lbm cublas_sgemm:spmv cufft_c2c:stencil torch_train:mm"}
mechs="procs, mps"
if ! command -v nvidia-cuda-mps-control >/dev/null; then
	skip "no nvidia-cuda-mps-control here: co-runs under procs only"
	mechs=procs
fi

# shellcheck disable=SC2086
corun_study "$tmp/corun.yaml" "$tmp/study" "$K" "$mechs" $PAIRS
check "at least one pair to co-run" test -n "$corun_pairs"
sum=$("$GPUMIX" run "$tmp/corun.yaml" 2>"$tmp/err"); rc=$?
check_eq "the study with co-runs exits 0 (every run ok)" 0 "$rc"
[ "$rc" = 0 ] || { printf '%s\n' "$sum" | grep -v '| ok |' | sed 's/^/#   /'; tail -5 "$tmp/err" | sed 's/^/#   /'; }
R=$tmp/study/runs
nm=$(printf '%s\n' "$mechs" | tr ',' '\n' | grep -c .)	# wc -l missed the last line
for w in $corun_pairs; do
	d=$R/$w.corun
	a=${w%%+*} b=${w#*+}
	check_eq "$w: the co-run ended ok" ok "$(field "$d/manifest" status)"
	[ "$(field "$d/manifest" status)" = ok ] || { echo "#   $(field "$d/manifest" failure)"; continue; }
	check_eq "$w: under $mechs" "$(printf '%s' "$mechs" | tr -d ' ')" \
		"$(field "$d/manifest" mechanisms)"
	check_eq "$w: every program measured in every run ($K alone, $K together per mechanism)" \
		$((2 * K * (1 + nm))) "$(tail -n +2 "$d/sections.tsv" | wc -l)"
	check "$w: every section has GPU operations and ends after it starts" \
		awk -F'\t' 'NR > 1 && ($6 < 1 || $5 <= $4) { bad = 1 } END { exit bad }' \
		"$d/sections.tsv"
	check_eq "$w: every together run started with its partner at the barrier" "" \
		"$(grep -L '^barrier = go$' "$d"/sections/{procs,mps}.*/section.* 2>/dev/null)"
	bad=
	for log in "$d"/logs/*.log; do
		p=$(basename "$log" .log | cut -d. -f3-)
		grep -q "^PASS $p" "$log" || bad="$bad ${log##*/}"
	done
	check_eq "$w: every run of its programs passed its own checks under the interposer" "" "$bad"
	if [ "$nm" = 2 ]; then
		clients=$(grep -c 'New client' "$d"/mps/mps/control.log 2>/dev/null)
		check "$w: the mps runs' programs were MPS clients ($clients)" test "${clients:-0}" -ge $((2 * K))
	fi
	check_eq "$w: its one-shot replays ok" "ok ok" \
		"$(field "$R/$w.procs.one-shot/manifest" status) $(field "$R/$a.single.one-shot/manifest" status)"
done
t=$tmp/study/report/tables/corun.csv
check "the report has the corun table" test -s "$t"
n=0
for w in $corun_pairs; do n=$((n + 2 * nm)); done
check_eq "a row per pair, mechanism and program" "$n" "$(tail -n +2 "$t" | wc -l)"
check "each with a native and a replayed slowdown and their ratio" \
	awk -F, 'NR > 1 && ($4 == "" || $7 == "" || $9 == "") { bad = 1 } END { exit bad }' "$t"
sed 's/^/# /' "$tmp/study/report/tables/corun.md"
if [ -n "${OUT:-}" ]; then
	cp -r "$tmp/study/report" "$tmp/study/summary.md" "$_results/" 2>/dev/null
fi
done_testing
