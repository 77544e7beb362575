#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Reconstruct speed (CPU): a synthetic bundle of about a million driver
# calls (build/tests/recon-emitter bench: launches, small copies, results,
# memsets), made by the real capture path, then `gpumix reconstruct` on it
# (events read per second, seconds to generate and write the replay
# program) and `gpumix replay --build-only` (seconds to build it).
# Targets: >= 200k events/s read, build < 60 s. Exits 1 when the build
# takes 60 s or more or a step fails.
#   GPUMIX_BENCH_CALLS=N (1000000)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
G=$GPUMIX_BUILD/gpumix
calls=${GPUMIX_BENCH_CALLS:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

t0=$(now)
if ! "$G" -q capture -o "$tmp/bundle" -- "$GPUMIX_BUILD/tests/recon-emitter" \
	bench --calls "$calls" >/dev/null 2>"$tmp/err"; then
	echo "reconstruct speed: FAIL: the capture failed" >&2
	cat "$tmp/err" >&2
	exit 1
fi
t1=$(now)
events=$(sed -n 's/^events.found = //p' "$tmp/bundle/manifest")
mb=$(du -sm "$tmp/bundle" | cut -f1)
echo "reconstruct speed: bundle of $calls calls, $events events, $mb MB (capture $(secs "$t0" "$t1") s)"

t0=$(now)
if ! "$G" reconstruct --variant single -o "$tmp/wl" "$tmp/bundle" 2>"$tmp/err"; then
	echo "reconstruct speed: FAIL: reconstruct failed" >&2
	cat "$tmp/err" >&2
	exit 1
fi
t1=$(now)
sum=$(tail -1 "$tmp/err")
read_s=$(sed -n 's/.* events read in \([0-9.]*\) s .*/\1/p' <<<"$sum")
rate=$(sed -n 's/.* s (\([0-9]*\) events\/s).*/\1/p' <<<"$sum")
gen_s=$(sed -n "s/.*; wrote '.*' in \([0-9.]*\) s$/\1/p" <<<"$sum")
ops=$(sed -n 's/^program\.0\.ops = //p' "$tmp/wl/manifest")
csize=$(wc -c <"$tmp/wl/replay.c")

t2=$(now)
if ! "$G" -q replay --build-only "$tmp/wl" 2>"$tmp/err"; then
	echo "reconstruct speed: FAIL: the replay program does not build" >&2
	cat "$tmp/err" >&2
	exit 1
fi
t3=$(now)
build=$(secs "$t2" "$t3")

met() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {
	print ((dir == "ge" && v >= t) || (dir == "lt" && v < t)) ? "met" : "MISSED" }'; }
echo "reconstruct speed: read $events events in $read_s s = $rate events/s (target >= 200000: $(met "$rate" 200000 ge))"
echo "reconstruct speed: generate and write $ops operations ($((csize / 1048576)) MiB of C): $gen_s s; whole command $(secs "$t0" "$t1") s"
echo "reconstruct speed: build (cc -O1, gpumix replay --build-only): $build s (target < 60: $(met "$build" 60 lt))"
if [ "$(met "$build" 60 lt)" != met ]; then
	exit 1
fi
