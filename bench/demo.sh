#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the main job. Runs the demo study (workloads/demo.yaml) end to
# end on the GPU: captures three suite programs, reconstructs each program
# and each of their three pairs once, replays each program alone (single)
# and each pair sharing the GPU (cuda, nss, elastic), every run 3 times
# (repeats, the default), loads every run into
# results/demo/results.db and writes the report to
# results/demo/report/. Resumable: run it again to continue or to reuse
# what is done. Without a GPU it says so and fails.
set -u
B=${GPUMIX_BUILD:-build}
if ! "$B/tests/has-gpu" >/dev/null 2>&1; then
	echo "make demo needs an NVIDIA GPU and none was found on this machine" >&2
	echo "(run 'make check' for the CPU-side tests)" >&2
	exit 1
fi
"$B/gpumix" run workloads/demo.yaml
rc=$?
if [ $rc -eq 0 ]; then
	echo "demo: summary in results/demo/summary.md, report in results/demo/report/index.md"
fi
exit $rc
