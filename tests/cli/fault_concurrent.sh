#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two captures and two studies at the same time do not interfere: each
# capture gets exactly its own program's events; two captures racing for one name leave one whole bundle
# and a clear error; two studies in different directories both complete
# with the undisturbed database; the same study started twice runs once
# (its lock), and the second invocation is told.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch
E=$GPUMIX_BUILD/tests/capture_emitter
eval "$("$E" --count)"	# events= of one thread
field() { sed -n "s/^$2 = //p" "$1/manifest"; }

# Two captures of different programs at once, their programs running at
# the same time. A session daemon (one per machine for root) traces every
# registered application in each session, so each session also records
# the other capture's processes; the count-back keeps only the processes
# with a counter file in its own bundle (capture/bundle.c).
# (Each in its own directory: the emitter writes a module file there.)
mkdir -p "$tmp/w1" "$tmp/w2" "$tmp/w3" "$tmp/w4"
(cd "$tmp/w1" && exec "$GPUMIX" -q capture -o "$tmp/one" -- "$E" --threads 2 --repeat 20) \
	>"$tmp/one.out" 2>&1 &
p1=$!
(cd "$tmp/w2" && exec "$GPUMIX" -q capture -o "$tmp/two" -- "$E" --threads 3 --fork --repeat 20) \
	>"$tmp/two.out" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check_eq "two captures at once: both exit 0" "0 0" "$r1 $r2"
check "... the first passes trace check" "$GPUMIX" trace check "$tmp/one"
check "... the second too" "$GPUMIX" trace check "$tmp/two"
check_eq "... each has its own events only (2 and 4 threads' worth)" \
	"$((20 * 2 * events)) $((20 * 4 * events))" \
	"$(field "$tmp/one" events.found) $(field "$tmp/two" events.found)"
check_eq "... and its own processes" "1 2" \
	"$(field "$tmp/one" processes) $(field "$tmp/two" processes)"
check_match "... the other capture's processes were seen and left out" \
	"^foreign.processes = [1-9]" "$(cat "$tmp/one/manifest" "$tmp/two/manifest")"

# A process of another capture that records nothing while this one
# records: its session gave it (empty) streams here too (a CI run with
# two .ci/run at once found a bundle with a second process directory).
mkdir -p "$tmp/w5" "$tmp/w6"
(cd "$tmp/w5" && exec "$GPUMIX" -q capture -o "$tmp/idle" -- "$E" --mini --hang-after 0) \
	>/dev/null 2>"$tmp/idle.err" &
pi=$!
while kill -0 "$pi" 2>/dev/null; do	# (as long as it takes)
	grep -q "waiting to be killed" "$tmp/idle.err" && break
	sleep 0.1
done
(cd "$tmp/w6" && exec "$GPUMIX" -q capture -o "$tmp/busy" -- "$E" --mini) >/dev/null 2>&1
check_eq "beside a process that records nothing: the capture exits 0" 0 "$?"
check_eq "... its bundle holds its own process's streams only" 1 \
	"$(ls "$tmp/busy/ctf/ust/pid" | wc -l)"
# (at least: any other capture on the machine counts too)
check "... and counts the other as foreign" test "$(field "$tmp/busy" foreign.processes)" -ge 1
kill -TERM "$pi"	# (a background job ignores SIGINT)
wait "$pi"
check_eq "the idle one, interrupted (SIGTERM), keeps its own process only" 1 \
	"$(ls "$tmp/idle/ctf/ust/pid" | wc -l)"

# Two captures racing for one name.
for i in 1 2; do
	(cd "$tmp/w$((i + 2))" && exec "$GPUMIX" -q capture -o "$tmp/same" -- \
		"$E" --threads "$i") >"$tmp/same$i.out" 2>"$tmp/same$i.err" &
	eval "q$i=\$!"
done
wait "$q1"; s1=$?
wait "$q2"; s2=$?
check_eq "two captures to one name: one exits 0, the other 1" "1" \
	"$(( (s1 == 0) + (s2 == 0) == 1 && (s1 + s2) == 1 ))"
check "... the bundle under the name is whole" "$GPUMIX" trace check "$tmp/same"
loser=$tmp/same1.err
[ "$s1" = 0 ] && loser=$tmp/same2.err
check_match "... the other says why" \
	"^error: '$tmp/same' (already exists|appeared during the capture)" "$(cat "$loser")"

# Two studies in two directories at once.
ref=$tmp/ref
make_study "$ref" "a b c"
(cd "$ref" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
db_dump() { sqlite3 "$1/results/t/results.db" 'SELECT * FROM runs ORDER BY id' 2>&1; }
make_study "$tmp/s1" "a b c"
make_study "$tmp/s2" "a b c"
(cd "$tmp/s1" && "$GPUMIX" run study.yaml >"$tmp/s1.out" 2>&1) &
p1=$!
(cd "$tmp/s2" && "$GPUMIX" run study.yaml >"$tmp/s2.out" 2>&1) &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check_eq "two studies at once: both exit 0" "0 0" "$r1 $r2"
check_eq "... the first has the undisturbed database" "$(db_dump "$ref")" "$(db_dump "$tmp/s1")"
check_eq "... the second too" "$(db_dump "$ref")" "$(db_dump "$tmp/s2")"

# The same study twice at once: the first one's capture of a waits (a
# rendezvous through files, FAKE_MEET) until the second invocation has
# ended, so the second finds the first running however loaded the
# machine is.
make_study "$tmp/s3" "a b c"
meet=$tmp/meet3
mkdir "$meet"
(cd "$tmp/s3" && FAKE_MEET="capture:a go:now" FAKE_MEET_DIR=$meet \
	"$GPUMIX" run study.yaml >"$tmp/s3a.out" 2>&1) &
p1=$!
while [ ! -e "$meet/capture:a" ] && kill -0 "$p1" 2>/dev/null; do
	sleep 0.05
done
(cd "$tmp/s3" && "$GPUMIX" run study.yaml >"$tmp/s3b.out" 2>&1)
r2=$?
: >"$meet/go:now"
wait $p1; r1=$?
check_eq "the same study twice: the first completes, the second exits 1" "0 1" "$r1 $r2"
check_match "... saying the study is already running" \
	"^error: study 't' is already running" "$(cat "$tmp/s3b.out")"
check_eq "... and the database is the undisturbed one" "$(db_dump "$ref")" "$(db_dump "$tmp/s3")"
# A stage holds the study's lock (inherited) as long as it runs, but a
# program it captures does not: a process the program leaves behind must
# not keep the study locked. Without GPUMIX_STUDY_LOCK_FD it would.
lockf=$tmp/lockfile
for with in yes no; do
	(
		exec 9>"$lockf"
		flock 9
		[ $with = yes ] && export GPUMIX_STUDY_LOCK_FD=9
		exec "$GPUMIX" -q capture --wait-children=0 -o "$tmp/lk-$with" -- \
			sh -c 'sleep 3 & exit 0'
	) >/dev/null 2>&1
	if flock -n "$lockf" true; then held=no; else held=yes; fi
	case $with in
	yes) check_eq "the captured program's leftover does not hold the study lock" no "$held" ;;
	no) check_eq "... (it would, were the lock not kept from it)" yes "$held" ;;
	esac
done
done_testing
