#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix sweep --run on the mock driver (doc/gpumix-sweep.md), end to end
# on the committed basic bundle: three kernels of 16 blocks of 256
# threads, 32 registers (the mock's), no shared memory, on 4 mock SMs of
# 10 ms per wave of one block per SM (MOCK_CUDA_WAVE_US). Each kernel is
# replayed alone at its plan's points: the shared-memory paddings (the
# mock's records show each launch padded), the register caps (the
# captured PTX reassembled by the real ptxas, loaded through
# --kernel-module), the elastic blocks per SM (k = 1 .. 4 hold exactly k
# x 4 blocks of the two elastic kernels, k waves: T = 10 k ms, a cliff
# between each). Then the resumption (points kept, never overwritten
# unless --redo; only what is missing measured), a point that fails (a
# ptxas that fails: named, the others kept, exit 1, measured on the next
# run), a cooperative kernel whose padded points cannot exist (named,
# not counted as failures), and the errors.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic
S=_Z5scalePjPKjjj T=_Z8tex_copyPjyj I=_Z4incr4span
export MOCK_CUDA_SMS=4 MOCK_CUDA_WAVE_US=10000
D=$tmp/sw

out=$("$GPUMIX" sweep --run -o "$D" --replays 2 "$B" 2>"$tmp/err"); rc=$?
check_eq "gpumix sweep --run: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_eq "points.csv: the --cliffs columns" \
	"program,kernel,axis,value,time_ms,blocks_per_sm,limiting" "$(head -1 "$D/points.csv")"
plan=$("$GPUMIX" sweep --plan --device h100 $S:256:32:0 | awk -F, '$2 == "smem" { print $3 ":" $4 ":" $5 }' | tr '\n' ' ')
for k in $S $T $I; do
	check_eq "$k: the smem points are the plan's (value, blocks per SM, binding)" "$plan" \
		"$(awk -F, -v k=$k '$2 == k && $3 == "smem" { print $4 ":" $6 ":" $7 }' "$D/points.csv" | tr '\n' ' ')"
	check_eq "$k: the register points: its own 32, then the caps below" "32 24 16" \
		"$(awk -F, -v k=$k '$2 == k && $3 == "regs" { print $4 }' "$D/points.csv" | tr '\n' ' ' | sed 's/ $//')"
done
check_eq "runs/NAME.kernels names each kernel's kI" "k0 $S" "$(head -1 "$D/runs/basic.kernels")"
check_eq "each padded replay ran scale with that padding (CUPTI's record)" "57345" \
	"$(awk -F'\t' -v k=$S '$1 == "KERNEL" && $NF == k { print $(NF-1) }' "$D/runs/basic.k0.smem57345/activity.tsv" | sort -u)"
check_eq "and the other kernels as captured" "0" \
	"$(awk -F'\t' -v k=$S '$1 == "KERNEL" && $NF != k { print $(NF-1) }' "$D/runs/basic.k0.smem57345/activity.tsv" | sort -u)"
check_match "a register cap's replay loaded its reassembled module" \
	"kernel-module: program=basic, module=0, loaded '.*basic.k0.regs16.cubin'" "$(cat "$D/runs/basic.k0.regs16/log")"
check "which ptxas made (an ELF cubin)" sh -c "head -c 4 '$D/runs/basic.k0.regs16.cubin' | grep -q ELF"
check_eq "blocks: k = 1..4 for the elastic kernels, only 4 (its grid) for incr" \
	"$I:4 $S:1 $S:2 $S:3 $S:4 $T:1 $T:2 $T:3 $T:4" \
	"$(awk -F, '$3 == "blocks" { print $2 ":" $4 }' "$D/points.csv" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "T(k) >= 10 k ms (k waves of 10 ms)" "" \
	"$(awk -F, '$3 == "blocks" && $2 != "'$I'" && $5 < 10 * $4 - 1e-6 { print }' "$D/points.csv")"
check_eq "no replay failed or was left out: 42 points" "42" "$(($(wc -l < "$D/points.csv") - 1))"
check_match "cliffs.csv: scale's blocks 1 -> 2 (twice the time, 1 -> 2 blocks per SM)" \
	"^basic,$S,blocks,1,2,[0-9.]+,[0-9.]+,[0-9.]+,1,2,elastic-grid$" "$(cat "$D/cliffs.csv")"
