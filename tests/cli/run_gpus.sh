#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix run --gpus on a CPU: the node's GPUs come from nvidia-smi's
# machine-readable listing (GPUMIX_NVIDIA_SMI: a script printing what
# `nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader` prints on
# a two-GPU node), the stages run through the fake gpumix, which records
# when each stage ran and under which CUDA_VISIBLE_DEVICES. The replays
# run side by side, never two on one GPU; each run's GPU is in its run
# manifest and in the summary; the state and the database hold every run
# once; an interrupted study stops every replay and resumes; repetitions
# spread over the GPUs as runs, and a precision target decides the same
# repetitions as on one GPU.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"	# mock_study
scratch_dir >/dev/null
tmp=$_scratch
g0=GPU-5a3c1d2e-0000-4a6b-9c1d-000000000000
g1=GPU-5a3c1d2e-1111-4a6b-9c1d-111111111111
smi() { # smi FILE LINES...: an nvidia-smi that lists LINES
	local f=$1; shift
	printf '#!/bin/sh\ncat <<EOF\n' >"$f"
	printf '%s\n' "$@" >>"$f"
	printf 'EOF\n' >>"$f"
	chmod +x "$f"
}
smi "$tmp/smi2" "0, $g0, NVIDIA H200" "1, $g1, NVIDIA H200"
smi "$tmp/smi-mixed" "0, $g0, NVIDIA H200" "1, $g1, NVIDIA H100 80GB HBM3"
export GPUMIX_NVIDIA_SMI=$tmp/smi2

d=$tmp/s
make_study "$d" "a b c" "" "single, cuda"
cd "$d" || exit 1
sleeps=
for r in a.single b.single c.single a+b.cuda a+c.cuda b+c.cuda; do
	sleeps="$sleeps replay:$r=0.5"
done
FAKE_SPANS=$d/spans FAKE_SLEEP=$sleeps "$GPUMIX" run --gpus all study.yaml \
	>"$d/out" 2>"$d/err"
rc=$?
check_eq "the study on both GPUs succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$d/err"
check_match "every run ok" "runs: 6: 6 ok, 0 failed" "$(cat "$d/out")"
check_eq "every replay ran pinned to one of the two GPUs" "6" \
	"$(awk '$1 == "replay" && ($5 == "'$g0'" || $5 == "'$g1'")' "$d/spans" | wc -l)"
check_eq "the captures ran pinned to the first GPU" "$g0 $g0 $g0" \
	"$(awk '$1 == "capture" { printf "%s%s", s, $5; s = " " }' "$d/spans")"
# Two replays overlap when one starts before the other ends.
overlaps() { # overlaps SAME: pairs of replays that overlapped (on one GPU)
	awk -v same="$1" '$1 == "replay" { s[n] = $3; e[n] = $4; g[n++] = $5 }
	END { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
		if (s[i] < e[j] && s[j] < e[i] && (same ? g[i] == g[j] : 1)) c++
		print c + 0 }' "$d/spans"
}
check_eq "no two replays ran on one GPU at once" 0 "$(overlaps 1)"
check "replays ran side by side" test "$(overlaps 0)" -gt 0
vis=$(sed -n 's/^device.visible = //p' results/t/runs/a+b.cuda/manifest)
check_eq "the run manifest says which GPU it ran on" \
	"$(awk '$1 == "replay" && $2 == "a+b.cuda" { print $5 }' "$d/spans")" "$vis"
i=$([ "$vis" = "$g0" ] && echo 0 || echo 1)
check_match "the summary's gpu column: index, UUID, model" \
	"^\| a\+b\.cuda \| a\+b \| cuda \| ok \| $i \($vis, NVIDIA H200\) \|" \
	"$(cat "$d/out")"
check_eq "the database holds each run once" 6 \
	"$(db_query results/t/results.db 'select count(*) from runs')"
check_eq "the state records each replay and analyze once" "6 6" \
	"$(grep -c '^stage\.[0-9]*\.id = replay ' results/t/study.state) $(grep -c '^stage\.[0-9]*\.id = analyze ' results/t/study.state)"
check_match "progress shows every GPU" "\| 0: [^ ]+ 1: [^ ]+" "$(cat "$d/err")"
out=$("$GPUMIX" run --gpus all study.yaml 2>&1)
check_match "run again: nothing to do" "0 stages run" "$out"

