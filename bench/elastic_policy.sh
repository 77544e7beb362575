#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of elastic execution with the policies' grids, each program
# alone (needs a GPU): every suite program reconstructed with --elastic,
# replayed R times as `single` with the original modules, then as
# `elastic` under each policy with the profile of the suite's own single
# runs (identity modules, as a study measures them). Per kernel: its GPU
# time per captured launch (the sum of its kernel records over the
# launches), under each policy against the original. Columns:
#   - median, mpmax, equal, queuemold: the policy's grid, timeslicing off
#     (--timeslice-us 0): the cost of elastic execution with the policy's
#     grid, what the target applies to (median ratio <= 1.05);
#   - mpmax+slices: MPMAX with 1 ms timeslices, as a study runs it (what
#     it adds is the cost of the slices' tails);
#   - mpmax/resident: MPMAX with --grid resident (Algorithm 1's cap at the
#     resident maximum even where no limit binds), timeslicing off.
# Prints the median ratio per column over the transformed kernels and
# writes build/elastic-policy-bench.md.
#   GPUMIX_SUITE_BUNDLES=DIR, GPUMIX_SUITE="bfs mm", GPUMIX_ELASTIC_REPLAYS=R (5)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="elastic policy bench"
. "$(dirname "$0")/suite_bench.sh"
R=${GPUMIX_ELASTIC_REPLAYS:-5}
# NAME:POLICY:EXTRA OPTIONS (comma-separated, = for a space) per column
COLUMNS="median:median:--timeslice-us=0 mpmax:mpmax:--timeslice-us=0
	equal:equal:--timeslice-us=0 queuemold:queuemold:--timeslice-us=0
	mpmax+slices:mpmax: mpmax/resident:mpmax:--timeslice-us=0,--grid=resident"
NCOL=6
out=$GPUMIX_BUILD/elastic-policy-bench.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
suite_cache

# "NAME TOTAL_NS" per kernel of run directory $1 (last 12 digits of the
# nanosecond timestamps: awk's doubles; kernels are far below 1000 s)
totals() {
	awk -F'\t' '$1 == "KERNEL" {
		s = substr($4, length($4) - 11) + 0; e = substr($5, length($5) - 11) + 0
		d = e - s; if (d < 0) d += 1e12; t[$NF] += d }
		END { for (k in t) print k, t[k] }' "$1/activity.tsv"
}

progs=
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	if ! "$GPUMIX" -q reconstruct --elastic -o "$tmp/$p" "$SUITE_CACHE/$p" \
		2>"$tmp/err"; then
		not_ok "$p: reconstruct --elastic failed"
		continue
	fi
	for v in "off" "identity"; do
		if ! "$GPUMIX" -q replay --variant single --elastic "$v" \
			--min-replays "$R" -o "$tmp/run-$p-$v" "$tmp/$p" >/dev/null 2>&1; then
			not_ok "$p: single --elastic $v failed"
			continue 2
		fi
	done
	progs="$progs $p"
done
# shellcheck disable=SC2046
"$GPUMIX" -q profile -o "$tmp/profile.tsv" $(for p in $progs; do echo "$tmp/run-$p-identity"; done) ||
	not_ok "gpumix profile failed"
: >"$tmp/rows"
for p in $progs; do
	totals "$tmp/run-$p-off" | sort >"$tmp/t-off"
	c=0
	for col in $COLUMNS; do
		c=$((c + 1))
		pol=${col#*:}; extra=${pol#*:}; pol=${pol%%:*}
		# shellcheck disable=SC2046
		if ! "$GPUMIX" -q replay --variant elastic --policy "$pol" \
			--profile "$tmp/profile.tsv" --min-replays "$R" \
			$(echo "$extra" | tr ',=' '  ') \
			-o "$tmp/run-$p-$c" "$tmp/$p" >/dev/null 2>&1; then
			not_ok "$p: elastic/${col%%:*} failed"
			continue
		fi
		totals "$tmp/run-$p-$c" | sort >"$tmp/t-$c"
	done
	awk -F'\t' 'NR > 1 && $3 != "not-elastic" { print $2 }' "$tmp/$p/elastic/kernels.tsv" |
		sort -u | while read -r k; do
		row="$p $k $(awk -v k="$k" '$1 == k { print $2 }' "$tmp/t-off")"
		for c in $(seq 1 $NCOL); do
			row="$row $(awk -v k="$k" '$1 == k { print $2 }' "$tmp/t-$c" 2>/dev/null)"
		done
		# a kernel the program never launched has no time
		[ "$(echo "$row" | wc -w)" = $((NCOL + 3)) ] && echo "$row" >>"$tmp/rows"
	done
done

{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
		sed 's/^/device: /'
	echo
	hdr="| program | kernel | original (ms) |" sep="| --- | --- | ---: |"
	for col in $COLUMNS; do hdr="$hdr ${col%%:*} |"; sep="$sep ---: |"; done
	echo "$hdr"
	echo "$sep"
	awk '$3 > 0 { printf "| %s | %s | %.2f |", $1, $2, $3 / 1e6 / '"$R"'
		for (i = 4; i <= NF; i++) printf " %.3f |", $i / $3; printf "\n" }' "$tmp/rows"
	echo
	i=4
	for col in $COLUMNS; do
		awk -v c=$i '$3 > 0 { print $c / $3 }' "$tmp/rows" | sort -g | awk -v col="${col%%:*}" '
			{ v[NR] = $1 } END {
			m = !NR ? 0 : (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "median GPU time ratio, %s / original: %.3f over %d kernels", col, m, NR
			if (col !~ /[+\/]/) printf " (target <= 1.05: %s)", (NR && m <= 1.05) ? "met" : "MISSED"
			printf "\n" }'
		i=$((i + 1))
	done
	echo "(each program alone, $R replays per run; kernel GPU time summed over its records, timeslices included)"
} | tee "$out"
exit $status
