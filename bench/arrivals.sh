#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The arrival process's accuracy (GPU; issue 29): how late an open-loop
# request starts after its scheduled arrival when nothing is ahead of it
# in its queue (the request before had ended by then), i.e. the error of
# the replay's wait (sleep, then spin for the last 200 us), in
# microseconds: median, p99 and maximum over the requests, for a suite
# program (spmv) alone at load 0.3 of its alone capacity and beside a
# batch program (mm) under cuda and procs. Requests that queued are
# counted apart (their start is the previous end, not their arrival).
#   GPUMIX_ARRIVALS_PROGRAM=P   the service (spmv), GPUMIX_ARRIVALS_BATCH=B
#   (mm), GPUMIX_ARRIVALS_REQUESTS=N (300), GPUMIX_ARRIVALS_LOAD=L (0.3),
#   OUT=DIR (keeps arrivals.tsv there)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="arrivals"
. "$(dirname "$0")/suite_bench.sh"
P=${GPUMIX_ARRIVALS_PROGRAM:-spmv}
B=${GPUMIX_ARRIVALS_BATCH:-mm}
N=${GPUMIX_ARRIVALS_REQUESTS:-300}
L=${GPUMIX_ARRIVALS_LOAD:-0.3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
res=$tmp
if [ -n "${OUT:-}" ]; then
	res=$OUT/arrivals
	mkdir -p "$res"
fi
suite_cache
suite_bundle "$P" && suite_bundle "$B" || { not_ok "cannot capture $P and $B"; exit 1; }
for w in "$P" "$P+$B"; do
	# shellcheck disable=SC2046
	"$GPUMIX" -q reconstruct -o "$tmp/$w" $(printf "$SUITE_CACHE/%s " ${w//+/ }) \
		2>"$tmp/err" || { not_ok "reconstruct $w failed"; cat "$tmp/err" >&2; exit 1; }
done
"$GPUMIX" -q replay --variant single --min-replays 5 -o "$tmp/alone" "$tmp/$P" \
	2>"$tmp/err" || { not_ok "the alone run of $P failed"; cat "$tmp/err" >&2; exit 1; }

# errors RUNDIR: per request that did not queue, start - arrival in us
# (the last 12 digits of the ns timestamps: exact in awk's doubles)
errors() {
	awk -F'\t' 'function t(x) { return substr(x, length(x) - 11) + 0 }
		NR > 1 { a = t($3); s = t($4); if (NR == 2 || a >= end) printf "%.3f\n", (s - a) / 1e3
			 else q++; end = t($5) }
		END { print q + 0 > "/dev/stderr" }' "$1/requests.tsv"
}

printf 'setup\tvariant\trequests\tqueued\tmedian_us\tp99_us\tmax_us\n' >"$res/arrivals.tsv"
for setup in "$P:cuda" "$P+$B:cuda" "$P+$B:procs"; do
	w=${setup%%:*} v=${setup#*:}
	run=$tmp/run-${w//+/_}-$v
	if ! "$GPUMIX" -q replay --variant "$v" --arrivals "$P=load:$L" \
		--alone "$tmp/alone" --requests "$N" -o "$run" "$tmp/$w" 2>"$tmp/err"; then
		not_ok "$w under $v failed"
		tail -3 "$tmp/err" >&2
		continue
	fi
	errors "$run" >"$tmp/e" 2>"$tmp/q"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$v" "$N" "$(cat "$tmp/q")" \
		"$(median <"$tmp/e")" "$(pct 0.99 <"$tmp/e")" "$(sort -g "$tmp/e" | tail -1)" \
		>>"$res/arrivals.tsv"
done
echo "$BENCH_NAME: start - arrival of the requests that did not queue (us), load $L:"
column -t -s $'\t' "$res/arrivals.tsv" 2>/dev/null || cat "$res/arrivals.tsv"	# (no column on the GPU host)
exit "$status"
