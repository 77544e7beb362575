#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix trace diff: two captures of a program whose results hold the
# time (recon-emitter clock: an asynchronous and a synchronous result
# that differ in every run, a third that does not), through the real
# capture path. The differing results are named by their copy's event
# (the entry `trace dump` shows, for the asynchronous one too), call and
# size, the same one is not, and the output says to mark the program
# nondeterministic; a bundle against itself is identical (exit 0);
# bundles of different programs pair copies that are not the same.
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
E=$GPUMIX_BUILD/tests/recon-emitter

"$GPUMIX" -q capture -o "$tmp/a" -- "$E" clock >/dev/null 2>&1
"$GPUMIX" -q capture -o "$tmp/b" -- "$E" clock >/dev/null 2>&1
"$GPUMIX" -q capture -o "$tmp/basic" -- "$E" basic >/dev/null 2>&1
check "two captures made" test -f "$tmp/a/manifest" -a -f "$tmp/b/manifest"
dump=$("$GPUMIX" trace dump "$tmp/a")
async=$(printf '%s\n' "$dump" | sed -n 's/^#\([0-9]*\) .*cuMemcpyDtoHAsync_v2(.*/\1/p')
sync=$(printf '%s\n' "$dump" | sed -n 's/^#\([0-9]*\) .*cuMemcpyDtoH_v2(.*ByteCount=8).*/\1/p')

out=$("$GPUMIX" trace diff "$tmp/a" "$tmp/b"); rc=$?
check_eq "results differ: exit 1" 1 "$rc"
check_match "the asynchronous result, by its copy's event" \
	"^result 0: differs: event $async in A, $async in B, cuMemcpyDtoHAsync_v2 of 64 bytes: [0-9a-f]{32} vs [0-9a-f]{32}$" "$out"
check_match "the synchronous one" \
	"^result 1: differs: event $sync in A, $sync in B, cuMemcpyDtoH_v2 of 8 bytes" "$out"
check_fails "not the one that is the same" grep -q "^result 2" <<<"$out"
check_match "the count" "^2 of 3 paired results differ$" "$out"
check_match "the advice" "mark it nondeterministic \(gpumix reconstruct --nondeterministic NAME; deterministic: false in a study\)" "$out"

out=$("$GPUMIX" trace diff "$tmp/a" "$tmp/a"); rc=$?
check_eq "a bundle against itself: exit 0" 0 "$rc"
check_match "... nothing differs" "^0 of 3 paired results differ$" "$out"

out=$("$GPUMIX" trace diff "$tmp/a" "$tmp/basic"); rc=$?
check_eq "another program: exit 1" 1 "$rc"
check_match "... copies that are not the same are named" "^result 0: not the same copy: event $async cuMemcpyDtoHAsync_v2 of 64 bytes in A, event [0-9]+ cuMemcpyDtoHAsync_v2 of 16384 bytes in B$" "$out"

out=$("$GPUMIX" trace diff "$tmp/a" 2>&1); rc=$?
check_eq "one bundle: usage error" 2 "$rc"
out=$("$GPUMIX" trace diff "$tmp/a" "$tmp/nothing" 2>&1); rc=$?
check_eq "a missing bundle: exit 1" 1 "$rc"
check_match "... named" "nothing" "$out"

done_testing