check_eq "the Markdown is printed and written to cliffs.md" "$out" "$(cat "$D/cliffs.md")"
check_match "progress on stderr, a summary at the end" \
	"sweep: 42 points measured, 0 kept from before, 0 could not be, 0 cannot exist; [0-9]+ cliffs" "$(cat "$tmp/err")"
if have_gnuplot; then
	check "a figure per axis" test -s "$D/sweep-basic-smem.png" -a -s "$D/sweep-basic-regs.png" -a -s "$D/sweep-basic-blocks.png"
else
	skip "no gnuplot: no figures to check"
fi

# ---- into the database (doc/database.md, sweep and sweep_cliffs) ----
out=$("$GPUMIX" analyze -o "$tmp/sw.db" "$D" 2>&1); rc=$?
check_eq "gpumix analyze DIR: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_eq "a row per point" "42" "$(db_query "$tmp/sw.db" 'SELECT count(*) FROM sweep')"
check_eq "a row per cliff" "$(($(wc -l < "$D/cliffs.csv") - 1))" \
	"$(db_query "$tmp/sw.db" 'SELECT count(*) FROM sweep_cliffs')"
check_eq "the device and SMs of the base run" "Mock GPU|4" \
	"$(db_query "$tmp/sw.db" 'SELECT DISTINCT deviceName, smCount FROM sweep')"
check_eq "a point as in points.csv" \
	"$(awk -F, -v k=$S '$2 == k && $3 == "blocks" && $4 == 2 { printf "%.6f|%d|%s", $5, $6, $7 }' "$D/points.csv")" \
	"$(db_query "$tmp/sw.db" "SELECT printf('%.6f', timeMs), blocksPerSm, limiting FROM sweep WHERE kernel = '$S' AND axis = 'blocks' AND value = 2")"
check_eq "scale's cliff 1 -> 2" "1|2|1|2" \
	"$(db_query "$tmp/sw.db" "SELECT fromValue, toValue, fromBlocksPerSm, toBlocksPerSm FROM sweep_cliffs WHERE kernel = '$S' AND fromValue = 1")"
"$GPUMIX" analyze -o "$tmp/sw.db" "$D" >/dev/null 2>&1
check_eq "loaded again: replaced, not added" "42" "$(db_query "$tmp/sw.db" 'SELECT count(*) FROM sweep')"
"$GPUMIX" analyze --merge "$tmp/sw.db" -o "$tmp/merged.db" >/dev/null 2>&1
check_eq "merged into another database" "42 $(($(wc -l < "$D/cliffs.csv") - 1))" \
	"$(db_query "$tmp/merged.db" 'SELECT count(*) FROM sweep') $(db_query "$tmp/merged.db" 'SELECT count(*) FROM sweep_cliffs')"
cp -r "$D" "$tmp/dmg"
echo "basic,$S,regs,1,2,x,3,4,5,6,registers" >> "$tmp/dmg/cliffs.csv"
out=$("$GPUMIX" analyze -o "$tmp/dmg.db" "$tmp/dmg" 2>&1); rc=$?
check_eq "a damaged cliffs.csv: exit 1" 1 "$rc"
check_match "naming its line" "cliffs.csv:$(wc -l < "$tmp/dmg/cliffs.csv"): not a cliff" "$out"
check_eq "and nothing of the sweep loaded" "0" \
	"$(db_query "$tmp/dmg.db" 'SELECT count(*) FROM sweep' 2>/dev/null || echo 0)"

# ---- resumption ----
cp "$D/points.csv" "$tmp/points.first"
sed -i "s/^basic,$T,smem,28161,[0-9.]*,/basic,$T,smem,28161,123.000000,/" "$D/points.csv"
"$GPUMIX" sweep --run -o "$D" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "again: exit 0" 0 "$rc"
check_match "nothing measured, every point kept" "0 points measured, 42 kept from before" "$(cat "$tmp/err")"
check_eq "a point already there is never overwritten" "123.000000" \
	"$(awk -F, -v k=$T '$2 == k && $3 == "smem" && $4 == 28161 { print $5 }' "$D/points.csv")"
sed -i "/,$I,regs,24,/d; /,$S,blocks,3,/d" "$D/points.csv"
rm -rf "$D/runs/basic.k1.regs24"
"$GPUMIX" sweep --run -o "$D" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "two points missing: exit 0" 0 "$rc"
check_match "only they measured" "2 points measured, 40 kept from before" "$(cat "$tmp/err")"
check_eq "42 points again" "42" "$(($(wc -l < "$D/points.csv") - 1))"
"$GPUMIX" sweep --run --redo -o "$D" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "--redo: exit 0" 0 "$rc"
check_match "every point measured again" "42 points measured, 0 kept from before" "$(cat "$tmp/err")"
check_eq "the edited point replaced" "" \
	"$(awk -F, -v k=$T '$2 == k && $3 == "smem" && $4 == 28161 && $5 == "123.000000"' "$D/points.csv")"

