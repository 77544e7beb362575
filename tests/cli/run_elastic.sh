#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix run with the elastic variant, each stage a child process of the
# fake gpumix (tests/data/study/fake-gpumix, which, like the real replay,
# refuses the elastic variant, --elastic or --completion poll on a build
# without elastic modules, and a --profile that is not a profile): every
# workload reconstructed with --elastic; the other variants replayed with
# --elastic identity (same_kernels) or not (same_kernels: false); the
# profile stage after the single runs, before the first elastic replay,
# over every single run, and --profile on every elastic replay and no
# other; what redoes the profile and what it redoes; a failed profile, a
# failed single run, a missing single run directory, a study killed in
# the profile stage; timeslice: 0, copy_chunk: 0 and grid: resident;
# baseline: workload;
# elastic without single; policy mpmax-cliff with cliff_map (issue 28).
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
scratch_dir >/dev/null
tmp=$_scratch

# line NUMBER of the first line of the fake log matching PATTERN
first() { grep -n -- "$1" log | head -n 1 | cut -d: -f1; }
lastline() { grep -n -- "$1" log | tail -n 1 | cut -d: -f1; }
replay_opts() { # the options of the last replay of run $1
	grep "^replay $1:" args | tail -n 1 | sed 's/^[^:]*: *//'
}
set_replay() { # set_replay TEXT: the study's replay mapping
	sed -i "s|^replay: .*|replay: {min_replays: 3$1}|" study.yaml
}

# ---- a whole study: single, cuda, nss and elastic with its 4 policies ----
d=$tmp/s1
make_study "$d" "a b c" "" "single, cuda, nss, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run: 21 runs" \
	"^study 't' \(study.yaml\): 3 workloads, variants single, cuda, nss, elastic, policies median, mpmax, equal, queuemold: 21 runs \(3 single baselines, one per program\)$" \
	"$plan"
check_match "the dry run says which kernels the variants replay" \
	'^kernels: every build is reconstructed with --elastic; every variant replays the transformed kernels, with elasticity off \(--elastic identity\) except in elastic \(same_kernels\)$' \
	"$plan"
check_match "the dry run shows the profile stage to do" \
	'^  profile\.tsv +to do: profile$' "$plan"
check_match "  and counts it" \
	"^to do: 3 captures, 6 reconstructs, 1 profile, 21 replays, 21 analyses, 1 report$" "$plan"
out=$("$GPUMIX" run study.yaml 2>"$d/err")
rc=$?
check_eq "the study succeeds" 0 $rc
[ $rc = 0 ] || sed 's/^/#   /' "$d/err"
check_match "every run is ok" '^- runs: 21: 21 ok, 0 failed' "$out"
check_eq "53 stages: 3 captures, 6 reconstructs, a profile, 21 x (replay, analyze), report" \
	"53 1" "$(stages log) $(stages log '^profile')"
check_eq "every workload is reconstructed with --elastic" "6 6" \
	"$(grep -c '^reconstruct' args) $(grep -c '^reconstruct [^:]*: --elastic$' args)"
check_eq "the profile is made from every single run" \
	"profile profile: a.single b.single c.single" "$(grep '^profile' args)"
check "  after the last single run" \
	test "$(lastline '^analyze .*\.single$')" -lt "$(first '^profile')"
check "  and before the first elastic replay" \
	test "$(first '^profile')" -lt "$(first '^replay .*\.elastic\.')"
check_eq "it is written to paths.profile" "# gpumix-profile 1" \
	"$(head -n 1 results/t/profile.tsv)"
check_eq "every elastic replay reads it" 12 \
	"$(grep -c "^replay [^:]*\.elastic\.[a-z]*: .* --profile $d/results/t/profile\.tsv --grid captured$" args)"
check_eq "no other replay does" 0 "$(grep '^replay' args | grep -v '\.elastic\.' | grep -c -- --profile)"
check_eq "single, cuda and nss replay the transformed kernels with elasticity off" \
	"--variant single --elastic identity|--variant cuda --elastic identity|--variant nss --timeslice-us 1000 --copy-chunk 4194304 --completion event --elastic identity" \
	"$(replay_opts a.single)|$(replay_opts a+b.cuda)|$(replay_opts a+b.nss)"
check_eq "elastic gets its policy, its knobs and the profile, no --elastic" \
	"--variant elastic --policy mpmax --timeslice-us 1000 --copy-chunk 4194304 --completion event --profile $d/results/t/profile.tsv --grid captured" \
	"$(replay_opts a+c.elastic.mpmax)"
