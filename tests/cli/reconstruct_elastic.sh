#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix reconstruct --elastic and gpumix replay --elastic on a CPU: the
# committed corpus bundle of tests/gpu/replay_kernels.cu (a real sm_90
# fatbin) gives its elastic modules (the transformed PTX, a cubin that
# ptxas assembled, the index and the kernel table with the classes of
# gpumix elastic), deterministically; a bundle whose module is PTX text
# works too; without --elastic the output is as before; the generated
# program builds; option errors are clear. Then the replay runs against
# the mock CUDA driver (tests/mock), which executes the logical block
# range each elastic launch asks for, in every mode and with slices:
# every replay must verify, and the run manifest records the mode and
# the launches.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir >/dev/null
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# ---- reconstruct --elastic ----
out=$("$GPUMIX" reconstruct --variant single --elastic -o "$tmp/e" "$B" 2>&1); rc=$?
check_eq "reconstruct --elastic exits 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_match "a summary line" \
	"^reconstruct: elastic \(sm_90\): 1 of 1 code images transformed; 5 kernels: 4 thread-elastic, 0 block-elastic, 1 not elastic; cubins assembled$" "$out"
hash=$(ls "$B/modules" | sed 's/\..*//')
check "the transformed PTX is written" test -s "$tmp/e/elastic/$hash.ptx"
check "it is PTX of the elastic kernels" \
	grep -q "^// gpumix-elastic-kernel: _Z5scalePjPKjjj thread-elastic$" "$tmp/e/elastic/$hash.ptx"
check_eq "the cubin is an ELF file" "$(printf '\177ELF')" \
	"$(head -c 4 "$tmp/e/elastic/$hash.sm_90.cubin")"
check_eq "index: format" "gpumix-elastic 2" "$(field "$tmp/e/elastic/index" format)"
check_eq "index: one module" 1 "$(field "$tmp/e/elastic/index" modules)"
check_eq "index: the original image" "$hash" "$(field "$tmp/e/elastic/index" module.0.hash)"
check_eq "index: cubin for sm_90" 90 "$(field "$tmp/e/elastic/index" module.0.cubin_arch)"
check_eq "index: the spin kernel is not elastic" not-elastic \
	"$(field "$tmp/e/elastic/index" module.0.kernel.4.class)"
check_eq "manifest: elastic" 1 "$(field "$tmp/e/manifest" elastic)"
check_eq "manifest: elastic.arch" sm_90 "$(field "$tmp/e/manifest" elastic.arch)"
check_eq "kernel table: header" \
	"$(printf 'module\tkernel\tclass\tregs\tregs_after\tsmem\tsmem_after\tmaxnreg\treason')" \
	"$(head -1 "$tmp/e/elastic/kernels.tsv")"
check_eq "kernel table: classes, as gpumix elastic says" \
	"_Z5scalePjPKjjj thread-elastic
_Z9scale_gblPKjjj thread-elastic
_Z4incr4span thread-elastic
_Z8tex_copyPjyj thread-elastic
_Z4spinPVj not-elastic" "$(awk -F'\t' 'NR > 1 { print $2, $3 }' "$tmp/e/elastic/kernels.tsv")"
check_match "kernel table: the reason" "waits on memory other blocks may write" \
	"$(grep _Z4spinPVj "$tmp/e/elastic/kernels.tsv")"
want=$("$GPUMIX" elastic "$B" 2>/dev/null | awk '$1 == "_Z5scalePjPKjjj" { print $3, $5 }')
check_eq "kernel table: registers before and after, as gpumix elastic says" \
	"$want" "$(awk -F'\t' '$2 == "_Z5scalePjPKjjj" { print $4, $5 }' "$tmp/e/elastic/kernels.tsv")"
"$GPUMIX" -q reconstruct --variant single --elastic -o "$tmp/e2" "$B" 2>/dev/null
check "deterministic: a second run gives the same bytes" diff -r "$tmp/e" "$tmp/e2"
"$GPUMIX" -q reconstruct --variant single -o "$tmp/plain" "$B" 2>/dev/null
check "without --elastic: no elastic directory" test ! -e "$tmp/plain/elastic"
check "without --elastic: no elastic key in the manifest" \
	test -z "$(field "$tmp/plain/manifest" elastic)"
check "the generated C does not depend on --elastic" \
	cmp -s "$tmp/plain/replay.c" "$tmp/e/replay.c"
out=$(CUDA_HOME=/nonexistent PATH=/usr/bin:/bin "$GPUMIX" reconstruct --variant single \
	--elastic -o "$tmp/noptxas" "$B" 2>&1); rc=$?
