#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The committed corpus of good and bad bundles (tests/data/bundles, made by
# make-corpus.sh through the real capture path): `gpumix trace check` gives
# each one its exact error, the good one dumps as its golden file, and the
# inspection commands read every bundle that has a manifest.
. "$GPUMIX_TOP/tests/lib.sh"
D=tests/data/bundles
cd "$GPUMIX_TOP" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for e in "$D"/*.error; do
	n=$(basename "$e" .error)
	"$GPUMIX" trace check "$D/$n" >/dev/null 2>"$tmp/err"; rc=$?
	# babeltrace2 names files by absolute path
	sed -i "s|$GPUMIX_TOP/||g" "$tmp/err"
	if [ -s "$e" ]; then
		check_eq "$n: trace check fails" 1 "$rc"
	else
		check_eq "$n: trace check passes" 0 "$rc"
	fi
	if diff -u "$e" "$tmp/err" >"$tmp/diff"; then
		ok "$n: the exact expected message"
	else
		not_ok "$n: the exact expected message"
		sed 's/^/#   /' "$tmp/diff"
	fi
	if [ -f "$D/$n/manifest" ] && [ "$n" != format ] && [ "$n" != bad-losses ]; then
		"$GPUMIX" trace info "$D/$n" >"$tmp/info" 2>&1
		check_match "$n: trace info reads it" "^bundle: $D/$n" "$(cat "$tmp/info")"
	fi
done
out=$("$GPUMIX" trace info "$D/format" 2>&1); rc=$?
check_eq "format: trace info refuses an unknown format too" 1 "$rc"
out=$("$GPUMIX" trace info "$D/bad-losses" 2>&1); rc=$?
check_eq "bad-losses: trace info refuses a damaged manifest too" 1 "$rc"
check_eq "the corpus has 22 bundles" 22 "$(ls -d "$D"/*/ | wc -l | tr -d ' ')"

"$GPUMIX" trace dump "$D/good" |
	sed -E 's/^(#[0-9]+) [0-9.]+ [0-9]+:[0-9]+ /\1 TIME PID:TID /' >"$tmp/dump"
if diff -u "$D/good.dump" "$tmp/dump" >"$tmp/diff"; then
	ok "good: trace dump matches its golden file"
else
	not_ok "good: trace dump matches its golden file"
	sed 's/^/#   /' "$tmp/diff"
fi
out=$("$GPUMIX" trace info "$D/killed")
check_match "killed: info says incomplete" "^complete: no \(the program was killed by signal 9" "$out"
out=$("$GPUMIX" trace losses "$D/lost-events"); rc=$?
check_eq "lost-events: trace losses exits 1" 1 "$rc"
check_match "lost-events: 3 events missing" "^events: emitted=18 found=15 missing=3" "$out"
out=$("$GPUMIX" trace info "$D/unsupported")
check_match "unsupported: info lists the unsupported call by name" "^  cuGraphLaunch|unsupported" "$out"
check_match "... with its first event" "^  cuGraphLaunch +1 first=#15$" "$out"
check_match "... and what it means for a replay" \
	"^    graph launch of a graph gpumix could not rebuild \(or captured without graph support\): its work is missing from the replay$" "$out"
done_testing
