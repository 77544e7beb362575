#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Writers of one database at the same time lose nothing: every gpumix
# analyze and analyze --merge holds the database's lock (DB.lock) for
# its whole read-modify-write (the file exists only meanwhile). Each case runs its writers as real
# concurrent processes, GPUMIX_FAULT_ITERATIONS times (default 5), and
# asserts that every writer exits 0 and every run is in the database
# afterwards; nothing waits on a clock, so a loaded machine only makes
# the races likelier:
# - a merge and three analyzes creating one new database (without the
#   lock two of them raced to create the schema: "table gpumix_meta
#   already exists");
# - a merge renaming its copy over a database while analyzes add to it
#   (without the lock a run loaded into the old file meanwhile was lost,
#   though its analyze said "1 run loaded");
# - two studies sharing one database (`paths: {database: ...}`), their
#   analyze stages the real gpumix analyze: no run of either recorded
#   as failed.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch
cd "$GPUMIX_TOP" || exit 1
S=tests/data/runs/good/study
L=tests/data/runs/good/latency
N=${GPUMIX_FAULT_ITERATIONS:-5}

"$GPUMIX" -q analyze "$S" -o "$tmp/study.db"
check_eq "the merge's input: the 5 runs of $S" 5 \
	"$(db_query "$tmp/study.db" "SELECT count(*) FROM runs")"
"$GPUMIX" -q analyze "$S" "$L" -o "$tmp/ref.db"
want=$(db_query "$tmp/ref.db" "SELECT hash FROM runs ORDER BY hash")
check_eq "the reference: 8 runs" 8 "$(wc -l <<<"$want")"

# writers NAME: start the merge and an analyze of each run of $L into
# $tmp/NAME.db at once, wait for all; "rc ..." of each, errors in NAME.err
writers() {
	local db=$tmp/$1.db pids=() rcs= p
	"$GPUMIX" -q analyze --merge "$tmp/study.db" -o "$db" 2>>"$tmp/$1.err" &
	pids+=($!)
	for r in "$L"/*; do
		"$GPUMIX" -q analyze "$r" -o "$db" 2>>"$tmp/$1.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p"
		rcs="$rcs $?"
	done
	echo "${rcs# }"
}

bad_new= bad_old=
for i in $(seq "$N"); do
	# A new database, created by whichever writer comes first.
	rm -f "$tmp/new.db" "$tmp/new.db.lock" "$tmp/new.err"
	rcs=$(writers new)
	got=$(db_query "$tmp/new.db" "SELECT hash FROM runs ORDER BY hash")
	if [ "$rcs" != "0 0 0 0" ] || [ "$got" != "$want" ]; then
		bad_new="$bad_new $i"
		echo "# new database, try $i: exits $rcs, $(wc -l <<<"$got") runs"
		sed 's/^/#   /' "$tmp/new.err"
	fi
	# An existing one (the merge renames its copy over it).
	rm -f "$tmp/old.db" "$tmp/old.err"
	"$GPUMIX" -q analyze "$S/a+b.single" -o "$tmp/old.db"
	rcs=$(writers old)
	got=$(db_query "$tmp/old.db" "SELECT hash FROM runs ORDER BY hash")
	if [ "$rcs" != "0 0 0 0" ] || [ "$got" != "$want" ]; then
		bad_old="$bad_old $i"
		echo "# existing database, try $i: exits $rcs, $(wc -l <<<"$got") runs"
		sed 's/^/#   /' "$tmp/old.err"
	fi
done
check_eq "a merge and 3 analyzes creating one database: all exit 0, all 8 runs in it ($N tries)" \
	"" "$bad_new"
check_eq "a merge and 3 analyzes adding to one database: all exit 0, all 8 runs in it ($N tries)" \
	"" "$bad_old"
check_eq "the lock (DB.lock, beside it) is gone once they are done" "" \
	"$(cd "$tmp" && ls ./*.lock 2>/dev/null)"

# A writer waits for the lock rather than failing: held by flock(1)
# until the analyze is seen waiting (its note), then released.
if command -v flock >/dev/null; then
	rm -f "$tmp/w.db"
	exec 8>"$tmp/w.db.lock"
	flock 8
	"$GPUMIX" analyze "$L/x+y.cuda" -o "$tmp/w.db" >"$tmp/w.out" 2>&1 8>&- &
	p=$!
	while ! grep -q "waiting for" "$tmp/w.out" && kill -0 "$p" 2>/dev/null; do
		sleep 0.1
	done
	check_match "a writer finding the lock held says it waits" \
		"^analyze: waiting for '$tmp/w.db': another gpumix writes it \(lock '$tmp/w.db.lock'\)$" \
		"$(cat "$tmp/w.out")"
	check "... and has written nothing meanwhile" test ! -e "$tmp/w.db"
	exec 8>&-
	wait "$p"
	check_eq "... then loads its run once the lock is free" "0 1" \
		"$? $(db_query "$tmp/w.db" "SELECT count(*) FROM runs")"
else
	skip "flock(1) is not installed"
fi

# Two studies sharing one database, their analyze stages the real one,
# their first ones (which create it) starting together.
export FAKE_REAL_ANALYZE=$GPUMIX FAKE_MEET="analyze:a.single analyze:d.single"
export FAKE_MEET_DIR=$tmp/meet
bad=
for i in $(seq "$N"); do
	rm -rf "$tmp/s1" "$tmp/s2" "$tmp/shared.db" "$tmp/shared.db.lock" "$FAKE_MEET_DIR"
	mkdir "$FAKE_MEET_DIR"
	make_study "$tmp/s1" "a b c" "paths: {database: $tmp/shared.db}
"
	make_study "$tmp/s2" "d e f" "paths: {database: $tmp/shared.db}
"
	sed -i 's/^study: t$/study: u/' "$tmp/s2/study.yaml"
	(cd "$tmp/s1" && "$GPUMIX" run study.yaml >"$tmp/s1.out" 2>&1) &
	p1=$!
	(cd "$tmp/s2" && "$GPUMIX" run study.yaml >"$tmp/s2.out" 2>&1) &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	runs=$(db_query "$tmp/shared.db" "SELECT count(*) FROM runs WHERE status = 'ok'")
	if [ "$r1 $r2 $runs" != "0 0 12" ]; then
		bad="$bad $i"
		echo "# try $i: exits $r1 $r2, $runs runs ok"
		grep -h -A3 "failed" "$tmp/s1.out" "$tmp/s2.out" | sed 's/^/#   /'
	fi
done
check_eq "two studies sharing one database: both exit 0, all 12 runs ok in it ($N tries)" \
	"" "$bad"
done_testing
