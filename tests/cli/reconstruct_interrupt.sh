#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix reconstruct interrupted (SIGINT) while it reads a big bundle
# (400k calls from recon-emitter through the real capture path): exit 130,
# "interrupted", and no output directory, whole or partial.
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
"$GPUMIX" -q capture -o "$tmp/big" -- "$GPUMIX_BUILD/tests/recon-emitter" \
	bench --calls 400000 >/dev/null 2>&1
check "a 400k-call bundle is captured" test -f "$tmp/big/manifest"
"$GPUMIX" reconstruct --variant single -o "$tmp/out" "$tmp/big" 2>"$tmp/err" &
pid=$!
# SIGINT once gpumix catches SIGINT (SigCgt: it installs its handler just
# before it reads the bundle), not after some time, which a loaded
# machine may spend before it gets there; and gpumix, not the shell's
# child before its exec (which may catch SIGINT too, and die of it
# before it opened the error file).
exe=$(readlink -f "$GPUMIX")
catches_int() {
	local m
	[ "$(readlink -f "/proc/$1/exe" 2>/dev/null)" = "$exe" ] || return 1
	m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && (( (16#$m >> 1) & 1 ))
}
while kill -0 "$pid" 2>/dev/null && ! catches_int "$pid"; do
	sleep 0.01
done
kill -INT "$pid"
wait "$pid"
rc=$?
check_eq "interrupted: exit 130" 130 "$rc"
check_match "interrupted: says so" "^error: interrupted: nothing written$" "$(cat "$tmp/err")"
check_eq "interrupted: no output, whole or partial" "" "$(ls -d "$tmp"/out* 2>/dev/null)"
done_testing
