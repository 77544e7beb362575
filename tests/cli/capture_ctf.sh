#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The CTF of a bundle names its calls for other tools: babeltrace2 (the
# command line users have) prints the `api` field of every enter, exit and
# d2h_hash event as the call's name from cuda_api.def, and that name is
# the one the bundle's api-table gives the id. The capture is a real one
# (LTTng session daemon, the provider in libgpumix-capture.so) of the
# GPU-less emitter. gpumix's reader reads the new bundle and the committed
# old ones, whose `api` is a plain integer.
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
E=$GPUMIX_BUILD/tests/capture_emitter

"$GPUMIX" capture -o "$tmp/a" -- "$E" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "the capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
babeltrace2 "$tmp/a/ctf" >"$tmp/text" 2>"$tmp/bt-err"; rc=$?
check_eq "babeltrace2 reads the bundle's CTF" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/bt-err"

# "NAME ID" of each call event, in trace order.
sed -n 's/.*gpumix_capture:\(enter\|exit\|d2h_hash\): .* api = ( "\([A-Za-z0-9_]*\)" : container = \([0-9]*\) ).*/\1 \2 \3/p' \
	"$tmp/text" >"$tmp/named"
check_eq "every enter, exit and d2h_hash event carries a call name" \
	"$(grep -c 'gpumix_capture:\(enter\|exit\|d2h_hash\):' "$tmp/text")" \
	"$(wc -l <"$tmp/named")"
check "babeltrace2 shows cuMemcpyHtoD_v2" grep -q '^enter cuMemcpyHtoD_v2 ' "$tmp/named"
check "... cuLaunchKernel" grep -q '^enter cuLaunchKernel ' "$tmp/named"
check "... and the call of a d2h_hash" grep -q '^d2h_hash cuMemcpyDtoHAsync_v2 ' "$tmp/named"

# The names are the api-table's: a name shown under the wrong id, or an
# id missing from the table, is a difference.
awk '!/^#/ { print $1, $2 }' "$tmp/a/api-table" | sort -u >"$tmp/table"
awk '{ print $3, $2 }' "$tmp/named" | sort -u >"$tmp/shown"
check_eq "each id shows the name the api-table gives it" "" \
	"$(comm -13 "$tmp/table" "$tmp/shown")"

# The calls in order, as babeltrace2 and gpumix trace dump see them.
awk '$1 == "enter" { print $2 }' "$tmp/named" >"$tmp/bt-calls"
"$GPUMIX" trace dump "$tmp/a" |
	sed -n 's/^#[0-9]* [0-9.]* [0-9]*:[0-9]* \(cu[A-Za-z0-9_]*\)(.*/\1/p' \
	>"$tmp/dump-calls"
check "babeltrace2's calls are gpumix trace dump's, in order" \
	cmp -s "$tmp/bt-calls" "$tmp/dump-calls"
check_eq "... all $(wc -l <"$tmp/dump-calls") of them" \
	"$(wc -l <"$tmp/dump-calls")" "$(wc -l <"$tmp/bt-calls")"

# The other kinds keep an integer: a runtime callback id is not a driver
# call id, and naming it from the driver table would mislabel it.
check "rt_enter's api stays an integer" \
	grep -q 'gpumix_capture:rt_enter: .* api = [0-9]*,' "$tmp/text"

# gpumix's reader reads the enumeration, and the old integer bundles.
out=$("$GPUMIX" trace check "$tmp/a" 2>&1); rc=$?
check_eq "gpumix trace check reads the new bundle" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
old=$GPUMIX_TOP/tests/data/bundles/good
check "the committed corpus has an integer api" \
	grep -q 'gpumix_capture:enter: .* api = [0-9]*,' \
	<(babeltrace2 "$old/ctf" 2>/dev/null)
out=$("$GPUMIX" trace check "$old" 2>&1); rc=$?
check_eq "gpumix trace check still reads it" 0 "$rc"

# A member of another type than the reader's (argument words made signed
# in the metadata: the same bits) makes the events foreign, not misread.
cp -r "$tmp/a" "$tmp/signed"
for m in $(find "$tmp/signed/ctf" -name metadata); do
	sed -i 's/signed = 0; encoding = none; base = 16; } _args\[/signed = 1; encoding = none; base = 16; } _args[/' "$m"
done
# (the edit changes the metadata's hash: without the hashes, as in a
# bundle of format 2, the reader gets to the events)
sed -i -e '/^ctf\./d' -e 's/^format = gpumix-bundle 3$/format = gpumix-bundle 2/' \
	"$tmp/signed/manifest"
out=$("$GPUMIX" trace check "$tmp/signed" 2>&1); rc=$?
check_eq "a bundle whose argument words are signed fails the check" 1 "$rc"
check_match "... as not gpumix's events" \
	"caused by: event 0 \('gpumix_capture:process'\) is not a gpumix event" "$out"

done_testing
