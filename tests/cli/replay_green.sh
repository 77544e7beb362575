#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The green variant on the CPU (mock driver, tests/mock/mock_green.c):
# each program in its own green context, partitions of whole groups of
# the size the driver's split gives (read, not assumed), equal by default
# or from --sm-share; results verify (the mock refuses a launch of a
# function of one context on a stream of another); the manifest records
# the split and each program's SMs; shares that do not fit and bad
# --sm-share values are clear errors.
. "$(dirname "$0")/../lib.sh"
GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
. "$GPUMIX_TOP/tests/replay_check.sh"

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
m=$tmp/run/manifest

out=$("$GPUMIX" replay --variant green --min-replays 2 -o "$tmp/run" "$tmp/wl" 2>&1); rc=$?
check_eq "green: exit 0 (results verified)" 0 "$rc"
check_run "$tmp/run" 2 2
check_eq "the manifest names the variant" green "$(field "$m" variant)"
check_eq "the device's SMs, as its resource says" 132 "$(field "$m" green.sm_count)"
check_eq "groups of the size the split made" 8 "$(field "$m" green.group_sms)"
check_eq "16 of them" 16 "$(field "$m" green.groups)"
check_eq "and a remainder of 4 SMs" 4 "$(field "$m" green.remainder)"
check_eq "equal shares by default" equal "$(field "$m" green.sm_share)"
check_eq "scale-a: 64 SMs" 64 "$(field "$m" program.0.sm_count)"
check_eq "scale-b: 64 SMs" 64 "$(field "$m" program.1.sm_count)"
check_match "the log gives the partitions" \
	"green: 132 SMs split into 16 partitions of 8 \(minimum 8, alignment 8\) and a remainder of 4; SMs per program: scale-a 64, scale-b 64" "$out"
check "no warning from the mock driver (streams destroyed before their green context)" \
	test -z "$(grep 'mock cuda:' <<<"$out")"

out=$("$GPUMIX" replay --variant green --sm-share scale-a=25% --min-replays 2 \
	-o "$tmp/run-s" "$tmp/wl" 2>&1); rc=$?
check_eq "--sm-share scale-a=25%: exit 0" 0 "$rc"
check_eq "25% of 132 SMs is 4 groups: 32 SMs" 32 "$(field "$tmp/run-s/manifest" program.0.sm_count)"
check_eq "the other gets the other 12 groups" 96 "$(field "$tmp/run-s/manifest" program.1.sm_count)"
check_eq "the manifest keeps the shares" "scale-a=25%" "$(field "$tmp/run-s/manifest" green.sm_share)"

# Another device: 100 SMs, a minimum partition of 12 aligned to 8 gives
# groups of 16 (the runtime reads what the split made).
out=$(MOCK_CUDA_SMS=100 MOCK_CUDA_SM_MIN=12 "$GPUMIX" replay --variant green \
	--min-replays 2 -o "$tmp/run-16" "$tmp/wl" 2>&1); rc=$?
check_eq "a granularity of 16: exit 0" 0 "$rc"
check_eq "groups of 16 SMs" 16 "$(field "$tmp/run-16/manifest" green.group_sms)"
check_eq "6 of them, remainder 4" "6 4" \
	"$(field "$tmp/run-16/manifest" green.groups) $(field "$tmp/run-16/manifest" green.remainder)"
check_eq "3 groups each: 48 SMs" "48 48" \
	"$(field "$tmp/run-16/manifest" program.0.sm_count) $(field "$tmp/run-16/manifest" program.1.sm_count)"

# scaled: the knees of gpumix scale; 96 + 64 SMs do not fit in 16
# groups of 8, so 12 and 8 groups shrink in proportion to 9 and 6.
printf 'program,kernel,knee_sms,full_sms,full_ms\nscale-a,,96,132,5.0\nscale-b,,64,132,4.0\nscale-b,_Z4incr4span,8,132,1.0\n' \
	>"$tmp/knees.csv"
