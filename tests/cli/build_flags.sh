#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build honours the user's CFLAGS and LDFLAGS on every compile and
# every link, shared libraries included: without that, a sanitizer build
# (make CFLAGS=-fsanitize=... LDFLAGS=-fsanitize=...) fails to link with
# "undefined reference to __asan_init". Checked on `make -n` of a fresh
# build directory, so nothing is built.
. "$GPUMIX_TOP/tests/lib.sh"
scratch_dir
cc=${CC:-cc}
# (a make of its own: not a sub-make of the make check running this test)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -n -B -C "$GPUMIX_TOP" B="$_scratch/b" CC="$cc" \
	CFLAGS="-O2 -DGPUMIX_CFLAGS_MARK" LDFLAGS="-Wl,-z,now,-z,gpumixmark" \
	all tests >"$_scratch/cmds" 2>"$_scratch/err"
check_eq "make -n of every target succeeds" "" "$(cat "$_scratch/err")"
# One command per line: join the lines continued with a backslash.
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$_scratch/cmds" |
	grep -E "^$cc " >"$_scratch/cc"
grep -v -- ' -c ' "$_scratch/cc" | grep -- ' -o ' >"$_scratch/links"
nlinks=$(wc -l <"$_scratch/links")
check "the dry run shows link commands ($nlinks)" test "$nlinks" -ge 10
check "... shared libraries among them" grep -q -- ' -shared' "$_scratch/links"
missing=$(grep -v -- 'gpumixmark' "$_scratch/links" | awk '{ for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1) }')
check_eq "every link uses LDFLAGS" "" "$missing"
grep -E -- ' -c |\.c( |$)' "$_scratch/cc" >"$_scratch/compiles"
check "... and compile commands" test "$(wc -l <"$_scratch/compiles")" -ge 100
missing=$(grep -v -- '-DGPUMIX_CFLAGS_MARK' "$_scratch/compiles" | awk '{ for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1) }')
check_eq "every compile uses CFLAGS" "" "$missing"
done_testing