check_eq "the run manifests say which code ran" "identity identity policy" \
	"$(field results/t/runs/a.single/manifest elastic) \
$(field results/t/runs/b+c.nss/manifest elastic) \
$(field results/t/runs/b+c.elastic.equal/manifest elastic)"
check_match "the summary names the profile" '^- profile: results/t/profile\.tsv$' "$out"
check_match "progress shows the profile stage" '^\[runs 5/21, stage 18/53\] profile ' "$(cat err)"
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_match "a second invocation runs nothing" '^- this invocation: 0 stages run' "$out"
check_match "  and the dry run says the profile is made" '^  profile\.tsv +made$' \
	"$("$GPUMIX" run --dry-run study.yaml)"

# ---- what redoes the profile, and what the profile redoes ----
n=$(stages log)
set_replay ", timeslice: 500us"
"$GPUMIX" run study.yaml >/dev/null 2>&1
new=$(sed -n "$((n + 1)),\$p" log)
check_eq "a new timeslice replays nss and elastic, not the profile (its single runs are the same)" \
	"15 0 0" "$(grep -c '^replay' <<<"$new") $(grep -c '^profile' <<<"$new") \
$(grep -c '^replay .*\.\(single\|cuda\)$' <<<"$new")"
n=$(stages log)
echo "# changed" >>progs/a
"$GPUMIX" run study.yaml >/dev/null 2>&1
new=$(sed -n "$((n + 1)),\$p" log)
check_eq "a recaptured program replays its single run, then the profile is made again" \
	"1 1" "$(grep -c '^replay a\.single$' <<<"$new") $(grep -c '^profile' <<<"$new")"
check_eq "  and every elastic run replays with it, even b+c's" "12 1" \
	"$(grep -c '^replay .*\.elastic\.' <<<"$new") $(grep -c '^replay b+c\.elastic\.median$' <<<"$new")"
check_eq "  but not the other runs of b+c" 0 "$(grep -c '^replay b+c\.\(cuda\|nss\)$' <<<"$new")"
n=$(stages log)
rm results/t/profile.tsv
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_eq "a deleted profile that no run needs is not made again" "$n" "$(stages log)"
check_match "  and the summary says so" '^- profile: not needed \(results/t/profile\.tsv is gone' "$out"
set_replay ", timeslice: 250us"
"$GPUMIX" run study.yaml >/dev/null 2>&1
new=$(sed -n "$((n + 1)),\$p" log)
check_eq "once elastic runs are to replay, it is made again, before the first of them" \
	"1 profile profile|replay a+b.elastic.median" \
	"$(grep -c '^profile' <<<"$new") $(grep -A1 '^profile' <<<"$new" | tr '\n' '|' | sed 's/|$//')"
check "  from the same inputs" test -s results/t/profile.tsv
n=$(stages log)
rm -rf results/t/runs/b.single results/t/profile.tsv
set_replay ", timeslice: 125us"
"$GPUMIX" run study.yaml >/dev/null 2>&1
new=$(sed -n "$((n + 1)),\$p" log)
check_eq "a single run directory that is gone is replayed again for the profile" \
	"1 1 0" "$(grep -c '^replay b\.single$' <<<"$new") $(grep -c '^profile' <<<"$new") \
$(grep -c '^replay a\.single$' <<<"$new")"

# ---- same_kernels: false ----
n=$(stages log)
set_replay ", timeslice: 125us, same_kernels: false"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run says which variants replay the transformed kernels" \
	'^kernels: every build is reconstructed with --elastic; the transformed kernels in elastic, the captured ones in the others \(same_kernels: false\)$' \
	"$plan"
"$GPUMIX" run study.yaml >/dev/null 2>&1
new=$(sed -n "$((n + 1)),\$p" log)
check_eq "same_kernels: false replays everything (single changed, so the profile and elastic too), without reconstructing" \
	"21 1 0" "$(grep -c '^replay' <<<"$new") $(grep -c '^profile' <<<"$new") \
$(grep -c '^reconstruct' <<<"$new")"
check_eq "  single, cuda and nss replay the captured kernels" \
	"--variant single|--variant cuda|--variant nss --timeslice-us 125 --copy-chunk 4194304 --completion event" \
	"$(replay_opts a.single)|$(replay_opts a+b.cuda)|$(replay_opts a+b.nss)"