out=$("$GPUMIX" replay --variant green --scale "$tmp/knees.csv" --min-replays 2 \
	-o "$tmp/run-k" "$tmp/wl" 2>&1); rc=$?
check_eq "--scale (scaled partitions): exit 0" 0 "$rc"
check_eq "knees shrunk in proportion: 72 and 48 SMs" "72 48" \
	"$(field "$tmp/run-k/manifest" program.0.sm_count) $(field "$tmp/run-k/manifest" program.1.sm_count)"
check_eq "the manifest says scaled, and from which file" "scaled $tmp/knees.csv" \
	"$(field "$tmp/run-k/manifest" green.sm_share) $(field "$tmp/run-k/manifest" green.scale)"
sed -i 's/,132,/,114,/' "$tmp/knees.csv"
out=$("$GPUMIX" replay --variant green --scale "$tmp/knees.csv" -o "$tmp/run-k2" "$tmp/wl" 2>&1); rc=$?
check_eq "curves of another GPU: exit 1" 1 "$rc"
check_match "saying so" "'scale-a' was measured on a GPU of 114 SMs, this one has 132" "$out"
out=$("$GPUMIX" replay --variant green --scale "$tmp/knees.csv" --sm-share scale-a=8 \
	-o "$tmp/r" "$tmp/wl" 2>&1); rc=$?
check_eq "--scale with --sm-share: usage error" 2 "$rc"

out=$("$GPUMIX" replay --variant green --sm-share scale-a=72,scale-b=64 \
	-o "$tmp/run-x" "$tmp/wl" 2>&1); rc=$?
check_eq "shares that do not fit: exit 1" 1 "$rc"
check_match "a clear error with the sizes" \
	"the SM shares do not fit: 'scale-a' 72 \+ 'scale-b' 64 SMs, but the device has 16 partitions of 8 SMs \(132 SMs, 4 of them in the remainder\)" "$out"
check_eq "the run directory says failed" failed "$(field "$tmp/run-x/manifest" status)"

# CUPTI promises stream ids unique within a context only: with each
# green context numbering its own streams, records are still given to
# the right program (the runtime keys them by context and stream).
out=$(MOCK_CUDA_STREAM_IDS=context "$GPUMIX" replay --variant green --min-replays 2 \
	-o "$tmp/run-ids" "$tmp/wl" 2>&1); rc=$?
check_eq "stream ids unique per green context only: exit 0" 0 "$rc"
check_run "$tmp/run-ids" 2 2
check_eq "the two programs' streams have the same ids, in two contexts" "100 100" \
	"$(for p in scale-a scale-b; do awk -F'\t' -v p="$p" '$1 == "KERNEL" && $2 == p { print $10; exit }' "$tmp/run-ids/activity.tsv"; done | tr '\n' ' ' | sed 's/ $//')"
check "and different contexts" test "$(awk -F'\t' '$1 == "KERNEL" { print $2, $9 }' "$tmp/run-ids/activity.tsv" | sort -u | wc -l)" = 2

out=$(MOCK_CUDA_FAIL=cuGreenCtxCreate "$GPUMIX" replay --variant green \
	-o "$tmp/run-f" "$tmp/wl" 2>&1); rc=$?
check_eq "a green context the driver cannot make: exit 1" 1 "$rc"
check_match "the error names the program" \
	"cannot make the green context of program 'scale-a'" "$out"

out=$("$GPUMIX" replay --variant green --sm-share scale-a=0 -o "$tmp/r" "$tmp/wl" 2>&1); rc=$?
check_eq "--sm-share with a share of 0: usage error" 2 "$rc"
check_match "naming the item" "SM share 'scale-a=0': the share must be" "$out"
out=$("$GPUMIX" replay --variant cuda --sm-share scale-a=8 -o "$tmp/r" "$tmp/wl" 2>&1); rc=$?
check_eq "--sm-share with another variant: usage error" 2 "$rc"
check_match "naming the variant that takes it" \
	"--sm-share does not apply to variant 'cuda' \(it applies to: green\)" "$out"
done_testing
