#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: CUDA graphs as XLA's command buffers (JAX) build them
# (tests/gpu/progs/cmdbuf.cu, doc/graphs.md): traces into graphs the
# program made (cudaStreamBeginCaptureToGraph, the second after a node)
# and generic nodes (cudaGraphAddNode). Captured with nothing unsupported;
# replayed verified alone (single) and in a cuda pair with a suite program
# (mm), one cuGraphLaunch per captured launch.
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch cmdbuf
suite_cache
tmp=$_scratch
T=$GPUMIX_BUILD/tests/gpu/progs
LAUNCHES=4

out=$("$GPUMIX" capture -o "$tmp/cmdbuf" -- "$T/cmdbuf" 2>"$tmp/cap.err"); rc=$?
check_eq "capture exits 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cap.err"
check_match "PASS under capture" "^PASS cmdbuf" "$out"
info=$("$GPUMIX" trace info "$tmp/cmdbuf" 2>&1)
check_eq "no unsupported call" 0 "$(field "$tmp/cmdbuf/manifest" loss.unsupported_calls)"
[ "$(field "$tmp/cmdbuf/manifest" loss.unsupported_calls)" = 0 ] ||
	sed -n '/^unsupported calls:/,/^runtime calls:/p' <<<"$info" | sed 's/^/#   /'
check_eq "two traces into graphs" 2 \
	"$(sed -n 's/^  cuStreamBeginCaptureToGraph  *//p' <<<"$info")"

for w in "cmdbuf:single:$tmp/cmdbuf" "cmdbuf+mm:cuda:$tmp/cmdbuf $SUITE_CACHE/mm"; do
	name=${w%%:*}; rest=${w#*:}; v=${rest%%:*}
	[ "$v" = cuda ] && ! suite_bundle mm && continue
	# shellcheck disable=SC2086
	reconstruct_replay "$name" "$v" 2 ${rest#*:}
	check_match "$name $v: every result verifiable" \
		"program 'cmdbuf': .* 0 results not verifiable, 0 unsupported calls" "$recon_out"
	n=$(awk -F'\t' '$1 == "cmdbuf"' "$tmp/run-$name.$v/replays.tsv" | wc -l)
	check_eq "$name $v: one graph launch per captured launch ($n replays)" \
		$((LAUNCHES * n)) \
		"$(awk -F'\t' '$1 == "API" && $2 == "cmdbuf" && $8 ~ /^cuGraphLaunch/' \
			"$tmp/run-$name.$v/activity.tsv" | wc -l)"
done

done_testing
