#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: the main job. Runs the demo study (workloads/demo.yaml) end to
# end on the GPU: captures three suite programs, reconstructs each program
# and each of their three pairs once, replays each program alone (single)
# and each pair sharing the GPU (cuda, nss, elastic), every run 3 times
# (repeats, the default), loads every run into
# results/demo/results.db and writes the report to
# results/demo/report/. Resumable: run it again to continue or to reuse
# what is done. Without a GPU it says so, names make demo-mock, and fails.
#
# make demo-mock (--mock): workloads/demo-mock.yaml on the tests' mock
# CUDA driver, any machine: the same kind of outputs, the mock's times.
set -u
B=${GPUMIX_BUILD:-build}
if [ "${1:-}" = --mock ]; then
	LD_LIBRARY_PATH=$B/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
	"$B/gpumix" run workloads/demo-mock.yaml
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "demo-mock: open results/demo-mock/report/index.html in a browser" \
		     "(the mock driver's times, not a GPU's); summary in" \
		     "results/demo-mock/summary.md"
	fi
	exit $rc
fi
if ! "$B/tests/has-gpu" >/dev/null 2>&1; then
	echo "make demo needs an NVIDIA GPU and none was found on this machine." >&2
	echo "To see what a study gives without one: 'make demo-mock' runs the" >&2
	echo "same kind of study on the tests' mock CUDA driver in seconds" >&2
	echo "(report in results/demo-mock/report/index.html, the mock's times);" >&2
	echo "reports of real studies on an H100 are in doc/results/ (start at" >&2
	echo "doc/results/parboil-pairs/README.md). 'make check' runs the tests." >&2
	exit 1
fi
"$B/gpumix" run workloads/demo.yaml
rc=$?
if [ $rc -eq 0 ]; then
	echo "demo: summary in results/demo/summary.md, report in" \
	     "results/demo/report/index.html (and index.md)"
fi
exit $rc
