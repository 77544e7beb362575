#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The replay watchdog on a real GPU: a kernel that spins on a flag nobody
# sets is stopped after --watchdog seconds; the run directory says hung
# and names the program, the operation it waited in and the kernel.
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
check "the hanging workload is generated" \
	"$GEN" hang --fatbin "$tmp/k.fatbin" -o "$tmp/hang"
# (the watchdog stops it: status and failure; the timeout only turns a
# watchdog that never fires into a failure, 124)
out=$(timeout 600 "$GPUMIX" replay --watchdog 5 -o "$tmp/run" "$tmp/hang" 2>&1); rc=$?
check_eq "the hung replay exits 1" 1 "$rc"
check_eq "status hung" hung "$(field "$tmp/run/manifest" status)"
check_match "the failure names the program, operation and kernel" \
	"program 'spin' made no progress .*trace event [0-9]+.*last kernel launched: '_Z4spinPVj'" \
	"$(field "$tmp/run/manifest" failure)"
check_match "the activity log is complete" '^END	[0-9]+$' \
	"$(tail -1 "$tmp/run/activity.tsv")"
echo "# failure: $(field "$tmp/run/manifest" failure)"

done_testing
