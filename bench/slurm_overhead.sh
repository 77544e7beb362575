#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make bench: what SLURM costs per task, on the tests' private one-node
# cluster (tests/slurm_cluster.sh; skipped, saying why, without the
# packages). Two measurements, each as wall time from the first command
# to the last task's end, and the ratio:
#   1. N trivial tasks (/bin/true): one job array through sbatch, until
#      the queue is empty, against running them directly one after the
#      other;
#   2. a study of N runs through the fake gpumix (no GPU; each stage
#      returns at once): gpumix run --slurm (prep job, array, finish job)
#      against gpumix run.
# The difference over N is SLURM's overhead per task: what a replay of
# 50-500 ms must be weighed against. GPUMIX_BENCH_SLURM_TASKS sets N
# (default 40).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
GPUMIX=$GPUMIX_BUILD/gpumix
N=${GPUMIX_BENCH_SLURM_TASKS:-40}
. "$GPUMIX_TOP/tests/slurm_cluster.sh"

missing=$(slurm_missing)
if [ -n "$missing" ]; then
	echo "slurm bench: skipped: $missing"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
trap 'slurm_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
slurm_start "$tmp/slurm" || { echo "slurm bench: cannot start the cluster" >&2; exit 1; }

now() { date +%s.%N; }
sub() { awk "BEGIN { printf \"%.3f\", $1 - $2 }"; }
report() { # report WHAT DIRECT VIA-SLURM
	awk -v what="$1" -v d="$2" -v s="$3" -v n="$N" 'BEGIN {
		printf "  %s: direct %.2f s, through SLURM %.2f s (x%.1f); overhead %.0f ms per task\n",
			what, d, s, s / d, (s - d) * 1000 / n }'
}

echo "slurm bench: $(nproc) CPUs, one-node cluster ($(sinfo -h -o '%c CPUs, %N')), $N tasks"

# 1. Trivial tasks.
t0=$(now)
for _ in $(seq "$N"); do /bin/true; done
direct=$(sub "$(now)" "$t0")
t0=$(now)
sbatch --parsable --array=0-$((N - 1)) --output=/dev/null --wrap=/bin/true >/dev/null
slurm_wait_idle 600
via=$(sub "$(now)" "$t0")
report "$N x /bin/true" "$direct" "$via"

# 2. A study of N runs, its stages through the fake gpumix.
. "$GPUMIX_TOP/tests/data/study/setup.sh"
progs=
i=0
while [ $(( (i * (i - 1)) / 2 + i )) -lt "$N" ]; do
	i=$((i + 1))
	progs="$progs p$i"
done
for m in direct slurm; do
	make_study "$tmp/$m" "$progs" "" "single, cuda"
done
runs=$(cd "$tmp/direct" && "$GPUMIX" run --dry-run study.yaml | sed -n 's/.*: \([0-9]*\) runs (.*/\1/p')
t0=$(now)
(cd "$tmp/direct" && "$GPUMIX" -q run study.yaml >/dev/null)
direct=$(sub "$(now)" "$t0")
t0=$(now)
(cd "$tmp/slurm" && "$GPUMIX" run --slurm study.yaml >/dev/null)
slurm_wait_idle 600
via=$(sub "$(now)" "$t0")
ok=$(grep -c '| ok |' "$tmp/slurm/results/t/summary.md")
N=$runs report "study of $runs runs ($ok ok via SLURM)" "$direct" "$via"
