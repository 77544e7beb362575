#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the mps variant with the real MPS (doc/mps.md). Every Parboil-style
# suite program replayed alone under mps (one replay process under a
# private nvidia-cuda-mps-control), then one pair (two processes, one at
# a 50% active-thread limit). Each run must end with status ok (every
# device-to-host result of every replay bit-identical to the captured
# run), each replay process must have been an MPS client (the runtime
# checks CU_DEVICE_ATTRIBUTE_MPS_ENABLED), the daemon must be stopped
# after quit, its pipe directory removed and no nvidia-cuda-mps-* process
# of ours left. The pair's run directory must load in gpumix analyze with
# both programs. A host without nvidia-cuda-mps-control fails this test
# under make check-gpu (the refusal is tested on the CPU).
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured bundles
#   GPUMIX_SUITE="bfs mm"     restricts the programs
#   GPUMIX_MPS_PAIR="mm spmv" the pair (default: the first two programs)
#   OUT=DIR                   keeps a summary (summary.tsv) in DIR/mps_variant
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch mps_variant
suite_cache
tmp=$_scratch
printf 'workload\tstatus\tseconds\tclock_spread_ns\tdaemon\n' >"$_results/summary.tsv"

if ! command -v nvidia-cuda-mps-control >/dev/null; then
	not_ok "nvidia-cuda-mps-control is in PATH (the mps variant needs MPS)"
	done_testing
	exit
fi

# our_mps RUNDIR: processes named nvidia-cuda-mps* whose environment names
# the run's pipe directory (not zombies)
our_mps() {
	local pipe e left=
	pipe=$(sed -n "s/.*pipe directory '\([^']*\)'.*/\1/p" "$1/log")
	for e in /proc/[0-9]*/environ; do
		if grep -qzsx "CUDA_MPS_PIPE_DIRECTORY=$pipe" "$e" 2>/dev/null &&
		   grep -qs '^Name:.*nvidia-cuda-mps' "${e%environ}status" &&
		   ! grep -qs '^State:.*Z' "${e%environ}status"; then
			left="$left ${e#/proc/}"
		fi
	done
	echo "$pipe|$left"
}

# replay_mps NAME DIR ARGS...: replay under mps, check the run directory
replay_mps() {
	local name=$1 dir=$2 run=$tmp/run-$1 n out rc st t0 left
	shift 2
	n=$(sed -n 's/^programs = //p' "$dir/manifest")
	t0=$(date +%s)
	out=$("$GPUMIX" replay --variant mps --min-replays 2 --watchdog 120 \
		-o "$run" "$@" "$dir" 2>&1)
	rc=$?
	st=$(field "$run/manifest" status)
	check_eq "$name mps: replay exits 0" 0 "$rc"
	check_eq "$name mps: status ok: results bit-identical to the captured run" ok "$st"
	if [ "$st" != ok ]; then
		printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
		echo "#   failure: $(field "$run/manifest" failure)"
	else
		check_run "$run" "$n" 2
	fi
	check_eq "$name mps: one process per program" "$n" "$(field "$run/manifest" processes.count)"
	check_eq "$name mps: the daemon stopped after quit" stopped "$(field "$run/manifest" mps.daemon)"
	left=$(our_mps "$run")
	check "$name mps: its pipe directory (${left%%|*}) is removed" test ! -e "${left%%|*}"
	check_eq "$name mps: no MPS process of the run is left" "" "${left#*|}"
	check "$name mps: the MPS logs are kept" test -s "$run/mps/daemon/control.log"
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$st" "$(($(date +%s) - t0))" \
		"$(field "$run/manifest" processes.clock_spread_ns)" \
		"$(field "$run/manifest" mps.daemon)" >>"$_results/summary.tsv"
}

# every MPS process on the host (ours must all be gone at the end)
all_mps() {
	local s n=0
	for s in /proc/[0-9]*/status; do
		grep -qs '^Name:.*nvidia-cuda-mps' "$s" &&
			! grep -qs '^State:.*Z' "$s" && n=$((n + 1))
	done
	echo "$n"
}
before=$(all_mps)

set -- $SUITE_PROGRAMS
pair=${GPUMIX_MPS_PAIR:-"$1 ${2:-$1}"}
for p in $SUITE_PROGRAMS; do
	suite_bundle "$p" || continue
	out=$("$GPUMIX" -q reconstruct -o "$tmp/$p" "$SUITE_CACHE/$p" 2>&1)
	rc=$?
	check_eq "$p: reconstruct exits 0" 0 "$rc"
	[ "$rc" = 0 ] || continue
	replay_mps "$p" "$tmp/$p"
done

set -- $pair
if suite_bundle "$1" && suite_bundle "$2"; then
	"$GPUMIX" -q reconstruct -o "$tmp/pair" "$SUITE_CACHE/$1" "$SUITE_CACHE/$2" >/dev/null 2>&1
	check_eq "pair $1+$2: reconstruct exits 0" 0 "$?"
	replay_mps "$1+$2" "$tmp/pair" --mps-threads "$2=50"
	check_eq "pair: $2 ran at 50% active threads" 50 \
		"$(field "$tmp/run-$1+$2/manifest" mps.program.1.active_threads)"
	out=$("$GPUMIX" analyze "$tmp/run-$1+$2" -o "$tmp/pair.db" 2>&1)
	check_eq "pair: gpumix analyze loads it" 0 "$?"
	check_eq "pair: with both programs' kernels" 2 "$(db_query "$tmp/pair.db" \
		"SELECT COUNT(DISTINCT programId) FROM CUPTI_ACTIVITY_KIND_KERNEL")"
fi
check_eq "no nvidia-cuda-mps-* process of ours left at the end" "" \
	"$(for d in "$tmp"/run-*; do l=$(our_mps "$d"); echo -n "${l#*|}"; done)"
check_eq "as many MPS processes on the host as before the test" "$before" "$(all_mps)"
sed "s/^/# /" "$_results/summary.tsv"
done_testing
