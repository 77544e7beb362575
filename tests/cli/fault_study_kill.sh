#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection: gpumix run killed with SIGKILL at random moments (not
# only at the stage boundaries run_resume.sh stops at: inside a stage,
# while the state or the summary is written), sometimes twice, then run
# again: the database and the report are those of an undisturbed run,
# every run ok, no temporary file left. A stage that outlives its killed
# study keeps the study locked, so the resumed study waits for it rather
# than run the same stage beside it (its analyze found the database
# locked and failed the run, 2 times in 100). Half of the
# kills take the study's process group too (stage children die with it
# at once; otherwise they get SIGTERM from the kernel as their parent
# dies). Stages run through the fake gpumix (tests/data/study/setup.sh).
# GPUMIX_FAULT_ITERATIONS sets the number of studies killed (default
# 30); GPUMIX_FAULT_SEED replays a sequence.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch
iters=${GPUMIX_FAULT_ITERATIONS:-30}
seed=${GPUMIX_FAULT_SEED:-$$}
RANDOM=$seed
echo "# seed $seed, $iters studies killed"

db_dump() { sqlite3 "$1/results/t/results.db" 'SELECT * FROM runs ORDER BY id' 2>&1; }

ref=$tmp/ref
make_study "$ref" "a b c"
start=$(date +%s%N)
(cd "$ref" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
check_eq "an undisturbed study exits 0" 0 "$?"
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# an undisturbed study takes ${full_ms} ms"

# (make check SANITIZE=1: a process killed while LeakSanitizer checks it
# at exit leaves a half report; the resumed runs keep the check)
noleak=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
bad=0 kills=0 resumes=0 waits=0
for i in $(seq "$iters"); do
	d=$tmp/s$i
	make_study "$d" "a b c"
	nkills=$((1 + RANDOM % 2))
	for k in $(seq "$nkills"); do
		ms=$(( RANDOM * (full_ms * 11 / 10) / 32768 ))
		(cd "$d" && ASAN_OPTIONS=$noleak exec setsid "$GPUMIX" run study.yaml \
			>/dev/null 2>&1) &
		pid=$!
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		if [ $((RANDOM % 2)) = 0 ]; then
			kill -KILL "$pid" 2>/dev/null
		else
			kill -KILL -- "-$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
		kills=$((kills + 1))
	done
	# Resume: the same command. A stage of the killed study that is
	# still ending holds the study's lock: then it says so, and we wait.
	rc=1
	for r in $(seq 50); do
		(cd "$d" && "$GPUMIX" run study.yaml >"$d/out" 2>&1)
		rc=$?
		resumes=$((resumes + 1))
		grep -q "is already running" "$d/out" || break
		waits=$((waits + 1))
		# until that stage has ended (300 s: a hang guard)
		timeout 300 flock "$d/results/t/study.state.lock" true 2>/dev/null
	done
	what="study $i ($nkills kill(s))"
	if [ "$rc" != 0 ]; then
		bad=$((bad + 1))
		not_ok "$what: does not complete when resumed (exit $rc)"
		sed 's/^/#   /' "$d/out" | tail -5
		continue
	fi
	got=$(db_dump "$d") want=$(db_dump "$ref")
	if [ "$got" != "$want" ] ||
	   ! cmp -s "$d/results/t/report/index.md" "$ref/results/t/report/index.md" ||
	   ! grep -q '^- runs: 6: 6 ok, 0 failed' "$d/out" ||
	   [ -n "$(find "$d" -name '*.tmp*')" ]; then
		bad=$((bad + 1))
		not_ok "$what: resumed to a different result"
		diff <(echo "$want") <(echo "$got") | sed 's/^/#   /'
		find "$d" -name '*.tmp*' | sed 's/^/#   left: /'
		continue
	fi
	rm -rf "$d"
done
echo "# $kills kills in $iters studies, $resumes invocations to resume them ($waits found a stage of the killed study still running)"
check_eq "every killed study resumed to the undisturbed database and report" 0 "$bad"
done_testing
