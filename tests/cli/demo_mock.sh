#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo-mock's study (workloads/demo-mock.yaml) runs on the mock CUDA
# driver and leaves every output the README names: the HTML report, the
# tables as Markdown, CSV and JSON, a timeline per run, the database, the
# summary. Without a GPU, make demo (bench/demo.sh) points at it.
. "$GPUMIX_TOP/tests/lib.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir >/dev/null
tmp=$_scratch
# (before the mock driver is on the library path: has-gpu would find it)
if "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	skip "make demo's message without a GPU: this machine has one"
else
	out=$(GPUMIX_BUILD=$GPUMIX_BUILD sh bench/demo.sh 2>&1); rc=$?
	check_eq "make demo without a GPU: exit 1" 1 "$rc"
	check_match "... names make demo-mock" "'make demo-mock'" "$out"
	check_match "... and the committed reports" "doc/results/" "$out"
fi
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT

"$GPUMIX" -q run -o "$tmp/out" workloads/demo-mock.yaml >"$tmp/summary" 2>"$tmp/err"
rc=$?
check_eq "the mock demo study succeeds" 0 "$rc"
[ "$rc" = 0 ] || tail -5 "$tmp/err" | sed 's/^/#   /'
check_match "... every run ok" '^- runs: 12: 12 ok, 0 failed' "$(cat "$tmp/summary")"
r=$tmp/out/report
for f in index.html index.md tables/summary.csv tables/summary.md tables.json; do
	check "it writes report/$f" test -s "$r/$f"
done
check "a timeline per run" test "$(ls "$r/timelines" | wc -l)" -ge 12
check "the database" test -s "$tmp/out/results.db"
check_eq "... with the per-run metrics" 12 \
	"$(db_query "$tmp/out/results.db" 'SELECT count(*) FROM run_metrics')"

done_testing
