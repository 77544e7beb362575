#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix corun on the mock CUDA driver, with stand-in programs
# (corun-standin) into which the mock's cuInit loads the real co-run
# interposer, and the stand-in MPS daemon (tests/mock/fake_mps_control.c):
# the plan (alone first, K rounds, then K runs together under each
# mechanism), programs from bundle manifests (command, directory and
# environment, the placement variables left out) and NAME=COMMAND, the
# corun directory (manifest, sections.tsv, logs), MPS clients only in the
# mps runs, mps skipped without MPS, a program with two processes, and the
# failures, each named: a partner that ends before the barrier, one that
# arrives after its partner's timeout, a program that fails, one that
# makes no GPU operation; an existing directory; usage errors.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
S=$GPUMIX_BUILD/tests/corun-standin
FAKE=$GPUMIX_BUILD/tests/mock/mps
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# No MPS on this machine but the stand-in, when a test puts it in PATH.
export PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v "$FAKE" | paste -sd:)
unset CUDA_MPS_PIPE_DIRECTORY

# ---- usage -------------------------------------------------------------
"$GPUMIX" corun -o "$tmp/x" "a=$S" >/dev/null 2>"$tmp/err"
check_eq "one program is a usage error" 2 "$?"
check_match "... saying so" "at least two programs" "$(cat "$tmp/err")"
"$GPUMIX" corun -o "$tmp/x" -k 0 "a=$S" "b=$S" >/dev/null 2>&1
check_eq "-k 0 is a usage error" 2 "$?"
"$GPUMIX" corun -o "$tmp/x" --mechanism procs,threads "a=$S" "b=$S" \
	>/dev/null 2>"$tmp/err"
check_eq "an unknown mechanism is a usage error" 2 "$?"
check_match "... naming it and the known ones" \
	"unknown mechanism 'threads' \(known: procs, mps\)" "$(cat "$tmp/err")"
"$GPUMIX" corun "a=$S" "b=$S" >/dev/null 2>"$tmp/err"
check_eq "no -o is a usage error" 2 "$?"
"$GPUMIX" corun -o "$tmp/x" "$tmp/nothing" "b=$S" >/dev/null 2>"$tmp/err"
check_eq "a program that is neither a bundle nor NAME=COMMAND: exit 1" 1 "$?"
check_match "... named" "'$tmp/nothing' is neither a trace bundle nor NAME=COMMAND" \
	"$(cat "$tmp/err")"
check_match "--help lists the mechanisms" "from: procs, mps" \
	"$("$GPUMIX" corun --help)"

# ---- the plan ----------------------------------------------------------
plan=$(PATH=$FAKE:$PATH "$GPUMIX" corun --dry-run -k 2 "a=$S" "b=$S" 2>/dev/null)
check_eq "the plan: K rounds, each of every program alone, then together under each mechanism" \
	"alone 0 a
alone 0 b
procs 0 a+b
mps 0 a+b
alone 1 a
alone 1 b
procs 1 a+b
mps 1 a+b" "$plan"
plan=$(PATH=$FAKE:$PATH "$GPUMIX" corun --dry-run -k 1 --mechanism mps,procs \
	"a=$S" "b=$S" "c=$S" 2>/dev/null)
check_eq "... mechanisms in table order, three programs" \
	"alone 0 a
alone 0 b
alone 0 c
procs 0 a+b+c
mps 0 a+b+c" "$plan"
out=$("$GPUMIX" corun --dry-run -k 1 "a=$S" "b=$S" 2>&1)
check_match "without MPS the mps runs are skipped, with a note" \
	"skipping mps: nvidia-cuda-mps-control is not in PATH" "$out"
check "... and left out of the plan" test "$(printf '%s\n' "$out" | grep -c '^mps')" = 0

# ---- a co-run from bundles, under procs and mps -----------------------
# Bundles whose manifests run the stand-in from a directory of their own,
# recording what environment it got.
mkdir -p "$tmp/home"
for p in first second; do
	mkdir -p "$tmp/bundles/$p"
	{
		echo "format = gpumix-bundle 2"
		echo "program = sh"
		echo "argv.0 = sh"
		echo "argv.1 = -c"
		echo "argv.2 = echo \"\$OMP_NUM_THREADS \${CUDA_VISIBLE_DEVICES-unset} \$(pwd)\" > env.$p; exec $S --rounds 2"
		echo "cwd = $tmp/home"
		echo "env.OMP_NUM_THREADS = 3"
		echo "env.CUDA_VISIBLE_DEVICES = 7"
	} >"$tmp/bundles/$p/manifest"
done
out=$(PATH=$FAKE:$PATH "$GPUMIX" corun -o "$tmp/c1" -k 2 \
	"$tmp/bundles/first" "$tmp/bundles/second" 2>"$tmp/err"); rc=$?
