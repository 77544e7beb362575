#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the elastic variant on every Parboil-style suite program alone,
# under each policy (median, mpmax, equal, queuemold), with the kernel
# profile of the suite's own single runs (gpumix profile): each replay
# must end with status ok (every result bit-identical to the captured
# run). The single runs replay the elastic modules with elasticity off
# (the fairness rule). Checks that the policy planned the transformed
# kernels, that MEDIAN took its median kernel from the profile, and that
# long kernels were timesliced.
#   GPUMIX_SUITE_BUNDLES=DIR, GPUMIX_SUITE="bfs mm",
#   OUT=DIR  keeps summary.tsv in DIR/elastic_variant
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch elastic_variant
suite_cache
tmp=$_scratch
printf 'program\tpolicy\tstatus\tplanned\tlimited\tsliced\tranges\tlogical_blocks\tphysical_blocks\n' \
	>"$_results/summary.tsv"

progs=
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	out=$("$GPUMIX" -q reconstruct --variant single --elastic -o "$tmp/$p" \
		"$SUITE_CACHE/$p" 2>&1); rc=$?
	check_eq "$p: reconstruct --elastic exits 0" 0 "$rc"
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'; continue; }
	out=$("$GPUMIX" replay --variant single --elastic identity \
		--min-replays 2 -o "$tmp/single-$p" "$tmp/$p" 2>&1); rc=$?
	check_eq "$p: single (elastic modules, elasticity off) exits 0" 0 "$rc"
	[ "$rc" = 0 ] && progs="$progs $p"
done
singles=$(for p in $progs; do echo "$tmp/single-$p"; done)
# shellcheck disable=SC2086
out=$("$GPUMIX" profile -o "$tmp/profile.tsv" $singles 2>&1); rc=$?
check_eq "gpumix profile of the single runs exits 0" 0 "$rc"
check_match "the profile names this GPU" "$(nvidia-smi --query-gpu=name \
	--format=csv,noheader | head -1)" "$(sed -n 3p "$tmp/profile.tsv")"

for p in $progs; do
	for pol in median mpmax equal queuemold; do
		run=$tmp/run-$p-$pol
		out=$("$GPUMIX" replay --variant elastic --policy "$pol" \
			--profile "$tmp/profile.tsv" --min-replays 2 \
			--watchdog 120 -o "$run" "$tmp/$p" 2>&1); rc=$?
		st=$(field "$run/manifest" status)
		check_eq "$p elastic/$pol: status ok: results bit-identical" ok "$st"
		if [ "$st" != ok ]; then
			printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
			echo "#   failure: $(field "$run/manifest" failure)"
			continue
		fi
		check_eq "$p elastic/$pol: recorded" "elastic $pol" \
			"$(field "$run/manifest" variant) $(field "$run/manifest" policy)"
		[ "$pol" = median ] && check_eq "$p: the median kernel is the suite's" \
			profile "$(field "$run/manifest" elastic.median_from)"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$pol" "$st" \
			"$(field "$run/manifest" elastic.planned_launches)" \
			"$(field "$run/manifest" elastic.limited_launches)" \
			"$(field "$run/manifest" elastic.sliced_launches)" \
			"$(field "$run/manifest" elastic.ranges)" \
			"$(field "$run/manifest" elastic.logical_blocks)" \
			"$(field "$run/manifest" elastic.physical_blocks)" \
			>>"$_results/summary.tsv"
	done
done
# A few pairs: co-running programs (MPMAX's othersLargest, EQUAL's halves,
# QUEUEMOLD's arrivals from the other program).
for pair in ${GPUMIX_ELASTIC_PAIRS:-cutcp+mm lbm+tpacf fft+histo}; do
	a=${pair%+*} b=${pair#*+}
	case " $progs " in *" $a "*) ;; *) continue ;; esac
	case " $progs " in *" $b "*) ;; *) continue ;; esac
	out=$("$GPUMIX" -q reconstruct --variant cuda --elastic -o "$tmp/$pair" \
		"$SUITE_CACHE/$a" "$SUITE_CACHE/$b" 2>&1) || {
		not_ok "$pair: reconstruct --elastic"; continue; }
	for pol in median mpmax equal queuemold; do
		run=$tmp/run-$pair-$pol
		out=$("$GPUMIX" replay --variant elastic --policy "$pol" \
			--profile "$tmp/profile.tsv" --min-replays 2 \
			--watchdog 120 -o "$run" "$tmp/$pair" 2>&1); rc=$?
		st=$(field "$run/manifest" status)
		check_eq "$pair elastic/$pol: status ok: results bit-identical" ok "$st"
		[ "$st" = ok ] || echo "#   failure: $(field "$run/manifest" failure)"
		echo "# $pair $pol: planned $(field "$run/manifest" elastic.planned_launches), limited $(field "$run/manifest" elastic.limited_launches), molded $(field "$run/manifest" elastic.molded_launches), sliced $(field "$run/manifest" elastic.sliced_launches), blocks $(field "$run/manifest" elastic.physical_blocks)/$(field "$run/manifest" elastic.logical_blocks)"
	done
done
sliced=$(awk -F'\t' 'NR > 1 { s += $6 } END { print s + 0 }' "$_results/summary.tsv")
check "long kernels were timesliced somewhere ($sliced launches)" test "$sliced" -gt 0
planned=$(awk -F'\t' 'NR > 1 { s += $4 } END { print s + 0 }' "$_results/summary.tsv")
check "the policies planned transformed kernels ($planned launches)" test "$planned" -gt 0
sed 's/^/# /' "$_results/summary.tsv"
done_testing
