#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The mps variant on a CPU (doc/mps.md): a 2-program workload replayed as
# two processes under an MPS control daemon that the replay starts and
# stops, against the mock driver (an MPS client of the daemon, as CUDA
# is) and a stand-in nvidia-cuda-mps-control (tests/mock/
# fake_mps_control.c, first in PATH: the real one needs a GPU). Results
# verified per process, one run directory that `gpumix analyze` loads with
# both programs, correlation ids unique, active-thread percentages, the
# processes' records on one clock even when their CUPTI clocks differ
# (MOCK_CUDA_CLOCK_SKEW_NS); a study with mps and mps_threads; the
# daemon's lifecycle: stopped after a run, a failed run, an interrupted
# run and a killed run (by its reaper), nothing left behind; a clear
# refusal without MPS or when the daemon does not start, never a hang.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
FAKE=$GPUMIX_BUILD/tests/mock/mps
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp	# the private pipe directories go here
. "$GPUMIX_TOP/tests/replay_check.sh"

# no_leftovers NAME RUNDIR: the daemon of that run is gone, its pipe
# directory removed (zombies waiting for a reaping init do not count).
no_leftovers() {
	local pipe left=
	pipe=$(sed -n "s/.*pipe directory '\([^']*\)'.*/\1/p" "$2/log" 2>/dev/null)
	[ -z "$pipe" ] && pipe=$(sed -n "s/.*pipe directory '\([^']*\)'.*/\1/p" "$3" 2>/dev/null)
	check "$1: the run used a private pipe directory ($pipe)" test -n "$pipe"
	# (a killed run's reaper may still be at it: up to 300 s, a guard
	# against a reaper that never ends, not a time it must keep)
	for _ in $(seq 3000); do
		[ -e "$pipe" ] || break
		sleep 0.1
	done
	check_fails "$1: its pipe directory is removed" test -e "$pipe"
	for e in /proc/[0-9]*/environ; do
		if grep -qzsx "CUDA_MPS_PIPE_DIRECTORY=$pipe" "$e" 2>/dev/null &&
		   ! grep -qs '^State:.*Z' "${e%environ}status"; then
			left="$left $(cat "${e%environ}comm" 2>/dev/null)"
		fi
	done
	check_eq "$1: no process of its daemon is left" "" "$left"
}

