#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Kernel handles a program gets through paths CUPTI does not trace (as
# cuFFT and CuPy's FFT plans do, through the driver's export table),
# capture to replay on a CPU: kernels-emitter (tests/tools/
# kernels_emitter.c) runs on the mock CUDA driver under `gpumix capture`
# through the real CUPTI subscriber, with some of its driver calls unseen.
# A kernel fetched unseen and then given to a recorded call
# (cuKernelGetFunction, an attribute) is named before that call (a
# layout event with its name and library): before, reconstruct failed
# with "unknown kernel"; a function fetched unseen is named at its first
# launch through its module's library. The bundle replays verified on
# the mock. A kernel of a library loaded unseen cannot be replayed: the
# capture reports the loss unnamed_kernels and exits 1.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=$tmp/kernels

out=$("$GPUMIX" -q capture -o "$B" -- "$GPUMIX_BUILD/tests/kernels-emitter" 2>&1); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "the program's own checks passed on the mock" "kernels-emitter: ok" "$out"
check_eq "nothing lost" 0 "$(field "$B/manifest" loss.unnamed_kernels)"
dump=$("$GPUMIX" trace dump --events "$B" 2>&1)
check_match "the kernel fetched unseen is named before the call that takes it" \
	"layout _Z5scalePjPKjjj .* isKernel=1 .*
.* enter cuKernelGetFunction" "$dump"
check_match "the function fetched unseen is named at its first launch, with its library" \
	"layout _Z4incr4span .* isKernel=0 module=$(sed -n 's/.*exit cuLibraryLoadData(library=0x\([0-9a-f]*\).*/\1/p' <<<"$dump" | head -1 | xargs -I{} printf '%d' 0x{}) " \
	"$dump"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	[ "$v" = cuda ] && check_match "cuda: two kernels, named" \
		"^program 'kernels': [0-9]+ operations \(4 launches of 2 kernels" "$rec"
	out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok "$(field "$tmp/run.$v/manifest" status)"
done
unset LD_LIBRARY_PATH

out=$("$GPUMIX" -q capture -o "$tmp/unseen" -- "$GPUMIX_BUILD/tests/kernels-emitter" \
	--unseen-library 2>&1); rc=$?
check_eq "a library loaded unseen: capture exits 1" 1 "$rc"
check_match "... saying its kernels cannot be named" \
	"error: the capture lost data \([0-9]+\): [0-9]+ kernels the trace cannot name" "$out"

done_testing
