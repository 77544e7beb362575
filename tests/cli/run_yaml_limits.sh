#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix run on study files that are too big, too deep or tagged: limits
# checked before libyaml's loader (which took half a minute on 100,000
# nested '['), explicit tags honoured (doc/study-yaml.md), and a study
# "file" that cannot be read (a directory; make check SANITIZE=1 also
# checks that nothing leaks on that path). The one-error-per-file cases
# are in tests/data/study/bad (run_yaml.sh).
. "$GPUMIX_TOP/tests/lib.sh"
scratch_dir >/dev/null # not $(...): its EXIT trap would fire in the subshell
tmp=$_scratch
data=$GPUMIX_TOP/tests/data/study

# 200,000 nested '[' (400 KB): refused at the 64th, before libyaml's
# loader sees it (the error's column is where the check stopped). The
# timeout only turns a hang into a failure.
python3 -c "print('[' * 200000 + ']' * 200000)" >"$tmp/deep.yaml"
out=$(timeout 300 "$GPUMIX" run --dry-run "$tmp/deep.yaml" 2>&1); rc=$?
check_eq "200,000 nested '[': exit 1" 1 "$rc"
check_eq "... at the level past the limit, FILE:LINE:COL" \
	"error: $tmp/deep.yaml:1:65: nesting deeper than 64 levels" "$out"

# One byte over 4 MiB: refused before parsing.
python3 -c "import sys; sys.stdout.write('#' * (4 * 1024 * 1024) + '\n')" >"$tmp/big.yaml"
out=$("$GPUMIX" run --dry-run "$tmp/big.yaml" 2>&1); rc=$?
check_eq "a file over 4 MiB: exit 1" 1 "$rc"
check_eq "... says the limit" \
	"error: $tmp/big.yaml: the file is larger than 4 MiB, the limit for a study file" "$out"

# Tags that agree with the type are fine; the plan is the untagged one's.
sed -e 's|command: tests/data/study/prog -s 0.5|command: !!str tests/data/study/prog -s 0.5|' \
	-e 's|^root: .*|root: '"$GPUMIX_TOP"'|' "$data/good/minimal.yaml" >"$tmp/minimal.yaml"
printf 'replay:\n  min_replays: !!int 7\n  watchdog: !!float 60\n' >>"$tmp/minimal.yaml"
out=$("$GPUMIX" run --dry-run "$tmp/minimal.yaml" 2>&1); rc=$?
check_eq "!!str on a string, !!int on an integer, !!float on a duration: exit 0" 0 "$rc"
check_match "... the command is the tagged string" "^  spmv +capture +tests/data/study/prog -s 0.5$" "$out"

out=$("$GPUMIX" run --dry-run "$data" 2>&1); rc=$?
check_eq "a directory as the study file: exit 1" 1 "$rc"
check_eq "... it is not a file" "error: '$data' is not a regular file (a directory)" "$out"
done_testing
