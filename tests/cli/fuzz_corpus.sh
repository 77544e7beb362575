#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every fuzz harness (tests/fuzz/fuzz_*.c, here linked with the plain
# driver instead of libFuzzer) replays its committed seed corpus and the
# inputs that once crashed it (tests/fuzz/regress/NAME): none may crash,
# abort or, under make check SANITIZE=1, leave a sanitizer report. make
# fuzz is where the harnesses look for new failures.
. "$GPUMIX_TOP/tests/lib.sh"
cd "$GPUMIX_TOP" || exit 1
n=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	bin=$GPUMIX_BUILD/tests/fuzz/replay_$name
	n=$((n + 1))
	dirs=("tests/fuzz/corpus/$name")
	[ -d "tests/fuzz/regress/$name" ] && dirs+=("tests/fuzz/regress/$name")
	out=$("$bin" "${dirs[@]}" 2>"$GPUMIX_BUILD/fuzz-replay-$name.log"); rc=$?
	check_eq "$name: the corpus and regressions replay without a failure" 0 "$rc"
	if [ "$rc" -ne 0 ]; then
		tail -5 "$GPUMIX_BUILD/fuzz-replay-$name.log" | sed 's/^/#   /'
	fi
	seeds=$(ls "tests/fuzz/corpus/$name" | wc -l)
	check "$name: $out (at least the $seeds seeds)" test "${out% inputs}" -ge "$seeds"
done
check "six harnesses or more ($n)" test "$n" -ge 6
check "each harness has a replayer" test "$(ls "$GPUMIX_BUILD"/tests/fuzz/replay_* | wc -l)" -eq "$n"
done_testing
