#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix capture on a full disk (a small tmpfs): a clear error, exit 1,
# and a bundle that says it is incomplete and why -- never a bundle that
# claims to be whole. Needs root to mount; skips visibly otherwise.
. "$GPUMIX_TOP/tests/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
mnt=$tmp/disk
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=8m tmpfs "$mnt" 2>/dev/null; then
	rmdir "$mnt"; rm -rf "$tmp"
	skip "cannot mount a small tmpfs (needs root): no full-disk test"
	done_testing
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
E=$GPUMIX_BUILD/tests/capture_emitter

"$GPUMIX" capture -o "$mnt/b" -- "$E" --repeat 20 --vary >/dev/null 2>"$tmp/err"; rc=$?
err=$(cat "$tmp/err")
check_eq "capture on a full disk exits 1" 1 "$rc"
check_match "... says writes failed for lack of space" "writes failed: No space left on device" "$err"
check_match "... says the disk is full" "the disk holding the bundle is full" "$err"
check "... the bundle is under its name with a manifest" test -f "$mnt/b/manifest"
check_match "... marked incomplete" "^complete = no" "$(cat "$mnt/b/manifest")"
check_match "... with the lost payloads counted" "^loss.blob_failures = [1-9]" "$(cat "$mnt/b/manifest")"
out=$("$GPUMIX" trace check "$mnt/b" 2>&1); rc=$?
check_eq "... a strict read refuses it" 1 "$rc"
check_match "... as incomplete, because of the full disk" "^error: bundle '$mnt/b' is incomplete: .*the disk holding the bundle is full" "$out"
out=$("$GPUMIX" trace info "$mnt/b" 2>&1); rc=$?
check_match "... trace info shows the losses" "^losses: [1-9]" "$out"
check "no temporary directory is left" test -z "$(ls -d "$mnt"/b.tmp-* 2>/dev/null)"
done_testing
