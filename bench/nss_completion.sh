#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of nss's two ways to learn that a kernel finished (needs a
# GPU): pairs of suite programs, reconstructed with --elastic (the flag is
# the transformed kernel's), replayed under nss with --completion event
# and --completion poll, R replays each. Per mode: the kernel waiting time
# (the analysis's: kernel start - its launch call, pooled over all
# kernels), the mean multiprogram time of the programs, the CPU time the
# dispatchers spent waiting, and how many kernels completed by flag.
# Writes build/nss-completion-bench.md.
#   GPUMIX_SUITE_BUNDLES=DIR, GPUMIX_NSS_PAIRS="bfs+fft cutcp+mm",
#   GPUMIX_NSS_REPLAYS=R (5)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="nss completion bench"
. "$(dirname "$0")/suite_bench.sh"
R=${GPUMIX_NSS_REPLAYS:-5}
PAIRS=${GPUMIX_NSS_PAIRS:-"bfs+fft cutcp+mm lbm+tpacf histo+sad spmv+stencil mri-q+fft"}
out=$GPUMIX_BUILD/nss-completion-bench.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
suite_cache

for c in event poll; do
	: >"$tmp/$c.rows"
done
for pair in $PAIRS; do
	a=${pair%+*} b=${pair#*+}
	suite_bundle "$a" && suite_bundle "$b" || continue
	if ! "$GPUMIX" -q reconstruct --elastic -o "$tmp/$pair" \
		"$SUITE_CACHE/$a" "$SUITE_CACHE/$b" 2>"$tmp/err"; then
		not_ok "$pair: reconstruct --elastic failed"
		tail -3 "$tmp/err" >&2
		continue
	fi
	for c in event poll; do
		run=$tmp/runs-$c/$pair.nss
		mkdir -p "$tmp/runs-$c"
		if ! "$GPUMIX" -q replay --variant nss --completion "$c" \
			--min-replays "$R" -o "$run" "$tmp/$pair" >"$tmp/out" 2>&1; then
			not_ok "$pair: nss --completion $c failed"
			tail -3 "$tmp/out" >&2
			continue
		fi
		echo "$pair $(mean_ms "$run") $(field "$run/manifest" nss.wait_cpu_s)" \
			"$(field "$run/manifest" nss.kernels_polled)" \
			"$(field "$run/manifest" nss.kernels_by_event)" >>"$tmp/$c.rows"
	done
done

{
	echo "| completion | pairs | waiting mean (ms) | waiting median (ms) | waiting p95 (ms) | mean T_MP (ms) | dispatcher wait CPU (s) | kernels by flag | kernels by event |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for c in event poll; do
		"$GPUMIX" -q analyze "$tmp/runs-$c" -o "$tmp/$c.db" >/dev/null 2>&1 &&
		"$GPUMIX" -q report --no-figures "$tmp/$c.db" -o "$tmp/rep-$c" >/dev/null 2>&1 ||
			not_ok "$c: analyze or report failed"
		w=$(awk -F, '$1 == "nss" { print $3, $4, $5 }' "$tmp/rep-$c/tables/waiting.csv" 2>/dev/null)
		awk -v c="$c" -v w="$w" '{ t += $2; cpu += $3; f += $4; e += $5; n++ }
			END { split(w, x, " ")
			printf "| %s | %d | %.3f | %.3f | %.3f | %.1f | %.3f | %d | %d |\n",
				c, n, x[1], x[2], x[3], t / n, cpu, f, e }' "$tmp/$c.rows"
	done
	echo
	echo "pairs: $PAIRS; $R replays each;" \
		"device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
} | tee "$out"
exit $status
