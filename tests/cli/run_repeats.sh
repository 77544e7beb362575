#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix run with repetitions (`repeats`, `seed`, `precision`; doc/
# study-yaml.md), the stages run through the fake gpumix: every run,
# the single baselines included, is replayed once per repetition as a
# replay process of its own, in the order the dry run shows (repetition
# by repetition, each workload's runs shuffled with the seed), each
# told its repetition and the seed (run manifest); the seed is in the
# state; the kernel profile comes from the first repetition's single
# runs and stays when `repeats` grows, which runs only the new
# repetitions; a study killed
# in the middle of a repetition resumes; under a precision target a
# workload whose STPs are precise enough stops repeating (and so do the
# alone runs of programs no other workload needs), one whose STPs vary
# goes on to max_repeats, and a second invocation decides the same.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch

# The runs of a dry run's plan, in order.
plan_runs() {
	sed -n '/^runs:$/,/^$/s/^  \([^ ]*\) .*/\1/p'
}

# ---- three repetitions, seed 5 ----
d=$tmp/s
make_study "$d" "a b c" "repeats: 3
seed: 5
" "single, cuda, nss"
cd "$d" || exit 1
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the plan: 27 runs, 3 repetitions of 9" \
	"^study 't' .*: 27 runs, 3 repetitions of 9 \(3 single baselines, one per program\)$" "$plan"
check_match "the plan names the order and its seed" \
	"^order: repetition by repetition; .* shuffled with seed 5$" "$plan"
order=$(plan_runs <<<"$plan")
check_eq "every run of every repetition is listed once" 27 \
	"$(sort -u <<<"$order" | wc -l)"
check_eq "repetition 0 first, with the plain names, then .r1, then .r2" \
	"0 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1 1 2 2 2 2 2 2 2 2 2" \
	"$(sed 's/.*\.r\([0-9]\)$/\1/; t; s/.*/0/' <<<"$order" | tr '\n' ' ' | sed 's/ $//')"
check_eq "in each repetition the single runs first, then a+b, a+c, b+c" \
	"single single single a+b a+b a+c a+c b+c b+c" \
	"$(sed -n '10,18p' <<<"$order" | sed 's/^[abc]\.single.*/single/; s/\..*//' | tr '\n' ' ' | sed 's/ $//')"

FAKE_LOG=$d/log "$GPUMIX" run study.yaml >"$d/out" 2>"$d/err"
rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$d/err"
check_eq "the replays ran in the plan's order, each a replay process of its own" \
	"$order" "$(sed -n 's/^replay //p' log)"
check_eq "each run has its own run directory" 27 "$(ls results/t/runs | wc -l)"
m=results/t/runs/a+b.nss.r2/manifest
check_eq "the replay was told its repetition and the seed" "2 5" \
	"$(sed -n 's/^run\.repetition = //p' "$m") $(sed -n 's/^study\.seed = //p' "$m")"
check_eq "repetition 0 too" "0 5" \
	"$(sed -n 's/^run\.repetition = //p' results/t/runs/a.single/manifest) \
$(sed -n 's/^study\.seed = //p' results/t/runs/a.single/manifest)"
check_eq "the state records the seed" 5 "$(sed -n 's/^seed = //p' results/t/study.state)"
check_match "the summary counts every repetition" \
	'^- runs: 27: 27 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet$' "$(cat out)"
check_match "and says how they were run" \
	'^- repetitions: 3 of each run, in an order shuffled with seed 5$' "$(cat out)"
check_match "progress names the repetition" \
	'a\+c cuda \(repetition 2/3\): replay' "$(cat err)"
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_match "a second invocation runs nothing" \
	'^- this invocation: 0 stages run \(0 failed\)' "$out"

sed -i 's/^repeats: 3$/repeats: 4/' study.yaml
: >log
FAKE_LOG=$d/log "$GPUMIX" run study.yaml >out 2>err
check_eq "repeats: 4 runs the new repetition only (9 replays, 9 analyses, the report)" \
	"19 9" "$(stages log) $(grep -c '^replay .*\.r3$' log)"
sed -i 's/^seed: 5$/seed: 6/' study.yaml
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_match "another seed keeps the runs done" \
	'^- this invocation: 0 stages run \(0 failed\)' "$out"
check_match "and the plan shows the order it would give" "^order: .*seed 6$" \
	"$("$GPUMIX" run --dry-run study.yaml)"

# ---- the kernel profile: from the first repetition's single runs ----
d=$tmp/el
make_study "$d" "a b c" "repeats: 2
policies: [mpmax]
" "single, cuda, elastic"
cd "$d" || exit 1
FAKE_LOG=$d/log FAKE_ARGS=$d/args "$GPUMIX" run study.yaml >out 2>err
check_eq "elastic, 2 repetitions: the study succeeds" 0 $?
check_eq "the profile is made once, from the single runs of repetition 0" \
	"profile profile: a.single b.single c.single" "$(grep '^profile' args)"
first() { grep -n "$1" log | head -1 | cut -d: -f1; }
check "  after them" test "$(first '^replay c\.single$')" -lt "$(first '^profile')"
check "  before the first elastic run" \
	test "$(first '^profile')" -lt "$(first '^replay .*\.elastic\.')"
check_eq "every elastic run of both repetitions reads it" 6 \
	"$(grep -c '^replay .*\.elastic\.mpmax.*--profile .*/profile.tsv' args)"
