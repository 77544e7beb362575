#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run each libFuzzer harness (built by make fuzz in $FUZZ_BUILD) for
# $FUZZ_SECONDS, one after another, starting from its committed seeds
# (tests/fuzz/corpus/NAME) and regression inputs (tests/fuzz/regress/NAME).
# New interesting inputs go to $FUZZ_BUILD/corpus/NAME (kept between
# runs, never committed); a crash, leak, sanitizer report or hang (an
# input slower than 10 s) is written to $FUZZ_BUILD/artifacts/NAME/.
# Prints one line per harness and a table (also in
# $FUZZ_BUILD/fuzz-summary.tsv); exits 1 when any harness failed.
#
# usage: FUZZ_BUILD=build-fuzz FUZZ_SECONDS=20 tests/fuzz/run.sh NAME...
# To reproduce a failure: $FUZZ_BUILD/tests/fuzz/fuzz_NAME ARTIFACT; once
# fixed, commit the artifact as tests/fuzz/regress/NAME/<what-it-was>.
set -u
cd "$(dirname "$0")/../.."
: "${FUZZ_BUILD:?}" "${FUZZ_SECONDS:=20}"
summary=$FUZZ_BUILD/fuzz-summary.tsv
printf 'harness\tseconds\texecutions\texec/s\tcorpus\tfailures\n' >"$summary"
failed=0
for n in "$@"; do
	bin=$FUZZ_BUILD/tests/fuzz/fuzz_$n
	work=$FUZZ_BUILD/corpus/$n
	art=$FUZZ_BUILD/artifacts/$n
	log=$FUZZ_BUILD/fuzz-$n.log
	mkdir -p "$work" "$art"
	seeds=("tests/fuzz/corpus/$n")
	[ -d "tests/fuzz/regress/$n" ] && seeds+=("tests/fuzz/regress/$n")
	# (libFuzzer's own leak check runs per input, with the suppressions
	# of leaks inside libraries gpumix does not own; stdout/stderr of the
	# code under test are closed: nothing of ours prints there)
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
	"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -close_fd_mask=3 -artifact_prefix="$art/" \
		"$work" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	units=$(ls "$work" | wc -l)
	fails=$(ls "$art" | wc -l)
	if [ "$rc" -ne 0 ] || [ "$fails" -gt 0 ]; then
		failed=1
		echo "fuzz $n: FAILED (exit $rc); artifacts in $art:"
		ls "$art" | sed 's/^/  /'
		grep -E 'ERROR|SUMMARY|runtime error|deadly signal|Test unit written' "$log" |
			head -20 | sed 's/^/  | /'
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$FUZZ_SECONDS" "${execs:-0}" \
		"${speed:-0}" "$units" "$fails" >>"$summary"
	echo "fuzz $n: ${execs:-0} executions in ${FUZZ_SECONDS}s, $fails failures"
done
column -t -s "$(printf '\t')" "$summary"
exit "$failed"
