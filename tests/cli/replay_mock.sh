#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end replays on a CPU: generated programs run against the mock
# CUDA driver and CUPTI (tests/mock/), which execute the test kernels on
# the host and check every device range. Covers the cuda and single
# variants, repetition, result verification (and its failure, naming the
# program, operation and trace event), nondeterministic programs, the
# watchdog, init failures, dropped CUPTI records and the run directory
# format (doc/run-directory.md).
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null	# (works with both scratch_dir versions)
tmp=$_scratch

. "$GPUMIX_TOP/tests/replay_check.sh"
REPLAY_CHECK_LATENCY=1

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 3 -o "$tmp/run" "$tmp/wl" 2>&1); rc=$?
check_eq "cuda variant, 2 programs: exit 0" 0 "$rc"
check_run "$tmp/run" 2 3
check_eq "variant recorded" cuda "$(field "$tmp/run/manifest" variant)"
check_eq "streams recorded (2 + 2 + 1 of the runtime each)" 6 "$(field "$tmp/run/manifest" streams)"
check_eq "no dropped records" 0 "$(field "$tmp/run/manifest" cupti.dropped_records)"
check "the log is kept" grep -q "replay: ok" "$tmp/run/log"
check_eq "repetition 0 by default" 0 "$(field "$tmp/run/manifest" run.repetition)"
check_eq "no study seed by default" "" "$(field "$tmp/run/manifest" study.seed)"

out=$("$GPUMIX" replay --min-replays 2 --repetition 2 --study-seed 18446744073709551615 -o "$tmp/runrep" "$tmp/wl" 2>&1); rc=$?
check_eq "--repetition and --study-seed: exit 0" 0 "$rc"
check_eq "the repetition is recorded" 2 "$(field "$tmp/runrep/manifest" run.repetition)"
check_eq "and the study's seed" 18446744073709551615 "$(field "$tmp/runrep/manifest" study.seed)"
out=$("$GPUMIX" replay --repetition -1 -o "$tmp/runrepbad" "$tmp/wl" 2>&1); rc=$?
check_eq "a negative repetition is a usage error" 2 "$rc"
check_match "saying what it takes" "repetition takes an integer from 0" "$out"
out=$("$GPUMIX" replay --study-seed 18446744073709551616 -o "$tmp/runrepbad" "$tmp/wl" 2>&1); rc=$?
check_eq "a seed beyond 64 bits is a usage error" 2 "$rc"

out=$("$GPUMIX" replay -o "$tmp/run" "$tmp/wl" 2>&1); rc=$?
check_eq "an existing run directory is not replaced" 1 "$rc"
check_match "unless --force" "already exists" "$out"

"$GEN" tiny --variant single --programs 3 --fatbin "$FATBIN" -o "$tmp/wl1" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run1" "$tmp/wl1" 2>&1); rc=$?
check_eq "single variant, 3 programs: exit 0" 0 "$rc"
check_run "$tmp/run1" 3 2
check_eq "single: each program replays exactly R times" 6 \
	"$(($(wc -l < "$tmp/run1/replays.tsv") - 1))"
check_eq "single: programs run one after another" 0 "$(sort -t'	' -k3,3n \
	"$tmp/run1/replays.tsv" | awk -F'\t' 'NR > 1 && $3 < end { bad++ }
	NR > 1 { end = $4 } END { print bad + 0 }')"

"$GEN" tiny --blocking --cooperative --fatbin "$FATBIN" -o "$tmp/wlb" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/runb" "$tmp/wlb" 2>&1); rc=$?
check_eq "blocking streams and a cooperative launch: exit 0" 0 "$rc"
check_eq "status ok" ok "$(field "$tmp/runb/manifest" status)"

"$GEN" tiny --bad-hash --fatbin "$FATBIN" -o "$tmp/bad" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/runbad" "$tmp/bad" 2>&1); rc=$?
check_eq "a wrong result fails the run" 1 "$rc"
check_eq "status failed" failed "$(field "$tmp/runbad/manifest" status)"
check_match "naming program, operation and trace event" \
	"program 'scale-b': operation 15 \(device-to-host copy, trace event 22\) failed: result differs from the captured run" \
	"$(field "$tmp/runbad/manifest" failure)"
check_match "and gpumix says so" "error: the replay of .* failed" "$out"

"$GEN" tiny --bad-hash --nondeterministic --fatbin "$FATBIN" -o "$tmp/nd" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/runnd" "$tmp/nd" 2>&1); rc=$?
check_eq "a nondeterministic program is not verified" 0 "$rc"
check_eq "and marked so" 0 "$(field "$tmp/runnd/manifest" program.1.deterministic)"

