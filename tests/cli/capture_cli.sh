#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix capture from the command line, with the GPU-less emitter as the
# program: usage errors, pass-through of the program's output and exit
# status, refusal to overwrite, --force, a program that cannot start, the
# default bundle name, a program killed mid-capture.
. "$GPUMIX_TOP/tests/lib.sh"
# (scratch_dir in $(...) would remove the directory when its subshell exits)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
E=$GPUMIX_BUILD/tests/capture_emitter
# What one thread of the emitter's sequence holds.
eval "$("$E" --count)"	# events= calls= launches=

out=$("$GPUMIX" capture 2>&1); rc=$?
check_eq "no program: usage error" 2 "$rc"
check_match "... says so" "no program to capture" "$out"
out=$("$GPUMIX" capture --bogus -- true 2>&1); rc=$?
check_eq "unknown option: usage error" 2 "$rc"
check_match "... names it" "unknown option '--bogus'" "$out"
out=$("$GPUMIX" capture --subbuf-size=12 -- true 2>&1); rc=$?
check_eq "bad sub-buffer size: usage error" 2 "$rc"
out=$("$GPUMIX" capture --help); rc=$?
check_eq "--help exits 0" 0 "$rc"
check_match "--help prints the usage on stdout" "^usage: gpumix capture" "$out"
check_match "--help documents the exit status" "exit status" "$out"
out=$("$GPUMIX" help capture); rc=$?
check_eq "gpumix help capture exits 0" 0 "$rc"
out=$("$GPUMIX" --help)
check_match "capture is in the command list" "capture +run a program and record its CUDA calls" "$out"
check_match "trace is in the command list" "trace +inspect a bundle" "$out"

# The program's stdout and stderr pass through; gpumix adds one line on stderr.
out=$("$GPUMIX" capture -o "$tmp/a" -- "$E" 2>"$tmp/err"); rc=$?
check_eq "a good capture exits 0" 0 "$rc"
check_eq "the program's stdout passes through unchanged" \
	"capture_emitter: 1 threads, $events events each" "$out"
check_match "one summary line on stderr" "^gpumix: captured $calls calls, $launches kernel launches, $events events from 1 process into '$tmp/a'" "$(cat "$tmp/err")"
check_eq "nothing else on stderr" 1 "$(wc -l <"$tmp/err" | tr -d ' ')"
check "the bundle has a manifest" test -f "$tmp/a/manifest"
check "no temporary directory is left" test -z "$(ls -d "$tmp"/a.tmp-* 2>/dev/null)"
out=$("$GPUMIX" -q capture -o "$tmp/q" -- "$E" 2>&1 >/dev/null); rc=$?
check_eq "-q: no summary line" "" "$out"

before=$(stat -c %Y "$tmp/a/manifest")
out=$("$GPUMIX" capture -o "$tmp/a" -- "$E" 2>&1); rc=$?
check_eq "an existing bundle is not overwritten" 1 "$rc"
check_match "... error says so" "^error: '$tmp/a' already exists" "$out"
check_match "... hint names --force" "^hint: use --force" "$out"
check_eq "... the old bundle is untouched" "$before" "$(stat -c %Y "$tmp/a/manifest")"
sleep 1
out=$("$GPUMIX" -q capture --force -o "$tmp/a" -- "$E" 2>&1); rc=$?
check_eq "--force replaces it" 0 "$rc"
check "... with a new manifest" test "$(stat -c %Y "$tmp/a/manifest")" != "$before"
check "... and no leftovers" test -z "$(ls -d "$tmp"/a.old-* "$tmp"/a.tmp-* 2>/dev/null)"

out=$("$GPUMIX" capture -o "$tmp/nf" -- "$tmp/does-not-exist" 2>&1); rc=$?
check_eq "a program that cannot start: exit 1" 1 "$rc"
check_match "... with the reason" "^error: cannot run '$tmp/does-not-exist': No such file or directory" "$out"
check "... and no bundle" test ! -e "$tmp/nf"
check "... and no temporary directory" test -z "$(ls -d "$tmp"/nf.tmp-* 2>/dev/null)"

