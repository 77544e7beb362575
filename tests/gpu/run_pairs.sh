#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU, long (opt-in): the paper's study, all 55 pairs of the suite under
# cuda, nss and elastic with its four policies
# (workloads/parboil-pairs.yaml), each run 3 times (repeats, the
# default: 1023 replays), with its wall time. It
# takes long, so it runs only with GPUMIX_STUDY_PAIRS=1 and skips visibly
# otherwise. The study is resumable: GPUMIX_PAIRS_OUT=DIR keeps (and
# continues) it.
#   GPUMIX_STUDY_PAIRS=1 GPUMIX_PAIRS_OUT=results/pairs tests/run tests/gpu/run_pairs.sh
. "$GPUMIX_TOP/tests/lib.sh"
require_gpu
if [ "${GPUMIX_STUDY_PAIRS:-0}" != 1 ]; then
	skip "the 55-pair study is long: set GPUMIX_STUDY_PAIRS=1 to run it"
	done_testing
fi
scratch_dir >/dev/null
out=${GPUMIX_PAIRS_OUT:-$_scratch/pairs}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
cd "$GPUMIX_TOP" || exit 1
start=$(date +%s)
"$GPUMIX" run -o "$out" workloads/parboil-pairs.yaml >"$_scratch/stdout" 2>"$_scratch/stderr"
rc=$?
secs=$(( $(date +%s) - start ))
echo "# parboil-pairs: exit $rc, wall time ${secs}s"
sed 's/^/# | /' "$_scratch/stdout"
summary=$(cat "$_scratch/stdout")
check_match "the summary accounts for all 3 x 341 runs, none left undone" \
	'^- runs: 1023: [0-9]+ ok, [0-9]+ failed, [0-9]+ hung, [0-9]+ skipped, 0 not run yet$' "$summary"
ok=$(sed -n 's/^- runs: 1023: \([0-9]*\) ok.*/\1/p' "$_scratch/stdout")
check "at least 1005 of the 1023 runs are ok (bfs+lbm's 6 runs, in 3 repetitions, may hang, as in the paper)" \
	test "${ok:-0}" -ge 1005
check_match "the kernel profile was made" '^- profile: ' "$summary"
check "the comparison with the paper exists" test -s "$out/report/tables/paper.md"
check "the report exists" test -n "$(ls -A "$out/report" 2>/dev/null)"
done_testing