# One GPU: one replay at a time.
rm -rf results "$d/spans"
FAKE_SPANS=$d/spans FAKE_SLEEP=$sleeps "$GPUMIX" run --gpus 1 study.yaml \
	>/dev/null 2>&1
check_eq "--gpus 1: the replays ran one after the other" 0 "$(overlaps 0)"
check_eq "--gpus 1: all on GPU 0" 6 "$(grep -c "^replay .* $g0\$" "$d/spans")"

# Interrupted while two replays run: both stop, nothing is recorded for
# them, and the same command finishes the study.
rm -rf results
mkdir -p "$d/marks"
FAKE_MARK=$d/marks FAKE_SLEEP="replay:a.single=30 replay:b.single=30" \
	"$GPUMIX" run --gpus 0,1 study.yaml >/dev/null 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do	# (as long as it takes)
	[ -e "$d/marks/replay-a.single" ] && [ -e "$d/marks/replay-b.single" ] && break
	sleep 0.1
done
check "two replays started at once" test -e "$d/marks/replay-b.single"
# (this study's: another test, or another checkout's CI on this machine,
# may be running replays of its own)
left_running() {
	local p
	for p in $(pgrep -f 'fake-gpumix replay'); do
		case $(readlink "/proc/$p/cwd" 2>/dev/null) in
		"$d" | "$d"/*) echo "$p" ;;
		esac
	done
}
check "... both seen running" test "$(left_running | wc -l)" -ge 2
kill -TERM "$pid"
wait "$pid"
check_eq "SIGTERM stops the study (exit 130)" 130 "$?"
check_eq "no replay was recorded" 0 "$(grep -c '= replay ' results/t/study.state)"
check_eq "no replay is left running" "" "$(left_running)"
out=$("$GPUMIX" run --gpus 2 study.yaml 2>&1)
check_match "the same command finishes the study" "runs: 6: 6 ok" "$out"

# Killed (SIGKILL) when the second replay has ended, unrecorded, while
# another runs on the other GPU: the same command replays what has no
# record, once each, and loads every run once.
rm -rf results "$d/log"
FAKE_LOG=$d/log FAKE_SLEEP=$sleeps GPUMIX_STUDY_KILL_AT=replay-finished:2 \
	"$GPUMIX" run --gpus 2 study.yaml >/dev/null 2>&1
check_eq "the study was killed" 137 "$?"
# (a stage of the killed study may still hold its lock: wait for it)
timeout 300 flock results/t/study.state.lock true 2>/dev/null
out=$(FAKE_LOG=$d/log "$GPUMIX" run --gpus 2 study.yaml 2>&1)
check_match "the same command finishes it" "runs: 6: 6 ok" "$out"
check_eq "each run loaded once" 6 \
	"$(db_query results/t/results.db 'select count(*) from runs')"
check_eq "no run was analyzed twice" "" \
	"$(grep '^analyze ' "$d/log" | sort | uniq -d)"

# Repetitions are runs like the others: spread over both GPUs, never
# two at once on one, each replayed once. Under a precision target a
# repetition is decided once the replays before it have ended, whatever
# GPU they ran on: the same runs as on one GPU (run_repeats.sh).
r=$tmp/rep
make_study "$r" "a b c" "repeats: 2
" "single, cuda"
cd "$r" || exit 1
plan=$("$GPUMIX" run --gpus all --dry-run study.yaml)
check_match "--gpus --dry-run: the plan has both repetitions" \
	"12 runs, 2 repetitions of 6" "$plan"
check_match "... and lists repetition 1's runs" '^  a\+b\.cuda\.r1 +to do: replay analyze$' "$plan"
rsleeps=
for x in a.single b.single c.single a+b.cuda a+c.cuda b+c.cuda; do
	rsleeps="$rsleeps replay:$x=0.3 replay:$x.r1=0.3"
done
FAKE_SPANS=$r/spans FAKE_SLEEP=$rsleeps "$GPUMIX" run --gpus all study.yaml \
	>"$r/out" 2>"$r/err"
check_match "2 repetitions on both GPUs: every run ok" "runs: 12: 12 ok" "$(cat "$r/out")"
check_eq "each repetition of each run replayed once, on one of the GPUs" "12 12 2" \
	"$(awk '$1 == "replay"' "$r/spans" | wc -l) \
$(awk '$1 == "replay" { print $2 }' "$r/spans" | sort -u | wc -l) \
$(awk '$1 == "replay" { print $5 }' "$r/spans" | sort -u | wc -l)"
d=$r
check_eq "no two replays ran on one GPU at once" 0 "$(overlaps 1)"
check "replays ran side by side" test "$(overlaps 0)" -gt 0
p=$tmp/prec
make_study "$p" "a b c" "repeats: 2
precision: 5%
max_repeats: 4
" "single, cuda"
cd "$p" || exit 1
FAKE_NS="a+c.cuda.r1:a=2000000 a+c.cuda.r3:a=2000000" FAKE_LOG=$p/log \
	"$GPUMIX" run --gpus all study.yaml >"$p/out" 2>"$p/err"
check_match "a precision target on both GPUs: the runs it needs, as on one" \
	'^- runs: 24: 18 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet, 6 not needed$' "$(cat "$p/out")"
check_eq "  a+c ran 4 repetitions, a+b 2" "4 2" \
	"$(grep -c '^replay a+c\.cuda' log) $(grep -c '^replay a+b\.cuda' log)"
d=$tmp/s
cd "$d" || exit 1

# The real stages on the mock CUDA driver: the real replay records the
# GPU it was pinned to, and the real analyzer loads it.
m=$tmp/mock
mkdir -p "$m"
mock_study "$m/study.yaml" mock "single, cuda" \
	"min_replays: 2, watchdog: 30s" "$m/out"
out=$(env -u GPUMIX_STUDY_EXEC \
	LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$GPUMIX" run --gpus all "$m/study.yaml" 2>&1)
check_match "real stages on both GPUs: every run ok, loaded" \
	"runs: 3: 3 ok, 0 failed" "$out"
check_eq "the real replay's manifest names a GPU of the node" yes \
	"$(v=$(sed -n 's/^device.visible = //p' "$m/out/runs/basic+threads.cuda/manifest")
	   [ "$v" = "$g0" ] || [ "$v" = "$g1" ] && echo yes)"

# Choosing GPUs.
err=$("$GPUMIX" run --gpus 0,3 study.yaml 2>&1)
check_match "an index the node lacks" "error: --gpus 0,3: this node has no GPU 3 \(it has 2, from 0\)" "$err"
err=$("$GPUMIX" run --gpus 3 study.yaml 2>&1)
check_match "more GPUs than the node has" "error: --gpus 3: this node has 2 GPUs" "$err"
err=$("$GPUMIX" run --gpus 1,1 study.yaml 2>&1)
check_match "an index twice" "GPU 1 is listed twice" "$err"
err=$("$GPUMIX" run --gpus two study.yaml 2>&1)
check_match "a malformed choice" "expected 'all', a number of GPUs or a list" "$err"
err=$(GPUMIX_NVIDIA_SMI=$tmp/smi-mixed "$GPUMIX" run --gpus all study.yaml 2>&1)
check_match "GPUs of two models are refused" \
	"GPUs 0 \(NVIDIA H200\) and 1 \(NVIDIA H100 80GB HBM3\) are different models" "$err"
smi "$tmp/smi-bad" "0, NVIDIA H200"
err=$(GPUMIX_NVIDIA_SMI=$tmp/smi-bad "$GPUMIX" run --gpus all study.yaml 2>&1)
check_match "an nvidia-smi line it cannot read is quoted" \
	"unexpected line in nvidia-smi's GPU list: '0, NVIDIA H200'" "$err"
err=$(GPUMIX_NVIDIA_SMI=$tmp/none "$GPUMIX" run --gpus all study.yaml 2>&1)
check_match "--gpus all without nvidia-smi fails, saying why" \
	"error: cannot list the GPUs with '$tmp/none'" "$err"
rm -rf results
out=$(GPUMIX_NVIDIA_SMI=$tmp/none FAKE_SLEEP=$sleeps "$GPUMIX" run --gpus 0,1 study.yaml 2>&1)
check_match "--gpus 0,1 without nvidia-smi: a warning, the indexes as given" \
	"warning: cannot list the GPUs.*using the GPUs as given" "$out"
check_eq "... and the runs are pinned by index" "0 1" \
	"$(sed -n 's/^device.visible = //p' results/t/runs/*/manifest | sort -u | tr '\n' ' ' | sed 's/ $//')"
done_testing
