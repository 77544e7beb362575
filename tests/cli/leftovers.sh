#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What killed writers leave under gpumix's temporary names
# (common/tmp_name.h: PATH.tmp-PID, PATH.old-PID) is removed by the next
# writer of PATH, and nothing else beside it: a replay build killed while
# compiling (its builds/W/replay.tmp-PID, 1.2 MB for a real program), a
# reconstruct's, a report's, a merge's, a replay's (its run directory)
# and a capture's leftovers.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic
dead=$(sh -c 'echo $$')		# a process that has ended
quiet() { "$@" >/dev/null 2>&1; }

# A build killed while it compiles: a compiler that writes part of its
# output and then kills the gpumix that ran it (SIGKILL: no clean-up).
quiet "$GPUMIX" reconstruct -o "$tmp/w" "$B"
cat >"$tmp/killing-cc" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
head -c 100000 /dev/zero >"$out"
kill -KILL "$PPID"
SH
chmod +x "$tmp/killing-cc"
(CC=$tmp/killing-cc "$GPUMIX" -q replay --build-only "$tmp/w"; true) >/dev/null 2>&1
left=$(cd "$tmp/w" && ls -d replay.tmp-* 2>/dev/null)
check_match "a killed build leaves its replay.tmp-PID" '^replay\.tmp-[0-9]+$' "$left"
echo mine >"$tmp/w/replay.tmp-notes"
echo mine >"$tmp/w/replay.tmpfile"
: >"$tmp/w/replay.tmp-1"	# (PID 1 lives, but builds hold a lock)
check "the next build succeeds" quiet "$GPUMIX" replay --build-only "$tmp/w"
check_eq "... and removes what killed builds left" "" \
	"$(cd "$tmp/w" && ls -d replay.tmp-[0-9]* 2>/dev/null)"
check_eq "... nothing else: the user's files of other names stay" "mine mine" \
	"$(cat "$tmp/w/replay.tmp-notes" "$tmp/w/replay.tmpfile" | tr '\n' ' ' | sed 's/ $//')"
check "... the lock is gone" test ! -e "$tmp/w/replay.lock"
: >"$tmp/w/replay.tmp-$dead"
check "an up-to-date build (nothing compiled)" quiet "$GPUMIX" replay --build-only "$tmp/w"
check "... removes them too" test ! -e "$tmp/w/replay.tmp-$dead"

# reconstruct: DIR.tmp-PID (a directory) and DIR.old-PID of dead writers
mkdir -p "$tmp/w.tmp-$dead/blobs" "$tmp/w.old-$dead"
: >"$tmp/w.tmp-$dead/replay.c"
mkdir "$tmp/w.tmp-1"	# init's: alive, so not a leftover
check "reconstruct --force" quiet "$GPUMIX" reconstruct --force -o "$tmp/w" "$B"
check "... removes a dead reconstruct's temporary directory" test ! -e "$tmp/w.tmp-$dead"
check "... and the output it moved aside" test ! -e "$tmp/w.old-$dead"
check "... not a live process's" test -d "$tmp/w.tmp-1"

# report
"$GPUMIX" -q analyze tests/data/runs/good/study -o "$tmp/r.db"
mkdir -p "$tmp/rep.tmp-$dead/tables" "$tmp/rep.old-$dead"
check "report" quiet "$GPUMIX" report "$tmp/r.db" -o "$tmp/rep" --no-figures
check_eq "... removes a dead report's leftovers" "" \
	"$(cd "$tmp" && ls -d rep.tmp-* rep.old-* 2>/dev/null)"

# merge: it holds the database's lock, so every copy is a killed merge's
: >"$tmp/all.db.tmp-1"
: >"$tmp/all.db.tmp-1-journal"
check "merge" quiet "$GPUMIX" analyze --merge "$tmp/r.db" -o "$tmp/all.db"
check_eq "... removes every earlier merge's copy and journal" "" \
	"$(cd "$tmp" && ls all.db.* 2>/dev/null)"
