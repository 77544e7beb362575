#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of the nss variant alone (needs a GPU): each Parboil-style
# suite program (captured once, cache shared with the other suite
# benchmarks), reconstructed with --elastic and replayed alone, R replays
# each, as
#   single      the serial scheduler, the original modules
#   nss (event) nss, kernel completion from CUDA events
#   nss (poll)  nss, completion from the flag the transformed kernel sets
#               (elastic modules with elasticity off)
# Per program: the mean kept replay time (replays.tsv, trace I/O
# subtracted) of each, the ratios to single, the host CPU time the nss
# dispatcher spent waiting, and the mean time a kernel waited in the nss
# queue before its launch. Prints a Markdown table and the median ratios
# (target for nss (event): within 2% of single), and writes it to
# build/nss-bench.md.
#   GPUMIX_SUITE_BUNDLES=DIR, GPUMIX_SUITE="bfs mm", GPUMIX_NSS_REPLAYS=R (5)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="nss bench"
. "$(dirname "$0")/suite_bench.sh"
R=${GPUMIX_NSS_REPLAYS:-5}
out=$GPUMIX_BUILD/nss-bench.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
suite_cache

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit }
	printf "%.4f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$tmp/rows"
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	if ! "$GPUMIX" -q reconstruct --variant cuda --elastic -o "$tmp/$p" "$SUITE_CACHE/$p" \
		2>"$tmp/err"; then
		not_ok "$p: reconstruct --elastic failed"
		tail -3 "$tmp/err" >&2
		continue
	fi
	row="$p"
	for v in "single" "nss --completion event" "nss --completion poll"; do
		name=$(echo "$v" | awk '{ print $1 ($3 ? "-" $3 : "") }')
		run=$tmp/run-$p-$name
		# shellcheck disable=SC2086
		if ! "$GPUMIX" -q replay --variant $v --min-replays "$R" \
			-o "$run" "$tmp/$p" >"$tmp/out" 2>&1; then
			not_ok "$p: replay --variant $v failed"
			tail -3 "$tmp/out" >&2
			row=
			break
		fi
		row="$row $(mean_ms "$run")"
		if [ "$name" != single ]; then
			row="$row $(field "$run/manifest" nss.wait_cpu_s)"
			row="$row $(field "$run/manifest" nss.kernel_queue_us_mean)"
		fi
	done
	[ -n "$row" ] && echo "$row" >>"$tmp/rows"
done

{
	echo "| program | single (ms) | nss (event) (ms) | ratio | nss (poll) (ms) | ratio | wait CPU event/poll (s) | kernel queue event/poll (us) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '{ printf "| %s | %.2f | %.2f | %.4f | %.2f | %.4f | %.3f / %.3f | %.1f / %.1f |\n",
		$1, $2, $3, $3 / $2, $6, $6 / $2, $4, $7, $5, $8 }' "$tmp/rows"
	echo
	echo "median nss (event) / single: $(awk '{ print $3 / $2 }' "$tmp/rows" | median)"
	echo "median nss (poll) / single: $(awk '{ print $6 / $2 }' "$tmp/rows" | median)"
	echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $R replays each"
} | tee "$out"
exit $status
