#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Generated replay programs: golden output (tests/data/codegen/*.c, with
# symbolic ids instead of addresses; GPUMIX_UPDATE_GOLDEN=1 rewrites them),
# byte-identical output on a second run, warning-free C, and a program that
# compiles and links against libgpumix-replay with the real CUDA headers
# and libraries (the stub libcuda for linking) through `gpumix replay
# --build-only`.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
DATA=$GPUMIX_TOP/tests/data/codegen
scratch_dir >/dev/null	# (works with both scratch_dir versions)
tmp=$_scratch

for scenario in tiny hang; do
	check "gen-workload $scenario" \
		"$GEN" $scenario --fatbin "$DATA/dummy.fatbin" -o "$tmp/$scenario" 2>/dev/null
	if [ "${GPUMIX_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/$scenario/replay.c" "$DATA/$scenario.c"
	fi
	check "$scenario: generated C matches the golden file" \
		cmp "$DATA/$scenario.c" "$tmp/$scenario/replay.c"
	"$GEN" $scenario --fatbin "$DATA/dummy.fatbin" -o "$tmp/$scenario.2" 2>/dev/null
	check "$scenario: a second run gives the same bytes" \
		cmp "$tmp/$scenario/replay.c" "$tmp/$scenario.2/replay.c"
	check "$scenario: and the same manifest" \
		cmp "$tmp/$scenario/manifest" "$tmp/$scenario.2/manifest"
	check_eq "$scenario: and the same data files" \
		"$(cd "$tmp/$scenario" && find blobs modules -type f | sort)" \
		"$(cd "$tmp/$scenario.2" && find blobs modules -type f | sort)"
done

check_match "no raw device address in the golden file (but allocations' captured ones)" '^0$' \
	"$(grep -v 'GM_ALLOC(' "$DATA/tiny.c" | grep -ciE '0x7f[0-9a-f]{10}')"
check_match "every operation row carries its trace event" '^0$' \
	"$(grep -E '^	GM_' "$DATA/tiny.c" | wc -l | tr -d ' ')"

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
check "generated C compiles without warnings (-Wall -Wextra -Werror)" \
	cc -std=c11 -Wall -Wextra -Werror -I"$GPUMIX_TOP/replay" \
	-I"$CUDA_HOME/include" -c -o "$tmp/tiny.o" "$tmp/tiny/replay.c"

out=$("$GPUMIX" replay --build-only "$tmp/tiny" 2>&1)
check "gpumix replay --build-only builds and links it" test -x "$tmp/tiny/replay"
check_match "it needs the CUDA driver and CUPTI at run time" \
	'libcuda\.so\.1.*libcupti|libcupti.*libcuda\.so\.1' \
	"$(readelf -d "$tmp/tiny/replay" | grep NEEDED | tr '\n' ' ')"
out=$("$GPUMIX" replay --build-only "$tmp/tiny" 2>&1)
check_eq "an up-to-date program is not rebuilt" "" "$out"
out=$("$GPUMIX" replay --build-only --rebuild "$tmp/tiny" 2>&1)
check_match "--rebuild builds again" "building" "$out"

printf 'int x = ;\n' >> "$tmp/hang/replay.c"
out=$("$GPUMIX" replay --build-only "$tmp/hang" 2>&1); rc=$?
check_eq "a broken replay.c fails" 1 "$rc"
check_match "naming the source" "cannot build the replay program '.*hang/replay.c'" "$out"

out=$("$GPUMIX" replay "$tmp" 2>&1); rc=$?
check_eq "not a replay directory: error" 1 "$rc"
check_match "with the reason" "is not a replay program directory" "$out"
out=$("$GPUMIX" replay 2>&1); rc=$?
check_eq "no directory: usage error" 2 "$rc"
out=$("$GPUMIX" replay --min-replays 1 "$tmp/tiny" 2>&1); rc=$?
check_eq "--min-replays 1: usage error" 2 "$rc"
check_match "explained, with its bounds" \
	"^error: --min-replays takes an integer from 2 to 1000 \(each program's last replay is discarded\), not '1'$" "$out"
out=$("$GPUMIX" replay --min-replays 1001 "$tmp/tiny" 2>&1); rc=$?
check_eq "--min-replays 1001: usage error" 2 "$rc"
check_match "... saying the bound it passed" "from 2 to 1000 .*, not '1001'$" "$out"
# A host without the CUDA driver: the program cannot start (the loader
# exits 127), and gpumix says which library is missing, not only the
# exit status. (Skipped where the system has a driver.)
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	skip "this host has libcuda.so.1: no host without a driver to mimic"
else
	out=$(LD_LIBRARY_PATH= "$GPUMIX" replay --min-replays 2 \
		-o "$tmp/run-nodriver" "$tmp/tiny" 2>&1); rc=$?
	check_eq "no CUDA driver: exit 1" 1 "$rc"
	check_match "... the library named" \
		"caused by: the CUDA driver library 'libcuda.so.1' cannot be loaded" "$out"
	check_match "... and what it means" \
		"the replay program could not start: this host has no NVIDIA driver" "$out"
fi
out=$("$GPUMIX" replay --bogus "$tmp/tiny" 2>&1); rc=$?
check_eq "unknown option: usage error" 2 "$rc"
check_match "gpumix replay --help" "usage: gpumix replay" "$("$GPUMIX" replay --help)"

done_testing
