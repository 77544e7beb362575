#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Ordering on a CPU: the `race` workload (tests/tools/gen_workload.c),
# whose results depend on cross-stream dependencies, replays against the
# asynchronous mock CUDA driver (tests/mock/: queued work runs late, in an
# adversarial order) under the cuda and single variants and every order
# of the mock, and must verify. Then the same program with one dependency
# dropped from its operation table must fail: that is what makes this
# test able to catch a replay runtime that drops one.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset MOCK_CUDA_LATENCY_US MOCK_CUDA_ORDER MOCK_CUDA_SEED
scratch_dir >/dev/null	# (works with both scratch_dir versions)
tmp=$_scratch

. "$GPUMIX_TOP/tests/replay_check.sh"

"$GEN" race --fatbin "$FATBIN" -o "$tmp/race" 2>/dev/null
check_eq "gen-workload race" 0 "$?"
check "the generated program builds" \
	"$GPUMIX" replay --build-only "$tmp/race" >/dev/null 2>&1

for v in cuda single; do
	out=$("$GPUMIX" replay --variant $v --min-replays 3 -o "$tmp/run-$v" \
		"$tmp/race" 2>&1); rc=$?
	check_eq "race, $v variant: exit 0 (every result verified)" 0 "$rc"
	[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'
	check_run "$tmp/run-$v" 2 3
	check_eq "race, $v: variant recorded" $v \
		"$(field "$tmp/run-$v/manifest" variant)"
done

# nss: a memory and a kernel stream per program, every dependency kept by
# the runtime's tracker instead of CUDA; with copies in chunks too.
for v in "nss" "nss --copy-chunk 1M" "nss --completion event --copy-chunk 0"; do
	name=$(echo "$v" | tr ' ' '_')
	# shellcheck disable=SC2086
	out=$("$GPUMIX" replay --variant $v --min-replays 3 \
		-o "$tmp/run-$name" "$tmp/race" 2>&1); rc=$?
	check_eq "race, $v: exit 0 (every result verified)" 0 "$rc"
	[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'
	check_run "$tmp/run-$name" 2 3
	check_eq "race, $v: two streams per program (+ the runtime's)" 6 \
		"$(field "$tmp/run-$name/manifest" streams)"
done
check "nss: the 6 MiB copies went in 1 MiB chunks" test \
	"$(field "$tmp/run-nss_--copy-chunk_1M/manifest" nss.copy_chunks)" -gt 0
check_eq "nss without chunking: none" 0 \
	"$(field "$tmp/run-nss_--completion_event_--copy-chunk_0/manifest" nss.copy_chunks)"
check_eq "nss: the dispatcher's polling calls are not in the activity log" 0 \
	"$(awk -F'\t' '$1 == "API" && $7 == 120' "$tmp/run-nss/activity.tsv" | wc -l)"
check "nss: every kernel completed by event" test \
	"$(field "$tmp/run-nss/manifest" nss.kernels_by_event)" -gt 0
for order in fifo random; do
	out=$(MOCK_CUDA_ORDER=$order MOCK_CUDA_SEED=3 "$GPUMIX" replay \
		--variant nss --min-replays 2 -o "$tmp/run-nss-$order" \
		"$tmp/race" 2>&1); rc=$?
	check_eq "race, nss, mock order $order: exit 0" 0 "$rc"
	[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'
done

for order in fifo random; do
	for seed in 1 2; do
		out=$(MOCK_CUDA_ORDER=$order MOCK_CUDA_SEED=$seed "$GPUMIX" replay \
			--min-replays 2 -o "$tmp/run-$order-$seed" "$tmp/race" 2>&1); rc=$?
		check_eq "race, cuda, mock order $order (seed $seed): exit 0" 0 "$rc"
		[ "$rc" = 0 ] || echo "$out" | sed 's/^/#   /'
	done
done
out=$(MOCK_CUDA_LATENCY_US=0 "$GPUMIX" replay --min-replays 2 \
	-o "$tmp/run-nolatency" "$tmp/race" 2>&1); rc=$?
check_eq "race, cuda, no mock latency: exit 0" 0 "$rc"
out=$(MOCK_CUDA_ORDER=sideways "$GPUMIX" replay -o "$tmp/run-badknob" \
	"$tmp/race" 2>&1); rc=$?
check_eq "a bad mock knob fails the replay" 1 "$rc"
check_match "saying which" "MOCK_CUDA_ORDER='sideways' is not lifo, fifo or random" "$out"

# broken NAME SED_EXPR EVENTS: the program with its table edited by
# SED_EXPR (on rows of both programs) must fail verifying the copy of a
# trace event that the regular expression EVENTS matches.
broken() {
	local name=$1 expr=$2 event=$3 d=$tmp/broken-$1 out rc
	cp -rl "$tmp/race" "$d"
	rm -f "$d/replay" "$d/replay.c"
	sed -e "$expr" "$tmp/race/replay.c" > "$d/replay.c"
	if cmp -s "$tmp/race/replay.c" "$d/replay.c"; then
		not_ok "$name: the edit changed nothing"
		return
	fi
	out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-broken-$name" \
		"$d" 2>&1); rc=$?
	check_eq "$name: the replay fails" 1 "$rc"
	check_match "$name: a wrong result, at trace event $event" \
		"program 'race-[ab]': .*device-to-host copy, trace event ($event)\).*result differs from the captured run" \
		"$(field "$tmp/run-broken-$name/manifest" failure)"
}
nop() { # nop EVENT: a no-op row in place of trace event EVENT's
	echo "{ GM_OP_NOP, 0, 0, 0, 0, 0, 0, 0, 0, $1 }"
}
ev_of() { # ev_of API N: trace event of program 1's Nth call of API
	grep -o "/\* [0-9]* $1 \*/" "$tmp/race/replay.c" | sed -n "$2p" |
		cut -d' ' -f2
}
# The trace events around each call follow gen_workload.c's race_ops().
w1=$(ev_of cuStreamWaitEvent 1)
w2=$(ev_of cuStreamWaitEvent 2)
w3=$(ev_of cuStreamWaitEvent 3)
es=$(ev_of cuEventSynchronize 1)
cs=$(ev_of cuCtxSynchronize 1)
broken upload-wait "s/GM_STREAM_WAIT($w1, [0-9]*, [0-9]*)/$(nop $w1)/" $((w1 + 2))
broken kernel-wait "s/GM_STREAM_WAIT($w2, [0-9]*, [0-9]*)/$(nop $w2)/" $((w2 + 1))
broken overwrite-wait "s/GM_STREAM_WAIT($w3, [0-9]*, [0-9]*)/$(nop $w3)/" $((w3 - 2))
# Without the event synchronization the upload on S2 runs before the
# kernel on S1 that precedes the event, and the kernel overwrites it.
broken event-sync "s/GM_EVENT_SYNC($es, [0-9]*)/$(nop $es)/" "$((es - 2))|$((es + 3))"
broken ctx-sync "s/GM_CTX_SYNC($cs)/$(nop $cs)/" $((cs + 1))

done_testing