# ---- a point that fails: a ptxas that fails on a capped module ----
real_ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
mkdir -p "$tmp/cuda/bin"
cat > "$tmp/cuda/bin/ptxas" <<PTXAS
#!/bin/sh
for a; do case \$a in *.ptx) f=\$a;; esac; done
if grep -q '^\.maxnreg' "\$f"; then echo "ptxas fatal   : out of luck" >&2; exit 1; fi
exec "$real_ptxas" "\$@"
PTXAS
chmod +x "$tmp/cuda/bin/ptxas"
CUDA_HOME=$tmp/cuda "$GPUMIX" sweep --run -o "$tmp/f" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "register caps that cannot be assembled: exit 1" 1 "$rc"
check_match "each named, with ptxas's words" \
	"sweep: basic: $S: regs 24 not measured: cannot reassemble '$S' at 24 registers per thread: .*out of luck" "$(cat "$tmp/err")"
check_match "counted" "6 points could not be measured" "$(cat "$tmp/err")"
check_eq "the other points measured and saved" "36" "$(($(wc -l < "$tmp/f/points.csv") - 1))"
"$GPUMIX" sweep --run -o "$tmp/f" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "run again with ptxas: exit 0" 0 "$rc"
check_match "the six measured, the rest kept" "6 points measured, 36 kept from before" "$(cat "$tmp/err")"

# ---- a cap below ptxas's floor: ptxas gives more registers than asked
# (on sm_90 it gave mm's kernel 24 at a cap of 16); such a point is the
# point of the cap it gave, not one of its own. This ptxas reports 24
# registers wherever the cap is 16. ----
cat > "$tmp/cuda/bin/ptxas" <<PTXAS
#!/bin/sh
for a; do case \$a in *.ptx) f=\$a;; esac; done
grep -q '^\.maxnreg 16\$' "\$f" || exec "$real_ptxas" "\$@"
out=\$("$real_ptxas" "\$@" 2>&1); rc=\$?
printf '%s\n' "\$out" | sed 's/Used [0-9]* registers/Used 24 registers/' >&2
exit \$rc
PTXAS
CUDA_HOME=$tmp/cuda "$GPUMIX" sweep --run -o "$tmp/fl" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "caps below ptxas's floor: exit 0" 0 "$rc"
check_match "each named" \
	"sweep: basic: $S: ptxas gave 24 registers for a cap of 16: not a point of its own" "$(cat "$tmp/err")"
check_eq "no point at the cap ptxas did not honour" "" \
	"$(awk -F, -v k=$S '$2 == k && $3 == "regs" && $4 == 16' "$tmp/fl/points.csv")"
check_eq "the cap it gave is measured" "1" \
	"$(awk -F, -v k=$S '$2 == k && $3 == "regs" && $4 == 24' "$tmp/fl/points.csv" | wc -l)"

# ---- --axes and --kernel: a part of the sweep (the blocks axis alone is
# what the cliff-aware policy reads, doc/elastic.md) ----
"$GPUMIX" sweep --run -o "$tmp/ax" --replays 2 --no-plot --axes blocks \
	--kernel scale --kernel tex_copy "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "--axes blocks --kernel scale --kernel tex_copy: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_eq "only the blocks points of the two kernels named" \
	"$S:1 $S:2 $S:3 $S:4 $T:1 $T:2 $T:3 $T:4" \
	"$(awk -F, 'NR > 1 { print $2 ":" $4 (($3 == "blocks") ? "" : ":" $3) }' "$tmp/ax/points.csv" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "no padded or capped replay made" "" \
	"$(ls "$tmp/ax/runs" | grep -E 'smem|regs')"
"$GPUMIX" sweep --run -o "$tmp/ax" --replays 2 --no-plot --axes smem,blocks \
	--kernel incr "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "the same directory, another kernel and axis: exit 0" 0 "$rc"
check_match "its points added to the ones kept" \
	"$(($(printf '%s' "$plan" | wc -w) + 1)) points measured, 0 kept from before" "$(cat "$tmp/err")"
