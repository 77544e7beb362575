#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Databases gpumix may not write or cannot read now (issue 26): each says
# why in words. A database another program keeps locked is "locked" (it
# was "cannot read ... as a SQLite database"); an output directory this
# user cannot write says "Permission denied" (it was SQLite's "unable to
# open database file"); a merge into a read-only database fails and
# leaves it as it was (it succeeded by renaming its copy over it, which
# changed the file's owner and mode), and a merge into a writable one
# keeps its mode.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
R=tests/data/runs/good/study

"$GPUMIX" -q analyze "$R/a+b.single" -o "$tmp/a.db" &&
	"$GPUMIX" -q analyze "$R/a+c.cuda" -o "$tmp/b.db"
check_eq "two databases" 0 "$?"

# As another user where this one is root (root may write anything).
as_user=()
if [ "$(id -u)" = 0 ]; then
	if id nobody >/dev/null 2>&1; then
		as_user=(runuser -u nobody --)
		chmod 755 "$tmp"
	fi
fi

# A database another connection keeps locked (an exclusive transaction
# held open), past the 10 s SQLite waits.
if python3 -c 'import sqlite3' 2>/dev/null; then
	python3 - "$tmp/a.db" "$tmp/ready" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").write("locked\n")
time.sleep(60)
PY
	holder=$!
	# (for as long as the holder lives: it says when it holds the lock)
	while kill -0 "$holder" 2>/dev/null && ! [ -s "$tmp/ready" ]; do
		sleep 0.05
	done
	out=$("$GPUMIX" report "$tmp/a.db" -o "$tmp/report" 2>&1); rc=$?
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	check_eq "a locked database: report exits 1" 1 "$rc"
	check_match "... saying it is locked" \
		"^error: database '$tmp/a.db' is locked: another program kept it locked for 10 s$" "$out"
	check_match "... and what to do" "^hint: wait for the program using it" "$out"
else
	skip "no python3 with sqlite3 to hold a lock"
fi

if [ "$(id -u)" = 0 ] && [ ${#as_user[@]} = 0 ]; then
	skip "root, and no user nobody: permissions cannot be tested"
else
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	out=$("${as_user[@]}" "$GPUMIX" -q analyze "$R/a+b.single" -o "$tmp/ro/x.db" 2>&1)
	check_eq "a read-only output directory: exit 1" 1 "$?"
	check_match "... Permission denied" "Permission denied" "$out"
	check "... nothing written there" test -z "$(ls -A "$tmp/ro")"

	# A database this user cannot write, in a directory it can.
	mkdir "$tmp/rw"
	chmod 777 "$tmp/rw"
	cp "$tmp/a.db" "$tmp/rw/theirs.db"
	chmod 644 "$tmp/rw/theirs.db"
	before=$(stat -c '%u %a %s' "$tmp/rw/theirs.db")
	out=$("${as_user[@]}" "$GPUMIX" -q analyze --merge "$tmp/b.db" \
		-o "$tmp/rw/theirs.db" 2>&1)
	check_eq "a merge into another user's database: exit 1" 1 "$?"
	check_match "... Permission denied" "cannot write '$tmp/rw/theirs.db': Permission denied" "$out"
	check_eq "... it is left as it was (owner, mode, size)" "$before" \
		"$(stat -c '%u %a %s' "$tmp/rw/theirs.db")"
fi

# A read-only database (no write permission for anyone): refused even to
# root, which the permission bits do not stop.
cp "$tmp/a.db" "$tmp/ro.db"
chmod 444 "$tmp/ro.db"
out=$("$GPUMIX" -q analyze --merge "$tmp/b.db" -o "$tmp/ro.db" 2>&1)
check_eq "a merge into a read-only database: exit 1" 1 "$?"
check_match "... saying so" "'$tmp/ro.db' is read-only \(mode 0444\): a merge would replace it" "$out"
check_eq "... its mode unchanged" 444 "$(stat -c %a "$tmp/ro.db")"
check_eq "... and its runs" "$(db_query "$tmp/a.db" 'SELECT count(*) FROM runs')" \
	"$(db_query "$tmp/ro.db" 'SELECT count(*) FROM runs')"

# A writable one keeps its mode through the merge.
cp "$tmp/a.db" "$tmp/mine.db"
chmod 640 "$tmp/mine.db"
"$GPUMIX" -q analyze --merge "$tmp/b.db" -o "$tmp/mine.db"
check_eq "a merge into a database of mode 0640: exit 0" 0 "$?"
check_eq "... which keeps its mode" 640 "$(stat -c %a "$tmp/mine.db")"
done_testing
