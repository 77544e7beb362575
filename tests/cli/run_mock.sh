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
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
scratch_dir >/dev/null
tmp=$_scratch
out=$tmp/out

cat >"$tmp/study.yaml" <<EOF
study: mock
root: $GPUMIX_TOP
programs:
  - bundle: tests/data/reconstruct/bundles/basic
  - bundle: tests/data/reconstruct/bundles/threads
workloads:
  - [basic, threads]
variants: [single, cuda, nss]
replay: {min_replays: 2, watchdog: 30s, timeslice: 500us, copy_chunk: 64KiB}
paths: {output: $out}
EOF

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

done_testing