# replay: a run directory appears under its name with its marker (made
# as RUN.tmp-PID, marked, renamed), so a replay killed between making it
# and marking it (GPUMIX_RUN_KILL_AT=made), or between marking it and the
# rename (marked), leaves no unmarked directory under the run's name that
# a study's rerun (--force) would refuse as not gpumix's (fault_study_kill
# failed 4 of 30 in CI so before); the next replay removes the leftover.
GEN=$GPUMIX_BUILD/tests/gen-workload
"$GEN" tiny --fatbin "$GPUMIX_TOP/tests/data/codegen/dummy.fatbin" \
	-o "$tmp/wl" 2>/dev/null
for at in made marked; do
	GPUMIX_RUN_KILL_AT=$at LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock \
		quiet "$GPUMIX" replay --min-replays 2 -o "$tmp/run" "$tmp/wl"
	left=$(cd "$tmp" && ls -d run.tmp-* 2>/dev/null)
	check_match "a replay killed when its run directory is $at leaves RUN.tmp-PID" \
		'^run\.tmp-[0-9]+$' "$left"
	if [ "$at" = made ]; then
		check "... unmarked" test ! -e "$tmp/$left/.gpumix"
	else
		check "... marked" test -f "$tmp/$left/.gpumix"
	fi
	check "... and nothing under the run's name" test ! -e "$tmp/run"
	check "the next replay (--force, as a study's) succeeds" \
		env LD_LIBRARY_PATH="$GPUMIX_BUILD/tests/mock" \
		"$GPUMIX" -q replay --force --min-replays 2 -o "$tmp/run" "$tmp/wl"
	check "... and removes the leftover" test ! -e "$tmp/$left"
	rm -rf "${tmp:?}/run"
done

# capture: NAME.tmp-PID (a capture killed after reading its trace back
# leaves it whole) and NAME.old-PID of dead captures go with the next
# capture of NAME, when they are bundles (their marker) or empty (killed
# between making the directory and marking it); a directory of the
# user's, a file, a live process's bundle and other names stay.
E=$GPUMIX_BUILD/tests/capture_emitter
GPUMIX_CAPTURE_KILL_AT=counted "$GPUMIX" -q capture -o "$tmp/c" -- "$E" --mini \
	>/dev/null 2>&1
killed=$(cd "$tmp" && ls -d c.tmp-* 2>/dev/null)
check_match "a capture killed after its count-back leaves its c.tmp-PID" \
	'^c\.tmp-[0-9]+$' "$killed"
check "... a bundle by its marker" grep -qx "gpumix trace bundle" "$tmp/$killed/.gpumix"
dead2=$(sh -c 'echo $$') dead3=$(sh -c 'echo $$') dead4=$(sh -c 'echo $$')
cp -a "$tmp/$killed" "$tmp/c.old-$dead"	# a replaced bundle moved aside
mkdir "$tmp/c.tmp-$dead2"			# killed before its marker
mkdir "$tmp/c.tmp-$dead3"			# the user's
echo mine >"$tmp/c.tmp-$dead3/notes"
echo mine >"$tmp/c.tmp-$dead4"			# the user's file
cp -a "$tmp/$killed" "$tmp/c.tmp-1"		# init's: alive
echo mine >"$tmp/c.tmp-notes"
check "the next capture of that name" quiet "$GPUMIX" capture -o "$tmp/c" -- "$E" --mini
check "... removes the killed capture's temporary bundle" test ! -e "$tmp/$killed"
check "... and a dead capture's bundle moved aside" test ! -e "$tmp/c.old-$dead"
check "... and an empty one" test ! -e "$tmp/c.tmp-$dead2"
check_eq "... not a directory without the marker, a file, other names" \
	"mine mine mine" \
	"$(cat "$tmp/c.tmp-$dead3/notes" "$tmp/c.tmp-$dead4" "$tmp/c.tmp-notes" | tr '\n' ' ' | sed 's/ $//')"
check "... nor a live process's" test -f "$tmp/c.tmp-1/.gpumix"
check "... and leaves its own bundle" test -f "$tmp/c/manifest"
done_testing