if [ -x /usr/local/cuda/bin/ptxas ]; then
	skip "without ptxas (found at /usr/local/cuda/bin, the last resort)"
else
	check_eq "without ptxas: exits 0" 0 "$rc"
	check_match "without ptxas: a warning" "ptxas not found" "$out"
fi
out=$("$GPUMIX" reconstruct --variant cuda --elastic -o "$tmp/good" \
	tests/data/bundles/good 2>&1); rc=$?
check_eq "a module of PTX text: exits 0" 0 "$rc"
check_eq "a module of PTX text: transformed" 1 "$(field "$tmp/good/elastic/index" modules)"

# ---- usage errors ----
out=$("$GPUMIX" reconstruct --variant single --elastic-arch sm_90 -o "$tmp/x" "$B" 2>&1); rc=$?
check_eq "--elastic-arch without --elastic: usage error" 2 "$rc"
check_match "its message" "^error: --elastic-arch needs --elastic$" "$out"
out=$("$GPUMIX" reconstruct --variant single --elastic --elastic-arch 90 -o "$tmp/x" "$B" 2>&1); rc=$?
check_eq "bad --elastic-arch: usage error" 2 "$rc"
check_match "its message" "^error: bad --elastic-arch '90' \(expected sm_NN, e.g. sm_90\)$" "$out"
out=$("$GPUMIX" reconstruct --variant single --elastic -o - "$B" 2>&1); rc=$?
check_eq "--elastic with -o -: usage error" 2 "$rc"
out=$("$GPUMIX" replay --elastic 0 "$tmp/e" 2>&1); rc=$?
check_eq "replay --elastic 0: usage error" 2 "$rc"
check_match "its message" "^error: bad elastic mode '0'" "$out"
out=$("$GPUMIX" replay --elastic identity --elastic-slice 4 "$tmp/e" 2>&1); rc=$?
check_eq "replay: a slice needs a grid mode" 2 "$rc"
check_match "its message" "^error: an elastic slice needs a physical grid mode" "$out"
out=$("$GPUMIX" replay --elastic sm -o "$tmp/r" "$tmp/plain" 2>&1); rc=$?
check_eq "replay --elastic of a directory without elastic modules: error" 1 "$rc"
check_match "its message" "^error: '$tmp/plain' has no elastic modules, which --elastic needs$" "$out"
check_match "its hint" "^hint: reconstruct it with 'gpumix reconstruct --elastic'$" "$out"

# ---- builds, and replays on the mock driver ----
out=$("$GPUMIX" replay --build-only "$tmp/e" 2>&1); rc=$?
check_eq "the program builds" 0 "$rc"
out=$("$tmp/e/replay" --elastic sm --elastic-slice 0 -o "$tmp/r" 2>&1); rc=$?
check_eq "the replay program checks its options too" 2 "$rc"
rm -rf "$tmp/plain/replay"
"$GPUMIX" replay --build-only "$tmp/plain" >/dev/null 2>&1
out=$("$tmp/plain/replay" --elastic sm -o "$tmp/r" 2>&1); rc=$?
check_eq "the replay program refuses a missing index" 1 "$rc"
check_match "its message" "no elastic modules: '.*/elastic/index' does not exist" "$out"

run_mode() { # run_mode NAME ARGS...: replay on the mock, must verify
	local name=$1; shift
	out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-$name" "$@" "$tmp/e" 2>&1); rc=$?
	check_eq "mock replay $name: exit 0 (results verified)" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
}
run_mode off
check "elasticity off: nothing recorded" test -z "$(field "$tmp/run-off/manifest" elastic)"
for m in identity 1 sm resident orig 3; do
	run_mode "$m" --elastic "$m"
done
check_eq "identity recorded" identity "$(field "$tmp/run-identity/manifest" elastic)"
check_eq "identity: no launch made elastic" 0 "$(field "$tmp/run-identity/manifest" elastic.launches)"
check_eq "grid=1 recorded" grid=1 "$(field "$tmp/run-1/manifest" elastic)"
el=$(field "$tmp/run-1/manifest" elastic.launches)
check "grid=1: launches made elastic" test "${el:-0}" -gt 0
check_eq "grid=1: one kernel launch each" "$el" \
	"$(field "$tmp/run-1/manifest" elastic.physical_launches)"
