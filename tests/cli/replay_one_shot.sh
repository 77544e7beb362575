#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix replay --one-shot on a CPU (mock driver; doc/gpumix-replay.md):
# every program replays exactly once and that replay is kept, in one
# process (cuda, nss) and in the process variants (procs, and mps under
# the stand-in MPS daemon); the programs start together: with one
# program's init made late (MOCK_CUDA_SLOW: its module load sleeps, then
# notes the time), no program's replay starts before that time, which
# only the start barrier (the in-process one, or the process board)
# guarantees. Under single each program replays once, alone, one after
# another. The manifest says so (replay.one_shot, min_replays 1);
# --min-replays with it is a usage error. A study with one_shot: true
# reaches every replay, and its runs are analyzed and reported (STP and
# ANTT of the one kept replay, no NaN).
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
FAKE=$GPUMIX_BUILD/tests/mock/mps
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp
. "$GPUMIX_TOP/tests/replay_check.sh"

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
"$GPUMIX" replay --build-only "$tmp/wl" 2>/dev/null

# A wrapper for the process variants' replay processes: program 1's
# module load is late (its process's first cuLibraryLoadData).
cat >"$tmp/wrap" <<'EOF'
#!/bin/sh
case " $* " in
*" --process-child 1:"*) export MOCK_CUDA_SLOW=cuLibraryLoadData:1:300:$SLOW_FILE;;
esac
exec "$@"
EOF
chmod +x "$tmp/wrap"

# one_shot_run NAME RUN: exactly one replay per program, kept; the
# manifest says one-shot; every replay starts after the late program's
# init went on (the time in $tmp/slow.NAME).
one_shot_run() {
	local name=$1 run=$2 p n late
	check_eq "$name: status ok" ok "$(field "$run/manifest" status)"
	check_eq "$name: the manifest says one-shot, one replay each" "1 1" \
		"$(field "$run/manifest" replay.one_shot) $(field "$run/manifest" min_replays)"
	for p in scale-a scale-b; do
		n=$(awk -F'\t' -v p="$p" '$1 == p { n++; k += $6 } END { print n + 0, k + 0 }' \
			"$run/replays.tsv")
		check_eq "$name: $p replayed exactly once, and that replay kept" "1 1" "$n"
	done
	late=$(cat "$tmp/slow.$name" 2>/dev/null)
	check "$name: one program's init was made late ($late)" test -n "$late"
	[ -n "$late" ] || return
	check_eq "$name: no replay started before the late program was ready" "" \
		"$(awk -F'\t' -v t="$late" 'NR > 1 && $3 < t { print $1 }' "$run/replays.tsv")"
}

# -- in one process: cuda, nss (the second module load, whichever
# program's, is late)
for v in cuda nss; do
	out=$(MOCK_CUDA_SLOW=cuLibraryLoadData:2:300:$tmp/slow.$v \
		"$GPUMIX" replay --variant "$v" --one-shot -o "$tmp/$v" "$tmp/wl" 2>&1); rc=$?
	check_eq "$v --one-shot: exit 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
	one_shot_run "$v" "$tmp/$v"
done
check_match "the log says one-shot" "one-shot: each replayed once" "$(cat "$tmp/cuda/log")"

# -- in processes: procs, and mps under the stand-in daemon
for v in procs mps; do
	out=$(PATH=$FAKE:$PATH SLOW_FILE=$tmp/slow.$v GPUMIX_PROCESS_WRAPPER=$tmp/wrap \
		"$GPUMIX" replay --variant "$v" --one-shot -o "$tmp/$v" "$tmp/wl" 2>&1); rc=$?
	check_eq "$v --one-shot: exit 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
	one_shot_run "$v" "$tmp/$v"
	check_eq "$v: each process's own manifest says one-shot too" "1 1" \
		"$(field "$tmp/$v/processes/0/manifest" replay.one_shot) $(field "$tmp/$v/processes/1/manifest" replay.one_shot)"
done

# -- single: each program once, alone, one after another
out=$("$GPUMIX" replay --variant single --one-shot -o "$tmp/single" "$tmp/wl" 2>&1); rc=$?
check_eq "single --one-shot: exit 0" 0 "$rc"
check_eq "single: one replay each, kept" "scale-a 0 1 scale-b 0 1" \
	"$(awk -F'\t' 'NR > 1 { print $1, $2, $6 }' "$tmp/single/replays.tsv" | tr '\n' ' ' | sed 's/ $//')"
ae=$(awk -F'\t' '$1 == "scale-a" { print $4 }' "$tmp/single/replays.tsv")
bs=$(awk -F'\t' '$1 == "scale-b" { print $3 }' "$tmp/single/replays.tsv")
check "single: the second starts after the first ended" test "$bs" -ge "$ae"

# -- usage
out=$("$GPUMIX" replay --one-shot --min-replays 3 -o "$tmp/x" "$tmp/wl" 2>&1); rc=$?
check_eq "--one-shot with --min-replays: usage error" 2 "$rc"
check_match "saying why" "--one-shot replays every program once: --min-replays does not apply" "$out"
check_fails "and no run directory" test -e "$tmp/x"
check_match "--help lists it for every variant" "--one-shot .*\[every variant\]" \
	"$("$tmp/wl/replay" --help)"

# -- analyze and report one-shot runs: the alone times and STP of one
# replay each
out=$("$GPUMIX" analyze "$tmp/single" "$tmp/cuda" "$tmp/procs" -o "$tmp/db.sqlite" 2>&1); rc=$?
check_eq "gpumix analyze loads one-shot runs" 0 "$rc"
check_eq "with one kept replay per program" "6|6" "$(sqlite3 "$tmp/db.sqlite" \
	"SELECT COUNT(*), SUM(kept) FROM replays")"
check_eq "and min_replays 1" "1" "$(sqlite3 "$tmp/db.sqlite" "SELECT DISTINCT minReplays FROM runs")"
out=$("$GPUMIX" report "$tmp/db.sqlite" -o "$tmp/rep" --no-figures 2>&1); rc=$?
check_eq "gpumix report reports them" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
check_match "cuda's STP and ANTT, from the one replay each (a label of their own)" \
	'^2,cuda\+one-shot,1,[0-9.]+,[0-9.]+' \
	"$(cat "$tmp/rep/tables/summary.csv")"
check_match "procs's too" '^2,procs\+one-shot,1,[0-9.]+,[0-9.]+' "$(cat "$tmp/rep/tables/summary.csv")"
check_eq "no NaN or infinity in any table" "" \
	"$(grep -il '\bnan\b\|\binf\b' "$tmp"/rep/tables/*.csv "$tmp"/rep/tables/*.md 2>/dev/null)"

# -- a study with one_shot: true
mock_study "$tmp/study.yaml" mock-one-shot "single, cuda, procs" \
	"one_shot: true, watchdog: 30s" "$tmp/study"
summary=$(cd "$GPUMIX_TOP" && "$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "a one-shot study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$tmp"/study/logs/*.log
check_match "every run is ok" '^- runs: 4: 4 ok, 0 failed' "$summary"
for r in basic.single threads.single basic+threads.cuda basic+threads.procs; do
	m=$tmp/study/runs/$r/manifest
	check_eq "$r: one-shot, one replay per program" \
		"1 $(field "$m" programs)" \
		"$(field "$m" replay.one_shot) $(awk 'NR > 1' "$tmp/study/runs/$r/replays.tsv" | wc -l)"
done
check_match "the report's summary has the one-shot cuda row" "^2,cuda\+one-shot,1," \
	"$(cat "$tmp/study/report/tables/summary.csv")"

done_testing
