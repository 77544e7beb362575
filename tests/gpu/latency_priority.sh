#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the latency tables on a real pair. Two suite programs (default mm
# and stencil: short, and one of them latency-sensitive) are replayed
# alone (single), together (cuda) and with stream priorities (priority,
# the first program high), with results verified; the database holds
# which program had the high priority, and the report gives every
# program's replay-time percentiles and slowdowns and the high-priority
# program's p99 slowdown beside its slowdown under cuda (printed, so the
# effect of priorities on this GPU can be read off the test log).
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured bundles
#   GPUMIX_LATENCY_PAIR="a b" the two programs (default "mm stencil")
#   OUT=DIR                   keeps the report in DIR/latency_priority
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch latency_priority
suite_cache
tmp=$_scratch
read -r a b <<<"${GPUMIX_LATENCY_PAIR:-mm stencil}"
w=$a+$b

suite_bundle "$a" && suite_bundle "$b" || { done_testing; exit; }
"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/$w" "$SUITE_CACHE/$a" \
	"$SUITE_CACHE/$b" >/dev/null 2>&1
check_eq "$w: reconstruct" 0 "$?"
for v in single cuda priority; do
	"$GPUMIX" -q replay --variant "$v" --min-replays 10 --watchdog 60 \
		-o "$tmp/runs/$w.$v" "$tmp/$w" >/dev/null 2>&1
	check_eq "$w.$v: replay exits 0" 0 "$?"
	check_eq "$w.$v: status ok (results verified)" ok \
		"$(field "$tmp/runs/$w.$v/manifest" status)"
done
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/r.db"
check_eq "analyze" 0 "$?"
check_eq "the high-priority program is stored" "$a" \
	"$(db_query "$tmp/r.db" "SELECT name FROM programs WHERE highPriority = 1")"
runs=$("$GPUMIX" -q report "$tmp/r.db" --format csv --table latency-runs)
sum=$("$GPUMIX" -q report "$tmp/r.db" --format csv --table latency)
printf '%s\n%s\n' "$runs" "$sum" | sed 's/^/# /'
check_eq "every program of every run has at least 9 kept replays and a p99 slowdown" 6 \
	"$(awk -F, 'NR > 1 && $5 >= 9 && $11 != ""' <<<"$runs" | wc -l)"
# (then the four interval columns: empty with one repetition)
check_match "the priority row: one high-priority program, its slowdown under cuda" \
	"^2,priority,2,[0-9.]+,[0-9.]+,[0-9.]+,[^,]+,1,[0-9.]+,[0-9.]+,[0-9.]+,1,[0-9.]+(,[0-9.]*){4}$" "$sum"
if have_gnuplot; then
	"$GPUMIX" -q report "$tmp/r.db" -o "$_results/report" --force
	check "the latency figure is drawn" test -s "$_results/report/figures/latency-p99.png"
else
	"$GPUMIX" -q report "$tmp/r.db" -o "$_results/report" --force --no-figures
	skip "the latency figure: no gnuplot on this host"
fi
done_testing