# (no procps in a minimal container: /proc itself)
children_of() { # children_of PID: the pids whose parent it is
	grep -ls "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null |
		sed 's|/proc/\([0-9]*\)/status|\1|'
}
running() { # running PROGRAM: the pids running PROGRAM (their argv[0])
	local f a0
	for f in /proc/[0-9]*/cmdline; do	# (builtins: no process of ours)
		IFS= read -r -d '' a0 <"$f" 2>/dev/null || continue
		[ "$a0" = "$1" ] && { f=${f#/proc/}; echo "${f%/cmdline}"; }
	done
}

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
"$GPUMIX" replay --build-only "$tmp/wl" 2>/dev/null

# -- a host without MPS: a refusal that says why, nothing half-written
out=$(PATH=/usr/bin:/bin "$GPUMIX" replay --variant mps -o "$tmp/nomps" "$tmp/wl" 2>&1); rc=$?
check_eq "without nvidia-cuda-mps-control: exit 1" 1 "$rc"
check_match "the refusal says why" "'nvidia-cuda-mps-control' is not in PATH: this host has no MPS" "$out"
check_fails "and leaves no run directory" test -e "$tmp/nomps"

export PATH=$FAKE:$PATH

# -- a run: two processes under one daemon, one run directory
out=$("$GPUMIX" replay --variant mps --min-replays 3 --mps-threads scale-b=40 \
	--repetition 1 --study-seed 7 -o "$tmp/run" "$tmp/wl" 2>&1); rc=$?
check_eq "mps, 2 programs: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
check_run "$tmp/run" 2 3
check_eq "variant recorded" mps "$(field "$tmp/run/manifest" variant)"
check_eq "one process per program" 2 "$(field "$tmp/run/manifest" processes.count)"
check_eq "the repetition and seed recorded once" "1 7 1" \
	"$(field "$tmp/run/manifest" run.repetition) $(field "$tmp/run/manifest" study.seed) $(grep -c '^run.repetition' "$tmp/run/manifest")"
check_eq "the daemon stopped after quit" stopped "$(field "$tmp/run/manifest" mps.daemon)"
check_eq "streams of both processes (2 + 1 each)" 6 "$(field "$tmp/run/manifest" streams)"
check_eq "scale-a: no active-thread limit" 0 "$(field "$tmp/run/manifest" mps.program.0.active_threads)"
check_eq "scale-b: 40%" 40 "$(field "$tmp/run/manifest" mps.program.1.active_threads)"
clients=$(grep -c "New client" "$tmp/run/mps/daemon/control.log")
check_eq "both replay processes were clients of the daemon" 2 "$clients"
check "scale-b's process ran with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=40" \
	grep -q "active thread percentage 40" "$tmp/run/mps/daemon/control.log"
check "the daemon was told to quit" grep -q "Shutdown requested" "$tmp/run/mps/daemon/control.log"
check_fails "it held no descriptor of the replay's" grep "inherited descriptor" \
	"$tmp/run/mps/daemon/control.log"
check_eq "correlation ids are unique in the merged log" "" \
	"$(awk -F'\t' '$1 == "API" { print $3 }' "$tmp/run/activity.tsv" | sort | uniq -d | head -3)"
check_eq "every GPU record has its API call (same correlation id, same program)" "" \
	"$(awk -F'\t' '$1 == "API" { api[$3] = $2 } $1 == "KERNEL" && api[$3] != $2 { print $3 }' \
	"$tmp/run/activity.tsv" | head -3)"
check_match "the processes' clocks were compared" '^[0-9]+$' "$(field "$tmp/run/manifest" processes.clock_spread_ns)"
a0=$(awk -F'\t' '$1 == "scale-a" && $2 == 0 { print $3 }' "$tmp/run/replays.tsv")
b0=$(awk -F'\t' '$1 == "scale-b" && $2 == 0 { print $3 }' "$tmp/run/replays.tsv")
check "the processes started replaying together (within 1 s on one clock)" \
	test $(( (a0 > b0 ? a0 - b0 : b0 - a0) / 1000000 )) -lt 1000
check "each process kept its log and manifest" test -s "$tmp/run/processes/1/log" -a -s "$tmp/run/processes/1/manifest"
check_fails "their records are in the run's files only" test -e "$tmp/run/processes/0/activity.tsv"
no_leftovers "ok run" "$tmp/run"
out=$("$GPUMIX" analyze "$tmp/run" -o "$tmp/db.sqlite" 2>&1); rc=$?
check_eq "gpumix analyze loads it" 0 "$rc"
check_eq "with both programs' kernels" "scale-a scale-b" "$(sqlite3 "$tmp/db.sqlite" \
	"SELECT DISTINCT p.name FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN programs p ON p.id = k.programId ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
check_eq "and its variant" mps "$(sqlite3 "$tmp/db.sqlite" "SELECT variant FROM runs")"

# -- one clock: the second process's CUPTI clock 5 s ahead of the first's
out=$(MOCK_CUDA_CLOCK_SKEW_NS=5000000000 "$GPUMIX" replay --variant mps \
	--min-replays 3 -o "$tmp/skew" "$tmp/wl" 2>&1); rc=$?
check_eq "skewed clocks: exit 0" 0 "$rc"
spread=$(field "$tmp/skew/manifest" processes.clock_spread_ns)
check "the spread is measured: 5 s ($spread ns)" \
	test "$(( (spread - 5000000000) / 1000000 ))" -eq 0
check_match "and the log says the records were moved" "records were moved" "$out"
first() { # first RUN KIND PROGRAM: the earliest start of its records
	awk -F'\t' -v k="$2" -v p="$3" '$1 == k && $2 == p { print $4 }' \
		"$1/activity.tsv" | sort -n | head -1
}
a0=$(awk -F'\t' '$1 == "scale-a" && $2 == 0 { print $3 }' "$tmp/skew/replays.tsv")
b0=$(awk -F'\t' '$1 == "scale-b" && $2 == 0 { print $3 }' "$tmp/skew/replays.tsv")
check "replay times on one clock: both first replays within 1 s" \
	test $(( (a0 > b0 ? a0 - b0 : b0 - a0) / 1000000 )) -lt 1000
ka=$(first "$tmp/skew" KERNEL scale-a)
kb=$(first "$tmp/skew" KERNEL scale-b)
check "activity records on one clock: both first kernels within 1 s" \
	test $(( (ka > kb ? ka - kb : kb - ka) / 1000000 )) -lt 1000
check "and within their replays" test "$ka" -ge "$a0" -a "$kb" -ge "$b0"
no_leftovers "skew" "$tmp/skew"

# -- GPUMIX_PROCESS_WRAPPER: each replay process runs under a command
# (a tool such as compute-sanitizer), the daemon does not
cat >"$tmp/wrap" <<'EOF'
#!/bin/sh
echo "$*" >>"$WRAP_LOG"
[ -n "$WRAP_EXIT" ] && exit "$WRAP_EXIT"
shift 2	# the wrapper's own options: --tag T
exec "$@"
EOF
chmod +x "$tmp/wrap"
out=$(WRAP_LOG=$tmp/wrap.log GPUMIX_PROCESS_WRAPPER="  $tmp/wrap  --tag t1 " \
	"$GPUMIX" replay --variant mps --min-replays 3 -o "$tmp/wrapped" "$tmp/wl" 2>&1); rc=$?
check_eq "a client wrapper: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
check_run "$tmp/wrapped" 2 3
check_eq "the wrapper ran once per replay process, and only for them" \
	"2 2" "$(grep -c . "$tmp/wrap.log") $(grep -c -- '--process-child' "$tmp/wrap.log")"
check_eq "its words first, then the replay program by its path" \
	"--tag t1 $tmp/wl/replay" "$(awk '{ print $1, $2, $3; exit }' "$tmp/wrap.log")"
check_eq "both processes were still clients of the daemon" 2 \
	"$(grep -c "New client" "$tmp/wrapped/mps/daemon/control.log")"
no_leftovers "wrapped" "$tmp/wrapped"
out=$(WRAP_LOG=$tmp/wrap9.log WRAP_EXIT=9 GPUMIX_PROCESS_WRAPPER="$tmp/wrap --tag t2" \
	"$GPUMIX" replay --variant mps --min-replays 2 -o "$tmp/wrap9" "$tmp/wl" 2>&1); rc=$?
check_eq "a wrapper that exits 9 (a tool's error exit): the run fails" 1 "$rc"
check_match "naming the process and its status" "exited with status 9" "$out"
check_eq "with a run directory that says failed" failed "$(field "$tmp/wrap9/manifest" status)"
no_leftovers "wrapper exit 9" "$tmp/wrap9"
out=$(GPUMIX_PROCESS_WRAPPER="$tmp/no-such-tool --x" \
	"$GPUMIX" replay --variant mps --min-replays 2 -o "$tmp/nowrap" "$tmp/wl" 2>&1); rc=$?
check_eq "a wrapper that is not there: the run fails" 1 "$rc"
check_match "saying which" "under GPUMIX_PROCESS_WRAPPER '$tmp/no-such-tool': No such file" "$out"
check_eq "a run directory that says failed (its processes' start failed)" failed \
	"$(field "$tmp/nowrap/manifest" status)"
check_match "and why" "^cannot run the replay process of 'scale-a' under GPUMIX_PROCESS_WRAPPER" \
	"$(field "$tmp/nowrap/manifest" failure)"
no_leftovers "missing wrapper" "$tmp/nowrap"

out=$("$GPUMIX" replay --variant mps --mps-threads 0 -o "$tmp/x" "$tmp/wl" 2>&1); rc=$?
check_eq "--mps-threads 0: usage error" 2 "$rc"
check_match "naming the range" "1 to 100" "$out"
out=$("$GPUMIX" replay --variant cuda --mps-threads 50 -o "$tmp/x" "$tmp/wl" 2>&1); rc=$?
check_eq "--mps-threads under cuda: usage error" 2 "$rc"
check_match "naming who takes it" "applies to: mps" "$out"

# -- a wrong result in one process: the run fails, the daemon stops
"$GEN" tiny --bad-hash --fatbin "$FATBIN" -o "$tmp/bad" 2>/dev/null
out=$("$GPUMIX" replay --variant mps --min-replays 2 -o "$tmp/runbad" "$tmp/bad" 2>&1); rc=$?
check_eq "a wrong result fails the run" 1 "$rc"
check_eq "status failed" failed "$(field "$tmp/runbad/manifest" status)"
check_match "the failure is the process's own" "program 'scale-b': operation 15 .* result differs" \
	"$(field "$tmp/runbad/manifest" failure)"
check_eq "the daemon stopped all the same" stopped "$(field "$tmp/runbad/manifest" mps.daemon)"
no_leftovers "failed run" "$tmp/runbad"

# -- a hung process: the watchdog's report, everyone stops
"$GEN" hang --fatbin "$FATBIN" -o "$tmp/hang" 2>/dev/null
# (the timeout only turns a watchdog that never fires into a failure)
out=$(timeout 300 "$GPUMIX" replay --variant mps --watchdog 1 -o "$tmp/runhang" "$tmp/hang" 2>&1); rc=$?
check_eq "a hung process: exit 1" 1 "$rc"
check_eq "status hung" hung "$(field "$tmp/runhang/manifest" status)"
no_leftovers "hung run" "$tmp/runhang"

# -- interrupted and killed runs
for sig in INT KILL; do
	"$GPUMIX" replay --variant mps --watchdog 0 -o "$tmp/run$sig" "$tmp/hang" \
		>"$tmp/out$sig" 2>&1 &
	g=$!
	parent=
	while kill -0 "$g" 2>/dev/null; do	# (as long as it takes)
		parent=$(children_of "$g" | head -1)
		[ -n "$parent" ] && [ "$(children_of "$parent" | wc -l)" -ge 2 ] &&
			grep -q "New client" "$tmp/run$sig/mps/daemon/control.log" 2>/dev/null && break
		sleep 0.1
	done
	check "$sig: the replay, its reaper and its process are seen ($(running "$tmp/hang/replay" | wc -l))" \
		test "$(running "$tmp/hang/replay" | wc -l)" -eq 3
	kill -"$sig" "$parent"
	wait "$g"; rc=$?
	if [ "$sig" = INT ]; then
		check_eq "SIGINT: gpumix says interrupted (130)" 130 "$rc"
		check_eq "SIGINT: the run directory says so" "interrupted by signal 2" \
			"$(field "$tmp/runINT/manifest" failure)"
	else
		check_eq "SIGKILL of the replay: gpumix reports it" 1 "$rc"
		check_match "naming the signal" "killed by signal 9" "$(cat "$tmp/outKILL")"
		# The reaper stops the daemon once the replay is gone.
		# (up to 300 s each: guards against a hang, not times to keep)
		for _ in $(seq 3000); do
			grep -q "^.*Exit" "$tmp/runKILL/mps/daemon/control.log" && break
			sleep 0.1
		done
		for _ in $(seq 3000); do	# the reaper ends after the daemon
			[ -z "$(running "$tmp/hang/replay")" ] && break
			sleep 0.1
		done
		check "SIGKILL: the reaper told the daemon to quit" \
			grep -q "Shutdown requested" "$tmp/runKILL/mps/daemon/control.log"
		check_eq "SIGKILL: no replay process (nor the reaper) is left" "" \
			"$(running "$tmp/hang/replay" | tr '\n' ' ')"
	fi
	no_leftovers "$sig" "$tmp/run$sig"
done

# -- a daemon that does not start: a refusal, never a hang
for mode in fail hang mute; do
	out=$(FAKE_MPS_MODE=$mode GPUMIX_MPS_TIMEOUT=1 timeout 300 "$GPUMIX" \
		replay --variant mps -o "$tmp/r$mode" "$tmp/wl" 2>&1); rc=$?
	check_eq "daemon '$mode': exit 1 (refused, not hung: 124)" 1 "$rc"
	check_match "daemon '$mode': the refusal says why" "cannot start an MPS control daemon" "$out"
	check_fails "daemon '$mode': no run directory" test -e "$tmp/r$mode"
done
check_match "the daemon's own words" "exited with status 1: fake MPS: cannot start" \
	"$(FAKE_MPS_MODE=fail "$GPUMIX" replay --variant mps -o "$tmp/rf" "$tmp/wl" 2>&1)"
check_eq "no pipe directory is left by any of them" "" "$(ls -d "$tmp"/gpumix-mps-* 2>/dev/null)"

# -- a daemon that ignores quit: killed, and the manifest says so
out=$(FAKE_MPS_MODE=noquit GPUMIX_MPS_TIMEOUT=1 "$GPUMIX" replay --variant mps \
	--min-replays 2 -o "$tmp/rnq" "$tmp/wl" 2>&1); rc=$?
check_eq "a daemon deaf to quit: the results still stand" 0 "$rc"
check_eq "the manifest says it was killed" killed "$(field "$tmp/rnq/manifest" mps.daemon)"
check_match "and the replay warns" "did not end after 'quit'" "$out"
no_leftovers "noquit" "$tmp/rnq"

# -- in a study: the variant, its knob, the report
mock_study "$tmp/study.yaml" mock-mps "single, cuda, mps" \
	"min_replays: 2, watchdog: 30s, mps_threads: {threads: 30}" "$tmp/study"
summary=$(cd "$GPUMIX_TOP" && "$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "a study with mps succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$tmp"/study/logs/*.log
check_match "every run is ok" '^- runs: 4: 4 ok, 0 failed' "$summary"
m=$tmp/study/runs/basic+threads.mps/manifest
check_eq "the mps run: variant and status" "mps ok" \
	"$(field "$m" variant) $(field "$m" status)"
check_eq "the study's mps_threads reached it" "0 30" \
	"$(field "$m" mps.program.0.active_threads) $(field "$m" mps.program.1.active_threads)"
check_match "the report's summary has an mps row" "^2,mps,1," \
	"$(cat "$tmp/study/report/tables/summary.csv")"
no_leftovers "study" "$tmp/study/runs/basic+threads.mps"

# -- a study with mps on a host without MPS: said first, the mps run fails
sed -i "s|output: $tmp/study|output: $tmp/study2|" "$tmp/study.yaml"
summary=$(cd "$GPUMIX_TOP" && PATH=$(dirname "$(command -v cc)"):/usr/bin:/bin \
	"$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err2")
check_match "without MPS, the study warns before it starts" \
	"warning: 'nvidia-cuda-mps-control' is not in PATH: the runs of variant 'mps' will fail" \
	"$(head -3 "$tmp/err2")"
check_match "the mps run fails, the others are ok" '^- runs: 4: 3 ok, 1 failed' "$summary"

done_testing
