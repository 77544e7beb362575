#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the green variant (doc/green.md). Every Parboil-style suite program
# replayed alone in a green partition of half the GPU, results verified
# (status ok: every device-to-host result bit-identical to the captured
# run), the partition's SMs as the driver reports them; one pair under
# green with equal partitions; gpumix scale on one program (a point per
# partition size, a knee, the 8-SM partition no faster than the whole
# GPU). The SM resource the driver reports (count, minimum partition,
# alignment) and the split are printed, so that the granularity is a
# measurement, not an assumption. About 1-2 minutes with a bundle cache.
#   GPUMIX_SUITE_BUNDLES=DIR, GPUMIX_SUITE="bfs mm",
#   GPUMIX_SCALE_PROGRAM=P  the program gpumix scale measures (default mm)
#   OUT=DIR  keeps summary.tsv and the scale tables in DIR/green_variant
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch green_variant
suite_cache
tmp=$_scratch
printf 'program\tstatus\tsm_count\tgroup_sms\tgroups\tremainder\tmean_replay_ms\n' \
	>"$_results/summary.tsv"

mean_ms() { # mean_ms RUNDIR: mean kept replay time
	awk -F'\t' 'NR > 1 && $6 == 1 { s += $4 - $3 - $5; n++ }
		END { if (n) printf "%.3f", s / n / 1e6 }' "$1/replays.tsv"
}

progs=
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	out=$("$GPUMIX" -q reconstruct --variant green -o "$tmp/$p" "$SUITE_CACHE/$p" 2>&1); rc=$?
	check_eq "$p: reconstruct exits 0" 0 "$rc"
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'; continue; }
	run=$tmp/run-$p
	out=$("$GPUMIX" replay --variant green --sm-share "$p=50%" --min-replays 2 \
		--watchdog 120 -o "$run" "$tmp/$p" 2>&1); rc=$?
	st=$(field "$run/manifest" status)
	if grep -q COOPERATIVE_LAUNCH_TOO_LARGE "$run/manifest" 2>/dev/null; then
		# a cooperative grid needs all its blocks resident at once, and
		# may need more SMs than half the GPU (bfs: 4 blocks on each SM
		# of the whole GPU): the run must say so, naming the grid
		check_match "$p green: refused, naming the cooperative grid that does not fit" \
			"grid of [0-9]+ x [0-9]+ x [0-9]+ blocks: .*CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE" \
			"$(field "$run/manifest" failure)"
		continue
	fi
	check_eq "$p green (half the GPU): exit 0" 0 "$rc"
	check_eq "$p green: status ok: results bit-identical to the captured run" ok "$st"
	if [ "$st" != ok ]; then
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		echo "#   failure: $(field "$run/manifest" failure)"
		continue
	fi
	check_run "$run" 1 2
	m=$run/manifest
	g=$(field "$m" green.group_sms)
	sms=$(field "$m" program.0.sm_count)
	half=$(( ($(field "$m" green.sm_count) * 50 / 100 + g / 2) / g * g ))
	check_eq "$p green: half the SMs in whole groups of $g" "$half" "$sms"
	progs="$progs $p"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$st" "$sms" "$g" \
		"$(field "$m" green.groups)" "$(field "$m" green.remainder)" \
		"$(mean_ms "$run")" >>"$_results/summary.tsv"
done
first=$(set -- $progs; echo "${1:-}")
if [ -n "$first" ]; then
	m=$tmp/run-$first/manifest
	echo "# SM resource: $(field "$m" green.sm_count) SMs, minimum partition" \
		"$(field "$m" green.min_partition), alignment $(field "$m" green.alignment);" \
		"split: $(field "$m" green.groups) groups of $(field "$m" green.group_sms)," \
		"remainder $(field "$m" green.remainder)"
fi

# A pair under green, equal partitions.
set -- $progs
if [ $# -ge 2 ]; then
	a=$1 b=$2
	out=$("$GPUMIX" -q reconstruct --variant green -o "$tmp/pair" \
		"$SUITE_CACHE/$a" "$SUITE_CACHE/$b" 2>&1); rc=$?
	check_eq "$a+$b: reconstruct exits 0" 0 "$rc"
	run=$tmp/run-pair
	out=$("$GPUMIX" replay --variant green --min-replays 2 --watchdog 120 \
		-o "$run" "$tmp/pair" 2>&1); rc=$?
	check_eq "$a+$b green: exit 0, results verified" "0 ok" "$rc $(field "$run/manifest" status)"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
	check_run "$run" 2 2
	check_eq "$a+$b green: equal partitions" \
		"$(field "$run/manifest" program.0.sm_count)" "$(field "$run/manifest" program.1.sm_count)"
	echo "# pair $a+$b: $(field "$run/manifest" program.0.sm_count) SMs each;" \
		"mean replay ms: $a $(awk -F'\t' -v p="$a" '$1 == p && $6 == 1 { s += $4 - $3 - $5; n++ } END { printf "%.3f", s / n / 1e6 }' "$run/replays.tsv")," \
		"$b $(awk -F'\t' -v p="$b" '$1 == p && $6 == 1 { s += $4 - $3 - $5; n++ } END { printf "%.3f", s / n / 1e6 }' "$run/replays.tsv")"
else
	skip "fewer than two suite programs replayed: no pair"
fi

# gpumix scale on one program.
sp=${GPUMIX_SCALE_PROGRAM:-mm}
if suite_bundle "$sp"; then
	out=$("$GPUMIX" scale -o "$tmp/scale" --replays 2 "$SUITE_CACHE/$sp" 2>"$tmp/scale.err"); rc=$?
	check_eq "gpumix scale $sp: exit 0" 0 "$rc"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/scale.err"
	pts=$(awk -F, -v p="$sp" '$1 == p && $2 == ""' "$tmp/scale/scale.csv" | wc -l)
	groups=$(sed -n 's/^green.groups = //p' "$tmp/scale/runs/$sp.green/manifest")
	check_eq "$sp: a point per partition size and the whole GPU" "$((groups + 1))" "$pts"
	check_match "$sp: a knee" "^$sp,,[0-9]+,[0-9]+," "$(cat "$tmp/scale/knees.csv")"
	t_small=$(awk -F, -v p="$sp" '$1 == p && $2 == "" { print $4; exit }' "$tmp/scale/scale.csv")
	t_full=$(awk -F, -v p="$sp" '$1 == p && $2 == "" { t = $4 } END { print t }' "$tmp/scale/scale.csv")
	check "$sp: the smallest partition is no faster than the whole GPU ($t_small ms, $t_full ms)" \
		awk -v a="$t_small" -v b="$t_full" 'BEGIN { exit !(a >= b * 0.95) }'
	printf '%s\n' "$out" | sed 's/^/# /'
	cp "$tmp/scale/scale.csv" "$tmp/scale/knees.csv" "$tmp/scale/scale.md" "$_results/" 2>/dev/null
	[ -f "$tmp/scale/scale-$sp.png" ] && cp "$tmp/scale/scale-$sp.png" "$_results/"
fi
sed "s/^/# /" "$_results/summary.tsv"
done_testing
