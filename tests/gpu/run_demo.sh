#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU: the demo study end to end with the real stage commands (what `make
# demo` runs): gpumix run workloads/demo.yaml captures mm, spmv and
# stencil, reconstructs each of the 6 workloads once (with --elastic),
# runs their 3 single baselines, makes the kernel profile from them, runs
# the 3 pairs under cuda, nss and elastic (MPMAX, reading the profile),
# every run 3 times (repeats, the default: each repetition a replay of
# its own, recorded in its manifest), loads every run into the database
# and writes the report, which says
# that all variants ran the same transformed kernels; a second invocation
# has nothing left to do. Outputs go to a scratch directory; set
# GPUMIX_DEMO_OUT=DIR to keep them.
. "$GPUMIX_TOP/tests/lib.sh"
require_gpu
scratch_dir >/dev/null
out=${GPUMIX_DEMO_OUT:-$_scratch/demo}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
cd "$GPUMIX_TOP" || exit 1

for p in mm spmv stencil; do
	check "suite program $p is built" test -x "$GPUMIX_BUILD/workloads/parboil/$p"
done
start=$(date +%s)
"$GPUMIX" run -o "$out" workloads/demo.yaml >"$_scratch/stdout" 2>"$_scratch/stderr"
rc=$?
secs=$(( $(date +%s) - start ))
echo "# demo study: exit $rc after ${secs}s"
sed 's/^/# | /' "$_scratch/stdout"
if [ $rc -ne 0 ]; then
	tail -n 30 "$_scratch/stderr" | sed 's/^/# stderr | /'
	for l in "$out"/logs/*.log; do
		[ -f "$l" ] && { echo "# --- $l"; tail -n 5 "$l" | sed 's/^/#   /'; }
	done
fi
check_eq "gpumix run workloads/demo.yaml succeeds" 0 $rc
check_match "all 12 runs are ok, 3 times each" '^- runs: 36: 36 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' \
	"$(cat "$_scratch/stdout")"
check "the summary file exists" test -s "$out/summary.md"
check "the database exists" test -s "$out/results.db"
check "the report directory exists and is not empty" test -n "$(ls -A "$out/report" 2>/dev/null)"
check_eq "one build per workload" "mm mm+spmv mm+stencil spmv spmv+stencil stencil" \
	"$(ls "$out/builds" | tr '\n' ' ' | sed 's/ $//')"
for r in mm.single spmv.single stencil.single mm+spmv.cuda mm+stencil.cuda \
	 spmv+stencil.cuda mm+spmv.nss mm+stencil.nss spmv+stencil.nss \
	 mm+spmv.elastic.mpmax mm+stencil.elastic.mpmax spmv+stencil.elastic.mpmax; do
	for x in "$r:0" "$r.r1:1" "$r.r2:2"; do
		check_eq "run ${x%:*} has status ok, repetition ${x##*:}" "ok ${x##*:}" \
			"$(sed -n 's/^status = //p' "$out/runs/${x%:*}/manifest" 2>/dev/null) \
$(sed -n 's/^run.repetition = //p' "$out/runs/${x%:*}/manifest" 2>/dev/null)"
	done
done
check "the kernel profile was made" test -s "$out/profile.tsv"
check_eq "the elastic runs read it" "$out/profile.tsv" \
	"$(sed -n 's/^elastic.profile = //p' "$out/runs/mm+spmv.elastic.mpmax/manifest")"
check_match "the report says all variants ran the same kernels" \
	'^Kernels: all variants ran the same transformed kernels' "$(cat "$out/report/index.md")"
check "the report compares with the paper" test -s "$out/report/tables/paper.md"
check "it took less than 10 minutes" test $secs -lt 600

"$GPUMIX" run -o "$out" workloads/demo.yaml >"$_scratch/stdout2" 2>/dev/null
check_eq "a second invocation succeeds" 0 $?
check_match "  and runs no stage" '^- this invocation: 0 stages run' "$(cat "$_scratch/stdout2")"
done_testing
