#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix trace on a fresh capture of the emitter (2 threads, a forked
# child): usage errors, info, dump (one line per call), dump --events
# (one line per event), kernels, losses, check.
. "$GPUMIX_TOP/tests/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
E=$GPUMIX_BUILD/tests/capture_emitter
eval "$("$E" --count)"	# events= calls= launches= of one thread

out=$("$GPUMIX" trace 2>&1); rc=$?
check_eq "no subcommand: usage error" 2 "$rc"
out=$("$GPUMIX" trace frobnicate x 2>&1); rc=$?
check_eq "unknown subcommand: usage error" 2 "$rc"
check_match "... names it" "unknown subcommand 'frobnicate'" "$out"
out=$("$GPUMIX" trace info 2>&1); rc=$?
check_eq "no bundle: usage error" 2 "$rc"
out=$("$GPUMIX" trace info --nope x 2>&1); rc=$?
check_eq "unknown option: usage error" 2 "$rc"
out=$("$GPUMIX" trace --help); rc=$?
check_eq "--help exits 0" 0 "$rc"
check_match "--help lists the subcommands" "^  check " "$out"
out=$("$GPUMIX" trace info "$tmp/nothing" 2>&1); rc=$?
check_eq "a missing bundle: exit 1" 1 "$rc"
check_match "... says so" "^error: bundle '$tmp/nothing' does not exist" "$out"
: >"$tmp/file"
out=$("$GPUMIX" trace info "$tmp/file" 2>&1); rc=$?
check_match "a file is not a bundle" "^error: '$tmp/file' is not a gpumix bundle" "$out"
ln -s loop "$tmp/loop"
out=$("$GPUMIX" trace info "$tmp/loop" 2>&1); rc=$?
check_match "a symbolic link loop is no missing bundle nor a file" \
	"^error: cannot open bundle '$tmp/loop': Too many levels of symbolic links" "$out"

"$GPUMIX" -q capture -o "$tmp/b" -- "$E" --threads 2 --fork >/dev/null 2>&1
check_eq "capture for the trace tests" 0 "$?"
n=$(( 3 * events ))
out=$("$GPUMIX" trace info "$tmp/b"); rc=$?
check_eq "info exits 0" 0 "$rc"
check_match "info: format" "^format: gpumix-bundle 3$" "$out"
check_match "info: complete" "^complete: yes$" "$out"
check_match "info: program" "^program: capture_emitter$" "$out"
check_match "info: processes" "^processes: 2$" "$out"
check_match "info: threads" "^threads: 3$" "$out"
check_match "info: events" "^events: $n " "$out"
check_match "info: calls per API" "^  cuLaunchKernel +3$" "$out"
check_match "info: all launches counted" "^kernels: [0-9]+, launches: $(( 3 * launches ))$" "$out"
check_match "info: kernels with layouts" "^kernel _Z6kernelPfS_i launches=0 params=3 " "$out"
check_match "info: bytes moved" "^  h2d_bytes=[0-9]+ h2d_copies=[0-9]+$" "$out"
check_match "info: blobs stored and deduplicated" "blobs_stored=[1-9][0-9]* .*blobs_deduplicated=[1-9]" "$out"
check_match "info: losses" "^losses: 0$" "$out"
check_match "info: the GPU section, as recorded and without the capture's own time" \
	"^gpu section: [0-9]+\.[0-9]{3} ms, first to last GPU call \([1-9][0-9]* calls\); [0-9]+\.[0-9]{3} ms without the capture's own time" "$out"
check_match "info: a bundle of format 1 has no host times" \
	"^gpu section: [0-9]+\.[0-9]{3} ms, first to last GPU call \([1-9][0-9]* calls\)$" \
	"$("$GPUMIX" trace info tests/data/bundles/good)"

out=$("$GPUMIX" trace dump "$tmp/b"); rc=$?
check_eq "dump exits 0" 0 "$rc"
check_eq "dump: one line per call and per failed runtime call" "$(( 3 * calls + 3 ))" "$(wc -l <<<"$out" | tr -d ' ')"
check_match "dump: a failed runtime call" " cudaMemcpy failed: 1$" "$out"
check_match "dump: arguments by name" "cuMemAlloc_v2\(bytesize=[0-9]+\) = 0 -> dptr=0x" "$out"
check_match "dump: payloads" "data=blob:[0-9a-f]{32}:65536" "$out"
check_match "dump: result hashes" "result=[0-9a-f]{32}:[0-9]+" "$out"
check_match "dump: images" "image=fatbin:[0-9a-f]{32}:[0-9]+" "$out"
check_match "dump: each call's host duration" \
	"cuMemAlloc_v2\(bytesize=[0-9]+\) = 0 -> dptr=0x[0-9a-f]+ gap=[0-9]+\.[0-9]{3}us dur=[0-9]+\.[0-9]{3}us" "$out"
check_eq "dump: a gap on every returned call but each thread's first" 3 \
	"$(grep ' dur=' <<<"$out" | grep -vc ' gap=[0-9.]*us dur=')"
old_out=$("$GPUMIX" trace dump tests/data/bundles/good)
check_eq "dump: no host times from a bundle of format 1" 0 \
	"$(grep -c ' dur=' <<<"$old_out")"
out=$("$GPUMIX" trace dump --events "$tmp/b"); rc=$?
check_eq "dump --events: one line per event" "$n" "$(wc -l <<<"$out" | tr -d ' ')"
check_match "dump --events: activity" " act_kernel _Z6kernelPfS_i api=0 start=" "$out"
check_match "dump --events: runtime calls" " rt_enter cudaMemcpy api=211" "$out"
check_eq "dump --events: every event's host time" "$n" "$(grep -c ' host=[0-9]*\.[0-9]\{6\}' <<<"$out")"
out=$("$GPUMIX" trace kernels "$tmp/b")
check_eq "kernels: one line per kernel" 3 "$(wc -l <<<"$out" | tr -d ' ')"
"$GPUMIX" trace losses "$tmp/b" >/dev/null
check_eq "losses: exit 0 for a good bundle" 0 "$?"
out=$("$GPUMIX" trace check "$tmp/b"); rc=$?
check_eq "check: exit 0" 0 "$rc"
check_match "check: everything verified" "^$tmp/b: ok, $n events, [0-9]+ blob payloads and [0-9]+ module images verified, [0-9]+ trace files by hash$" "$out"
# A kernel name holding a newline (a trace can hold any bytes): every
# line of dump, --events and kernels stays one line, the name escaped.
"$GPUMIX" -q capture -o "$tmp/nl" -- "$GPUMIX_BUILD/tests/capture_emitter" \
	--mini --kernel-name "$(printf 'k\nforged line\t"q"')" >/dev/null 2>&1
check_eq "a kernel named with a newline: captured" 0 "$?"
out=$("$GPUMIX" trace dump "$tmp/nl")
check_eq "dump: no line starts with the name's second line" "" \
	"$(printf '%s\n' "$out" | grep '^forged')"
check_match "... the name escaped" 'cuLibraryGetKernel\(.*\) "k\\nforged line\\t\\"q\\""' "$out"
out=$("$GPUMIX" trace dump --events "$tmp/nl")
check_eq "dump --events: no line starts with it either" "" \
	"$(printf '%s\n' "$out" | grep '^forged')"
out=$("$GPUMIX" trace kernels "$tmp/nl")
check_match "kernels: one line, the name escaped" '^kernel k\\nforged line\\t\\"q\\" launches=1 ' "$out"
check_eq "... and only one" 1 "$(printf '%s\n' "$out" | wc -l | tr -d ' ')"
done_testing
