#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How this GPU's block scheduler places thread blocks (needs a GPU;
# doc/placement.md): build/bench/placement launches `hold` kernels whose
# blocks record their SM and their start and end on the GPU's global
# clock, with shared memory sized so that K blocks fit one SM, and this
# script runs the experiments and summarises them:
#   E1 fill order  one kernel of 2 x SMs blocks, 2 per SM (one wave):
#                  does the first SMs blocks take one SM each, which SMs
#                  come first, does block i share its SM with block
#                  i + SMs?
#   E2 most room   kernel A holds half the SMs (one of its two slots) for
#                  50 ms; kernel B, as many blocks, arrives 2 ms later: do
#                  B's blocks go to the empty SMs (most room) or to the SMs
#                  A holds (an order regardless of load)?
#   E3 waiting     kernel A of 4 waves (4 x SMs blocks of 1 ms, one per
#                  SM); kernel B (one wave of 100 us blocks) arrives 0.5 ms
#                  after: do B's blocks start while A still has blocks
#                  waiting, or only after A's last block started?
#   E4 priority    E3 with B's stream at the greatest priority (one
#                  process only: priorities order the streams of one
#                  context)
# each of E2 and E3 in one process (two streams of one context), in two
# processes time-sliced by the driver (procs) and in two processes under
# a private MPS daemon (mps; skipped without nvidia-cuda-mps-control).
# Raw records go to build/placement/<exp>-<mode>.tsv ("role block sm start
# end", ns on the GPU's clock), the summary to build/placement.md.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
P=$GPUMIX_BUILD/bench/placement
out=$GPUMIX_BUILD/placement
md=$GPUMIX_BUILD/placement.md
if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "placement bench: SKIPPED (no GPU on this machine)"
	exit 0
