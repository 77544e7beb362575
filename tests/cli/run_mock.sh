#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix run with the real stage commands on a CPU: two bundles of the
# reconstruct corpus under single, cuda and nss, each workload
# reconstructed once by the real gpumix reconstruct and replayed by the
# real gpumix replay against the mock CUDA driver (tests/mock/). The real
# replay refuses a knob that the variant does not take (common/variant.h),
# so every run being ok shows that each replay got only its variant's
# knobs; the run manifests show that each replay ran the variant it was
# given, from the one build of its workload.
#
# Then the same pair with the elastic variant (MEDIAN and MPMAX): every
# workload reconstructed with --elastic by the real reconstruct, the
# profile made by the real gpumix profile from the single runs, each
# elastic replay reading it, the others replaying the transformed kernels
# with elasticity off; the report says so and compares with the paper.
# same_kernels: false, then timeslice: 0 and copy_chunk: 0, reach the
# real replays (their run manifests) and the report. Then repeats: 2:
# every run replayed twice, by two real replay processes, each told its
# repetition and the study's seed.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
scratch_dir >/dev/null
tmp=$_scratch
out=$tmp/out

mock_study "$tmp/study.yaml" mock "single, cuda, nss" \
	"min_replays: 2, watchdog: 30s, timeslice: 500us, copy_chunk: 64KiB" "$out"

summary=$("$GPUMIX" run "$tmp/study.yaml" 2>"$tmp/err")
rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$out"/logs/*.log
check_match "every run is ok: no replay was given a knob its variant refuses" \
	'^- runs: 4: 4 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$summary"
check_eq "12 stages: 3 reconstructs (one per workload), 4 x (replay, analyze), report" \
	"12" "$(sed -n 's/^- this invocation: \([0-9]*\) stages run.*/\1/p' <<<"$summary")"
check_eq "one build per workload" "basic basic+threads threads" \
	"$(ls "$out/builds" | tr '\n' ' ' | sed 's/ $//')"
check_eq "the build's default variant is cuda (the study gives none)" cuda \
	"$(sed -n 's/^variant = //p' "$out/builds/basic+threads/manifest")"
for r in basic.single:single threads.single:single \
	 basic+threads.cuda:cuda basic+threads.nss:nss; do
	check_eq "run ${r%%:*} ran variant ${r#*:}, results verified" "${r#*:} ok" \
		"$(sed -n 's/^variant = //p' "$out/runs/${r%%:*}/manifest") \
$(sed -n 's/^status = //p' "$out/runs/${r%%:*}/manifest")"
done
check_eq "the pair's runs replayed its one build" "basic+threads basic+threads" \
	"$(sed -n 's/^workload = //p' "$out/runs/basic+threads.cuda/manifest") \
$(sed -n 's/^workload = //p' "$out/runs/basic+threads.nss/manifest")"
check_match "the report's summary has an nss row" "^2,nss,1," \
	"$(cat "$out/report/tables/summary.csv")"

summary=$("$GPUMIX" run "$tmp/study.yaml" 2>/dev/null)
check_match "a second invocation runs nothing" \
	'^- this invocation: 0 stages run \(0 failed\)' "$summary"
sed -i 's/timeslice: 500us/timeslice: 250us/' "$tmp/study.yaml"
summary=$("$GPUMIX" run "$tmp/study.yaml" 2>/dev/null)
check_match "a new timeslice replays the nss run only (replay, analyze, report)" \
	'^- this invocation: 3 stages run \(0 failed\)' "$summary"

# ---- the elastic variant ----
out=$tmp/out2
mock_study "$tmp/elastic.yaml" mock-elastic "single, cuda, nss, elastic" \
	"min_replays: 2, watchdog: 30s, timeslice: 500us, copy_chunk: 4KiB" "$out" \
	"policies: [median, mpmax]"
summary=$("$GPUMIX" run "$tmp/elastic.yaml" 2>"$tmp/err")
rc=$?
check_eq "elastic: the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err" "$out"/logs/*.log
check_match "elastic: every run is ok" \
	'^- runs: 6: 6 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$summary"
check_eq "elastic: 3 reconstructs, a profile, 6 x (replay, analyze), report" \
	"17" "$(sed -n 's/^- this invocation: \([0-9]*\) stages run.*/\1/p' <<<"$summary")"
for b in basic threads basic+threads; do
	check "elastic: build $b has the elastic modules (reconstruct --elastic)" \
		test -s "$out/builds/$b/elastic/index"
done
check_eq "elastic: the profile comes from both single runs" "basic threads" \
	"$(awk -F'\t' 'NR > 2 { print $1 }' "$out/profile.tsv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
for r in basic.single threads.single basic+threads.cuda basic+threads.nss; do
	check_eq "elastic: $r replayed the transformed kernels, elasticity off" identity \
		"$(field "$out/runs/$r/manifest" elastic)"
done
for p in median mpmax; do
	m=$out/runs/basic+threads.elastic.$p/manifest
	check_eq "elastic/$p: its policy, the study's profile, timeslice and copy chunk" \
		"policy $p $out/profile.tsv 500 4096" \
		"$(field "$m" elastic) $(field "$m" elastic.policy) $(field "$m" elastic.profile) \
$(field "$m" elastic.timeslice_us) $(field "$m" nss.copy_chunk)"
done
check_eq "elastic+median: the median kernel of the profile" profile \
	"$(field "$out/runs/basic+threads.elastic.median/manifest" elastic.median_from)"
