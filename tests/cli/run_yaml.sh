#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix run: the YAML corpus. Every bad study file gives exactly the error
# in its .err file (FILE:LINE:COLUMN: message) and exit status 1, before
# anything runs; every good one prints exactly the plan in its .plan file
# with --dry-run; every warn one is valid and gives exactly the warnings
# in its .warn file. Usage errors exit 2.
. "$GPUMIX_TOP/tests/lib.sh"
scratch_dir >/dev/null # not $(...): its EXIT trap would fire in the subshell
out=$_scratch
data=tests/data/study

for y in "$data"/bad/*.yaml; do
	name=$(basename "$y" .yaml)
	want=$(cat "$data/bad/$name.err")
	got=$("$GPUMIX" run --dry-run -o "$out/o" "$y" 2>&1 >/dev/null)
	rc=$?
	check_eq "bad/$name: exact error and exit 1" "$want (exit 1)" "$got (exit $rc)"
done
check "no bad file created an output directory" test ! -e "$out/o"

for y in "$data"/good/*.yaml; do
	name=$(basename "$y" .yaml)
	got=$("$GPUMIX" run --dry-run -o "$out/o" "$y" 2>"$out/err")
	rc=$?
	check_eq "good/$name: the plan" "$(cat "$data/good/$name.plan")" "$got"
	check_eq "good/$name: dry run exits 0 and is silent on stderr" "0:" "$rc:$(cat "$out/err")"
done
check "a dry run writes nothing" test ! -e "$out/o"

for y in "$data"/warn/*.yaml; do
	name=$(basename "$y" .yaml)
	got=$("$GPUMIX" run --dry-run -o "$out/o" "$y" 2>&1 >/dev/null)
	rc=$?
	check_eq "warn/$name: exact warnings and exit 0" \
		"$(cat "$data/warn/$name.warn") (exit 0)" "$got (exit $rc)"
done

got=$("$GPUMIX" run --dry-run "$out/missing.yaml" 2>&1)
check_eq "a missing study file" \
	"error: cannot open '$out/missing.yaml': No such file or directory" "$got"
"$GPUMIX" run >/dev/null 2>&1
check_eq "no study file is a usage error" 2 $?
"$GPUMIX" run --frobnicate "$data/good/minimal.yaml" >/dev/null 2>&1
check_eq "an unknown option is a usage error" 2 $?
"$GPUMIX" run "$data/good/minimal.yaml" extra.yaml >/dev/null 2>&1
check_eq "two study files is a usage error" 2 $?
"$GPUMIX" run -o >/dev/null 2>&1
check_eq "-o without a directory is a usage error" 2 $?
got=$("$GPUMIX" run --help)
check_match "--help documents GPUMIX_STUDY_EXEC" "GPUMIX_STUDY_EXEC" "$got"
got=$("$GPUMIX" help)
check_match "run is in the command list" "^   run +run a whole study described by a YAML file" "$got"
done_testing
