#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The procs variant on a CPU (doc/mps.md): a 2-program workload replayed
# as two time-sliced processes, against the mock driver, with no MPS
# daemon. It starts none (no nvidia-cuda-mps-control in PATH, and none
# is missed); one process per program (each a process of its own, seen
# through GPUMIX_PROCESS_WRAPPER); no CUDA_MPS_* variable of the caller's
# environment reaches them, so they do not become clients of a daemon
# the caller's variables name (a stand-in daemon, tests/mock/
# fake_mps_control.c, that must see no client), and the manifest names
# the variables removed; a process that is an MPS client anyway fails
# the run; the processes' records merged onto one clock even when their
# CUPTI clocks differ (MOCK_CUDA_CLOCK_OFFSET_NS for one of them),
# correlation ids unique, loaded by `gpumix analyze`; a study with procs
# validates, runs and is reported, in the variant table's row order.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
FAKE=$GPUMIX_BUILD/tests/mock/mps
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp
. "$GPUMIX_TOP/tests/replay_check.sh"
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY CUDA_MPS_ACTIVE_THREAD_PERCENTAGE

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
"$GPUMIX" replay --build-only "$tmp/wl" 2>/dev/null

# A wrapper for every replay process (GPUMIX_PROCESS_WRAPPER): it logs
# its pid, its arguments and the CUDA_MPS_* variables it got, then runs
# the replay process; WRAP_OFFSET_NS puts program 1's mock clock ahead,
# WRAP_PIPE makes program 1 find an MPS daemon anyway.
cat >"$tmp/wrap" <<'EOF'
#!/bin/sh
echo "pid $$ args $*" >>"$WRAP_LOG"
env | grep '^CUDA_MPS_' | sed "s/^/pid $$ env /" >>"$WRAP_LOG"
case " $* " in
*" --process-child 1:"*)
	[ -n "$WRAP_OFFSET_NS" ] && export MOCK_CUDA_CLOCK_OFFSET_NS=$WRAP_OFFSET_NS
	[ -n "$WRAP_PIPE" ] && export CUDA_MPS_PIPE_DIRECTORY=$WRAP_PIPE
	;;
esac
exec "$@"
EOF
chmod +x "$tmp/wrap"

# -- the caller's MPS variables name a daemon (the stand-in, listening):
# the replay processes must not become its clients
mkdir -p "$tmp/upipe" "$tmp/ulog"
CUDA_MPS_PIPE_DIRECTORY=$tmp/upipe CUDA_MPS_LOG_DIRECTORY=$tmp/ulog \
	"$FAKE/nvidia-cuda-mps-control" -d
check "a stand-in MPS daemon of the caller's listens" test -S "$tmp/upipe/control"
stop_user_daemon() {
	echo quit | CUDA_MPS_PIPE_DIRECTORY=$tmp/upipe "$FAKE/nvidia-cuda-mps-control" >/dev/null 2>&1
}
trap stop_user_daemon EXIT

# (PATH without nvidia-cuda-mps-control: procs needs none)
out=$(CUDA_MPS_PIPE_DIRECTORY=$tmp/upipe CUDA_MPS_LOG_DIRECTORY=$tmp/ulog \
	CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30 WRAP_LOG=$tmp/wrap.log \
	GPUMIX_PROCESS_WRAPPER=$tmp/wrap \
	"$GPUMIX" replay --variant procs --min-replays 3 -o "$tmp/run" "$tmp/wl" 2>&1); rc=$?
check_eq "procs, 2 programs, no MPS in PATH: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
check_run "$tmp/run" 2 3
m=$tmp/run/manifest
check_eq "variant recorded" procs "$(field "$m" variant)"
check_eq "one process per program" 2 "$(field "$m" processes.count)"
check_eq "none of them an MPS client" 0 "$(field "$m" processes.mps_clients)"
check_eq "the manifest names the MPS variables the processes did not get" \
	"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE CUDA_MPS_LOG_DIRECTORY CUDA_MPS_PIPE_DIRECTORY" \
	"$(field "$m" processes.mps_env_removed | tr ',' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "no daemon: no mps.* key" "" "$(grep '^mps\.' "$m")"
