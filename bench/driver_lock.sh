#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Does one program's device-to-host copy into pageable memory hold up
# another program's driver calls? (needs a GPU; doc/results/
# cuda-starvation.md). Runs build/bench/driver-lock for every placement
# of the two parties (threads of one context, as gpumix's in-process
# variants run programs; two contexts of one process; two processes) and
# every destination of the copier's copies (fresh pages, resident pages,
# page-locked memory), plus the victim alone, and prints each victim
# call's median and maximum. GPUMIX_LOCK_MIB sets the copy size (128).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
probe=$GPUMIX_BUILD/bench/driver-lock
mib=${GPUMIX_LOCK_MIB:-128}
if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "driver_lock bench: no GPU, skipped"
	exit 0
fi
echo "| placement | copier's destination | victim call | median us | p90 us | max us |"
echo "| --- | --- | --- | ---: | ---: | ---: |"
run() {
	timeout 120 "$probe" "$@" "$mib" 2>"${TMPDIR:-/tmp}/driver_lock.err" |
		awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $5, $8, $11 }'
	sed 's/^/# /' "${TMPDIR:-/tmp}/driver_lock.err" >&2
}
run thread none
for placement in thread ctx proc; do
	for dest in fresh warm pinned; do
		run "$placement" "$dest"
	done
done
