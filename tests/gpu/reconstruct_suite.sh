#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: every Parboil-style suite program, captured at its default size
# (gpumix capture -o DIR -- PROGRAM), reconstructed in the single variant
# and replayed (at least 2 replays): the replay must end with status ok,
# which means every device-to-host result of every replay hashed equal to
# what the captured program got (the replay verifies them), and every
# result must have had its captured hash (none unverifiable). Prints the
# time of each step.
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) a cache of captured bundles
#                             (tests/gpu/reconstruct_pairs.sh and
#                             bench/replay_fidelity.sh share it)
#   GPUMIX_SUITE="bfs mm"     restricts the programs
#   OUT=DIR                   keeps a summary (summary.tsv) in DIR/reconstruct_suite
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch reconstruct_suite
suite_cache
tmp=$_scratch
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
printf 'program\tcapture_s\treconstruct_s\treplay_s\tops\tstatus\n' >"$_results/summary.tsv"
start=$(now)

for p in $SUITE_PROGRAMS; do
	t0=$(now)
	suite_bundle "$p" || continue
	t1=$(now)
	out=$("$GPUMIX" -v reconstruct --variant single -o "$tmp/$p" \
		"$SUITE_CACHE/$p" 2>&1); rc=$?
	t2=$(now)
	check_eq "$p: reconstruct exits 0" 0 "$rc"
	if [ "$rc" != 0 ]; then
		printf '%s\n' "$out" | sed 's/^/#   /'
		continue
	fi
	check_match "$p: every result has its captured hash" \
		"^program '$p': .* 0 results not verifiable, 0 unsupported calls$" "$out"
	grep '^warning' <<<"$out" | sed 's/^/# /'
	out=$("$GPUMIX" replay --min-replays 2 --watchdog 120 -o "$tmp/run-$p" \
		"$tmp/$p" 2>&1); rc=$?
	t3=$(now)
	st=$(field "$tmp/run-$p/manifest" status)
	check_eq "$p: replay exits 0" 0 "$rc"
	check_eq "$p: status ok: all results bit-identical to the captured run" ok "$st"
	[ "$st" = ok ] || { printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'; \
		echo "#   failure: $(field "$tmp/run-$p/manifest" failure)"; }
	[ "$st" = ok ] && check_run "$tmp/run-$p" 1 2
	ops=$(field "$tmp/$p/manifest" program.0.ops)
	echo "# $p: capture $(secs "$t0" "$t1") s, reconstruct $(secs "$t1" "$t2") s, replay $(secs "$t2" "$t3") s, $ops operations, status ${st:-none}"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$(secs "$t0" "$t1")" \
		"$(secs "$t1" "$t2")" "$(secs "$t2" "$t3")" "$ops" "${st:-none}" \
		>>"$_results/summary.tsv"
done
echo "# reconstruct_suite: wall time $(secs "$start" "$(now)") s"
done_testing
