#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection: gpumix capture killed with SIGKILL (with the program
# it runs: the whole process group) at random points, from the session
# setup through the program's run to the count-back and the final rename.
# Whatever the moment, the final name holds nothing or a finished bundle
# (with its manifest) that `gpumix trace check` accepts or refuses with a
# clear error; never a half-written one. The next capture destroys the
# LTTng sessions the killed ones left. GPUMIX_FAULT_ITERATIONS sets the
# number of kills (default 24); the seed is printed for a replay
# (GPUMIX_FAULT_SEED).
. "$GPUMIX_TOP/tests/lib.sh"
scratch_dir >/dev/null
tmp=$_scratch
E=$GPUMIX_BUILD/tests/capture_emitter
iters=${GPUMIX_FAULT_ITERATIONS:-24}
seed=${GPUMIX_FAULT_SEED:-$$}
RANDOM=$seed
echo "# seed $seed, $iters kills"
args=(--threads 2 --fork --repeat 3 --vary)

# How long an undisturbed capture takes: kills fall in [0, 1.1 x that].
start=$(date +%s%N)
"$GPUMIX" -q capture -o "$tmp/ref" -- "$E" "${args[@]}" >/dev/null 2>&1
check_eq "an undisturbed capture exits 0" 0 "$?"
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# an undisturbed capture takes ${full_ms} ms"

# (make check SANITIZE=1: a process killed while LeakSanitizer checks it
# at exit leaves a half report)
noleak=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
absent=0 complete=0 refused=0 bad=0 finishing=0 pids=()
for i in $(seq "$iters"); do
	rm -rf "$tmp/b" "$tmp"/b.tmp-* "$tmp"/b.old-*
	# Two kills in three at a random time (the second of them near the
	# end: count-back, manifest), one in three at a point of the final
	# write (GPUMIX_CAPTURE_KILL_AT, where a random time almost never
	# falls: it lasts a few milliseconds).
	points=(counted manifest flushed)
	at= ms=0
	case $((i % 3)) in
	0) ms=$(( RANDOM * (full_ms * 11 / 10) / 32768 )) ;;
	1) ms=$(( full_ms * 85 / 100 + RANDOM * (full_ms * 17 / 100) / 32768 )) ;;
	2) at=${points[RANDOM % 3]} ;;
	esac
	ASAN_OPTIONS=$noleak GPUMIX_CAPTURE_KILL_AT=$at setsid "$GPUMIX" -q capture -o "$tmp/b" -- \
		"$E" "${args[@]}" >/dev/null 2>"$tmp/err" &
	pid=$!
	pids+=("$pid")
	if [ -z "$at" ]; then
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	else
		wait "$pid" 2>/dev/null
		ms=$at
	fi
	kill -KILL -- "-$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# (a kill after the manifest and before the rename leaves a
	# finished temporary directory: the final write was under way)
	for t in "$tmp"/b.tmp-*; do
		[ -f "$t/manifest" ] && finishing=$((finishing + 1))
	done
	if [ ! -e "$tmp/b" ]; then
		absent=$((absent + 1))
		continue
	fi
	if [ ! -f "$tmp/b/manifest" ]; then
		bad=$((bad + 1))
		not_ok "kill $i at $ms: '$tmp/b' exists without a manifest"
		continue
	fi
	out=$("$GPUMIX" trace check "$tmp/b" 2>&1); rc=$?
	if [ "$rc" -eq 0 ]; then
		complete=$((complete + 1))
	elif [ "$rc" -eq 1 ] && printf '%s\n' "$out" | head -1 | grep -q '^error: '; then
		refused=$((refused + 1))
	else
		bad=$((bad + 1))
		not_ok "kill $i at $ms: trace check exits $rc: $(printf '%s' "$out" | head -3)"
	fi
done
echo "# $iters kills: $absent before the bundle existed ($finishing of them in the final write), $complete complete, $refused refused with an error"
check "some kills fell in the final write ($finishing)" test "$finishing" -gt 0
check_eq "every kill left nothing or a finished bundle ($iters kills)" 0 "$bad"

# The next capture destroys the sessions of the killed ones.
"$GPUMIX" -q capture -o "$tmp/after" -- "$E" --mini >/dev/null 2>&1
check_eq "a capture after the kills exits 0" 0 "$?"
left=0
sessions=$(lttng list 2>/dev/null)
for p in "${pids[@]}"; do
	printf '%s\n' "$sessions" | grep -q "gpumix-$p-" && left=$((left + 1))
done
check_eq "no LTTng session of a killed capture is left" 0 "$left"
done_testing
