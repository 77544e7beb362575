#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The sweep's replay knobs on the mock driver (doc/gpumix-sweep.md):
# --smem-pad KERNEL=BYTES reaches that kernel's launches (the mock's
# kernel records carry the dynamic shared memory of each launch, and the
# others' stay as captured), the results still verified, above 48 KiB
# and above the limit the program set itself too; --kernel-module
# KERNEL=FILE loads the kernel's module from FILE (said in the run's log;
# a missing file fails naming it); a kernel no program has, a bad size,
# or a kernel given twice, is an error before any work. The elastic
# policy mpmax-cliff with a hand-made cliff map (tests/data/sweep/
# cliff-map.csv) on 4 mock SMs: MPMAX gives scale and tex_copy 4 blocks
# per SM (their 16 blocks); scale's 4 is 100% slower than its 3 and 3
# no cliff from 2, so it moves to 3; tex_copy's map has no cliff. (The results
# stay verified: the mock runs the same kernel whatever the module.)
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic
K=_Z5scalePjPKjjj

"$GPUMIX" -q reconstruct --variant single -o "$tmp/b" "$B" 2>/dev/null
check "the basic bundle reconstructs" test -f "$tmp/b/replay.c"

# (kernel name, dynamic shared memory) of every kernel record
smem() {
	awk -F'\t' '$1 == "KERNEL" { print $NF, $(NF-1) }' "$1/activity.tsv" | sort -u | tr '\n' ' ' | sed 's/ $//'
}
"$GPUMIX" -q replay --min-replays 2 -o "$tmp/plain" "$tmp/b" 2>/dev/null
check_eq "as captured: no dynamic shared memory" \
	"_Z4incr4span 0 _Z5scalePjPKjjj 0 _Z8tex_copyPjyj 0" "$(smem "$tmp/plain")"

out=$("$GPUMIX" -q replay --min-replays 2 --smem-pad $K=40000 -o "$tmp/pad" "$tmp/b" 2>&1); rc=$?
check_eq "--smem-pad $K=40000: exit 0 (results verified)" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_eq "the padding reaches scale's launches, and only theirs" \
	"_Z4incr4span 0 _Z5scalePjPKjjj 40000 _Z8tex_copyPjyj 0" "$(smem "$tmp/pad")"
check_match "the run's log says so" "smem-pad: program=basic, kernel=$K, 40000 bytes" "$(cat "$tmp/pad/log")"
# The program's own opt-in: basic sets scale's MAX_DYNAMIC_SHARED_SIZE_BYTES
# to 1024, as histo sets histo_main's to 98304 (its launches' size). The
# padding's opt-in comes after it, or the captured limit is put back and
# the padded launch refused (the mock refuses a launch above its
# function's limit and 48 KiB without one, as the driver does; issue 28).
out=$("$GPUMIX" -q replay --min-replays 2 --smem-pad $K=115713 -o "$tmp/big" "$tmp/b" 2>&1); rc=$?
check_eq "--smem-pad $K=115713, above 48 KiB and the program's own limit: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_eq "scale's launches took 115713 bytes" \
	"_Z4incr4span 0 _Z5scalePjPKjjj 115713 _Z8tex_copyPjyj 0" "$(smem "$tmp/big")"

cp "$tmp/b/modules/"* "$tmp/module.bin"
out=$("$GPUMIX" -q replay --min-replays 2 --kernel-module $K="$tmp/module.bin" -o "$tmp/mod" "$tmp/b" 2>&1); rc=$?
check_eq "--kernel-module $K=FILE: exit 0 (results verified)" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_match "its module is loaded from FILE" "kernel-module: program=basic, module=0, loaded '$tmp/module.bin'" \
	"$(cat "$tmp/mod/log")"
check "and no module from the build then" sh -c "! grep -q 'loaded .*$tmp/b/modules' '$tmp/mod/log'"

out=$("$GPUMIX" -q replay --min-replays 2 --kernel-module $K="$tmp/none" -o "$tmp/none.run" "$tmp/b" 2>&1); rc=$?
check_eq "--kernel-module with a missing file: exit 1" 1 "$rc"
check_match "naming the file" "cannot load module 0 from '$tmp/none'" "$out"
out=$("$GPUMIX" -q replay --min-replays 2 --kernel-module $K="$tmp/module.bin" --kernel-module _Z8tex_copyPjyj="$tmp/plain/log" -o "$tmp/two" "$tmp/b" 2>&1); rc=$?
check_eq "two files for one module: exit 1" 1 "$rc"
check_match "naming both kernels" "kernels '$K' and '_Z8tex_copyPjyj' are of one module" "$out"

out=$("$GPUMIX" -q replay --smem-pad nope=64 -o "$tmp/x" "$tmp/b" 2>&1); rc=$?
check_eq "--smem-pad of a kernel no program has: exit 1" 1 "$rc"
check_match "naming it" "no program of workload 'basic' has a kernel 'nope'" "$out"
check "no run directory made" test ! -e "$tmp/x"
for bad in "$K=-1" "$K=1e3" "$K=" "=64" "$K" "$K=300000"; do
	out=$("$GPUMIX" -q replay --smem-pad "$bad" -o "$tmp/x" "$tmp/b" 2>&1); rc=$?
	check_eq "--smem-pad '$bad': usage error" 2 "$rc"
