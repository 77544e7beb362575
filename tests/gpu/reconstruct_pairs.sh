#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: all 55 two-program combinations of the Parboil-style suite,
# reconstructed in the cuda variant (one thread and its own streams per
# program, both at once) and replayed with at least 2 replays each under
# the watchdog; every run must end with status ok, all results verified
# bit-identical to the captured runs. bfs+lbm may hang (bfs's cooperative
# kernel needs all its blocks resident, and lbm's blocks can keep some
# out, as in the paper): if it does, the watchdog must stop it with status
# hung, and that is recorded and reported, not a failure. Prints the wall
# time.
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured
#                             bundles (see tests/gpu/reconstruct_suite.sh)
#   GPUMIX_SUITE="bfs mm ..." restricts the programs (pairs among them)
#   GPUMIX_PAIRS_WATCHDOG=S   watchdog seconds (default 30)
#   OUT=DIR                   keeps pairs.tsv in DIR/reconstruct_pairs
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch reconstruct_pairs
suite_cache
tmp=$_scratch
wd=${GPUMIX_PAIRS_WATCHDOG:-30}
start=$(date +%s)
printf 'workload\tstatus\tseconds\tfailure\n' >"$_results/pairs.tsv"

progs=()
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" && progs+=("$p")
done
n=0 nok=0 hung=()
for ((i = 0; i < ${#progs[@]}; i++)); do
	for ((j = i + 1; j < ${#progs[@]}; j++)); do
		a=${progs[$i]} b=${progs[$j]} w=${progs[$i]}+${progs[$j]}
		n=$((n + 1))
		t0=$(date +%s)
		out=$("$GPUMIX" -q reconstruct --variant cuda -o "$tmp/$w" \
			"$SUITE_CACHE/$a" "$SUITE_CACHE/$b" 2>&1); rc=$?
		if [ "$rc" != 0 ]; then
			not_ok "$w: reconstruct exits 0 ($rc)"
			printf '%s\n' "$out" | sed 's/^/#   /'
			continue
		fi
		# The watchdog ends a hung replay; timeout(1) only guards the
		# test against a watchdog that fails.
		out=$(timeout $((wd * 4 + 600)) "$GPUMIX" replay --min-replays 2 \
			--watchdog "$wd" -o "$tmp/run-$w" "$tmp/$w" 2>&1); rc=$?
		secs=$(( $(date +%s) - t0 ))
		st=$(field "$tmp/run-$w/manifest" status 2>/dev/null)
		why=$(field "$tmp/run-$w/manifest" failure 2>/dev/null)
		printf '%s\t%s\t%s\t%s\n' "$w" "${st:-none}" "$secs" "$why" \
			>>"$_results/pairs.tsv"
		echo "# $w: ${st:-no status} (exit $rc, ${secs}s)${why:+: $why}"
		if [ "$w" = bfs+lbm ] && [ "$st" = hung ]; then
			ok "$w: hung as the paper warns; the watchdog stopped it (exit $rc) and it is recorded, not a failure"
			hung+=("$w")
			continue
		fi
		check_eq "$w: status ok, all results bit-identical (exit $rc)" ok "$st"
		if [ "$st" = ok ]; then
			nok=$((nok + 1))
		else
			printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		fi
		rm -rf "${tmp:?}/$w" "${tmp:?}/run-$w"
	done
done
secs=$(( $(date +%s) - start ))
echo "# reconstruct_pairs: $n pairs: $nok ok, ${#hung[@]} hung and stopped by the watchdog${hung:+ (${hung[*]})}; wall time ${secs}s"
if [ "${#progs[@]}" = 11 ]; then
	check_eq "all 55 pairs ran" 55 "$n"
fi
done_testing