check_fails "no daemon: no daemon logs" test -e "$tmp/run/mps"
check_fails "no daemon: no private pipe directory was made" \
	test -n "$(ls -d "$tmp"/gpumix-mps-* 2>/dev/null)"
check_eq "the caller's daemon saw no client" 0 "$(grep -c "New client" "$tmp/ulog/control.log")"
check_eq "the wrapper ran once per program, as process 0 and process 1" \
	"0 1" "$(sed -n 's/.*--process-child \([0-9]*\):.*/\1/p' "$tmp/wrap.log" | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "each a process of its own" 2 \
	"$(sed -n 's/^pid \([0-9]*\) args.*/\1/p' "$tmp/wrap.log" | sort -u | wc -l)"
check_eq "no CUDA_MPS_* variable reached either" "" "$(grep ' env ' "$tmp/wrap.log")"
check_match "the log says which variables were not passed on" \
	"CUDA_MPS_PIPE_DIRECTORY is not passed on to the replay processes" "$(cat "$tmp/run/log")"
check "each process kept its log and manifest" \
	test -s "$tmp/run/processes/1/log" -a -s "$tmp/run/processes/1/manifest"
check_fails "their records are in the run's files only" test -e "$tmp/run/processes/0/activity.tsv"
check_eq "correlation ids are unique in the merged log" "" \
	"$(awk -F'\t' '$1 == "API" { print $3 }' "$tmp/run/activity.tsv" | sort | uniq -d | head -3)"
check_eq "every GPU record has its API call (same correlation id, same program)" "" \
	"$(awk -F'\t' '$1 == "API" { api[$3] = $2 } $1 == "KERNEL" && api[$3] != $2 { print $3 }' \
	"$tmp/run/activity.tsv" | head -3)"
out=$("$GPUMIX" analyze "$tmp/run" -o "$tmp/db.sqlite" 2>&1); rc=$?
check_eq "gpumix analyze loads it" 0 "$rc"
check_eq "with both programs' kernels" "scale-a scale-b" "$(sqlite3 "$tmp/db.sqlite" \
	"SELECT DISTINCT p.name FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN programs p ON p.id = k.programId ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
check_eq "and its variant" procs "$(sqlite3 "$tmp/db.sqlite" "SELECT variant FROM runs")"

# -- one clock: program 1's process has its mock clock 5 s ahead
out=$(WRAP_LOG=$tmp/wrap2.log WRAP_OFFSET_NS=5000000000 GPUMIX_PROCESS_WRAPPER=$tmp/wrap \
	"$GPUMIX" replay --variant procs --min-replays 3 -o "$tmp/skew" "$tmp/wl" 2>&1); rc=$?
check_eq "skewed clocks: exit 0" 0 "$rc"
spread=$(field "$tmp/skew/manifest" processes.clock_spread_ns)
check "the spread is measured: 5 s ($spread ns)" \
	test "$(( (spread - 5000000000) / 1000000 ))" -eq 0
check_match "and the log says the records were moved" "records were moved" "$out"
rep() { # rep RUN PROGRAM REPLAY FIELD(3 start, 4 end)
	awk -F'\t' -v p="$2" -v r="$3" -v f="$4" '$1 == p && $2 == r { print $f }' "$1/replays.tsv"
}
first() { # first RUN KIND PROGRAM: the earliest start of its records
	awk -F'\t' -v k="$2" -v p="$3" '$1 == k && $2 == p { print $4 }' \
		"$1/activity.tsv" | sort -n | head -1
}
last_end() { # last_end RUN PROGRAM: the end of its last replay
	awk -F'\t' -v p="$2" '$1 == p { print $4 }' "$1/replays.tsv" | sort -n | tail -1
}
a0=$(rep "$tmp/skew" scale-a 0 3); a0e=$(rep "$tmp/skew" scale-a 0 4)
b0=$(rep "$tmp/skew" scale-b 0 3); b0e=$(rep "$tmp/skew" scale-b 0 4)
# (each program replays until the other has done R: on one clock, each
# one's first replay starts before the other's last one ends; 5 s apart,
# it would not)
check "replay times on one clock: each first replay starts before the other's last ends" \
	test "$a0" -lt "$(last_end "$tmp/skew" scale-b)" -a "$b0" -lt "$(last_end "$tmp/skew" scale-a)"
