#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Results synchronized through an event, the buffer reused by the next
# round before any stream synchronization (recon-emitter event-reuse,
# through the real capture path, hashed after each event synchronization
# as the capture library does: test_capture_cupti checks that part): the
# replay gives each result not yet verified its own room in its host
# arena until a stream synchronization (reconstruct/model/model.c,
# layout_arena), so reuse in the program does not touch it; replayed on
# the asynchronous mock driver, in both variants, every result verifies.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
scratch_dir
tmp=$_scratch

"$GPUMIX" -q capture -o "$tmp/e" -- "$GPUMIX_BUILD/tests/recon-emitter" event-reuse \
	>/dev/null 2>&1
check "captured" test -f "$tmp/e/manifest"
for v in single cuda; do
	out=$("$GPUMIX" -q reconstruct --variant $v -o "$tmp/r.$v" "$tmp/e" 2>&1); rc=$?
	check_eq "$v: reconstruct exits 0" 0 "$rc"
	check_eq "$v: three results to verify" 3 \
		"$(grep -c '^	"[0-9a-f]\{32\}",' "$tmp/r.$v/replay.c")"
	out=$(LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.$v" \
		"$tmp/r.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok \
		"$(field "$tmp/run.$v/manifest" status)"
done

done_testing