check_eq "gpumix corun exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
m=$tmp/c1/manifest
check "the corun directory has its manifest" grep -qx 'format = gpumix-corun 1' "$m"
check "... status ok" grep -qx 'status = ok' "$m"
check "... the workload named after the bundles" grep -qx 'workload = first+second' "$m"
check "... both mechanisms" grep -qx 'mechanisms = procs,mps' "$m"
check "... the GPU its programs saw" grep -qx 'device.name = Mock GPU' "$m"
check "... each program's bundle" grep -qx "program.1.bundle = $tmp/bundles/second" "$m"
check "... and working directory" grep -qx "program.0.cwd = $tmp/home" "$m"
check "... every run done" grep -qx 'steps_done = 8' "$m"
check_eq "the program ran in its recorded directory with its recorded environment, but not its recorded GPU" \
	"3 unset $tmp/home" "$(cat "$tmp/home/env.first")"
tsv=$tmp/c1/sections.tsv
check_eq "sections.tsv's header" \
	"$(printf 'mode\trepeat\tprogram\tstart_ns\tend_ns\tops\tprocesses\tfirst_op\tlast_op')" \
	"$(head -1 "$tsv")"
check_eq "one line per program and run: 2 x 2 alone, 2 x 2 per mechanism" 12 \
	"$(tail -n +2 "$tsv" | wc -l)"
check_eq "in rounds: alone, then procs, then mps (two lines each run together)" \
"alone 0 first
alone 0 second
procs 0 first
procs 0 second
mps 0 first
mps 0 second
alone 1 first
alone 1 second
procs 1 first
procs 1 second
mps 1 first
mps 1 second" "$(tail -n +2 "$tsv" | cut -f1-3 | tr '\t' ' ')"
check "every section ends after it starts, counts 2 rounds of GPU operations" \
	awk -F'\t' 'NR > 1 && ($5 < $4 || $6 != 11 || $7 != 1 ||
		$8 != "cuMemcpyHtoDAsync_v2" || $9 != "cuCtxSynchronize") { bad = 1 }
		END { exit bad }' "$tsv"
# Together, no section starts before every program has arrived at the
# barrier (the order of the times, not their distance: on a loaded
# machine a woken program may be scheduled late).
bad=0
for run in procs.0 procs.1 mps.0 mps.1; do
	last=$(cat "$tmp"/c1/sections/$run.*/section.* | sed -n 's/^arrive_ns = //p' | sort -n | tail -1)
	first=$(cat "$tmp"/c1/sections/$run.*/section.* | sed -n 's/^start_ns = //p' | sort -n | head -1)
	[ -n "$last" ] && [ "$first" -ge "$last" ] || bad=1
	[ -z "$(grep -Lx 'barrier = go' "$tmp"/c1/sections/$run.*/section.*)" ] || bad=1
done
check_eq "together, no section starts before the last program arrived at the barrier" 0 "$bad"
check_match "each program's output is kept" "corun-standin: ok, 1 threads, 2 rounds" \
	"$(cat "$tmp/c1/logs/mps.1.second.log")"
check "the processes' section files are kept" test -f "$(ls "$tmp"/c1/sections/procs.0.first/section.* | head -1)"
check "no barrier files are left" test ! -e "$tmp/c1/barrier"
log=$tmp/c1/mps/mps/control.log
check_eq "only the mps runs' processes were MPS clients (2 runs x 2)" 4 \
	"$(grep -c 'New client' "$log")"
check "the daemon was stopped" grep -q 'Shutdown requested' "$log"
check_match "the slowdowns are printed, per mechanism and program" \
	"^\| mps \| second \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| 2 \|$" "$out"
check_eq "... 4 rows" 4 "$(printf '%s\n' "$out" | grep -cE '^\| (procs|mps) \|')"

"$GPUMIX" corun -o "$tmp/c1" -k 1 "$tmp/bundles/first" "$tmp/bundles/second" \
	>/dev/null 2>"$tmp/err"
check_eq "an existing corun directory is not replaced" 1 "$?"
check_match "... saying so" "'$tmp/c1' already exists" "$(cat "$tmp/err")"
"$GPUMIX" -q corun -o "$tmp/c1" -k 1 --force "$tmp/bundles/first" \
	"$tmp/bundles/second" >/dev/null 2>&1
check_eq "--force replaces it" 0 "$?"
check "... with the new co-run, mps skipped here" grep -qx 'skipped.mps = nvidia-cuda-mps-control is not in PATH (no MPS on this machine)' "$tmp/c1/manifest"
check "... and procs run" grep -qx 'mechanisms = procs' "$tmp/c1/manifest"
check "no temporary directory is left" test -z "$(ls -d "$tmp"/c1.* 2>/dev/null)"

# An MPS daemon of the machine must not take the programs alone or under
# procs as its clients.
mkdir -p "$tmp/sysmps" "$tmp/syslog"
CUDA_MPS_PIPE_DIRECTORY=$tmp/sysmps CUDA_MPS_LOG_DIRECTORY=$tmp/syslog \
	"$FAKE/nvidia-cuda-mps-control" -d
CUDA_MPS_PIPE_DIRECTORY=$tmp/sysmps "$GPUMIX" -q corun -o "$tmp/sys" -k 1 \
	--mechanism procs "a=$S" "b=$S" >/dev/null 2>&1
check_eq "with the machine's own MPS daemon running, procs co-runs" 0 "$?"
check_eq "... and neither alone nor under procs is a program its client" 0 \
	"$(grep -c 'New client' "$tmp/syslog/control.log")"