echo junk >"$tmp/bad.so"
out=$(GPUMIX_CAPTURE_LIB=$tmp/bad.so "$GPUMIX" capture -o "$tmp/badlib" -- "$E" 2>&1); rc=$?
check_eq "a capture library that cannot load: exit 1" 1 "$rc"
check_match "... says why, before running anything" "^error: cannot load the capture library '$tmp/bad.so': .*file too short$" "$out"
check "... and leaves nothing" test ! -e "$tmp/badlib"
out=$(GPUMIX_CAPTURE_LIB=$GPUMIX_BUILD/tests/mock/libnvidia-ml.so.1 "$GPUMIX" capture -o "$tmp/badlib" -- "$E" 2>&1); rc=$?
check_eq "a library that loads but is no injection library: exit 1" 1 "$rc"
check_match "... says so" "^error: cannot load the capture library '.*libnvidia-ml.so.1': no InitializeInjection$" "$out"
# The program's own input, environment and ignored signals
out=$(echo hello | "$GPUMIX" -q capture -o "$tmp/in" -- sh -c 'read x; echo "[$x]"' 2>/dev/null)
check_eq "the program reads gpumix's input" "[hello]" "$out"
out=$(LTTNG_UST_ALLOW_BLOCKING=0 "$GPUMIX" -q capture -o "$tmp/env" -- sh -c \
	'echo "$CUDA_INJECTION64_PATH $GPUMIX_CAPTURE_DIR $LTTNG_UST_ALLOW_BLOCKING"' 2>/dev/null)
check_match "it gets the injection library, the bundle and LTTng's variables" \
	"^/[^ ]*/libgpumix-capture[^ ]*\.so $tmp/env\.tmp-[0-9]+ 1\$" "$out"
out=$(trap '' HUP; "$GPUMIX" -q capture -o "$tmp/ign" -- sh -c 'kill -HUP $$; echo alive' 2>/dev/null); rc=$?
check_eq "a signal ignored when gpumix started stays ignored in the program" "0 alive" "$rc $out"
out=$("$GPUMIX" capture -o "$tmp/nocuda" -- true 2>&1); rc=$?
check_eq "a program without CUDA: exit 0" 0 "$rc"
check_match "... with a warning that nothing was recorded" "^warning: 'true' made no CUDA driver calls" "$out"

"$GPUMIX" -q capture -o "$tmp/x3" -- "$E" --exit 3 >/dev/null 2>&1; rc=$?
check_eq "the program's exit status passes through" 3 "$rc"
check_match "... and its bundle is complete" "^complete = yes" "$(cat "$tmp/x3/manifest")"

(cd "$tmp" && "$GPUMIX" -q capture -- "$E" >/dev/null 2>&1); rc=$?
check_eq "default bundle name works" 0 "$rc"
check "... it is traces/<program>" test -f "$tmp/traces/capture_emitter/manifest"

