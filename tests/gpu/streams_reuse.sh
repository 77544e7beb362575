#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: asynchronous device-to-host copies into page-locked memory on
# several streams with events and a reused buffer (tests/gpu/progs/
# streams_reuse.cu: the simpleStreams and asyncAPI patterns). Each round's
# 16 MiB copies land in the same page-locked buffer before the one event
# synchronization, so the capture records the earlier rounds' copies as
# overwritten (no results, doc/bundle-format.md) and the last round's as
# results; the replay verifies every result alone (single) and in a cuda
# pair with a suite program (mm).
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch streams_reuse
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs

out=$("$GPUMIX" capture -o "$tmp/streams_reuse" -- "$T/streams_reuse" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS streams_reuse" "$out"
info=$("$GPUMIX" trace info "$tmp/streams_reuse" 2>&1)
# 5 rounds of 4 copies: 16 overwritten; the copy under the synchronous one
check_match "the earlier rounds' copies are overwritten, no results" \
	"^  d2h_overwritten=17$" "$info"
reconstruct_replay streams_reuse single 2 "$tmp/streams_reuse"
check_match "single: every result verifiable" \
	"program 'streams_reuse': .* 0 results not verifiable, 0 unsupported calls" "$recon_out"
if suite_bundle mm; then
	reconstruct_replay streams_reuse+mm cuda 2 "$tmp/streams_reuse" "$SUITE_CACHE/mm"
fi

done_testing
