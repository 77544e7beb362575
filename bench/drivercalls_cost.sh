#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What timing every driver call of the replay costs (replay/drvcalls.h,
# drivercalls.tsv in doc/run-directory.md): build/bench/drivercalls-cost
# times the instrumentation around an empty call with and without the
# thread's table. No GPU needed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
"$GPUMIX_BUILD/bench/drivercalls-cost"
