#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Captured host time on a launch-bound loop (GPU): tests/gpu/progs/
# launch_loop launches an empty kernel N times (default 100000) and times
# its loop. Compared, in seconds and microseconds per launch:
#   native      the loop's own time without capture (median of 3 runs)
#   captured    the same program under gpumix capture: what the capture
#               adds to each call (measured on an H100: 2.7-3.7 us)
#   section     the captured GPU section, first to last GPU call, as
#               recorded and on the host clock without the capture's own
#               time (gpumix trace info): what the replay aims at
#   replayed    the replay's wall time (single, --host-time captured),
#               mean of the kept replays, with the CUPTI activity log
#               (profiled) and without it (--no-profile)
#   none        the replay back to back (--host-time none)
# The replay of the loop should take the native loop's time: the gaps
# hold the program's own host time between launches, not the capture's.
#   GPUMIX_LOOP_LAUNCHES=N (100000), GPUMIX_LOOP_REPLAYS=R (5),
#   OUT=DIR (keeps host_time_loop.tsv there)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="host time (launch loop)"
. "$(dirname "$0")/suite_bench.sh"
N=${GPUMIX_LOOP_LAUNCHES:-100000}
R=${GPUMIX_LOOP_REPLAYS:-5}
PROG=$GPUMIX_BUILD/tests/gpu/progs/launch_loop
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
res=$tmp
if [ -n "${OUT:-}" ]; then
	res=$OUT/host_time_loop
	mkdir -p "$res"
fi
[ -x "$PROG" ] || { not_ok "$PROG is built (make)"; exit 1; }

# loop_s OUTPUT: the seconds the program printed
loop_s() { sed -n 's/.*launches=[0-9]* seconds=\([0-9.]*\).*/\1/p' <<<"$1"; }
# replay_s RUNDIR: mean kept replay wall time (trace I/O subtracted), s
replay_s() { awk -v ms="$(mean_ms "$1")" 'BEGIN { printf "%.6f", ms / 1e3 }'; }

for _ in 1 2 3; do
	loop_s "$("$PROG" "$N")"
done | median >"$tmp/native"
native=$(cat "$tmp/native")
out=$("$GPUMIX" -q capture -o "$tmp/loop" -- "$PROG" "$N" 2>"$tmp/err") ||
	{ not_ok "capture of launch_loop failed"; cat "$tmp/err" >&2; exit 1; }
captured=$(loop_s "$out")
info=$("$GPUMIX" trace info "$tmp/loop")
sec_raw=$(sed -n 's/^gpu section: \([0-9.]*\) ms,.*/\1/p' <<<"$info")
sec_clean=$(sed -n 's/^gpu section: .*; \([0-9.]*\) ms without.*/\1/p' <<<"$info")
"$GPUMIX" -q reconstruct --variant single -o "$tmp/r" "$tmp/loop" 2>"$tmp/err" ||
	{ not_ok "reconstruct failed"; cat "$tmp/err" >&2; exit 1; }
run() { # run NAME OPTIONS...
	local name=$1; shift
	"$GPUMIX" -q replay --min-replays "$R" "$@" -o "$tmp/$name" "$tmp/r" >"$tmp/out" 2>&1 ||
		{ not_ok "replay $name failed"; tail -3 "$tmp/out" >&2; echo nan; return; }
	replay_s "$tmp/$name"
}
rep=$(run profiled --host-time captured)
rep_np=$(run unprofiled --host-time captured --no-profile)
none=$(run none --host-time none)
m=$tmp/profiled/manifest

{
	printf 'what\tseconds\tus_per_launch\tratio_to_native\n'
	for row in "native $native" "captured $captured" \
		"section_recorded $(awk -v v="$sec_raw" 'BEGIN { print v / 1e3 }')" \
		"section_without_capture $(awk -v v="$sec_clean" 'BEGIN { print v / 1e3 }')" \
		"replayed $rep" "replayed_no_profile $rep_np" "replayed_back_to_back $none"; do
		set -- $row
		awk -v w="$1" -v s="$2" -v n="$N" -v b="$native" 'BEGIN {
			printf "%s\t%.6f\t%.3f\t%.4f\n", w, s, s / n * 1e6, (b > 0) ? s / b : 0 }'
	done
} >"$res/host_time_loop.tsv"
echo "host time (launch loop): $N launches of an empty kernel, $R replays (the last discarded)"
column -t -s "$(printf '\t')" "$res/host_time_loop.tsv" 2>/dev/null || cat "$res/host_time_loop.tsv"
echo "host time (launch loop): replay issue error median $(field "$m" program.0.host_error_us_median) us," \
	"p99 $(field "$m" program.0.host_error_us_p99) us, max $(field "$m" program.0.host_error_us_max) us;" \
	"$(field "$m" program.0.host_gaps) gaps spent, $(field "$m" program.0.host_gap_s) s"
awk -v r="$rep_np" -v n="$native" 'BEGIN { d = (n > 0) ? r / n - 1 : 1
	printf "host time (launch loop): replayed (no profile) / native loop: %.4f (%s)\n", r / n,
		(d <= 0.05 && d >= -0.05) ? "within 5%" : "beyond 5%" }'
exit $status