# A program killed mid-capture: the bundle is readable and marked incomplete.
"$GPUMIX" capture -o "$tmp/killed" -- "$E" --hang-after 40 >/dev/null 2>"$tmp/kerr" &
gp=$!
counts=
while kill -0 "$gp" 2>/dev/null; do	# (as long as it takes)
	counts=$(ls "$tmp"/killed.tmp-*/procs/*.counts 2>/dev/null | head -1)
	[ -n "$counts" ] && grep -q "waiting to be killed" "$tmp/kerr" && break
	sleep 0.05
done
epid=$(basename "${counts:-none}" .counts)
if [ -n "$counts" ]; then kill -9 "$epid"; fi
wait "$gp"; rc=$?
check_eq "a killed program: capture exits 1" 1 "$rc"
check_match "... and says the bundle is incomplete" \
	"^error: the bundle is incomplete: the program was killed by signal 9; process $epid did not exit normally" \
	"$(cat "$tmp/kerr")"
check_match "... manifest: complete = no" "^complete = no" "$(cat "$tmp/killed/manifest")"
out=$("$GPUMIX" trace info "$tmp/killed"); rc=$?
check_eq "... trace info still reads it" 0 "$rc"
check_match "... and shows the 40 events it holds" "^events: 40 " "$out"
"$GPUMIX" trace losses "$tmp/killed" >/dev/null; rc=$?
check_eq "... trace losses exits 1" 1 "$rc"
out=$("$GPUMIX" trace check "$tmp/killed" 2>&1); rc=$?
check_eq "... a strict read refuses it" 1 "$rc"
check_match "... because it is incomplete" "^error: bundle '$tmp/killed' is incomplete: the program was killed by signal 9" "$out"
# Killed while it emits as fast as it can: the sub-buffer it was writing
# may be lost (doc/gpumix-capture.md), but never silently: what the
# bundle holds and what it counts as missing add up to what was emitted.
"$GPUMIX" capture -o "$tmp/killed2" -- "$E" --repeat 100000 >/dev/null 2>"$tmp/kerr2" &
gp=$!
counts=
while kill -0 "$gp" 2>/dev/null; do	# (as long as it takes)
	counts=$(ls "$tmp"/killed2.tmp-*/procs/*.counts 2>/dev/null | head -1)
	[ -n "$counts" ] && break
	sleep 0.01
done
[ -n "$counts" ] && kill -9 "$(basename "$counts" .counts)"
wait "$gp"; rc=$?
check_eq "killed mid-stream: capture exits 1" 1 "$rc"
out=$("$GPUMIX" trace info "$tmp/killed2" 2>&1)
check_match "... the bundle is readable and incomplete" "^complete: no " "$out"
check "... what it holds and what it counts as missing add up to what was emitted" \
	awk '/^events: emitted=/ { split($0, f, /[= ]/); e = f[3]; h = f[5]; m = f[7]; ok = e > 0 && h + m == e } END { exit !ok }' <<<"$out"
# Interrupted: a SIGTERM sent to gpumix reaches the program; exit 130.
# (A background job ignores SIGINT, so the test uses SIGTERM.)
"$GPUMIX" capture -o "$tmp/int" -- "$E" --mini --hang-after 0 >/dev/null 2>"$tmp/ierr" &
gp=$!
while kill -0 "$gp" 2>/dev/null; do	# (as long as it takes)
	grep -q "waiting to be killed" "$tmp/ierr" && break
	sleep 0.05
done
kill -TERM "$gp"
wait "$gp"; rc=$?
check_eq "an interrupted capture exits 130" 130 "$rc"
check_match "... the bundle says why" "^incomplete = the program was killed by signal 15; the capture was interrupted" \
	"$(cat "$tmp/int/manifest")"
# ---- processes the program leaves running ----
out=$("$GPUMIX" capture -o "$tmp/orphan" -- "$E" --orphan 700 2>&1); rc=$?
check_eq "a child still running when the program exits is waited for" 0 "$rc"
check_match "... saying so" "^gpumix: the program exited; waiting for 1 process it started$" "$out"
info=$("$GPUMIX" trace info "$tmp/orphan" 2>&1)
check_match "... and its events are in the bundle" "^processes: 2$" "$info"
check_match "... all of them" "^losses: 0$" "$info"
out=$("$GPUMIX" capture --wait-children=0.1 -o "$tmp/orphan2" -- "$E" --orphan 1500 2>&1); rc=$?
check_eq "one still running after --wait-children: exit 1" 1 "$rc"
check_match "... named, with what it means" \
	"^gpumix: process [0-9]+, started by '$E', was still running 0.1 s after it exited: what it did later is not in the bundle$" "$out"
check_match "... and the bundle is incomplete" \
	"^error: the bundle is incomplete: 1 process started by the program was still running when the capture stopped$" "$out"
sleep 1.6	# let it finish before the bundle is removed
out=$("$GPUMIX" capture --wait-children=-1 -- true 2>&1); rc=$?
check_eq "a bad --wait-children is a usage error" 2 "$rc"
check_match "... naming it" "bad waiting time '-1'" "$out"
done_testing
