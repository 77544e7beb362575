#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: until the capture/replay pipeline exists, build and run the
# Parboil-style suite on the GPU and report each program's PASS/FAIL line.
set -u
B=${GPUMIX_BUILD:-build}
if ! "$B/tests/has-gpu" >/dev/null 2>&1; then
	echo "make demo needs an NVIDIA GPU and none was found on this machine" >&2
	echo "(run 'make check' for the CPU-side tests)" >&2
	exit 1
fi
echo "gpumix demo: the pipeline is not complete yet; running the Parboil-style suite"
fail=0
for p in bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf; do
	exe=$B/workloads/parboil/$p
	if [ ! -x "$exe" ]; then
		echo "FAIL $p: not built"; fail=1; continue
	fi
	"$exe" || fail=1
done
[ $fail -eq 0 ] && echo "demo: all programs passed" || echo "demo: some programs failed"
exit $fail
