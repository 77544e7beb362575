#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the block probe (doc/gpumix-replay.md, "The block probe") on every
# Parboil-style suite program alone. Each program is captured at a small
# size (-s 0.05, fft 0.03, so that every launch fits the probe's buffer),
# reconstructed with --elastic (single variant) and replayed (2 replays)
# with --probe blocks. Each run must end with status ok (every
# device-to-host result bit-identical to the capture: the probe changes
# no result), and its probe files must be complete (tests/probe_check.sh):
# exactly one record per logical block of every probed launch, each with
# a start, an SM below the device's SM count and a duration below 4.29 s,
# every launch joined to its CUPTI KERNEL record; no launch left out for
# want of room; every launch of a transformed kernel probed, and the
# others (bfs's cooperative kernel) listed as not probed with the
# transformer's reason. Per launch, its blocks' span (first start to last
# end, on the GPU's clock) must not exceed its CUPTI duration by more
# than 50 us.
#   GPUMIX_SUITE="bfs mm"   restricts the programs
#   GPUMIX_PROBE_SCALE=S    every program's size (-s S; default 0.05, fft 0.03)
#   OUT=DIR                 keeps a summary (summary.tsv) in DIR/probe
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/probe_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch probe
tmp=$_scratch
scale=${GPUMIX_PROBE_SCALE:-0.05}
# Programs whose launches at that size need more records than the probe's
# buffer holds per replay (2^22): a smaller size of their own. fft at 0.05
# made 400 launches a replay of 12,700 blocks each (5.1 million records:
# 330 of them fitted, on an H200); its batch, and so its blocks, scale
# linearly with -s.
declare -A program_scale=([fft]=0.03)
printf 'program\tstatus\tlaunches\tprobed\trecords\tsms_used\tcopy_ms\n' \
	>"$_results/summary.tsv"

# spans RUNDIR: per probed launch, "span_ns kernel_ns" (its blocks' first
# start to last end; CUPTI's end - start of its KERNEL record). Times
# relative to the first record (exact in awk's doubles).
spans() {
	probe_records "$1" >"$tmp/recs"
	awk -F'\t' '
		FILENAME ~ /activity.tsv$/ {
			if ($1 == "KERNEL") { ks[$3] = $4; ke[$3] = $5 }
			next }
		FILENAME ~ /probe.tsv$/ {
			if (FNR > 1 && $1 != "END") { n++; cnt[n] = $17; corr[n] = $3 }
			next }
		{	split($0, f, " ")
			if (!started) { hi0 = f[2]; lo0 = f[1]; started = 1; line = 1; left = cnt[1] }
			while (left == 0 && line < n) { line++; left = cnt[line] }
			t = (f[2] - hi0) * 4294967296 + (f[1] - lo0)
			if (!(line in first) || t < first[line]) first[line] = t
			if (!(line in last) || t + f[3] > last[line]) last[line] = t + f[3]
			left--
		}
		END {
			for (i = 1; i <= n; i++) {
				if (!cnt[i] || !(corr[i] in ks)) continue
				s = substr(ks[corr[i]], length(ks[corr[i]]) - 11) + 0
				e = substr(ke[corr[i]], length(ke[corr[i]]) - 11) + 0
				d = e - s; if (d < 0) d += 1e12
				print last[i] - first[i], d
			}
		}' "$1/activity.tsv" "$1/probe.tsv" "$tmp/recs"
}

for p in $SUITE_PROGRAMS; do
	exe=$GPUMIX_BUILD/workloads/parboil/$p
	if [ ! -x "$exe" ]; then
		not_ok "$p: $exe is built (make)"
		continue
	fi
	s=${GPUMIX_PROBE_SCALE:-${program_scale[$p]:-$scale}}
	out=$(cd "$GPUMIX_TOP" && "$GPUMIX" -q capture -o "$tmp/bundle-$p" -- "$exe" -s "$s" 2>&1); rc=$?
	if [ "$rc" != 0 ] || ! grep -q "^PASS $p" <<<"$out"; then
		not_ok "$p: captured at -s $s (exit $rc)"
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		continue
	fi
	out=$("$GPUMIX" reconstruct --variant single --elastic -o "$tmp/$p" "$tmp/bundle-$p" 2>&1); rc=$?
	check_eq "$p: reconstruct --elastic exits 0" 0 "$rc"
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'; continue; }
	d=$tmp/run-$p
	out=$("$GPUMIX" replay --probe blocks --min-replays 2 --watchdog 120 -o "$d" "$tmp/$p" 2>&1); rc=$?
	st=$(field "$d/manifest" status)
	check_eq "$p: --probe blocks: status ok (every result bit-identical to the capture)" ok "$st"
	if [ "$st" != ok ]; then
		printf '%s\n' "$out" | tail -4 | sed 's/^/#   /'
		echo "#   failure: $(field "$d/manifest" failure)"
		continue
	fi
	sms=$(field "$d/manifest" device.sm_count)
	check_probe "$p" "$d" "$sms"
	check_eq "$p: no launch left out for want of room" 0 "$(field "$d/manifest" probe.full_launches)"
	check_eq "$p: every launch of a transformed kernel probed, the others say why" "" \
		"$(awk -F'\t' 'FILENAME ~ /kernels.tsv$/ { cls[$2] = $3; why[$2] = $9; next }
			FNR > 1 && $1 != "END" && (($17 > 0) != (cls[$5] != "not-elastic") ||
			(cls[$5] == "not-elastic" && $18 != why[$5])) { print $5 ": " $18; exit }' \
			"$tmp/$p/elastic/kernels.tsv" "$d/probe.tsv")"
	check_eq "$p: a probe line per kernel record" \
		"$(awk -F'\t' '$1 == "KERNEL"' "$d/activity.tsv" | wc -l)" \
		"$(awk -F'\t' 'NR > 1 && $1 != "END"' "$d/probe.tsv" | wc -l)"
	spans "$d" >"$tmp/spans"
	check_eq "$p: each launch's blocks span at most its CUPTI duration + 50 us" "" \
		"$(awk '$1 > $2 + 50000 { print "span " $1 " ns, kernel " $2 " ns"; exit }' "$tmp/spans")"
	used=$(probe_records "$d" | awk '{ s[$4] = 1 } END { print length(s) }')
	echo "# $p: $(field "$d/manifest" probe.probed_launches) of $(field "$d/manifest" probe.launches) launches probed, $(field "$d/manifest" probe.records) records, $used of $sms SMs used"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$st" \
		"$(field "$d/manifest" probe.launches)" "$(field "$d/manifest" probe.probed_launches)" \
		"$(field "$d/manifest" probe.records)" "$used" \
		"$(awk -v n="$(field "$d/manifest" probe.copy_ns)" 'BEGIN { printf "%.2f", n / 1e6 }')" \
		>>"$_results/summary.tsv"
	rm -f "$d/activity.tsv" "$tmp/recs"
done
done_testing
