#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: captured host time (doc/gpumix-replay.md, "Host time"). Every suite
# program and every program of the real-library set (tests/libraries.sh,
# PyTorch inference and a transformer's generate loop among them; those
# whose library this host lacks are skipped, saying so) is captured into
# a bundle with host times (format 2), reconstructed, and replayed alone
# (single) with --host-time captured: every result verified, the gaps
# spent (the manifest's program.0.host_*), the issue error and the
# replayed GPU section against the captured one printed for the record
# (bench/replay_fidelity.sh and bench/host_time_loop.sh measure them).
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
. "$GPUMIX_TOP/tests/libraries.sh"
suite_scratch host_time
suite_cache
tmp=$_scratch
cd "$GPUMIX_TOP" || exit 1

# replay_captured NAME BUNDLE: reconstruct, replay with captured host time
replay_captured() {
	local name=$1 bundle=$2 rc m cap rep
	check_eq "$name: a bundle with host times" "$SUITE_BUNDLE_FORMAT" \
		"$(field "$bundle/manifest" format)"
	out=$("$GPUMIX" -q reconstruct --variant single -o "$tmp/r-$name" "$bundle" 2>&1); rc=$?
	check_eq "$name: reconstruct exits 0" 0 "$rc"
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -4 | sed 's/^/#   /'; return; }
	check_eq "$name: its host gaps are in the build" captured \
		"$(field "$tmp/r-$name/manifest" program.0.host_time)"
	out=$("$GPUMIX" replay --host-time captured --min-replays 3 --watchdog 120 \
		-o "$tmp/run-$name" "$tmp/r-$name" 2>&1); rc=$?
	m=$tmp/run-$name/manifest
	check_eq "$name: replay exits 0" 0 "$rc"
	check_eq "$name: status ok (every result verified)" ok "$(field "$m" status)"
	[ "$rc" = 0 ] || echo "#   failure: $(field "$m" failure)"
	check_eq "$name: the captured host time was spent" captured \
		"$(field "$m" program.0.host_time)"
	check_match "$name: the gaps counted" '^[0-9]+$' "$(field "$m" program.0.host_gaps)"
	cap=$("$GPUMIX" trace info "$bundle" | sed -n 's/^gpu section: .*; \([0-9.]*\) ms without.*/\1/p')
	rep=$(awk -F'\t' 'NR > 1 && $6 == 1 { d = ($4 - $3 - $5) / 1e6; s += d; n++ }
		END { if (n) printf "%.3f", s / n }' "$tmp/run-$name/replays.tsv")
	echo "# $name: GPU section captured ${cap:-?} ms, replayed $rep ms (mean);" \
		"$(field "$m" program.0.host_gaps) gaps, $(field "$m" program.0.host_gap_s) s;" \
		"issue error median $(field "$m" program.0.host_error_us_median) us," \
		"p99 $(field "$m" program.0.host_error_us_p99) us, max $(field "$m" program.0.host_error_us_max) us"
}

for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	replay_captured "$p" "$SUITE_CACHE/$p"
done
for line in "${LIBRARY_PROGRAMS[@]}"; do
	library_fields "$line"
	if [ -n "$lib_req" ] && ! (eval "$lib_req") >/dev/null 2>&1; then
		skip "$lib_name: its library is not usable here ($lib_req failed)"
		continue
	fi
	# shellcheck disable=SC2086 # the command's words
	out=$("$GPUMIX" -q capture -o "$tmp/$lib_name" -- $lib_cmd 2>"$tmp/$lib_name.err"); rc=$?
	check_eq "$lib_name: capture exits 0" 0 "$rc"
	[ "$rc" = 0 ] || { tail -6 "$tmp/$lib_name.err" | sed 's/^/#   /'; continue; }
	check_match "$lib_name: PASS under capture" "^PASS $lib_name" "$out"
	replay_captured "$lib_name" "$tmp/$lib_name"
done
done_testing