check_eq "  elastic still gets the profile" 1 "$(replay_opts a+b.elastic.queuemold | grep -c -- '--profile')"
check_eq "  the manifests say so" " policy" \
	"$(field results/t/runs/a+b.cuda/manifest elastic) $(field results/t/runs/a+b.elastic.median/manifest elastic)"

# ---- a failed profile ----
d=$tmp/s2
make_study "$d" "a b" "" "single, cuda, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
sed -i 's/^variants: .*/&\npolicies: [median, equal]/' study.yaml
out=$(FAKE_FAIL="profile:profile" "$GPUMIX" run study.yaml 2>"$d/err")
check_eq "a failed profile: the study exits 1" 1 $?
check_match "  its elastic runs failed, the others are ok" \
	'^- runs: 5: 3 ok, 2 failed, 0 hung, 0 skipped' "$out"
check_match "  the summary names the profile's failure and its log" \
	"^- profile: failed: exited with status 1: fake profile failure of 'profile' \(log: results/t/logs/profile\.log\)$" "$out"
check_match "  each elastic run gives it as its reason, with the log" \
	"^- a\+b\.elastic\.equal: failed: profile failed: exited with status 1: fake profile failure of 'profile' \(log: results/t/logs/profile\.log\)$" \
	"$out"
check_eq "  it was tried once, and no elastic run replayed" "1 0" \
	"$(stages log '^profile') $(stages log '^replay .*elastic')"
check_match "  progress says so" "^profile: failed: exited with status 1" "$(cat err)"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the dry run keeps it as recorded" \
	"^  profile\.tsv +failed: exited with status 1: fake profile failure of 'profile'$" "$plan"
check_match "  and its runs" "^  a\+b\.elastic\.median +failed: profile failed: " "$plan"
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "the next invocation does not try it again" 1 "$(stages log '^profile')"
out=$("$GPUMIX" run --retry-failed study.yaml 2>/dev/null)
check_eq "--retry-failed makes it, and the elastic runs replay" "2 2" \
	"$(stages log '^profile') $(stages log '^replay .*elastic')"
check_match "  every run is ok" '^- runs: 5: 5 ok' "$out"

# ---- a failed single run: no profile, the elastic runs are skipped ----
d=$tmp/s3
make_study "$d" "a b" "" "single, cuda, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
out=$(FAKE_FAIL="replay:b.single" "$GPUMIX" run study.yaml 2>/dev/null)
check_eq "a failed single run: the study exits 1" 1 $?
check_match "  the elastic runs are skipped" \
	'^- runs: 7: 2 ok, 1 failed, 0 hung, 4 skipped' "$out"
check_match "  naming the single run, with its log" \
	"^- a\+b\.elastic\.mpmax: skipped: no kernel profile: run 'b\.single' failed: program a: result of cuMemcpyDtoH \(event 42\) differs from the capture \(log: results/t/logs/replay-b\.single\.log\)$" \
	"$out"
check_match "  the summary says why there is no profile" "^- profile: skipped: run 'b\.single' failed: " "$out"
check_eq "  no profile stage ran, no elastic replay" "0 0" \
	"$(stages log '^profile') $(stages log '^replay .*elastic')"
check_match "the dry run shows the profile skipped" \
	"^  profile\.tsv +skipped: run 'b\.single' failed: " "$("$GPUMIX" run --dry-run study.yaml)"
out=$("$GPUMIX" run --retry-failed study.yaml 2>/dev/null)
check_match "--retry-failed replays b.single, makes the profile, replays the elastic runs" \
	'^- runs: 7: 7 ok' "$out"
check_eq "  once each" "1 4" "$(stages log '^profile') $(stages log '^replay .*elastic')"

# ---- killed in the profile stage ----
d=$tmp/s4
make_study "$d" "a b" "" "single, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
GPUMIX_STUDY_KILL_AT=profile-finished:1 "$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "killed after the profile finished, before it was recorded" 137 $?
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "the next invocation makes it again, then replays the elastic runs" "2 4" \
	"$(stages log '^profile') $(stages log '^replay .*elastic')"
out=$(GPUMIX_STUDY_KILL_AT=frobnicate "$GPUMIX" run study.yaml 2>&1)
check_match "the kill hook's message names every stage" \
	"STAGE capture, reconstruct, replay, corun, profile, analyze or report;" "$out"

