#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: every Parboil-style suite program replayed alone in the nss variant
# (a memory and a kernel stream per program, ordering kept by the
# runtime), with kernel completion learnt from CUDA events and from the
# flags the transformed kernels set (--completion poll, which runs the
# elastic modules with elasticity off). Each replay must end with status
# ok: every device-to-host result of every replay bit-identical to the
# captured run. Checks what the run manifest says nss did (commands,
# kernels completed by flag or by event, copies chunked).
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured bundles
#   GPUMIX_SUITE="bfs mm"     restricts the programs
#   OUT=DIR                   keeps a summary (summary.tsv) in DIR/nss_replay
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch nss_replay
suite_cache
tmp=$_scratch
printf 'program\tcompletion\tstatus\tcommands\tpolled\tby_event\tchunks\treordered\n' \
	>"$_results/summary.tsv"

for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	out=$("$GPUMIX" -q reconstruct --variant cuda --elastic -o "$tmp/$p" "$SUITE_CACHE/$p" 2>&1)
	rc=$?
	check_eq "$p: reconstruct --elastic exits 0" 0 "$rc"
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'; continue; }
	elastic=$(awk -F'\t' 'NR > 1 && $0 ~ /(block|thread)-elastic/' \
		"$tmp/$p/elastic/kernels.tsv" 2>/dev/null | wc -l)
	for c in event poll; do
		run=$tmp/run-$p-$c
		out=$("$GPUMIX" replay --variant nss --completion "$c" \
			--min-replays 2 --watchdog 120 -o "$run" "$tmp/$p" 2>&1)
		rc=$?
		st=$(field "$run/manifest" status)
		check_eq "$p nss ($c): replay exits 0" 0 "$rc"
		check_eq "$p nss ($c): status ok: results bit-identical to the captured run" \
			ok "$st"
		if [ "$st" != ok ]; then
			printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
			echo "#   failure: $(field "$run/manifest" failure)"
			continue
		fi
		check_run "$run" 1 2
		check_eq "$p nss ($c): recorded as nss" nss "$(field "$run/manifest" variant)"
		check_eq "$p nss ($c): two streams per program (+ the runtime's)" 3 \
			"$(field "$run/manifest" streams)"
		polled=$(field "$run/manifest" nss.kernels_polled)
		if [ "$c" = poll ] && [ "$elastic" -gt 0 ]; then
			check "$p nss (poll): kernels completed by their flag ($polled)" \
				test "${polled:-0}" -gt 0
		elif [ "$c" = event ]; then
			check_eq "$p nss (event): no flag polled" 0 "$polled"
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$c" "$st" \
			"$(field "$run/manifest" nss.commands)" "$polled" \
			"$(field "$run/manifest" nss.kernels_by_event)" \
			"$(field "$run/manifest" nss.copy_chunks)" \
			"$(field "$run/manifest" nss.reordered)" >>"$_results/summary.tsv"
	done
done
sed "s/^/# /" "$_results/summary.tsv"
done_testing
