#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Co-run fidelity (GPU): native against replayed slowdowns on pairs that
# mix suite programs and real ones (doc/gpumix-corun.md). One study with
# the corun key (doc/study-yaml.md): each pair's original programs run K
# times alone and K times together under procs and mps (gpumix corun),
# and the pair is replayed once in one-shot mode under each mechanism
# beside one-shot single runs. Per pair, mechanism and program: the
# native slowdown (mean and sd over the K runs), the replayed one, and
# their ratio; per mechanism: the median ratio, its extremes and how many
# rows are within 5% (the target: a median ratio within 5% of 1). Prints
# the table and the summary; exits 1 only when a step fails. Without a
# GPU it says so and skips.
#   GPUMIX_SUITE_BUNDLES=DIR  reuse (and fill) the cache of captured bundles
#   GPUMIX_CORUN_PAIRS="a:b .."  the pairs (default: 12 or more below,
#                             those of the real-library set this host can run)
#   GPUMIX_CORUN_K=K          runs alone and together (default 5)
#   GPUMIX_CORUN_GPUS=LIST    spread the study's runs over these GPUs
#                             (gpumix run --gpus: "all", "0,1"; default
#                             one GPU at a time)
#   OUT=DIR                   keeps corun.csv, corun.md, summary.txt and the
#                             study itself in DIR/corun_fidelity: run again
#                             (say, after a time limit stopped it), the
#                             study resumes where it stopped
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="corun fidelity"
. "$(dirname "$0")/suite_bench.sh"
. "$GPUMIX_TOP/tests/libraries.sh"
. "$GPUMIX_TOP/tests/corun_pairs.sh"
K=${GPUMIX_CORUN_K:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
res=$tmp
if [ -n "${OUT:-}" ]; then
	res=$OUT/corun_fidelity
	mkdir -p "$res"
fi
suite_cache

# The default pairs: suite with suite, and each real program with a suite
# one; the real programs the library set lists (PyTorch inference and
# generation where tests/libraries.sh has them).
pairs="mm:spmv spmv:stencil cutcp:lbm sad:histo fft:tpacf mri-q:bfs"
partner=(spmv stencil mm lbm histo tpacf mri-q bfs)
i=0
for line in "${LIBRARY_PROGRAMS[@]}"; do
	library_fields "$line"
	pairs="$pairs $lib_name:${partner[i % ${#partner[@]}]}"
	i=$((i + 1))
done
mechs="procs, mps"
command -v nvidia-cuda-mps-control >/dev/null || mechs=procs

study=$tmp/study
[ -z "${OUT:-}" ] || study=$res/study
# shellcheck disable=SC2086
corun_study "$tmp/corun.yaml" "$study" "$K" "$mechs" ${GPUMIX_CORUN_PAIRS:-$pairs}
set -- $corun_pairs
echo "$BENCH_NAME: $# pairs, K = $K, under $mechs"
t0=$(date +%s)
gpus=()
[ -z "${GPUMIX_CORUN_GPUS:-}" ] || gpus=(--gpus "$GPUMIX_CORUN_GPUS")
if ! "$GPUMIX" run "${gpus[@]}" "$tmp/corun.yaml" >"$tmp/summary.md" 2>"$tmp/err"; then
	not_ok "the study did not end with every run ok (see below)"
	grep -v '| ok |' "$tmp/summary.md" | grep '^| ' >&2
fi
secs=$(($(date +%s) - t0))
csv=$study/report/tables/corun.csv
if [ ! -s "$csv" ]; then
	not_ok "no corun table in the report"
	exit 1
fi
cp "$csv" "$study/report/tables/corun.md" "$tmp/summary.md" "$res/" 2>/dev/null

gpu=$(sed -n 's/^device.name = //p' "$study"/runs/*.corun/manifest | sort -u | paste -sd,)
{
	echo "$BENCH_NAME on $gpu: $# pairs, K = $K, $secs s"
	cat "$study/report/tables/corun.md"
	echo
	# per mechanism: rows, median ratio, extremes, within 5%
	for m in $(printf '%s' "$mechs" | tr -d ' ' | tr ',' ' '); do
		r=$(awk -F, -v m="$m" 'NR > 1 && $2 == m && $9 != "" { print $9 }' "$csv")
		n=$(printf '%s\n' "$r" | grep -c .)
		within=$(printf '%s\n' "$r" | awk 'NF && $1 >= 0.95 && $1 <= 1.05' | wc -l)
		printf '%s: %d rows; replayed/native median %s (min %s, max %s); within 5%%: %d of %d\n' \
			"$m" "$n" "$(printf '%s\n' "$r" | median)" \
			"$(printf '%s\n' "$r" | pct 0)" "$(printf '%s\n' "$r" | pct 1)" \
			"$within" "$n"
	done
	echo "target: median replayed/native within 5% of 1 per mechanism"
} | tee "$res/summary.txt"
exit $status
