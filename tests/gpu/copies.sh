#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: N copies of one program (doc/study-yaml.md, "copies"; the SPMD
# workloads of PAPER-NOTES 2.3): a study of suite programs, each as N
# copies of itself, replayed under every implemented variant (single,
# cuda, nss, elastic under MPMAX, priority, green with N partitions,
# procs, mps), each run once. Every run must be ok (every device-to-host
# result of every copy bit-identical to the capture), with the N
# instances prog#1 ... prog#N in its manifest; every run of copies must
# have an STP (each copy against the program's own single run); every
# kernel must have a sharing scenario; the report's scenarios table must
# exist. The summary (OUT/copies/scenarios.csv) is the report's table.
#   GPUMIX_SUITE_BUNDLES=DIR    reuse (and fill) the cache of bundles
#   GPUMIX_COPIES="mm:4 spmv:2" the programs and their copies (default
#                               mm:4 spmv:4 lbm:2)
#   OUT=DIR                     keeps the summary in DIR/copies
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/suite_bundles.sh"
suite_scratch copies
suite_cache
tmp=$_scratch
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT

specs=${GPUMIX_COPIES:-mm:4 spmv:4 lbm:2}
progs= workloads= n_wl=0
for s in $specs; do
	p=${s%%:*} n=${s#*:}
	suite_bundle "$p" || continue
	progs="$progs  - bundle: $SUITE_CACHE/$p
"
	workloads="$workloads  - {program: $p, copies: $n}
"
	n_wl=$((n_wl + 1))
done
if [ "$n_wl" = 0 ]; then
	not_ok "no program of '$specs' could be captured"
	done_testing
fi
cat >"$tmp/study.yaml" <<EOF
study: copies
programs:
$progs
workloads:
$workloads
variants: [single, cuda, nss, elastic, priority, green, procs, mps]
policies: [mpmax]
replay: {min_replays: 3, watchdog: 120s}
repeats: 1
paths: {output: $tmp/out}
EOF
"$GPUMIX" run "$tmp/study.yaml" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check_eq "the study exits 0" 0 "$rc"
sed 's/^/# | /' "$tmp/stdout"
runs=$((n_wl + 7 * n_wl))
check_match "every run is ok: $n_wl alone runs and 7 x $n_wl runs of copies" \
	"^- runs: $runs: $runs ok, 0 failed" "$(cat "$tmp/stdout")"
for s in $specs; do
	p=${s%%:*} n=${s#*:}
	[ -d "$SUITE_CACHE/$p" ] || continue
	want=$(seq 1 "$n" | sed "s/^/$p#/" | tr '\n' ' ' | sed 's/ $//')
	for v in cuda nss elastic.mpmax priority green procs mps; do
		m=$tmp/out/runs/$p#1-$n.$v/manifest
		check_eq "$p#1-$n.$v: ok, the $n copies replayed" "ok $want" \
			"$(field "$m" status) $(sed -n 's/^program\.[0-9]*\.name = //p' "$m" | tr '\n' ' ' | sed 's/ $//')"
	done
	check_eq "$p#1-$n.green: $n partitions" "$n" \
		"$(grep -c '^program\.[0-9]*\.sm_count = [1-9]' "$tmp/out/runs/$p#1-$n.green/manifest")"
done
db=$tmp/out/results.db
for s in $specs; do
	p=${s%%:*} n=${s#*:}
	[ -d "$SUITE_CACHE/$p" ] || continue
	check_eq "$p#1-$n: an STP under each of the 7 variants (each copy against $p.single)" 7 \
		"$(db_query "$db" "SELECT count(DISTINCT variant) FROM intervals WHERE workload = '$p#1-$n' AND metric = 'STP' AND mean > 0")"
done
check_eq "every kernel has a sharing scenario" 0 \
	"$(db_query "$db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE scenario IS NULL")"
check "the report has the scenarios table" test -s "$tmp/out/report/tables/scenarios.csv"
cp "$tmp/out/report/tables/scenarios.csv" "$_results/scenarios.csv" 2>/dev/null
sed 's/^/# /' "$tmp/out/report/tables/scenarios.csv"
done_testing