done
check_match "the range in the message" "BYTES must be between 0 and 233472, not '300000'" "$out"
out=$("$GPUMIX" -q replay --smem-pad $K=1 --smem-pad $K=2 -o "$tmp/x" "$tmp/b" 2>&1); rc=$?
check_eq "one kernel padded twice: usage error" 2 "$rc"
check_match "saying so" "kernel '$K' given twice" "$out"
check_match "both knobs in gpumix replay --help, for every variant" \
	"--smem-pad KERNEL=BYTES.*every variant" "$("$GPUMIX" replay --help | tr '\n' ' ' | tr -s ' ')"
# ---- the cliff-aware policy ----
"$GPUMIX" -q reconstruct --variant single --elastic -o "$tmp/el" "$B" 2>/dev/null
out=$(MOCK_CUDA_SMS=4 GPUMIX_DEBUG=1 "$GPUMIX" -q replay --variant elastic --policy mpmax-cliff \
	--cliff-map tests/data/sweep/cliff-map.csv --min-replays 2 -o "$tmp/cliff" "$tmp/el" 2>&1); rc=$?
check_eq "--policy mpmax-cliff --cliff-map: exit 0 (results verified)" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_match "scale moved off its cliff: 4 -> 3 blocks per SM" \
	"mpmax-cliff: program=basic, kernel=$K, launch=0, 4 -> 3 blocks per SM" "$out"
check_eq "only scale, in each of the 2 replays" "2" "$(sed -n 's/^elastic.cliff_moved_launches = //p' "$tmp/cliff/manifest")"
check_eq "its physical grid: 3 x 4 SMs; tex_copy's the captured 16" "_Z5scalePjPKjjj 12 _Z8tex_copyPjyj 16" \
	"$(awk -F'\t' '$1 == "KERNEL" && $NF ~ /scale|tex_copy/ { print $NF, $11 * $12 * $13 }' "$tmp/cliff/activity.tsv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "the manifest names the policy" "mpmax-cliff" "$(sed -n 's/^elastic.policy = //p' "$tmp/cliff/manifest")"
# The counters reach the database (doc/database.md, runs.elastic*Launches):
# each column is its manifest key's value; a run without them has NULLs.
"$GPUMIX" -q replay --variant cuda --min-replays 2 -o "$tmp/plain" "$tmp/el" >/dev/null 2>&1
out=$("$GPUMIX" analyze -o "$tmp/cliff.db" "$tmp/cliff" "$tmp/plain" 2>&1); rc=$?
check_eq "both runs load" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
for c in planned:Planned limited:Limited sliced:Sliced captured_grid:CapturedGrid cliff_moved:CliffMoved; do
	check_eq "runs.elastic${c#*:}Launches is the manifest's elastic.${c%%:*}_launches" \
		"$(sed -n "s/^elastic.${c%%:*}_launches = //p" "$tmp/cliff/manifest")" \
		"$(db_query "$tmp/cliff.db" "SELECT elastic${c#*:}Launches FROM runs WHERE variant = 'elastic'")"
done
out=$("$GPUMIX" report "$tmp/cliff.db" --table elastic --format csv 2>/dev/null); rc=$?
check_eq "report --table elastic: exit 0" 0 "$rc"
check_eq "its one row: the elastic run, its moves in the last column" \
	"basic,elastic+mpmax-cliff,0,$(sed -n 's/^elastic.planned_launches = //p' "$tmp/cliff/manifest"),$(sed -n 's/^elastic.limited_launches = //p' "$tmp/cliff/manifest"),$(sed -n 's/^elastic.sliced_launches = //p' "$tmp/cliff/manifest"),$(sed -n 's/^elastic.captured_grid_launches = //p' "$tmp/cliff/manifest"),2" \
	"$(printf '%s\n' "$out" | grep -v '^workload,')"
check_eq "the run of another variant: NULL" "1" \
	"$(db_query "$tmp/cliff.db" "SELECT elasticCliffMovedLaunches IS NULL FROM runs WHERE variant != 'elastic'")"
out=$("$GPUMIX" -q replay --variant elastic --policy mpmax-cliff -o "$tmp/x" "$tmp/el" 2>&1); rc=$?
check_eq "mpmax-cliff without a map: usage error" 2 "$rc"
check_match "saying so" "policy mpmax-cliff needs --cliff-map" "$out"
out=$("$GPUMIX" -q replay --variant cuda --cliff-map tests/data/sweep/cliff-map.csv -o "$tmp/x" "$tmp/el" 2>&1); rc=$?
check_eq "--cliff-map with a variant without policies: usage error" 2 "$rc"
out=$(MOCK_CUDA_SMS=4 "$GPUMIX" -q replay --variant elastic --policy mpmax-cliff --cliff-map "$tmp/none.csv" -o "$tmp/x" "$tmp/el" 2>&1); rc=$?
check_eq "a cliff map that cannot be read: exit 1" 1 "$rc"
check_match "naming it" "cannot read the cliff map '$tmp/none.csv'" "$out"
done_testing