echo quit | CUDA_MPS_PIPE_DIRECTORY=$tmp/sysmps "$FAKE/nvidia-cuda-mps-control" >/dev/null

"$GPUMIX" -q corun -o "$tmp/rep2" -k 1 --mechanism procs --repetition 2 \
	"a=$S" "b=$S" >/dev/null 2>&1
check "--repetition is recorded for the analyzer" grep -qx 'run.repetition = 2' "$tmp/rep2/manifest"
"$GPUMIX" corun -o "$tmp/x" --repetition -1 "a=$S" "b=$S" >/dev/null 2>&1
check_eq "... and must be an integer >= 0" 2 "$?"

# Two programs of the same bundle: reconstruct's names.
"$GPUMIX" -q corun -o "$tmp/twice" -k 1 "$tmp/bundles/first" "$tmp/bundles/first" \
	>/dev/null 2>&1
check "the same bundle twice: first#1 and first#2" grep -qx 'workload = first#1-2' "$tmp/twice/manifest"

# A program of two processes: one slot at the barrier, its section spans both.
"$GPUMIX" -q corun -o "$tmp/two" -k 1 "a=$S" "b=$S --rounds 1 & $S --rounds 2; wait" \
	>/dev/null 2>"$tmp/err"
check_eq "a program of two processes co-runs" 0 "$?"
check_eq "... its section counts both processes' GPU operations" "2 17" \
	"$(awk -F'\t' '$1 == "procs" && $3 == "b" { print $7, $6 }' "$tmp/two/sections.tsv")"

# ---- failures ----------------------------------------------------------
# A wrapper that behaves when alone and misbehaves together ($1).
cat >"$tmp/odd.sh" <<EOF
#!/bin/sh
[ -z "\$GPUMIX_CORUN_BARRIER" ] && exec $S
case \$1 in
early) exec $S --no-gpu ;;
late) # arrive only once the partner has given up and written its section
	while ! ls "\$GPUMIX_CORUN_OUT"/../procs.0.a/section.* >/dev/null 2>&1; do
		sleep 0.01
	done
	exec $S ;;
esac
EOF
chmod +x "$tmp/odd.sh"

"$GPUMIX" corun -o "$tmp/f1" -k 2 --mechanism procs "a=$S" "b=$tmp/odd.sh early" \
	>/dev/null 2>"$tmp/err"
check_eq "a partner that ends before the barrier: exit 1" 1 "$?"
check_match "... naming it, the run, how it ended and its log" \
	"program 'b' never reached the start barrier \(together under procs, repeat 0\): it ended \(exit status 0\) before its first GPU operation; its output is in logs/procs.0.b.log" \
	"$(cat "$tmp/err")"
check "... the corun directory says failed" grep -qx 'status = failed' "$tmp/f1/manifest"
check "... with the reason" grep -q "^failure = program 'b' never reached the start barrier" "$tmp/f1/manifest"
check_eq "... and keeps the runs measured before (round 0's two alone runs)" 2 \
	"$(tail -n +2 "$tmp/f1/sections.tsv" | wc -l)"
check "... its partner was let go (gave-up), not held for the timeout" \
	grep -qx 'barrier = gave-up' "$(ls "$tmp"/f1/sections/procs.0.a/section.*)"

"$GPUMIX" corun -o "$tmp/f2" -k 1 --mechanism procs --barrier-timeout 0.2 \
	"a=$S" "b=$tmp/odd.sh late" >/dev/null 2>"$tmp/err"
check_eq "a partner that arrives after the timeout: exit 1" 1 "$?"
check_match "... named, with its waiting partner and the timeout" \
	"'b' never reached the start barrier \(together under procs, repeat 0\): program 'a' waited 0.2 s for it there" \
	"$(cat "$tmp/err")"

"$GPUMIX" corun -o "$tmp/f3" -k 1 --mechanism procs "a=$S" "b=$S --fail" \
	>/dev/null 2>"$tmp/err"
check_eq "a program that fails: exit 1" 1 "$?"
check_match "... with its exit status and log" \
	"program 'b' failed \(alone, repeat 0\): exit status 3; its output is in logs/alone.0.b.log" \
	"$(cat "$tmp/err")"

"$GPUMIX" corun -o "$tmp/f4" -k 1 --mechanism procs "a=$S" "b=true" \
	>/dev/null 2>"$tmp/err"
check_eq "a program that never initialises CUDA: exit 1" 1 "$?"
check_match "... it wrote no GPU section" \
	"program 'b' wrote no GPU section \(alone, repeat 0\): the co-run interposer never ran in it" \
	"$(cat "$tmp/err")"

GPUMIX_CORUN_LIB=$tmp/none.so "$GPUMIX" corun -o "$tmp/f5" -k 1 "a=$S" "b=$S" \
	>/dev/null 2>"$tmp/err"
check_eq "a missing interposer: exit 1" 1 "$?"
check_match "... named" "cannot find the co-run interposer '$tmp/none.so'" "$(cat "$tmp/err")"
check "... nothing written" test ! -e "$tmp/f5"
done_testing