"$GEN" hang --fatbin "$FATBIN" -o "$tmp/hang" 2>/dev/null
# (The watchdog stops it: its status and failure say so. The timeout only
# turns a watchdog that never fires into a failure, 124.)
out=$(timeout 300 "$GPUMIX" replay --watchdog 1 -o "$tmp/runhang" "$tmp/hang" 2>&1); rc=$?
check_eq "a hung replay is stopped: exit 1" 1 "$rc"
check_eq "status hung" hung "$(field "$tmp/runhang/manifest" status)"
# The launch returns at once (the mock driver is asynchronous, as CUDA
# is): the thread hangs in the synchronization after it.
check_match "naming the program, operation, event and kernel" \
	"program 'spin' made no progress .* operation 3 \(context synchronize, trace event 5\); last kernel launched: '_Z4spinPVj' \(operation 2, trace event 4\)" \
	"$(field "$tmp/runhang/manifest" failure)"
check_match "the activity log is complete" '^END	[0-9]+$' "$(tail -1 "$tmp/runhang/activity.tsv")"
check_match "gpumix reports the hang" "hung" "$out"

out=$(MOCK_CUDA_FAIL=cuLibraryGetKernel "$GPUMIX" replay -o "$tmp/runfail" "$tmp/wl" 2>&1); rc=$?
check_eq "an init failure fails the run" 1 "$rc"
check_match "with the reason" "program 'scale-a': init failed: cannot resolve kernel '_Z5scalePjPKjjj'|program 'scale-b': init failed: cannot resolve kernel '_Z5scalePjPKjjj'" \
	"$(field "$tmp/runfail/manifest" failure)"
check_eq "and no replay recorded" 1 "$(wc -l < "$tmp/runfail/replays.tsv")"

out=$(MOCK_CUPTI_DROPPED=5 "$GPUMIX" replay --min-replays 2 -o "$tmp/rundrop" "$tmp/wl" 2>&1); rc=$?
check_eq "dropped CUPTI records are counted" 5 "$(field "$tmp/rundrop/manifest" cupti.dropped_records)"
check_match "and reported" "CUPTI dropped 5 activity records" "$out"

out=$(MOCK_CUPTI_FAIL=1 "$GPUMIX" replay -o "$tmp/runnocupti" "$tmp/wl" 2>&1); rc=$?
check_eq "profiling refused: the run fails" 1 "$rc"
check_match "saying why" "cannot start CUPTI activity profiling" \
	"$(field "$tmp/runnocupti/manifest" failure)"
check_match "with a way out" "hint: .*--no-profile" "$out"

out=$("$GPUMIX" replay --no-profile --min-replays 2 -o "$tmp/runnp" "$tmp/wl" 2>&1); rc=$?
check_eq "--no-profile runs" 0 "$rc"
check_eq "with an empty activity log" "END	0" "$(cat "$tmp/runnp/activity.tsv")"

# -- host pages: each replay gives results fresh pages, but for the copies
# whose captured destination was resident (--warm-result: the synchronous
# one); the mock logs each result's resident pages at its call
"$GEN" tiny --programs 1 --warm-result --fatbin "$FATBIN" -o "$tmp/wlwarm" 2>/dev/null
check "the warm copy is flagged in the generated program" \
	grep -q "GM_F_SYNC | GM_F_HOST_WARM" "$tmp/wlwarm/replay.c"
out=$(MOCK_CUDA_D2H_PAGES=$tmp/pages "$GPUMIX" replay --min-replays 3 -o "$tmp/runwarm" "$tmp/wlwarm" 2>&1); rc=$?
check_eq "a run with a warm result: exit 0" 0 "$rc"
check_eq "the manifest counts the pageable results and the warm one" "2 1" \
	"$(field "$tmp/runwarm/manifest" program.0.d2h_pageable) $(field "$tmp/runwarm/manifest" program.0.d2h_warm)"
check_eq "every replay: the async result into fresh pages, the warm one into resident pages" \
	"3 x 262144 0 64 262144 64 64" \
	"$(paste -d' ' - - <"$tmp/pages" | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1 x /')"
rm -f "$tmp/pages"
out=$(MOCK_CUDA_D2H_PAGES=$tmp/pages "$GPUMIX" replay --warm-host --min-replays 3 -o "$tmp/runwarmh" "$tmp/wlwarm" 2>&1); rc=$?
check_eq "--warm-host: exit 0" 0 "$rc"
check_eq "after the first replay every result lands in resident pages" \
	"2 x 262144 64 64 262144 64 64" \
	"$(sed 1,2d "$tmp/pages" | paste -d' ' - - | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1 x /')"
check_eq "the manifest says so" warm "$(field "$tmp/runwarmh/manifest" host_pages)"

rm -f "$tmp/wl/blobs/"*
out=$("$GPUMIX" replay -o "$tmp/runnoblob" "$tmp/wl" 2>&1); rc=$?
check_eq "missing replay data fails" 1 "$rc"
check_match "naming the file" "cannot load blob 0: cannot open '.*/blobs/[0-9a-f]{32}'" \
	"$(field "$tmp/runnoblob/manifest" failure)"

done_testing
