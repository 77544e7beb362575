#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make bench: the analyzer on a generated study of about a million kernel
# records (bench/gen_study; GPUMIX_BENCH_KERNELS overrides the count).
# Prints the time to load it (gpumix analyze), the time for every metric
# and the whole report with its figures (gpumix report -o), the database
# size per record, and each against its target (10 s on a 2-core machine).
set -eu
B=${GPUMIX_BUILD:-build}
GPUMIX=$B/gpumix
GEN=$B/bench/gen_study
N=${GPUMIX_BENCH_KERNELS:-1000000}
TARGET_LOAD=10
TARGET_REPORT=10

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
elapsed() { calc "$2 - $1"; }
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
verdict() { awk "BEGIN { print ($1 <= $2) ? \"within target\" : \"OVER TARGET\" }"; }

echo "analyze bench: $(nproc) CPUs, generating a study of $N kernel records in $tmp"
t0=$(now)
gen_out=$("$GEN" -o "$tmp/runs" --kernels "$N" --workloads 11)
t1=$(now)
kernels=$(echo "$gen_out" | sed -n 's/.* \([0-9]*\) kernel records.*/\1/p')
records=$(echo "$gen_out" | sed -n 's/.*, \([0-9]*\) records in all.*/\1/p')
runs=$(echo "$gen_out" | sed -n 's/^gen_study: \([0-9]*\) runs.*/\1/p')
logs=$(du -sk "$tmp/runs" | cut -f1)
printf '  study: %s runs, %s kernel records, %s records in all, %s MiB of logs (generated in %.1f s)\n' \
	"$runs" "$kernels" "$records" "$((logs / 1024))" "$(elapsed "$t0" "$t1")"

t0=$(now)
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/results.db"
t1=$(now)
load=$(elapsed "$t0" "$t1")

t0=$(now)
"$GPUMIX" -q report "$tmp/results.db" -o "$tmp/report"
t1=$(now)
report=$(elapsed "$t0" "$t1")

bytes=$(stat -c %s "$tmp/results.db")
printf '  load (gpumix analyze):             %6.2f s   target <= %d s: %s of it, %s\n' \
	"$load" "$TARGET_LOAD" "$(ratio "$load" "$TARGET_LOAD")" "$(verdict "$load" "$TARGET_LOAD")"
printf '  metrics + report (gpumix report):  %6.2f s   target <= %d s: %s of it, %s\n' \
	"$report" "$TARGET_REPORT" "$(ratio "$report" "$TARGET_REPORT")" "$(verdict "$report" "$TARGET_REPORT")"
printf '  load rate: %.0f records/s; database: %s bytes = %.1f bytes per kernel record (%.1f per record of any kind)\n' \
	"$(calc "$records / $load")" "$bytes" \
	"$(calc "$bytes / $kernels")" "$(calc "$bytes / $records")"
