#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make bench (capture part), on the GPU:
#  1. capture overhead: each suite program's wall time under capture over
#     its native wall time (median of R runs each); "program" is the time
#     the program itself ran (manifest capture.seconds), "total" the whole
#     `gpumix capture` command (session setup, count-back, finalisation).
#     Targets: median program ratio <= 1.5, none above 3.
#  2. per-call cost: N launches of an empty kernel (tests/gpu/progs/
#     launch_loop), captured vs native. Target: <= 2 us per call.
#  3. large host-to-device copies (tests/gpu/progs/h2d_big): capture
#     throughput into the blob store (target >= 1 GB/s), and trace size
#     over bytes moved with distinct buffers and with identical ones
#     (deduplicated).
# Before those, on any machine: the emit layer's cost per event (the test
# emitter's launch-like events through the real LTTng session) and the
# bundle reader's decoding rate (target >= 200k events/s).
# Prints numbers and ratios; exits 1 only when a program fails under
# capture. Without a GPU the GPU parts say so and skip.
#   GPUMIX_BENCH_RUNS=R (3)  GPUMIX_BENCH_PROGS="bfs mm ..."
#   GPUMIX_BENCH_LAUNCHES=N (200000)  GPUMIX_BENCH_MIB=M (512)
set -u
B=${GPUMIX_BUILD:-build}
G=$B/gpumix
T=$B/tests/gpu/progs
runs=${GPUMIX_BENCH_RUNS:-3}
progs=${GPUMIX_BENCH_PROGS:-"bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf"}
launches=${GPUMIX_BENCH_LAUNCHES:-200000}
mib=${GPUMIX_BENCH_MIB:-512}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0

echo "== CPU: emit layer and bundle reader"
"$G" -q capture -o "$tmp/e" -- "$B/tests/capture_emitter" --bench 500000 \
	>/dev/null 2>"$tmp/err" || status=1
sed -n 's/^capture_emitter: /emit: /p' "$tmp/err"
t0=$(date +%s%N)
"$G" trace check "$tmp/e" >/dev/null || status=1
t1=$(date +%s%N)
awk -v t="$(( t1 - t0 ))" 'BEGIN {
	printf "reader: 1000000 events in %.3f s = %.0f events/s (target >= 200000: %s)\n",
	t / 1e9, 1e6 / (t / 1e9), (1e6 / (t / 1e9) >= 2e5) ? "met" : "MISSED" }'
rm -rf "$tmp/e"

if ! "$B/tests/has-gpu" >/dev/null 2>&1; then
	echo "capture bench (GPU parts): SKIPPED (no GPU on this machine)"
	exit $status
fi

now() { date +%s%N; }
median() { sort -g | awk '{v[NR]=$1} END {if (!NR) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
mget() { sed -n "s/^$2 = //p" "$1/manifest"; }

echo "== capture overhead (median of $runs runs; ratio = captured / native)"
printf '%-8s %10s %10s %10s %8s %8s %10s %8s %s\n' program native_s program_s total_s ratio total_r events trace_MB status
: >"$tmp/ratios"
for p in $progs; do
	exe=$B/workloads/parboil/$p
	if [ ! -x "$exe" ]; then
		echo "$p: not built (make parboil)"
		continue
	fi
	: >"$tmp/n"; : >"$tmp/c"; : >"$tmp/t"; res=PASS
	for i in $(seq "$runs"); do
		t0=$(now); "$exe" >"$tmp/out" 2>&1 || res=FAIL; t1=$(now)
		echo "$(( t1 - t0 ))" >>"$tmp/n"
		rm -rf "$tmp/b"
		t0=$(now); "$G" -q capture -o "$tmp/b" -- "$exe" >"$tmp/out" 2>&1 || res=FAIL; t1=$(now)
		grep -q "^PASS" "$tmp/out" || res=FAIL
		echo "$(( t1 - t0 ))" >>"$tmp/t"
		mget "$tmp/b" capture.seconds >>"$tmp/c"
	done
	[ "$res" = PASS ] || status=1
	n=$(median <"$tmp/n"); c=$(median <"$tmp/c"); t=$(median <"$tmp/t")
	ev=$(mget "$tmp/b" events.found)
	mb=$(du -sm "$tmp/b" | cut -f1)
	awk -v p="$p" -v n="$n" -v c="$c" -v t="$t" -v ev="$ev" -v mb="$mb" -v r="$res" 'BEGIN {
		printf "%-8s %10.3f %10.3f %10.3f %8.2f %8.2f %10d %8d %s\n",
		p, n/1e9, c, t/1e9, c/(n/1e9), (t/1e9)/(n/1e9), ev, mb, r }'
	awk -v n="$n" -v c="$c" 'BEGIN { print c/(n/1e9) }' >>"$tmp/ratios"
done
if [ -s "$tmp/ratios" ]; then
	med=$(median <"$tmp/ratios")
	max=$(sort -g "$tmp/ratios" | tail -1)
	awk -v m="$med" -v x="$max" 'BEGIN {
		printf "overhead: median %.2fx (target <= 1.5x: %s), max %.2fx (target <= 3x: %s)\n",
		m, (m <= 1.5) ? "met" : "MISSED", x, (x <= 3) ? "met" : "MISSED" }'
fi

echo "== per-call cost ($launches launches of an empty kernel)"
"$T/launch_loop" "$launches" >"$tmp/native" 2>&1
rm -rf "$tmp/b"
"$G" -q capture -o "$tmp/b" -- "$T/launch_loop" "$launches" >"$tmp/capt" 2>&1 || status=1
sn=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$tmp/native")
sc=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$tmp/capt")
awk -v n="$launches" -v a="$sn" -v b="$sc" 'BEGIN {
	d = (b - a) / n * 1e6
	printf "native %.3f us/launch, captured %.3f us/launch, capture cost %.3f us per call (target <= 2 us: %s)\n",
	a / n * 1e6, b / n * 1e6, d, (d <= 2) ? "met" : "MISSED" }'
echo "events: $(mget "$tmp/b" events.found), trace: $(du -sm "$tmp/b" | cut -f1) MB"

echo "== large host-to-device copies ($mib MiB x 4)"
for mode in -d same; do
	rm -rf "$tmp/b"
	"$T/h2d_big" "$mib" 4 "$mode" >"$tmp/native" 2>&1
	"$G" -q capture -o "$tmp/b" -- "$T/h2d_big" "$mib" 4 "$mode" >"$tmp/capt" 2>&1 || status=1
	bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' "$tmp/capt")
	sn=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$tmp/native")
	sc=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$tmp/capt")
	size=$(du -sb "$tmp/b" | cut -f1)
	awk -v m="$mode" -v by="$bytes" -v a="$sn" -v b="$sc" -v s="$size" \
	    -v st="$(mget "$tmp/b" blobs.stored)" -v dd="$(mget "$tmp/b" blobs.deduplicated)" 'BEGIN {
		printf "%-9s native %.2f GB/s, captured %.2f GB/s (target >= 1 GB/s: %s); trace %.1f MB / %.1f MB moved = %.3f; blobs stored %d, deduplicated %d\n",
		m == "-d" ? "distinct" : "identical", by / a / 1e9, by / b / 1e9,
		(by / b / 1e9 >= 1) ? "met" : "MISSED", s / 1e6, by / 1e6, s / by, st, dd }'
done
exit $status