# sm=K: K blocks on every SM (the SM-stretch microbenchmark); 4 mock SMs
# so that the 16-block grids of scale and tex_copy hold 3 per SM
MOCK_CUDA_SMS=4 run_mode sm3 --elastic sm=3
check_eq "sm=3 recorded" sm=3 "$(field "$tmp/run-sm3/manifest" elastic)"
check_eq "sm=3: scale and tex_copy on 3 x 4 physical blocks" "12 12" \
	"$(awk -F'\t' '$1 == "KERNEL" && $NF ~ /scale|tex_copy/ { g[$NF] = $11 * $12 * $13 }
		END { for (k in g) printf "%s%s", n++ ? " " : "", g[k] }' "$tmp/run-sm3/activity.tsv")"
out=$("$GPUMIX" replay --elastic sm=0 -o "$tmp/r" "$tmp/e" 2>&1); rc=$?
check_eq "sm=0: usage error" 2 "$rc"
check_match "saying the range" "sm=K takes blocks per SM from 1 to 1024" "$out"
run_mode quarter --elastic resident --elastic-slice /4
check_eq "slice /4 recorded" /4 "$(field "$tmp/run-quarter/manifest" elastic.slice)"
for s in 1 7; do
	run_mode "slice$s" --elastic sm --elastic-slice "$s"
	check_eq "slice $s recorded" "$s" "$(field "$tmp/run-slice$s/manifest" elastic.slice)"
done
p1=$(field "$tmp/run-slice1/manifest" elastic.physical_launches)
p7=$(field "$tmp/run-slice7/manifest" elastic.physical_launches)
check "slices of 1 block: more launches than slices of 7 ($p1 > $p7 > $el)" \
	test "${p1:-0}" -gt "${p7:-0}" -a "${p7:-0}" -gt "${el:-0}"
check_eq "every slice is a kernel record of the activity log" "$p1" \
	"$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "name") c = i; next }
		$c ~ /scale|incr|tex_copy/ { n++ } END { print n + 0 }' "$tmp/run-slice1/activity.tsv" \
		| awk -v id="$(field "$tmp/run-slice1/manifest" elastic.identity_launches)" '{ print $1 - id }')"
# ---- the variants that use the elastic modules (nss poll, elastic) ----
run_mode nss-poll --variant nss --completion poll
check "nss --completion poll: kernels completed by their flag" test \
	"$(field "$tmp/run-nss-poll/manifest" nss.kernels_polled)" -gt 0
check_eq "nss --completion poll: the elastic modules, elasticity off" identity \
	"$(field "$tmp/run-nss-poll/manifest" elastic)"
run_mode single-id --variant single --elastic identity
out=$("$GPUMIX" profile -o "$tmp/profile.tsv" "$tmp/run-single-id" 2>&1); rc=$?
check_eq "gpumix profile of a single run: exit 0" 0 "$rc"
out=$("$GPUMIX" profile -o 2>&1); rc=$?
check_eq "profile -o without a file: usage error" 2 "$rc"
check_match "saying so" "^error: option '-o' needs a value$" "$out"
out=$("$GPUMIX" profile 2>&1); rc=$?
check_eq "profile without run directories: usage error" 2 "$rc"
check_match "saying so" "^error: which run directories\?$" "$out"
check_eq "the profile: a row per kernel shape" 3 $(($(wc -l < "$tmp/profile.tsv") - 2))
out=$("$GPUMIX" profile -o "$tmp/p2.tsv" "$tmp/run-nss-poll" 2>&1); rc=$?
check_eq "a profile of an nss run: error" 1 "$rc"
check_match "saying why" "ran in variant 'nss': a profile comes from runs of programs alone" "$out"
for pol in median mpmax equal queuemold; do
	run_mode "el-$pol" --variant elastic --policy "$pol" --profile "$tmp/profile.tsv"
	check_eq "elastic/$pol recorded" "elastic $pol policy" \
		"$(field "$tmp/run-el-$pol/manifest" variant) $(field "$tmp/run-el-$pol/manifest" policy) $(field "$tmp/run-el-$pol/manifest" elastic)"
	check "elastic/$pol: the transformed kernels planned" test \
		"$(field "$tmp/run-el-$pol/manifest" elastic.planned_launches)" -gt 0
done
check_eq "median: the median kernel of the profile" profile \
	"$(field "$tmp/run-el-median/manifest" elastic.median_from)"
out=$("$GPUMIX" replay --variant elastic -o "$tmp/r" "$tmp/e" 2>&1); rc=$?
check_eq "the elastic variant needs a policy: usage error" 2 "$rc"
check_match "its message" "variant 'elastic' needs --policy" "$out"
out=$("$GPUMIX" replay --variant elastic --policy mpmax -o "$tmp/r" "$tmp/plain" 2>&1); rc=$?
check_eq "the elastic variant without elastic modules: error" 1 "$rc"
check_match "its message" "has no elastic modules, which the variant needs" "$out"
sed 's/Mock GPU/Other GPU/' "$tmp/profile.tsv" > "$tmp/other.tsv"
out=$("$GPUMIX" replay --variant elastic --policy median --profile "$tmp/other.tsv" \
	-o "$tmp/r-other" "$tmp/e" 2>&1); rc=$?
