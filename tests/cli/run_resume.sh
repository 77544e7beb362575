#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix run is resumable: the study process is killed with SIGKILL at
# every stage boundary (GPUMIX_STUDY_KILL_AT=STAGE-POINT:N: when the N-th
# stage of a kind has started, has finished but is not yet recorded, or
# has been recorded), and the same command then completes the study
# without redoing what was recorded. SIGTERM and SIGINT stop a study
# cleanly (exit 130) and a second study cannot run beside the first.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch

# The study: programs a and b under single, cuda and nss; stages in plan
# order. One reconstruct per workload (the baselines a and b, then the
# pair, whose build both a+b runs replay: a kill between them must not
# rebuild it).
variants="single, cuda, nss"
declare -A ids=(
	[capture]="a b"
	[reconstruct]="a b a+b"
	[replay]="a.single b.single a+b.cuda a+b.nss"
	[analyze]="a.single b.single a+b.cuda a+b.nss"
	[report]="report"
)
total=14

# Reference: one uninterrupted run.
ref=$tmp/ref
make_study "$ref" "a b" "" "$variants"
(cd "$ref" && FAKE_LOG=$ref/log "$GPUMIX" run study.yaml >/dev/null 2>&1)
check_eq "an uninterrupted study runs $total stages" $total "$(stages "$ref/log")"

for kind in capture reconstruct replay analyze report; do
	n=0
	for id in ${ids[$kind]}; do
		n=$((n + 1))
		for point in started finished saved; do
			d=$tmp/$kind-$point-$n
			what="killed when $kind $n ($id) has $point"
			make_study "$d" "a b" "" "$variants"
			export FAKE_LOG=$d/log
			# A started stage sleeps so the kill always finds it running.
			sleep_env=
			[ $point = started ] && sleep_env="$kind:$id=30"
			(cd "$d" && FAKE_SLEEP=$sleep_env \
				GPUMIX_STUDY_KILL_AT=$kind-$point:$n \
				"$GPUMIX" run study.yaml >/dev/null 2>&1)
			rc=$?
			first=$(stages "$d/log")
			# The killed study's stage holds the lock until it has
			# seen the study die and stopped (a user would wait too:
			# "already running"); wait for it (300 s: a hang guard).
			[ -e "$d/results/t/study.state.lock" ] &&
				timeout 300 flock "$d/results/t/study.state.lock" true 2>/dev/null
			(cd "$d" && "$GPUMIX" run study.yaml >"$d/out" 2>&1)
			rc2=$?
			# Only a stage that finished but was not recorded runs twice.
			want=$total
			[ $point = finished ] && want=$((total + 1))
			twice=$(sort "$d/log" | uniq -d | tr '\n' ' ')
			want_twice=
			[ $point = finished ] && want_twice="$kind $([ $kind = report ] && echo report || echo "$id") "
			check_eq "$what: SIGKILL, then the same command completes it" \
				"137 0 $want [$want_twice]" "$rc $rc2 $(stages "$d/log") [$twice]"
			# The kill came exactly at that stage of the plan.
			pos=$(grep -nx "$kind $id" "$ref/log" | cut -d: -f1)
			[ $kind = report ] && pos=$total
			[ $point = started ] && pos=$((pos - 1))
			check_eq "$what: the first invocation stopped right there" \
				"$pos" "$first"
			check_match "$what: all runs ok" '^- runs: 4: 4 ok, 0 failed' "$(cat "$d/out")"
			check_eq "$what: same database and report as without the kill" \
				"$(cat "$ref/results/t/report/index.md")" \
				"$(cat "$d/results/t/report/index.md" 2>&1)"
			[ "${GPUMIX_TEST_KEEP:-0}" = 1 ] || rm -rf "$d"
		done
	done
done
unset FAKE_LOG

wait_for() { # wait_for FILE: up to 300 s (a hang guard, not a time to keep)
	local i
	for i in $(seq 6000); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

for sig in TERM INT; do
	d=$tmp/sig$sig
	make_study "$d" "a b" "" "$variants"
	mkdir "$d/marks"
	cd "$d" || exit 1
	FAKE_LOG=$d/log FAKE_MARK=$d/marks FAKE_SLEEP="replay:a+b.cuda=30" \
		"$GPUMIX" run study.yaml >"$d/out" 2>"$d/err" &
	pid=$!
	check "SIG$sig: the study reaches the replay of a+b" wait_for "$d/marks/replay-a+b.cuda"
	if [ $sig = TERM ]; then
		other=$("$GPUMIX" run study.yaml 2>&1)
		check_eq "a second study beside it is refused" \
			"error: study 't' is already running (lock '$d/results/t/study.state.lock' is held)
hint: wait for it to finish, or stop it first" "$other"
	fi
	kill -$sig $pid
	wait $pid
	check_eq "SIG$sig: the study stops with exit 130" 130 $?
	check_match "SIG$sig: it says how to continue" \
		'^interrupted: run the same command to continue$' "$(cat "$d/err")"
	check_match "SIG$sig: the summary shows the run not done" \
		'^\| a\+b\.cuda \| a\+b \| cuda \| not run yet \|' "$(cat "$d/out")"
	check_eq "SIG$sig: the interrupted replay is not recorded" "" \
		"$(grep -x 'stage\.[0-9]*\.id = replay a+b\.cuda' results/t/study.state)"
	FAKE_LOG=$d/log "$GPUMIX" run study.yaml >"$d/out" 2>&1
	check_eq "SIG$sig: the same command completes the study" 0 $?
	check_eq "SIG$sig: each stage ran once" "$total " \
		"$(stages log) $(sort log | uniq -d | tr '\n' ' ')"
	cd "$tmp" || exit 1
done
done_testing