check_eq "incr: its smem points and its one blocks point" "$(($(printf '%s' "$plan" | wc -w) + 1))" \
	"$(awk -F, -v k=$I '$2 == k' "$tmp/ax/points.csv" | wc -l)"
check_eq "the first run's points still there" "8" \
	"$(awk -F, -v k=$I 'NR > 1 && $2 != k' "$tmp/ax/points.csv" | wc -l)"
out=$("$GPUMIX" sweep --run -o "$tmp/ax2" --no-plot --axes blocks --kernel nosuch "$B" 2>&1); rc=$?
check_eq "a --kernel no kernel's name holds: exit 1" 1 "$rc"
check_match "naming it" "--kernel 'nosuch' is in the name of no kernel of the bundles" "$out"
for bad in "" foo smem,foo ,; do
	out=$("$GPUMIX" sweep --run --axes "$bad" "$B" 2>&1); rc=$?
	check_eq "--axes '$bad': usage error" 2 "$rc"
done
check_match "naming the axes" "--axes takes smem, regs and blocks" "$out"
out=$("$GPUMIX" sweep --cliffs --axes blocks "$D/points.csv" 2>&1); rc=$?
check_eq "--axes without --run: usage error" 2 "$rc"

# ---- a replay that fails (the mock driver refuses every kernel) ----
MOCK_CUDA_FAIL=cuLibraryGetKernel "$GPUMIX" sweep --run -o "$tmp/rf" --replays 2 --no-plot "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "a replay that fails: exit 1" 1 "$rc"
check_match "named, with its exit status and its log" \
	"the replay '$tmp/rf/runs/basic.base' failed \(exit status 1; its output: $tmp/rf/runs/basic.base.log\)" "$(cat "$tmp/err")"
check_match "the program counted as not swept" "1 of 1 programs could not be swept" "$(cat "$tmp/err")"

# ---- a cooperative kernel (issue 28: bfs_coop on an H200): the
# cooperative bundle's launch of scale is 128 blocks of 256 threads, 8
# per SM on 16 mock SMs, all it can have. A padding that leaves fewer
# blocks per SM is not a point: the replay refuses it before running
# (exit status 4, the kernel, its grid and the blocks per SM it would
# get), and the sweep names each such point, counts it apart, ends 0. ----
C=tests/data/reconstruct/bundles/cooperative
few=$("$GPUMIX" sweep --plan --device h100 $S:256:32:0 | awk -F, '$2 == "smem" && $4 < 8 { print $3 }')
MOCK_CUDA_SMS=16 MOCK_CUDA_WAVE_US=1 "$GPUMIX" sweep --run -o "$tmp/co" --replays 2 --no-plot \
	--axes smem "$C" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "a cooperative kernel's smem sweep: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_eq "the plan has 7 points below its 8 blocks per SM" 7 "$(printf '%s\n' $few | wc -l)"
for v in $few; do
	check_match "smem $v: named, not a point, with the replay's reason" \
		"sweep: cooperative: $S: smem $v cannot exist, not a point: .*kernel '$S' cannot be launched cooperatively with its --smem-pad of $v bytes: its grid of 128 blocks .*8 per SM on the device's 16 SMs, and it would get [1-7] blocks? per SM" \
		"$(cat "$tmp/err")"
done
check_match "counted apart from the points that failed" \
	"sweep: 1 points measured, 0 kept from before, 0 could not be, 7 cannot exist" "$(cat "$tmp/err")"
check_eq "points.csv: the one point that exists, as captured" "0" \
	"$(awk -F, 'NR > 1 { print $4 }' "$tmp/co/points.csv" | tr '\n' ' ' | sed 's/ $//')"
out=$(MOCK_CUDA_SMS=16 "$GPUMIX" -q replay --min-replays 2 --smem-pad $S=57345 \
	-o "$tmp/co.run" "$tmp/co/builds/cooperative" 2>&1); rc=$?
check_eq "gpumix replay of such a point: exit status 4" 4 "$rc"
check_match "naming the kernel, its grid and the blocks per SM it would get" \
	"kernel '$S' cannot be launched cooperatively with its --smem-pad of 57345 bytes: its grid of 128 blocks \(256 threads, 57345 bytes of dynamic shared memory each\) must be resident at once, 8 per SM on the device's 16 SMs, and it would get 3 blocks per SM" "$out"
