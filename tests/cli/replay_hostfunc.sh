#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Host functions and memory pools, capture -> reconstruct -> replay on a
# CPU: the committed bundle tests/data/reconstruct/bundles/hostfunc (made
# by recon-emitter hostfunc through the real capture path: allocations
# from a pool with a release threshold and from the default pool, host
# functions and a stream callback between copies and kernels) is
# reconstructed and replayed against the mock CUDA driver, whose host
# functions run in stream order. Host functions keep their stream
# position with the durations the capture measured; the empty default
# runs for each of them the function that spends nothing (the mock's call
# log names the function it ran, so this is what was done, not how long
# it took), --host-callbacks timed spends the time, and the kernel
# after a host function starts only after it; pool allocations replay
# with their addresses translated (the results verify); pool settings,
# and a host function that never ran, are reported.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir
tmp=$_scratch
B=tests/data/reconstruct/bundles/hostfunc

"$GPUMIX" reconstruct -o "$tmp/hf" "$B" >/dev/null 2>"$tmp/rec"; rc=$?
check_eq "reconstruct exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/rec"
check_eq "host functions in their stream, with the captured durations" \
	"GM_HOST_FUNC(34, 1, 3000000),
GM_HOST_FUNC(54, 1, 3000000),
GM_HOST_FUNC(74, 1, 3000000),
GM_HOST_FUNC(79, 1, 1000000),
GM_HOST_FUNC(93, 1, 0)," \
	"$(grep -o 'GM_HOST_FUNC([^)]*),' "$tmp/hf/replay.c")"
check_match "... the one timed before its call returned too (event 54)" \
	"cuLaunchHostFunc \*/ GM_HOST_FUNC\(54, 1, 3000000\)" \
	"$(cat "$tmp/hf/replay.c")"
check_eq "pool allocations replay as allocations (3 from the pool, 3 from the default pool)" \
	6 "$(grep -c 'cuMemAlloc\(FromPool\)\?Async \*/ GM_ALLOC' "$tmp/hf/replay.c")"
check_match "a host function that never ran is reported" \
	"event 93: 1 host function never ran during the capture \(the program exited first, or it was captured into a graph\): replayed in place, duration unknown" \
	"$(cat "$tmp/rec")"
check_match "pool settings are reported as not applied, with the reason" \
	"event 22: cuMemPoolSetAttribute \(2 calls\): memory pool settings are not applied: .*bulk allocator" \
	"$(cat "$tmp/rec")"
check_match "... the trim too" "event 91: cuMemPoolTrimTo \(1 call\)" \
	"$(cat "$tmp/rec")"

check_match "trace info: host functions called, run, and their time" \
	"^host functions: calls=5 ran=4 host_ms=10.000$" \
	"$("$GPUMIX" trace info "$B")"

out=$("$GPUMIX" trace export -o "$tmp/hf.json" "$B" 2>&1)
check_match "trace export: the host functions that ran, with arrows from their calls" \
	"export: 45 calls, 0 GPU records, 4 host functions, 4 arrows" "$out"
check_eq "... slices of category host_func on CUDA's threads, with their durations" \
	"$(printf 'cuLaunchHostFunc 3000\ncuLaunchHostFunc 3000\ncuLaunchHostFunc 3000\ncuStreamAddCallback 1000')" \
	"$(grep -o '"cat":"host_func","name":"[A-Za-z]*","ts":[0-9.]*,"dur":[0-9]*' "$tmp/hf.json" |
		sed 's/.*"name":"\([A-Za-z]*\)".*"dur":\([0-9]*\)/\1 \2/' | sort)"

# The kept replay's duration in ns.
kept_ns() {
	awk -F'\t' '$6 == 1 { print $4 - $3; exit }' "$1/replays.tsv"
}

# Smallest gap from the end of a host-to-device copy to the start of the
# next kernel (the host function lies between them).
min_gap() {
	awk -F'\t' '$1 == "MEMCPY" && $6 == "HTOD" { last = $5 }
		$1 == "KERNEL" && last { g = $4 - last; if (min == "" || g < min) min = g }
		END { print min }' "$1/activity.tsv"
}

# (Without the captured host time between the calls: the replays' length
# is then the host functions'.)
for v in single cuda nss; do
	for hc in empty timed; do
		run=$tmp/run.$v.$hc
		out=$(MOCK_CUDA_LATENCY_US=0 MOCK_CUDA_CALL_LOG=$run.log \
			"$GPUMIX" replay --variant $v \
			--min-replays 2 --host-callbacks $hc --host-time none -o "$run" \
			"$tmp/hf" 2>&1); rc=$?
		check_eq "$v $hc: replay exits 0" 0 "$rc"
		[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
		check_eq "$v $hc: status ok (every result verified)" ok \
			"$(field "$run/manifest" status)"
		check_eq "$v $hc: the manifest names the mode" "$hc" \
			"$(field "$run/manifest" host_callbacks)"
	done
	ns=$(kept_ns "$tmp/run.$v.timed")
	check "$v timed: a replay spends the 10 ms the host functions took ($ns ns)" \
		test "${ns:-0}" -ge 10000000
	# Timed, the host function without a captured duration (event 93)
	# runs the empty function, the 4 others the timed one: one in 5.
	ran=$(awk '$3 == "host_ran" { n[$4]++; t++ }
		END { for (f in n) print n[f] * 5 == t ? "empty" : "timed", f }' \
		"$tmp/run.$v.timed.log" | sort | tr '\n' ' ')
	empty_fn=$(sed -n 's/^empty \([0-9]*\) .*/\1/p' <<<"$ran")
	check_match "$v timed: the host functions ran two functions, the empty one for 1 in 5" \
		"^empty [0-9]+ timed [0-9]+ $" "$ran"
	check_eq "$v empty: every host function ran the empty one, which spends nothing" \
		"$empty_fn" "$(awk '$3 == "host_ran" { print $4 }' "$tmp/run.$v.empty.log" | sort -u)"
	gap=$(min_gap "$tmp/run.$v.timed")
	check "$v timed: each kernel starts after the host function before it ($gap ns after the copy)" \
		test "${gap:-0}" -ge 3000000
done

out=$("$GPUMIX" replay --host-callbacks slow -o "$tmp/bad" "$tmp/hf" 2>&1); rc=$?
check_eq "a bad --host-callbacks is a usage error" 2 "$rc"
check_match "... naming the choices" "--host-callbacks takes 'empty' or 'timed', not 'slow'" "$out"

done_testing
