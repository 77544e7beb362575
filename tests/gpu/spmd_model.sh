#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the SM-stretch microbenchmark and the SPMD predictor
# (doc/spmd-model.md, issue 28). mri-q at -s 1 (mriq_computeq: 512 blocks,
# 4 per SM on an H100) and at 1/64 of its pixels (mriq-small: 64 blocks),
# and spmv (1954 blocks, I/O-intensive): gpumix scale --stretch on each,
# every replay's results verified; mriq_computeq must have T(k) for
# k = 1 .. 3 (4 x 132 = 528 > 512 blocks: its grid caps k = 4). Then a
# study of 1, 2, 4 and 8 copies of each under cuda, loaded with the
# curves into one database: the report's spmd-model table must have a
# row per run of copies with a finite prediction, N = 1 predicting the
# alone time, and spmd-deviation a row per scenario seen. The tables are
# kept in OUT/spmd_model (stretch.md, spmd-model.csv, spmd-deviation.csv).
#   GPUMIX_SUITE_BUNDLES=DIR    reuse (and fill) the cache of bundles
#   GPUMIX_SPMD_COPIES="1 2 4 8" the copy counts (16 as well for the
#                               shipped study's range)
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch spmd_model
suite_cache
tmp=$_scratch
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
cd "$GPUMIX_TOP" || exit 1

suite_bundle mri-q || { done_testing; exit; }
suite_bundle spmv || { done_testing; exit; }
out=$("$GPUMIX" -q capture -o "$tmp/mriq-small" -- "$GPUMIX_BUILD/workloads/parboil/mri-q" -s 0.015625 2>&1); rc=$?
check_eq "mriq-small: captured" 0 "$rc"
check_match "mriq-small: PASS" "^PASS mri-q" "$out"

# ---- the microbenchmark ----
"$GPUMIX" scale --stretch --replays 3 -o "$tmp/st" "$SUITE_CACHE/mri-q" \
	"$tmp/mriq-small" "$SUITE_CACHE/spmv" >"$tmp/st.out" 2>"$tmp/st.err"; rc=$?
check_eq "gpumix scale --stretch: exit 0 (every replay verified)" 0 "$rc"
[ "$rc" = 0 ] || tail -20 "$tmp/st.err" | sed 's/^/#   /'
check_eq "mriq_computeq: T(k) for k = 1 2 3" "1 2 3" \
	"$(awk -F, '$1 == "mri-q" && $2 ~ /mriq_computeq/ { print $3 }' "$tmp/st/stretch.csv" | tr '\n' ' ' | sed 's/ $//')"
check_eq "every T(k) is positive" "" \
	"$(awk -F, 'NR > 1 && !($6 > 0)' "$tmp/st/stretch.csv")"
check_eq "mriq-small's 64-block kernel has no point (64 < 132 SMs)" "" \
	"$(awk -F, '$1 == "mriq-small" && $2 ~ /mriq_computeq/' "$tmp/st/stretch.csv")"
cp "$tmp/st/stretch.md" "$tmp/st/stretch.csv" "$_results/" 2>/dev/null
sed 's/^/# /' "$tmp/st/stretch.md"

# ---- N copies, predicted against measured ----
copies=${GPUMIX_SPMD_COPIES:-1 2 4 8}
wl=
for p in mriq-small mri-q spmv; do
	for n in $copies; do
		wl="$wl  - {program: $p, copies: $n}
"
	done
done
cat >"$tmp/study.yaml" <<YAML
study: spmd-model
programs:
  - {name: mriq-small, bundle: $tmp/mriq-small}
  - {name: mri-q, bundle: $SUITE_CACHE/mri-q}
  - {name: spmv, bundle: $SUITE_CACHE/spmv}
workloads:
$wl
variants: [single, cuda]
replay: {min_replays: 5, watchdog: 300s}
repeats: 1
paths: {output: $tmp/out}
YAML
"$GPUMIX" run "$tmp/study.yaml" >"$tmp/run.out" 2>"$tmp/run.err"; rc=$?
check_eq "the study of copies exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -20 "$tmp/run.err" | sed 's/^/#   /'
"$GPUMIX" analyze -o "$tmp/r.db" "$tmp/out/runs" "$tmp/st" >/dev/null 2>"$tmp/an.err"; rc=$?
check_eq "runs and curves load into one database" 0 "$rc"
"$GPUMIX" report "$tmp/r.db" --table spmd-model --format csv >"$tmp/model.csv" 2>/dev/null
"$GPUMIX" report "$tmp/r.db" --table spmd-deviation --format csv >"$tmp/dev.csv" 2>/dev/null
n_runs=$((3 * $(echo $copies | wc -w)))
check_eq "a row per cuda run of copies" "$n_runs" \
	"$(awk -F, 'NR > 1' "$tmp/model.csv" | wc -l | tr -d ' ')"
check_eq "every prediction finite and positive" "" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "predicted_ms") c = i; next } !($c > 0)' "$tmp/model.csv")"
check_eq "N = 1 predicts the alone time" "" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "predicted_ms") p = i; if ($i == "alone_ms") a = i; if ($i == "copies") n = i }; next }
		$n == 1 && ($p - $a > 0.002 || $a - $p > 0.002)' "$tmp/model.csv")"
check "a deviation row per scenario seen" test "$(awk -F, 'NR > 1' "$tmp/dev.csv" | wc -l)" -ge 1
cp "$tmp/model.csv" "$_results/spmd-model.csv" 2>/dev/null
cp "$tmp/dev.csv" "$_results/spmd-deviation.csv" 2>/dev/null
"$GPUMIX" report "$tmp/r.db" --table spmd-model 2>/dev/null | sed 's/^/# /'
"$GPUMIX" report "$tmp/r.db" --table spmd-deviation 2>/dev/null | sed 's/^/# /'
done_testing
