# SPDX-License-Identifier: MIT
# Sourced by the benchmarks that capture and replay the suite programs
# (replay_fidelity.sh, elastic_replay.sh, real_libraries.sh, nss.sh) after
# they set BENCH_NAME: the paths, TAP-like ok/not_ok that only report
# failures, the suite bundle helpers, median and percentile, and a visible
# skip without a GPU.
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
GPUMIX=$GPUMIX_BUILD/gpumix
ok() { :; }
not_ok() { echo "$BENCH_NAME: $*" >&2; status=1; }
. "$GPUMIX_TOP/tests/suite_bundles.sh"
status=0

# field FILE KEY: the value of KEY in a key = value file (a manifest)
field() { sed -n "s/^$2 = //p" "$1"; }
# mean_ms RUNDIR: mean kept replay time in ms (replays.tsv, trace I/O
# subtracted); awk's doubles keep the last 12 digits of the nanosecond
# timestamps exact.
mean_ms() {
	awk -F'\t' 'NR > 1 && $6 == 1 {
		s = substr($3, length($3) - 11) + 0; e = substr($4, length($4) - 11) + 0
		d = e - s; if (d < 0) d += 1e12; t += d - $5; n++ }
		END { if (n) printf "%.3f", t / n / 1e6; else print "nan" }' "$1/replays.tsv"
}

# median, pct Q: of the numbers on stdin, one per line ("nan" for none)
median() { sort -g | awk '{ v[NR] = $1 } END {
	if (!NR) { print "nan"; exit }
	print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pct() { sort -g | awk -v q="$1" '{ v[NR] = $1 } END {
	if (!NR) { print "nan"; exit }
	i = int(q * (NR - 1) + 0.5) + 1; print v[i] }'; }

if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "$BENCH_NAME: SKIPPED (no GPU on this machine)"
	exit 0
fi