fi
status=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-placement.XXXXXX")
mps_up=
cleanup() {
	if [ -n "$mps_up" ]; then
		echo quit | CUDA_MPS_PIPE_DIRECTORY=$tmp/mps-pipe \
			CUDA_MPS_LOG_DIRECTORY=$tmp/mps-log nvidia-cuda-mps-control >/dev/null 2>&1
		sleep 1
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$out"
N=$("$P" info | awk '$1 == "sms" { print $2 }')
[ -n "$N" ] || { echo "placement bench: cannot read the device" >&2; exit 1; }
H=$((N / 2))

# in_process FILE ARGS...: one process, two streams
in_process() {
	local f=$1; shift
	"$P" pair "$@" >"$f" || { echo "placement bench: pair $* failed" >&2; status=1; }
}
# two_processes FILE A_ARGS B_ARGS DELAY: A, then B when A launched
two_processes() {
	local f=$1 a=$2 b=$3 delay=$4
	rm -f "$tmp/go"
	# shellcheck disable=SC2086
	"$P" one A $a --signal "$tmp/go" >"$tmp/a.tsv" &
	local pa=$!
	# shellcheck disable=SC2086
	"$P" one B $b --wait "$tmp/go" --delay-us "$delay" >"$tmp/b.tsv" ||
		{ echo "placement bench: B failed" >&2; status=1; }
	wait "$pa" || { echo "placement bench: A failed" >&2; status=1; }
	cat "$tmp/a.tsv" "$tmp/b.tsv" >"$f"
}

# The summaries, from "role block sm start end" lines.
e1() {
	awk -v n="$N" '{ sm[$2] = $3 }
	END {
		for (i = 0; i < n; i++) d[sm[i]] = 1
		for (s in d) first++
		for (i = 0; i < n; i++) same += sm[i] == sm[i + n]
		for (i = 0; i < 16 && i < n; i++) order = order (i ? "," : "") sm[i]
		printf "| E1 fill order | one process | %d of the first %d blocks on distinct SMs; %d of %d blocks i on the SM of block i + %d | %s |\n",
			first, n, same, n, n, order
	}' "$1"
}
e2() {
	awk -v mode="$2" '$1 == "A" { a[$3] = 1; next }
	$1 == "B" { nb++; if ($3 in a) on++; d[$3] = 1 }
	END {
		for (s in a) na++
		for (s in d) nd++
		verdict = "both"
		if (on == 0) verdict = "B went to the empty SMs (most room)"
		if (on == nb) verdict = "B went to A'"'"'s SMs"
		printf "| E2 most room | %s | %d of B'"'"'s %d blocks on the %d SMs holding an A block, %d distinct SMs | %s |\n",
			mode, on, nb, na, nd, verdict
	}' "$1"
}
# E3/E4: times relative to A's first block start (the last 12 digits of
# the ns timestamps: exact in awk's doubles)
e3() {
	awk -v mode="$2" -v ex="$3" '
	function t(x) { return substr(x, length(x) - 11) + 0 }
	$1 == "A" { s = t($4); if (!na++ || s < a0) a0 = s; if (s > alast) alast = s; as[na] = s; next }
	$1 == "B" { s = t($4); if (!nb++ || s < b0) b0 = s; if (s > blast) blast = s }
	END {
		for (i = 1; i <= na; i++) after += as[i] > b0
		verdict = "B waited until A'"'"'s last block had started"
		if (after > 0) verdict = "B started while A had blocks waiting"
		printf "| %s | %s | B'"'"'s first block at %.1f us, its last at %.1f us; A'"'"'s last block started at %.1f us; %d of A'"'"'s %d blocks started after B'"'"'s first | %s |\n",
			ex, mode, (b0 - a0) / 1e3, (blast - a0) / 1e3, (alast - a0) / 1e3,
			after, na, verdict
	}' "$1"
}

have_mps=
command -v nvidia-cuda-mps-control >/dev/null && have_mps=1
{
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
		sed 's/^/device: /'
	echo "SMs: $N"
	echo
	echo "| experiment | placement | result | reading |"
	echo "| --- | --- | --- | --- |"
	"$P" one A $((2 * N)) 2 2000 >"$out/e1.tsv" || status=1
	e1 "$out/e1.tsv"
	for mode in stream procs mps; do
		if [ "$mode" = mps ]; then
			[ -n "$have_mps" ] || { echo "| E2, E3 | mps | skipped: no nvidia-cuda-mps-control | |"; continue; }
			mkdir -p "$tmp/mps-pipe" "$tmp/mps-log"
			export CUDA_MPS_PIPE_DIRECTORY=$tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=$tmp/mps-log
			nvidia-cuda-mps-control -d && mps_up=1
		fi
		case $mode in
		stream)
			in_process "$out/e2-$mode.tsv" "$H" 2 50000 "$H" 2 5000 2000
			in_process "$out/e3-$mode.tsv" $((4 * N)) 1 1000 "$N" 1 100 500
			;;
		*)
			two_processes "$out/e2-$mode.tsv" "$H 2 50000" "$H 2 5000" 2000
			two_processes "$out/e3-$mode.tsv" "$((4 * N)) 1 1000" "$N 1 100" 500
			;;
		esac
		e2 "$out/e2-$mode.tsv" "$mode"
		e3 "$out/e3-$mode.tsv" "$mode" "E3 waiting"
		if [ "$mode" = mps ]; then
			cp "$tmp/mps-log/control.log" "$out/mps-control.log" 2>/dev/null
			echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
			mps_up=
			unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
		fi
	done
	in_process "$out/e4-stream.tsv" $((4 * N)) 1 1000 "$N" 1 100 500 -5
	e3 "$out/e4-stream.tsv" "stream, B at the greatest priority" "E4 priority"
	echo
	echo "(records in $out: role block sm start end, ns on the GPU's clock)"
} >"$md"	# (not a pipe: the MPS daemon's state must reach the EXIT trap)
cat "$md"
exit $status