check_eq "a profile of another GPU model: the replay fails" 1 "$rc"
check_match "naming both" "was measured on 'Other GPU', this GPU is 'Mock GPU'" \
	"$(field "$tmp/r-other/manifest" failure)"
# Timeslicing on the mock: a device of one SM runs the 16-block grids in
# two waves; with a profile that says each kernel took 10 ms alone, a
# 1 ms timeslice cuts each into two ranges, launched one after another.
awk -F'\t' 'BEGIN { OFS = "\t" } NR > 2 { $9 = "10000000.0" } { print }' \
	"$tmp/profile.tsv" >"$tmp/long.tsv"
out=$(MOCK_CUDA_SMS=1 "$GPUMIX" replay --variant elastic --policy mpmax \
	--profile "$tmp/long.tsv" --min-replays 2 -o "$tmp/run-sliced" "$tmp/e" 2>&1); rc=$?
check_eq "timesliced on a one-SM mock: exit 0 (results verified)" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
planned=$(field "$tmp/run-sliced/manifest" elastic.planned_launches)
check_eq "every planned launch was sliced" "$planned" \
	"$(field "$tmp/run-sliced/manifest" elastic.sliced_launches)"
check_eq "into two ranges each" $((2 * planned)) \
	"$(field "$tmp/run-sliced/manifest" elastic.ranges)"
out=$(MOCK_CUDA_SMS=1 "$GPUMIX" replay --variant elastic --policy mpmax \
	--profile "$tmp/long.tsv" --timeslice-us 0 --min-replays 2 \
	-o "$tmp/run-unsliced" "$tmp/e" 2>&1); rc=$?
check_eq "--timeslice-us 0: exit 0" 0 "$rc"
check_eq "--timeslice-us 0: nothing sliced" 0 \
	"$(field "$tmp/run-unsliced/manifest" elastic.sliced_launches)"
# Alone, MPMAX leaves the whole GPU: no limit binds, so by default each
# grid runs as captured (all its blocks at once, queued by the hardware);
# --grid resident caps it at the one SM's resident blocks (Algorithm 1 as
# written) and runs the rest in the elastic loop.
m=$tmp/run-unsliced/manifest
check_eq "--grid captured (the default) recorded" captured "$(field "$m" elastic.grid)"
check_eq "no limit binds: every planned launch keeps the captured grid" \
	"$(field "$m" elastic.planned_launches)" "$(field "$m" elastic.captured_grid_launches)"
check_eq "as many physical blocks as logical ones" \
	"$(field "$m" elastic.logical_blocks)" "$(field "$m" elastic.physical_blocks)"
out=$(MOCK_CUDA_SMS=1 "$GPUMIX" replay --variant elastic --policy mpmax \
	--profile "$tmp/long.tsv" --timeslice-us 0 --grid resident --min-replays 2 \
	-o "$tmp/run-grid-resident" "$tmp/e" 2>&1); rc=$?
check_eq "--grid resident: exit 0 (results verified)" 0 "$rc"
[ "$rc" = 0 ] || printf "%s\n" "$out" | tail -3 | sed "s/^/#   /"
m=$tmp/run-grid-resident/manifest
check_eq "--grid resident recorded" resident "$(field "$m" elastic.grid)"
check_eq "--grid resident: no captured grid kept" 0 "$(field "$m" elastic.captured_grid_launches)"
check "--grid resident: fewer physical blocks than logical ones" \
	test "$(field "$m" elastic.physical_blocks)" -lt "$(field "$m" elastic.logical_blocks)"
out=$("$GPUMIX" replay --variant elastic --policy mpmax --grid whole -o "$tmp/r" "$tmp/e" 2>&1); rc=$?
check_eq "--grid with another value: usage error" 2 "$rc"
check_match "naming both values" "--grid must be 'captured' or 'resident', not 'whole'" "$out"
out=$("$GPUMIX" replay --variant nss --grid resident -o "$tmp/r" "$tmp/e" 2>&1); rc=$?
check_eq "--grid on nss: usage error" 2 "$rc"
check_match "naming the variant that takes it" "--grid does not apply to variant 'nss' \(it applies to: elastic\)" "$out"
done_testing