check_eq "elastic: the database knows which code each run ran" \
	"cuda|identity elastic|policy elastic|policy nss|identity single|identity single|identity" \
	"$(sqlite3 "$out/results.db" 'SELECT variant, elastic FROM runs ORDER BY variant' | tr '\n' ' ' | sed 's/ $//')"
check_match "elastic: the report says all variants ran the same code" \
	'^Kernels: all variants ran the same transformed kernels \(elasticity off outside the elastic variant\)\.$' \
	"$(cat "$out/report/index.md")"
check_match "elastic: the comparison has our elastic+mpmax STP beside the paper's" \
	'^Table 4,2,elastic\+mpmax,STP geomean,higher,1\.25,[0-9.]+,[0-9.]+,,[0-9.]*,[0-9.]*$' \
	"$(cat "$out/report/tables/paper.csv")"
check_match "elastic: and gives our timeslices and copy chunks" \
	'ranges of about 500 us \(the paper: about 1 ms\)\. Copy chunks: 4096 bytes' \
	"$(cat "$out/report/tables/paper.md")"
check "elastic: copies were chunked" \
	test "$(field "$out/runs/basic+threads.elastic.mpmax/manifest" nss.copy_chunks)" -gt 0

sed -i 's/copy_chunk: 4KiB}/copy_chunk: 4KiB, same_kernels: false}/' "$tmp/elastic.yaml"
summary=$("$GPUMIX" run "$tmp/elastic.yaml" 2>/dev/null)
check_match "same_kernels: false: every run is ok" '^- runs: 6: 6 ok' "$summary"
check_eq "  single, cuda and nss replayed the captured kernels" "|||" \
	"$(field "$out/runs/basic.single/manifest" elastic)|$(field "$out/runs/basic+threads.cuda/manifest" elastic)|$(field "$out/runs/basic+threads.nss/manifest" elastic)|"
check_match "  the report says the variants ran different code" \
	'^Kernels: the variants ran different code: the captured kernels in single, cuda, nss; the transformed kernels under a policy in elastic\+median, elastic\+mpmax\.$' \
	"$(cat "$out/report/index.md")"

sed -i 's/timeslice: 500us, copy_chunk: 4KiB/timeslice: 0, copy_chunk: 0/' "$tmp/elastic.yaml"
summary=$("$GPUMIX" run "$tmp/elastic.yaml" 2>/dev/null)
check_match "timeslice: 0, copy_chunk: 0: every run is ok" '^- runs: 6: 6 ok' "$summary"
m=$out/runs/basic+threads.elastic.mpmax/manifest
check_eq "  they reach the elastic and nss replays: no timeslices, no copy chunks" \
	"0 0 0 0 0" "$(field "$m" elastic.timeslice_us) $(field "$m" nss.copy_chunk) \
$(field "$m" elastic.sliced_launches) $(field "$m" nss.copy_chunks) \
$(field "$out/runs/basic+threads.nss/manifest" nss.copy_chunks)"
check_match "  and the report says so" \
	'Timeslicing: off in the elastic runs \(timeslice: 0\).*Copy chunks: off \(copy_chunk: 0' \
	"$(cat "$out/report/tables/paper.md")"

# ---- repetitions: each one a replay process of its own ----
out=$tmp/out3
mock_study "$tmp/rep.yaml" mock-rep "single, cuda" \
	"min_replays: 2, watchdog: 30s" "$out" "repeats: 2
seed: 11"
summary=$("$GPUMIX" run "$tmp/rep.yaml" 2>"$tmp/err")
rc=$?
check_eq "repeats: 2: the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_match "repeats: 2: every repetition of every run is ok" \
	'^- runs: 6: 6 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$summary"
check_eq "repeats: 2: one real replay per run and repetition, each with its log" \
	"6 6" "$(ls "$out/runs" | wc -l) $(ls "$out"/logs/replay-*.log | wc -l)"
for r in basic.single:0 basic.single.r1:1 basic+threads.cuda:0 basic+threads.cuda.r1:1; do
	m=$out/runs/${r%%:*}/manifest
	check_eq "the real replay of ${r%%:*} recorded repetition ${r#*:} and seed 11" \
		"ok ${r#*:} 11" "$(field "$m" status) $(field "$m" run.repetition) $(field "$m" study.seed)"
done
check_eq "repeats: 2: the real analyzer loaded every repetition apart" \
	"basic single 0|basic single 1|basic+threads cuda 0|basic+threads cuda 1|threads single 0|threads single 1" \
	"$(sqlite3 "$out/results.db" "SELECT w.name, r.variant, r.repetition FROM runs r JOIN workloads w ON w.id = r.workloadId ORDER BY 1, 2, 3" | tr '|\n' ' |' | sed 's/|$//')"
check "the two repetitions are two replays (their own start times)" \
	test "$(field "$out/runs/basic+threads.cuda/manifest" started_at)$(head -2 "$out/runs/basic+threads.cuda/replays.tsv")" != \
	"$(field "$out/runs/basic+threads.cuda.r1/manifest" started_at)$(head -2 "$out/runs/basic+threads.cuda.r1/replays.tsv")"

done_testing