# ---- the ablations: timeslicing and copy chunking off ----
d=$tmp/s5
make_study "$d" "a b" "" "single, nss, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
set_replay ", timeslice: 0, copy_chunk: 0, grid: resident"
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "timeslice: 0, copy_chunk: 0 and grid: resident reach nss and elastic" \
	"--variant nss --timeslice-us 0 --copy-chunk 0 --completion event --elastic identity|--variant elastic --policy equal --timeslice-us 0 --copy-chunk 0 --completion event --profile $d/results/t/profile.tsv --grid resident" \
	"$(replay_opts a+b.nss)|$(replay_opts a+b.elastic.equal)"

# ---- baseline: workload ----
d=$tmp/s6
make_study "$d" "a b c" "baseline: workload
policies: [mpmax]
" "single, cuda, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
plan=$("$GPUMIX" run --dry-run study.yaml)
check_eq "baseline: workload: every single run is listed first" \
	"a+b.single a+c.single b+c.single a+b.cuda a+b.elastic.mpmax" \
	"$(sed -n '/^runs:/,/^$/s/^  \([^ ]*\) .*/\1/p' <<<"$plan" | head -n 5 | tr '\n' ' ' | sed 's/ $//')"
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "  the profile reads all three" "profile profile: a+b.single a+c.single b+c.single" \
	"$(grep '^profile' args)"
check "  after the last of them" test "$(lastline '^replay .*\.single$')" -lt "$(first '^profile')"

# ---- elastic without single ----
d=$tmp/s7
make_study "$d" "a b" "" "cuda, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
out=$("$GPUMIX" run study.yaml 2>&1 >/dev/null)
check_match "elastic without single: a warning" \
	"^warning: study\.yaml:[0-9]+:[0-9]+: variant 'elastic' without 'single': no kernel profile is made" "$out"
check_eq "  no profile stage; elastic replays without --profile, on --elastic builds" \
	"0 0 1" "$(stages log '^profile') $(grep -c -- '--profile' args) \
$(grep -c '^reconstruct a+b: --elastic$' args)"
check_eq "  and the elastic runs are ok" "ok" \
	"$(field results/t/runs/a+b.elastic.median/manifest status)"

# ---- probe: blocks: every variant, on --elastic builds ----
d=$tmp/s8
make_study "$d" "a b" "" "single, cuda, nss"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
set_replay ", probe: blocks"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "probe: blocks: the builds are reconstructed with --elastic, every variant runs the transformed kernels" \
	'^kernels: every build is reconstructed with --elastic; every variant replays the transformed kernels, with elasticity off \(--elastic identity\) \(same_kernels\)$' \
	"$plan"
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "  every replay gets --probe blocks and --elastic identity" \
	"--variant single --probe blocks --elastic identity|--variant cuda --probe blocks --elastic identity|--variant nss --timeslice-us 1000 --copy-chunk 4194304 --completion event --probe blocks --elastic identity" \
	"$(replay_opts a.single)|$(replay_opts a+b.cuda)|$(replay_opts a+b.nss)"
check_eq "  and every workload is reconstructed with --elastic" "3 3" \
	"$(grep -c '^reconstruct' args) $(grep -c '^reconstruct [^:]*: --elastic$' args)"
set_replay ", probe: off"
"$GPUMIX" run study.yaml >/dev/null 2>&1
check_eq "probe: off: no --probe, replays redone (their hash changed)" \
	"--variant cuda" "$(replay_opts a+b.cuda)"

# ---- mpmax-cliff: its cliff map on its elastic replays ----
d=$tmp/cliff
make_study "$d" "a b" "policies: [mpmax, mpmax-cliff]
" "single, elastic"
export FAKE_LOG=$d/log FAKE_ARGS=$d/args
cd "$d" || exit 1
printf 'program,kernel,axis,value,time_ms,blocks_per_sm,limiting\n' > points.csv
sed -i "s|^replay: .*|replay: {min_replays: 3, cliff_map: points.csv}|" study.yaml
plan=$("$GPUMIX" run --dry-run study.yaml 2>&1)
check_match "a study runs mpmax-cliff when it names it" "policies mpmax, mpmax-cliff" "$plan"
"$GPUMIX" run study.yaml >/dev/null 2>"$d/err"
check_match "its elastic replays get --cliff-map, the path from the root" \
	"--policy mpmax-cliff.*--cliff-map $d/points.csv|--cliff-map $d/points.csv.*--policy mpmax-cliff" \
	"$(replay_opts a+b.elastic.mpmax-cliff)"

done_testing
