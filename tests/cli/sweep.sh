#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix sweep on a CPU (doc/gpumix-sweep.md): the plan of a kernel on the
# H100 and the C2070, and the cliff detector on committed measurements
# (tests/data/sweep/points.csv: an MST-like cliff, a 90% jump with a
# residency change on the elastic axis, a jump without one), and the
# errors.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir >/dev/null
tmp=$_scratch
P=tests/data/sweep/points.csv

out=$("$GPUMIX" sweep --plan k:256:32:0 2>&1); rc=$?
check_eq "--plan: exit 0" 0 "$rc"
check_eq "a header and the points" "kernel,axis,value,blocks_per_sm,limiting" "$(printf '%s\n' "$out" | head -1)"
check_eq "smem: residencies 8 .. 1" "8 7 6 5 4 3 2 1" \
	"$(printf '%s\n' "$out" | awk -F, '$2 == "smem" { print $4 }' | tr '\n' ' ' | sed 's/ $//')"
check_eq "smem: no padding at 8 (threads and registers bind)" "k,smem,0,8,registers+threads" \
	"$(printf '%s\n' "$out" | sed -n 2p)"
check_eq "regs: 32, then caps 24 and 16" "32 24 16" \
	"$(printf '%s\n' "$out" | awk -F, '$2 == "regs" { print $3 }' | tr '\n' ' ' | sed 's/ $//')"
check_eq "blocks: 1 .. 8" "1 2 3 4 5 6 7 8" \
	"$(printf '%s\n' "$out" | awk -F, '$2 == "blocks" { print $3 }' | tr '\n' ' ' | sed 's/ $//')"
out=$("$GPUMIX" sweep --plan --device c2070 k:256:32:0 2>&1)
check_eq "on the C2070 (1536 threads, 32768 registers): 4 per SM" "4" \
	"$(printf '%s\n' "$out" | awk -F, '$2 == "regs" && $3 == 32 { print $4 }')"

out=$("$GPUMIX" sweep --cliffs "$P" 2>&1); rc=$?
check_eq "--cliffs: exit 0" 0 "$rc"
check_match "mst: range 50%" "^\| mst \| k \| regs \| 3 \| 10.000 \| 15.000 \| 50.0 \|$" "$out"
check_match "mst: the cliff 32 -> 48 registers, bound by registers" \
	"^\| mst \| k \| regs \| 32 \| 48 \| 10.000 -> 15.000 \| 50.0 \| 2 -> 1 \| registers \|$" "$out"
check_match "the elastic axis: 1 -> 2 per SM, a jump of 90.5%" \
	"^\| a \| k \| blocks \| 1 \| 2 \| 4.000 -> 2.100 \| 90.5 \| 1 -> 2 \| - \|$" "$out"
check_eq "a jump without a residency change is no cliff (smem 100 -> 200)" "" \
	"$(printf '%s\n' "$out" | grep '| a | k | smem | 100 | 200 |')"
check_eq "two cliffs at 20%" 2 "$(printf '%s\n' "$out" | sed -n '/^## Cliffs/,$p' | grep -c '^| [am]')"
out=$("$GPUMIX" sweep --cliffs --threshold 8 "$P" 2>&1)
check_eq "three at 8% (smem 0 -> 100: 10%, 8 -> 7; not the 5% jumps)" 3 "$(printf '%s\n' "$out" | sed -n '/^## Cliffs/,$p' | grep -c '^| [am]')"

# errors
out=$("$GPUMIX" sweep "$P" 2>&1); rc=$?
check_eq "no mode: usage error" 2 "$rc"
check_match "saying so" "--plan, --cliffs or --run\?" "$out"
out=$("$GPUMIX" sweep --plan --cliffs k:1:1:0 2>&1); rc=$?
check_eq "both modes: usage error" 2 "$rc"
out=$("$GPUMIX" sweep --plan k:256 2>&1); rc=$?
check_eq "a kernel without its usage: usage error" 2 "$rc"
check_match "naming it" "'k:256' is not NAME:THREADS:REGS:SMEM" "$out"
out=$("$GPUMIX" sweep --plan k:4096:32:0 2>&1); rc=$?
check_eq "a block that cannot fit: error" 1 "$rc"
check_match "saying why" "one block does not fit on an SM \(threads\)" "$out"
out=$("$GPUMIX" sweep --plan --threshold 5 k:256:32:0 2>&1); rc=$?
check_eq "--threshold with --plan: usage error" 2 "$rc"
printf 'program,kernel,axis,value,time_ms,blocks_per_sm,limiting\nx,k,threads,1,1,1,\n' >"$tmp/bad.csv"
out=$("$GPUMIX" sweep --cliffs "$tmp/bad.csv" 2>&1); rc=$?
check_eq "an unknown axis: error" 1 "$rc"
check_match "naming the line" "bad.csv:2: not a point" "$out"
printf 'a,b\n' >"$tmp/hdr.csv"
out=$("$GPUMIX" sweep --cliffs "$tmp/hdr.csv" 2>&1); rc=$?
check_eq "another header: error" 1 "$rc"
done_testing
