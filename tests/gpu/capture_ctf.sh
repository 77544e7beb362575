#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU: the CTF of a real capture names its calls for other tools:
# babeltrace2 prints each enter event's `api` as the driver call's name
# (vecadd_shared: the CUDA runtime's calls; driver_api: the program's
# own), the same calls gpumix trace dump lists, in order.
. "$GPUMIX_TOP/tests/lib.sh"
require_gpu
scratch_dir
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

for n in vecadd_shared driver_api; do
	"$GPUMIX" capture -o "$tmp/$n" -- "$T/$n" >/dev/null 2>"$tmp/$n.err"; rc=$?
	check_eq "$n: capture exits 0" 0 "$rc"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/$n.err"
	babeltrace2 "$tmp/$n/ctf" 2>/dev/null |
		sed -n 's/.*gpumix_capture:enter: .* api = ( "\([A-Za-z0-9_]*\)" : container = [0-9]* ).*/\1/p' \
		>"$tmp/$n.bt"
	"$GPUMIX" trace dump "$tmp/$n" |
		sed -n 's/^#[0-9]* [0-9.]* [0-9]*:[0-9]* \(cu[A-Za-z0-9_]*\)(.*/\1/p' \
		>"$tmp/$n.dump"
	check "$n: babeltrace2 names calls" test -s "$tmp/$n.bt"
	check "$n: ... the calls gpumix trace dump lists, in order" \
		cmp -s "$tmp/$n.bt" "$tmp/$n.dump"
	check "$n: ... a kernel launch among them" grep -q '^cuLaunchKernel' "$tmp/$n.bt"
done
check "driver_api: ... and its host-to-device copy" \
	grep -q '^cuMemcpyHtoD_v2$' "$tmp/driver_api.bt"

done_testing
