#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A program whose own CUDA calls fail (recon-emitter fault: a kernel with
# a bad pointer, then a copy and a free that return 700, as on a GPU,
# after an out-of-memory allocation), captured through the real capture
# path: the capture warns, naming the first failing call, its event and
# its error; the manifest says so; `gpumix reconstruct` refuses the bundle
# with that reason unless given --allow-failed-calls; `trace info` shows
# it. A program whose only failure is an allocation that did not fit is
# told apart (a warning, reconstructed).
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
E=$GPUMIX_BUILD/tests/recon-emitter

out=$("$GPUMIX" capture -o "$tmp/f" -- "$E" fault 2>&1 >/dev/null); rc=$?
check_eq "a program whose calls failed: the capture's status is its own (0)" 0 "$rc"
check "... the bundle is written" test -f "$tmp/f/manifest"
ev=$("$GPUMIX" trace dump "$tmp/f" | sed -n 's/^#\([0-9]*\) .*cuMemcpyDtoH_v2(.*= 700.*/\1/p')
check_match "the dump shows the failed copy" '^[0-9]+$' "$ev"
check_match "the capture warns, naming the first error, its event and code" \
	"warning: 3 CUDA calls of the program failed; the first error: event $ev \(cuMemcpyDtoH_v2\) returned 700 CUDA_ERROR_ILLEGAL_ADDRESS \(gpumix reconstruct refuses the bundle unless given --allow-failed-calls\)" \
	"$out"
m=$tmp/f/manifest
check_eq "manifest: failed_calls" 3 "$(sed -n 's/^failed_calls = //p' "$m")"
check_match "manifest: failed_calls.first (the out-of-memory allocation)" \
	'^[0-9]+ cuMemAlloc_v2 2 CUDA_ERROR_OUT_OF_MEMORY$' \
	"$(sed -n 's/^failed_calls.first = //p' "$m")"
check_eq "manifest: failed_calls.errors" 2 "$(sed -n 's/^failed_calls.errors = //p' "$m")"
check_eq "manifest: failed_calls.first_error" \
	"$ev cuMemcpyDtoH_v2 700 CUDA_ERROR_ILLEGAL_ADDRESS" \
	"$(sed -n 's/^failed_calls.first_error = //p' "$m")"
check "the bundle passes trace check (it is complete and loss-free)" \
	"$GPUMIX" trace check "$tmp/f"
out=$("$GPUMIX" trace info "$tmp/f")
check_match "trace info: the first error" \
	"first error: event $ev \(cuMemcpyDtoH_v2\) returned 700 CUDA_ERROR_ILLEGAL_ADDRESS" "$out"

out=$("$GPUMIX" reconstruct -o "$tmp/r" "$tmp/f" 2>&1); rc=$?
check_eq "reconstruct refuses it" 1 "$rc"
check_match "... with the reason" \
	"program 'f' failed: 2 of its CUDA calls returned an error, the first at event [0-9]+ \(cuMemcpyDtoH_v2 returned 700 CUDA_ERROR_ILLEGAL_ADDRESS\)" \
	"$out"
check_match "... and the way out" "hint: --allow-failed-calls" "$out"
check "... writing nothing" test ! -e "$tmp/r"
out=$("$GPUMIX" reconstruct --allow-failed-calls -o "$tmp/r" "$tmp/f" 2>&1); rc=$?
check_eq "--allow-failed-calls: reconstructed" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
check_match "... the failed calls are warnings" \
	"cuMemcpyDtoH_v2 \(1 call\) returned an error" "$out"

# Only an allocation that did not fit (basic): a warning, reconstructed.
out=$("$GPUMIX" capture -o "$tmp/b" -- "$E" basic 2>&1 >/dev/null); rc=$?
check_eq "basic (one out-of-memory allocation): capture exits 0" 0 "$rc"
check_match "... warns that a replay skips it" \
	"warning: 1 CUDA call of the program failed with errors a working program meets \(the first: event [0-9]+ \(cuMemAlloc_v2\) returned 2 CUDA_ERROR_OUT_OF_MEMORY\); a replay skips them" \
	"$out"
check_eq "... no failed_calls.errors in its manifest" "" \
	"$(sed -n 's/^failed_calls.errors = //p' "$tmp/b/manifest")"
out=$("$GPUMIX" reconstruct -o "$tmp/rb" "$tmp/b" 2>&1); rc=$?
check_eq "... and it reconstructs" 0 "$rc"

done_testing