check_eq "before any replay ran" "" "$(awk -F'\t' '$1 == "KERNEL"' "$tmp/co.run/activity.tsv" 2>/dev/null)"
MOCK_CUDA_SMS=16 "$GPUMIX" -q replay --min-replays 2 --smem-pad $S=28160 \
	-o "$tmp/co.run7" "$tmp/co/builds/cooperative" >/dev/null 2>&1; rc=$?
check_eq "the same at 8 blocks per SM (28160 bytes): exit 0" 0 "$rc"

# ---- errors ----
mkdir -p "$tmp/mine" && echo keep > "$tmp/mine/file"
out=$("$GPUMIX" sweep --run -o "$tmp/mine" "$B" 2>&1); rc=$?
check_eq "-o onto a directory no sweep made: exit 1" 1 "$rc"
check_match "saying so" "'$tmp/mine' exists and is not a gpumix sweep directory" "$out"
check_eq "and nothing of it touched" "file" "$(ls "$tmp/mine")"
cp -r "$D" "$tmp/bad"
echo "basic,$S,smem,x,1,1," >> "$tmp/bad/points.csv"
out=$("$GPUMIX" sweep --run -o "$tmp/bad" "$B" 2>&1); rc=$?
check_eq "a damaged points.csv: exit 1" 1 "$rc"
check_match "naming its line" "points.csv:$(wc -l < "$tmp/bad/points.csv"): value, time_ms" "$out"
out=$("$GPUMIX" sweep --run -o "$tmp/n" "$tmp/nope" 2>&1); rc=$?
check_eq "a bundle that does not exist: exit 1" 1 "$rc"
check_match "named" "bundle '$tmp/nope' does not exist" "$out"
check "no directory made for it" test ! -e "$tmp/n"
out=$("$GPUMIX" sweep --run -o "$tmp/n" "$B" "$B/" 2>&1); rc=$?
check_eq "two bundles of one name: exit 1" 1 "$rc"
out=$("$GPUMIX" sweep --run 2>&1); rc=$?
check_eq "--run without a bundle: usage error" 2 "$rc"
out=$("$GPUMIX" sweep --cliffs --redo "$D/points.csv" 2>&1); rc=$?
check_eq "--redo without --run: usage error" 2 "$rc"
check_match "saying so" "go with --run" "$out"
out=$("$GPUMIX" sweep --run --device h100 "$B" 2>&1); rc=$?
check_eq "--device with --run: usage error" 2 "$rc"
out=$("$GPUMIX" sweep --run --replays 1 "$B" 2>&1); rc=$?
check_eq "--replays 1: usage error" 2 "$rc"
check_match "... with the min_replays row's message" \
	"^error: --replays takes an integer from 2 to 1000 \(each program's last replay is discarded\), not '1'$" "$out"
out=$("$GPUMIX" sweep --run --watchdog 1e-9 "$B" 2>&1); rc=$?
check_eq "--watchdog under 1 ms: usage error" 2 "$rc"
check_match "... with the watchdog row's message" \
	"^error: --watchdog must be 0 \(off\) or between 1ms and 24h, not 1e-9$" "$out"
out=$("$GPUMIX" sweep --cliffs "$D/points.csv" 2>&1); rc=$?
check_eq "--cliffs reads the sweep's points.csv" 0 "$rc"
check_eq "to the same tables" "$(cat "$D/cliffs.md")" "$out"

# ---- a blocks axis with no kernel to take it: on 32 mock SMs the basic
# bundle's 16-block grids are under one block per SM, so no kernel runs
# at K = 1 and none could at a larger K: one blocks replay, not one per K.
out=$(MOCK_CUDA_SMS=32 MOCK_CUDA_WAVE_US=1 "$GPUMIX" sweep --run -o "$tmp/nb" \
	--replays 2 --no-plot --axes blocks "$B" 2>&1); rc=$?
check_eq "a blocks axis no kernel takes: exit 0" 0 "$rc"
check_eq "... one blocks replay (K = 1), not one per K" "basic.blocks1" \
	"$(cd "$tmp/nb/runs" && find . -maxdepth 1 -type d -name 'basic.blocks*' | sed 's|^\./||' | tr '\n' ' ' | sed 's/ $//')"
check_match "... saying why the axis stops" \
	"sweep: basic: no kernel ran at 1 blocks per SM .*no blocks axis from there on" "$out"
check_eq "... and no blocks point" 0 \
	"$(cat "$tmp/nb/points.csv" 2>/dev/null | awk -F, '$3 == "blocks"' | wc -l)"
done_testing