ka=$(first "$tmp/skew" KERNEL scale-a)
kb=$(first "$tmp/skew" KERNEL scale-b)
check "activity records on one clock: each first kernel within its first replay" \
	test "$ka" -ge "$a0" -a "$ka" -le "$a0e" -a "$kb" -ge "$b0" -a "$kb" -le "$b0e"

# -- a process that finds an MPS daemon anyway is refused
out=$(WRAP_LOG=$tmp/wrap3.log WRAP_PIPE=$tmp/upipe GPUMIX_PROCESS_WRAPPER=$tmp/wrap \
	"$GPUMIX" replay --variant procs --min-replays 2 -o "$tmp/client" "$tmp/wl" 2>&1); rc=$?
check_eq "a replay process that is an MPS client: the run fails" 1 "$rc"
check_match "saying why" "this replay process is an MPS client, but variant 'procs' runs without MPS" \
	"$(field "$tmp/client/manifest" failure)"
check_eq "status failed" failed "$(field "$tmp/client/manifest" status)"

# -- the knobs procs takes
out=$("$GPUMIX" replay --variant procs --mps-threads 50 -o "$tmp/x" "$tmp/wl" 2>&1); rc=$?
check_eq "--mps-threads under procs: usage error" 2 "$rc"
check_match "naming who takes it" "applies to: mps" "$out"
check_match "--elastic applies to procs" "--elastic MODE .*procs" \
	"$("$tmp/wl/replay" --help | tr -s ' \n' ' ')"
check_match "--help lists procs" "procs +one process per program, time-sliced" \
	"$("$GPUMIX" replay --help)"

# -- a wrong result in one process: the run fails with its reason
"$GEN" tiny --bad-hash --fatbin "$FATBIN" -o "$tmp/bad" 2>/dev/null
out=$("$GPUMIX" replay --variant procs --min-replays 2 -o "$tmp/runbad" "$tmp/bad" 2>&1); rc=$?
check_eq "a wrong result fails the run" 1 "$rc"
check_match "the failure is the process's own" "program 'scale-b': operation 15 .* result differs" \
	"$(field "$tmp/runbad/manifest" failure)"

# -- in a study, beside cuda and mps: validated, run, reported in the
# table's row order (single, cuda, ..., procs, mps)
mock_study "$tmp/study.yaml" mock-procs "mps, procs, cuda, single" \
	"min_replays: 2, watchdog: 30s" "$tmp/study"
out=$(cd "$GPUMIX_TOP" && PATH=$FAKE:$PATH "$GPUMIX" run --dry-run "$tmp/study.yaml" 2>&1); rc=$?
check_eq "a study with procs validates" 0 "$rc"
summary=$(cd "$GPUMIX_TOP" && PATH=$FAKE:$PATH "$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "a study with procs succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$tmp"/study/logs/*.log
check_match "every run is ok" '^- runs: 5: 5 ok, 0 failed' "$summary"
m=$tmp/study/runs/basic+threads.procs/manifest
check_eq "the procs run: variant, status, processes" "procs ok 2 0" \
	"$(field "$m" variant) $(field "$m" status) $(field "$m" processes.count) $(field "$m" processes.mps_clients)"
check_eq "the summary's rows in the table's order" "cuda procs mps" \
	"$(sed 1d "$tmp/study/report/tables/summary.csv" | cut -d, -f2 | tr '\n' ' ' | sed 's/ $//')"
check_match "the ranking has a procs row" ",procs," \
	"$(cat "$tmp/study/report/tables/ranking.csv")"
check_eq "no warning about MPS for procs" "" "$(grep "variant 'procs'" "$tmp/err")"

done_testing
