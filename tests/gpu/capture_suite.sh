#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU: capture every Parboil-style suite program. Each must still print
# PASS under capture, the capture must be complete and loss-free and pass
# `gpumix trace check`, its launch counts must equal the program's own
# (-r prints "resource kernel=NAME ... launches=N"), and the bytes the
# recorded calls moved must equal what CUPTI saw the GPU copy.
#   GPUMIX_CAPTURE_SUITE="bfs mm"  restricts the programs
#   GPUMIX_CAPTURE_KEEP=DIR        keeps the bundles in DIR
. "$GPUMIX_TOP/tests/lib.sh"
require_gpu
tmp=${GPUMIX_CAPTURE_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")}
mkdir -p "$tmp"
[ -n "${GPUMIX_CAPTURE_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
P=$GPUMIX_BUILD/workloads/parboil

field() { sed -n "s/.*[ ^]$1=\([0-9]*\).*/\1/p" | head -1; }

for p in ${GPUMIX_CAPTURE_SUITE:-bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf}; do
	exe=$P/$p
	if [ ! -x "$exe" ]; then
		not_ok "$p: $exe is built (make parboil)"
		continue
	fi
	out=$("$GPUMIX" capture -o "$tmp/$p" -- "$exe" -r 2>"$tmp/$p.err"); rc=$?
	check_eq "$p: capture exits 0" 0 "$rc"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/$p.err"
	check_match "$p: PASS under capture" "^PASS $p" "$out"
	info=$("$GPUMIX" trace info "$tmp/$p" 2>&1)
	check_match "$p: bundle complete" "^complete: yes$" "$info"
	check_match "$p: no losses" "^losses: 0$" "$info"
	check_eq "$p: no unsupported calls" "  none" "$(grep -A1 '^unsupported calls:' <<<"$info" | tail -1)"
	chk=$("$GPUMIX" trace check "$tmp/$p" 2>&1); rc=$?
	check_eq "$p: trace check passes" 0 "$rc"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' <<<"$chk"

	# The program's code: the whole fatbin (SASS and PTX) behind the
	# runtime's fatbin wrapper.
	fat=$(ls "$tmp/$p"/modules/*.fatbin 2>/dev/null | head -1)
	check "$p: a fatbin image is stored" test -n "$fat"
	[ -n "$fat" ] && check_eq "$p: ... it starts with the fatbin magic" \
		"ba55ed50" "$(od -An -tx4 -N4 "$fat" | tr -d ' ')"

	# Launch counts: the total, then kernel by kernel.
	want=$(grep '^resource ' <<<"$out" | sed -n 's/.* launches=\([0-9]*\).*/\1/p' |
		awk '{s += $1} END {print s + 0}')
	got=$(sed -n 's/^kernels: [0-9]*, launches: \([0-9]*\)$/\1/p' <<<"$info")
	check_eq "$p: launches equal the program's own count" "$want" "$got"
	while read -r line; do
		name=$(sed -n 's/.*kernel=\([^ ]*\).*/\1/p' <<<"$line")
		n=$(field launches <<<"$line")
		k=$(grep -E "^kernel ($name|_Z[0-9]+$name([A-Z].*)?) " <<<"$info" | head -1)
		if [ -z "$k" ]; then
			echo "# $p: kernel '$name' not found by name in the bundle"
			continue
		fi
		check_eq "$p: kernel $name launched $n times" "$n" "$(field launches <<<"$k")"
		check_match "$p: kernel $name has GPU time" "gpu_runs=$n " "$k"
	done < <(grep '^resource ' <<<"$out")

	# Bytes: recorded call arguments vs CUPTI's memcpy records.
	api_h2d=$(grep '^  h2d_bytes=' <<<"$info" | field h2d_bytes)
	api_d2h=$(grep '^  d2h_bytes=' <<<"$info" | field d2h_bytes)
	act=$(grep -A1 '^GPU activity' <<<"$info" | tail -1)
	check_eq "$p: host-to-device bytes (calls = GPU)" "$(field h2d_bytes <<<"$act")" "$api_h2d"
	check_eq "$p: device-to-host bytes (calls = GPU)" "$(field d2h_bytes <<<"$act")" "$api_d2h"
	check_match "$p: every device-to-host result is hashed" "d2h_result_hashes=[1-9]" "$info"
done
done_testing
