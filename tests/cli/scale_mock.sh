#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix scale on the mock driver: a bundle replayed alone on the whole
# GPU and in green partitions of every size the split allows. The mock
# device has 24 SMs split into groups of 4 (MOCK_CUDA_SM_MIN/ALIGN, read
# by the runtime), and its kernels take 40 ms per wave of blocks, one
# block per SM of their context (MOCK_CUDA_WAVE_US): the bundle's 16-block
# kernels take 4 waves on 4 SMs, 2 on 8 or 12, 1 from 16 SMs on, so the
# program's knee (smallest partition within 5% of the whole GPU) is 16.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic
export MOCK_CUDA_SMS=24 MOCK_CUDA_SM_MIN=4 MOCK_CUDA_SM_ALIGN=4 MOCK_CUDA_WAVE_US=40000

out=$("$GPUMIX" scale -o "$tmp/sc" --replays 2 --no-plot "$B" 2>"$tmp/err"); rc=$?
check_eq "gpumix scale: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_eq "a point per partition size and the whole GPU" "4 8 12 16 20 24" \
	"$(awk -F, '$1 == "basic" && $2 == "" { print $3 }' "$tmp/sc/scale.csv" | tr '\n' ' ' | sed 's/ $//')"
# The program's points are its replays' wall times, which a loaded
# machine stretches (a 12% slower 16-SM point moved its knee to 20 in a
# CI run), and so are the mock's kernel times under SANITIZE=1 (20 16 20
# once): every knee is asserted where one wave fits, 16 SMs or more.
check_match "the program's knee is where one wave fits: 16, 20 or 24 SMs (of 24)" \
	"^basic,,(16|20|24),24$" "$(grep '^basic,,' "$tmp/sc/knees.csv" | cut -d, -f1-4)"
t4=$(awk -F, '$1 == "basic" && $2 == "" && $3 == 4 { print $4 }' "$tmp/sc/scale.csv")
t24=$(awk -F, '$1 == "basic" && $2 == "" && $3 == 24 { print $4 }' "$tmp/sc/scale.csv")
check "4 SMs take about 4 times as long as 24 ($t4 ms, $t24 ms)" \
	awk -v a="$t4" -v b="$t24" 'BEGIN { exit !(a / b > 3.5 && a / b < 4.5) }'
check_eq "a knee per kernel, never below 16 SMs (2 waves are never within 5% of 1)" \
	"3 0" "$(grep -c '^basic,_Z' "$tmp/sc/knees.csv") \
$(awk -F, '$1 == "basic" && $2 != "" && $3 < 16' "$tmp/sc/knees.csv" | wc -l | tr -d ' ')"
check_match "the Markdown table is printed: a row per curve, a column per size" \
	"\| \(program\) \|( [0-9.]+ \|){6} (16|20|24) \|" "$out"
check_eq "and written to scale.md" "$out" "$(cat "$tmp/sc/scale.md")"
check_eq "each green run had the partition it was asked for" "4 8 12" \
	"$(for s in 4 8 12; do sed -n 's/^program.0.sm_count = //p' "$tmp/sc/runs/basic.$s/manifest"; done | tr '\n' ' ' | sed 's/ $//')"
check_eq "the whole GPU is a cuda run" cuda \
	"$(sed -n 's/^variant = //p' "$tmp/sc/runs/basic.full/manifest")"

if command -v "${GPUMIX_GNUPLOT:-gnuplot}" >/dev/null; then
	"$GPUMIX" -q scale -o "$tmp/sc" --replays 2 "$B" >/dev/null 2>&1
	check_eq "an existing DIR needs --force" 1 "$?"
	"$GPUMIX" -q scale -o "$tmp/sc" --force --replays 2 "$B" >/dev/null 2>"$tmp/err"
	check_eq "--force: exit 0" 0 "$?"
	check "with gnuplot: a PNG per program" test -s "$tmp/sc/scale-basic.png"
else
	skip "gnuplot is not installed: no plot to check"
fi
# A program whose cooperative launch (128 blocks, 8 resident per SM)
# needs 16 SMs: the smaller partitions are said and left out, the others
# measured, and a program that can run nowhere in a partition does not
# stop the next one.
C=tests/data/reconstruct/bundles/cooperative
out=$("$GPUMIX" scale -o "$tmp/co" --replays 2 --no-plot "$C" "$B" 2>"$tmp/err"); rc=$?
check_eq "a cooperative program: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_eq "its points: the partitions that hold its grid, and the whole GPU" "16 20 24" \
	"$(awk -F, '$1 == "cooperative" && $2 == "" { print $3 }' "$tmp/co/scale.csv" | tr '\n' ' ' | sed 's/ $//')"
check_eq "each smaller partition is a warning with the driver's reason" "4 8 12" \
	"$(sed -n 's/^warning: scale: cooperative: cannot run on \([0-9]*\) SMs: .*COOPERATIVE_LAUNCH_TOO_LARGE.*/\1/p' "$tmp/err" | tr '\n' ' ' | sed 's/ $//')"
check_eq "the next program is measured whole" "4 8 12 16 20 24" \
	"$(awk -F, '$1 == "basic" && $2 == "" { print $3 }' "$tmp/co/scale.csv" | tr '\n' ' ' | sed 's/ $//')"

out=$("$GPUMIX" scale -o "$tmp/x" --replays 1 "$B" 2>&1); rc=$?
check_eq "--replays 1: usage error" 2 "$rc"
# Both bounded by the knobs' rows, with gpumix replay's words.
check_match "... with the min_replays row's message" \
	"^error: --replays takes an integer from 2 to 1000 \(each program's last replay is discarded\), not '1'$" "$out"
out=$("$GPUMIX" scale -o "$tmp/x" --watchdog 90000 "$B" 2>&1); rc=$?
check_eq "--watchdog above a day: usage error" 2 "$rc"
check_match "... with the watchdog row's message" \
	"^error: --watchdog must be 0 \(off\) or between 1ms and 24h, not 90000$" "$out"
out=$("$GPUMIX" scale -o "$tmp/x" "$B" "$B/" 2>&1); rc=$?
check_eq "two bundles of one name: usage error" 2 "$rc"
check_match "naming it" "two bundles are called" "$out"
out=$("$GPUMIX" scale -o "$tmp/x" "$tmp/nosuch" 2>&1); rc=$?
check_eq "a missing bundle: exit 1" 1 "$rc"
check_match "naming it" "bundle '.*nosuch' does not exist" "$out"
out=$(MOCK_CUDA_FAIL=cuGreenCtxCreate "$GPUMIX" scale -o "$tmp/f" --replays 2 "$B" 2>&1); rc=$?
check_eq "a failing replay: exit 1" 1 "$rc"
check_match "the error names the step and its log" \
	"the replay of 'basic' in one green partition of every group failed \(exit status 1; its output: .*/logs/basic.green.log\)" "$out"
done_testing
