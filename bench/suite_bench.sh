# SPDX-License-Identifier: MIT
# Sourced by the benchmarks that capture and replay the suite programs
# (replay_fidelity.sh, elastic_replay.sh) after they set BENCH_NAME: the
# paths, TAP-like ok/not_ok that only report failures, the suite bundle
# helpers, and a visible skip without a GPU.
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
GPUMIX=$GPUMIX_BUILD/gpumix
ok() { :; }
not_ok() { echo "$BENCH_NAME: $*" >&2; status=1; }
. "$GPUMIX_TOP/tests/suite_bundles.sh"
status=0

if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "$BENCH_NAME: SKIPPED (no GPU on this machine)"
	exit 0
fi