sed -i 's/^repeats: 2$/repeats: 3/' study.yaml
: >log
FAKE_LOG=$d/log "$GPUMIX" run study.yaml >out 2>err
check_eq "repeats: 3 replays repetition 2 only: the profile stays" \
	"9 9 0" "$(grep -c '^replay' log) $(grep -c '^replay .*\.r2$' log) $(grep -c '^profile' log)"
echo "seed: 99" >>study.yaml
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_match "another seed changes no input: the profile and the runs stay" \
	'^- this invocation: 0 stages run \(0 failed\)' "$out"

# ---- killed in the middle of repetition 1, then resumed ----
# SIGKILL when the 8th replay (repetition 1's 2nd) has started, has
# finished unrecorded, or has been recorded: the same command completes
# the study, in plan order, replaying only what has no record.
for point in started finished saved; do
	d=$tmp/kill-$point
	make_study "$d" "a b c" "repeats: 3
" "single, cuda"
	cd "$d" || exit 1
	order=$("$GPUMIX" run --dry-run study.yaml | plan_runs)
	eighth=$(sed -n 8p <<<"$order")
	sleep_env=
	[ $point = started ] && sleep_env="replay:$eighth=30"
	FAKE_LOG=$d/log FAKE_SLEEP=$sleep_env GPUMIX_STUDY_KILL_AT=replay-$point:8 \
		"$GPUMIX" run study.yaml >/dev/null 2>&1
	rc=$?
	check_eq "killed when the 8th replay ($eighth) has $point" \
		"137 $(sed -n "$([ $point = started ] && echo 7 || echo 8)p" <<<"$order")" \
		"$rc $(sed -n 's/^replay //p' log | tail -1)"
	# (a stage of the killed study may still hold its lock: wait)
	timeout 300 flock results/t/study.state.lock true 2>/dev/null
	FAKE_LOG=$d/log "$GPUMIX" run study.yaml >out 2>&1
	check_eq "$point: the same command completes it" 0 $?
	check_match "$point: every repetition of every run is ok" '^- runs: 18: 18 ok' "$(cat out)"
	twice=
	[ $point = finished ] && twice=$eighth
	check_eq "$point: only an unrecorded replay ran twice; all in plan order" \
		"$twice | $order" \
		"$(sed -n 's/^replay //p' log | sort | uniq -d) | $(sed -n 's/^replay //p' log | awk '!seen[$0]++')"
done

# ---- a precision target ----
# a+b and b+c replay alike in every repetition (STP 2 each time): they
# stop after the 2 repetitions asked for. a+c's a takes 1 ms and 2 ms in
# turn: its STP (2, 1.5, 2, 1.5) never gets precise, so it runs all 4
# repetitions, with the single runs of a and c; b's single run stops.
d=$tmp/prec
make_study "$d" "a b c" "repeats: 2
precision: 5%
max_repeats: 4
" "single, cuda"
cd "$d" || exit 1
export FAKE_NS="a+c.cuda.r1:a=2000000 a+c.cuda.r3:a=2000000"
plan=$("$GPUMIX" run --dry-run study.yaml)
check_match "the plan: up to 24 runs" "^study 't' .*: up to 24 runs, 4 repetitions of 6 " "$plan"
check_match "the plan explains the target" \
	"^precision: .* beyond 2 repetitions only while the 95% interval of one of its STPs is wider than 5% of its mean, at most 4 times; 12 runs to do if needed$" "$plan"
check_match "repetition 2 is to do if needed" '^  a\+b\.cuda\.r2 +to do if needed: replay analyze$' "$plan"
check_match "the plan counts only what is sure to run" ", 12 replays, 12 analyses, 1 report$" "$plan"
FAKE_LOG=$d/log "$GPUMIX" run study.yaml >out 2>err
rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' err
check_eq "a+b and b+c stop after 2 repetitions, a+c runs 4, with a's and c's single runs" \
	"a+b.cuda:2 a+c.cuda:4 a.single:4 b+c.cuda:2 b.single:2 c.single:4" \
	"$(sed -n 's/^replay \(.*\)$/\1/p' log | sed 's/\.r[0-9]*$//' | LC_ALL=C sort | uniq -c |
		awk '{ printf "%s%s:%s", s, $2, $1; s = " " }')"
check_match "the summary counts them" \
	'^- runs: 24: 18 ok, 0 failed, 0 hung, 0 skipped, 0 not run yet, 6 not needed$' "$(cat out)"
check_match "and the workloads" \
	'^- precision \(5%\): 2 workloads reached it, 1 ran all 4 repetitions, 0 not decided yet$' "$(cat out)"
check_match "a run not needed says why" \
	'^\| a\+b\.cuda\.r2 \| a\+b \| cuda \| not needed \| precision reached: after 2 repetitions the 95% interval of every STP of a\+b is within 5% of its mean \(widest: a\+b\.cuda, 0%\) \|$' \
	"$(cat out)"
check_match "so does b's single run" \
	'^\| b\.single\.r3 \| b \| single \| not needed \| precision reached: .* of a\+b ' "$(cat out)"
out=$("$GPUMIX" run study.yaml 2>/dev/null)
check_match "a second invocation decides the same and runs nothing" \
	'^- this invocation: 0 stages run \(0 failed\)' "$out"
check_match "  (the same counts)" '^- runs: 24: 18 ok, .* 6 not needed$' "$out"
check_match "the dry run shows the decisions" '^  a\+b\.cuda\.r3 +not needed: precision reached' \
	"$("$GPUMIX" run --dry-run study.yaml)"
unset FAKE_NS
done_testing
