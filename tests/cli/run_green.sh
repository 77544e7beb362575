#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The green variant in a study on a CPU (mock driver): two bundles of the
# reconstruct corpus under single, cuda and green, with 'sm_share'
# giving one program a quarter of the SMs. The real gpumix replay gets
# --sm-share from the study (its run manifest records each program's
# SMs), results verify, and the report has a green row beside cuda's.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
scratch_dir >/dev/null
tmp=$_scratch
out=$tmp/out

mock_study "$tmp/study.yaml" mock-green "single, cuda, green" \
	"min_replays: 2, watchdog: 30s, sm_share: {basic: 25%}" "$out"

summary=$("$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$out"/logs/*.log
check_match "every run is ok (results verified)" \
	'^- runs: 4: 4 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$summary"
m=$out/runs/basic+threads.green/manifest
check_eq "the green run ran green" green "$(field "$m" variant)"
check_eq "sm_share reached the replay" "basic=25%" "$(field "$m" green.sm_share)"
check_eq "basic: 25% of 132 SMs, 4 groups of 8" "basic 32" \
	"$(field "$m" program.0.name) $(field "$m" program.0.sm_count)"
check_eq "threads: the other 12 groups" "threads 96" \
	"$(field "$m" program.1.name) $(field "$m" program.1.sm_count)"
check_match "the report's summary has a green row" "^[0-9]+,green,1," \
	"$(cat "$out/report/tables/summary.csv")"
check_match "and its improvement table" ",green," \
	"$(cat "$out/report/tables/improvement.csv")"
done_testing
