#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Replay on a real GPU: the hand-built two-program workload of
# gen-workload (H2D copies, a symbol copy, launches with pointer, struct
# and texture-object parameters, events, an async D2H checked at a stream
# sync, memset, an interior-pointer D2D, a sync D2H) on the kernels of
# tests/gpu/replay_kernels.cu, in the single and cuda variants, and with
# a blocking second stream and a cooperative launch; every
# result is verified against hashes computed on the CPU. A wrong expected
# hash must fail the run, naming the program, operation and trace event.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
scratch_dir >/dev/null	# (works with both scratch_dir versions)
tmp=$_scratch

check "the test kernels build as a fatbin" \
	"$NVCC" -fatbin -arch=sm_${SM:-90} -o "$tmp/k.fatbin" \
	"$GPUMIX_TOP/tests/gpu/replay_kernels.cu"

for v in single cuda; do
	check "$v: workload generated" \
		"$GEN" tiny --variant $v --fatbin "$tmp/k.fatbin" -o "$tmp/$v"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run-$v" \
		"$tmp/$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	check_run "$tmp/run-$v" 2 3
	check_eq "$v: variant in the manifest" $v \
		"$(field "$tmp/run-$v/manifest" variant)"
	check_match "$v: device recorded" "H100|H200|NVIDIA" \
		"$(field "$tmp/run-$v/manifest" device.name)"
	check_eq "$v: no CUPTI record dropped" 0 \
		"$(field "$tmp/run-$v/manifest" cupti.dropped_records)"
	# The driver's NVML gives the GPU's state (doc/run-directory.md).
	check_match "$v: SM clock at start and end (NVML)" '^[1-9][0-9]* [1-9][0-9]*$' \
		"$(field "$tmp/run-$v/manifest" gpu.start.sm_clock_mhz) $(field "$tmp/run-$v/manifest" gpu.end.sm_clock_mhz)"
	check_match "$v: temperature and throttle reasons" '^[0-9]+ [a-z_,0-9x]+$' \
		"$(field "$tmp/run-$v/manifest" gpu.end.temp_c) $(field "$tmp/run-$v/manifest" gpu.end.throttle)"
	echo "# $v: GPU $(grep '^gpu\.' "$tmp/run-$v/manifest" | tr '\n' ' ')"
	echo "# $v: $(grep -c '^KERNEL' "$tmp/run-$v/activity.tsv") kernel, $(grep -c '^MEMCPY' "$tmp/run-$v/activity.tsv") memcpy records"
done

"$GEN" tiny --blocking --cooperative --fatbin "$tmp/k.fatbin" -o "$tmp/blk" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run-blk" "$tmp/blk" 2>&1); rc=$?
check_eq "blocking stream + cooperative launch: replay exits 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_run "$tmp/run-blk" 2 3

"$GEN" tiny --bad-hash --fatbin "$tmp/k.fatbin" -o "$tmp/bad" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-bad" "$tmp/bad" 2>&1); rc=$?
check_eq "a wrong result fails the run" 1 "$rc"
check_eq "status failed" failed "$(field "$tmp/run-bad/manifest" status)"
check_match "naming program, operation and trace event" \
	"program 'scale-b': operation 15 \(device-to-host copy, trace event 22\) failed: result differs" \
	"$(field "$tmp/run-bad/manifest" failure)"

done_testing
