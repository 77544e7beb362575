#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the procs variant (doc/mps.md): pairs of the Parboil-style suite
# replayed as two time-sliced processes, no MPS. Each run must end with
# status ok (every device-to-host result of every replay bit-identical
# to the captured run), one process per program, none of them an MPS
# client (the runtime checks CU_DEVICE_ATTRIBUTE_MPS_ENABLED), no MPS
# daemon started (no mps/ directory), the processes' records on one clock
# (each program's first replay starts before the other's last one ends),
# and the run directory must load in gpumix analyze with both programs.
# Each pair again with --one-shot: one kept replay per program, verified,
# both started together (each before the other ended). The summary has
# each program's mean kept replay time under procs, and its one-shot
# time.
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured bundles
#   GPUMIX_PROCS_PAIRS="mm:spmv spmv:stencil"  the pairs (default: these
#                             three: mm:spmv spmv:stencil cutcp:lbm)
#   OUT=DIR                   keeps a summary (summary.tsv) in DIR/procs_variant
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch procs_variant
suite_cache
tmp=$_scratch
printf 'workload\tstatus\tseconds\tclock_spread_ns\tprogram\tmean_ms\tone_shot_ms\n' >"$_results/summary.tsv"

# mean_ms RUN PROGRAM: the mean of its kept replays (end - start - io)
mean_ms() {
	awk -F'\t' -v p="$2" '$1 == p && $6 == 1 { s += $4 - $3 - $5; n++ }
		END { if (n) printf "%.3f", s / n / 1e6 }' "$1/replays.tsv"
}
# last_end RUN PROGRAM: the end of its last replay
last_end() {
	awk -F'\t' -v p="$2" '$1 == p { print $4 }' "$1/replays.tsv" | sort -n | tail -1
}

for pair in ${GPUMIX_PROCS_PAIRS:-mm:spmv spmv:stencil cutcp:lbm}; do
	a=${pair%%:*} b=${pair#*:} name=${pair/:/+}
	suite_bundle "$a" && suite_bundle "$b" || continue
	out=$("$GPUMIX" -q reconstruct -o "$tmp/$name" "$SUITE_CACHE/$a" "$SUITE_CACHE/$b" 2>&1)
	rc=$?
	check_eq "$name: reconstruct exits 0" 0 "$rc"
	[ "$rc" = 0 ] || continue
	run=$tmp/run-$name
	t0=$(date +%s)
	out=$("$GPUMIX" replay --variant procs --min-replays 3 --watchdog 120 \
		-o "$run" "$tmp/$name" 2>&1)
	rc=$?
	st=$(field "$run/manifest" status)
	check_eq "$name procs: replay exits 0" 0 "$rc"
	check_eq "$name procs: status ok: results bit-identical to the captured run" ok "$st"
	if [ "$st" != ok ]; then
		printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
		echo "#   failure: $(field "$run/manifest" failure)"
		continue
	fi
	check_run "$run" 2 3
	check_eq "$name procs: one process per program" 2 "$(field "$run/manifest" processes.count)"
	check_eq "$name procs: no MPS client among them" 0 "$(field "$run/manifest" processes.mps_clients)"
	check_fails "$name procs: no MPS daemon was started" test -e "$run/mps"
	as=$(awk -F'\t' -v p="$a" '$1 == p && $2 == 0 { print $3 }' "$run/replays.tsv")
	bs=$(awk -F'\t' -v p="$b" '$1 == p && $2 == 0 { print $3 }' "$run/replays.tsv")
	check "$name procs: on one clock, each first replay starts before the other's last ends" \
		test "$as" -lt "$(last_end "$run" "$b")" -a "$bs" -lt "$(last_end "$run" "$a")"
	"$GPUMIX" -q analyze "$run" -o "$tmp/$name.db" >/dev/null 2>&1
	check_eq "$name procs: gpumix analyze loads it" 0 "$?"
	check_eq "$name procs: with both programs' kernels" 2 "$(db_query "$tmp/$name.db" \
		"SELECT COUNT(DISTINCT programId) FROM CUPTI_ACTIVITY_KIND_KERNEL")"
	one=$tmp/one-$name
	out=$("$GPUMIX" replay --variant procs --one-shot --watchdog 120 \
		-o "$one" "$tmp/$name" 2>&1)
	rc=$?
	check_eq "$name procs --one-shot: exit 0, status ok" "0 ok" \
		"$rc $(field "$one/manifest" status)"
	[ "$rc" = 0 ] || echo "#   failure: $(field "$one/manifest" failure)"
	check_eq "$name procs --one-shot: one replay per program, kept" "2 2" \
		"$(awk -F'\t' 'NR > 1 { n++; k += $6 } END { print n + 0, k + 0 }' "$one/replays.tsv")"
	as=$(awk -F'\t' -v p="$a" '$1 == p { print $3 }' "$one/replays.tsv")
	bs=$(awk -F'\t' -v p="$b" '$1 == p { print $3 }' "$one/replays.tsv")
	check "$name procs --one-shot: started together (each before the other ended)" \
		test "$as" -lt "$(last_end "$one" "$b")" -a "$bs" -lt "$(last_end "$one" "$a")"
	for p in "$a" "$b"; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$st" "$(($(date +%s) - t0))" \
			"$(field "$run/manifest" processes.clock_spread_ns)" "$p" \
			"$(mean_ms "$run" "$p")" "$(mean_ms "$one" "$p")" >>"$_results/summary.tsv"
	done
done
sed "s/^/# /" "$_results/summary.tsv"
done_testing
