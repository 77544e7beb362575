#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# An edited study's database holds what the study now describes: the
# runs of an earlier version of it (a variant dropped, a program renamed,
# fewer repetitions) leave the database before anything else runs
# (gpumix analyze --forget), so that after each edit the database holds
# the same runs as that of the edited study run afresh, and the report
# drawn from it too. Their run directories stay: a variant added back is
# loaded again, not replayed. A study sharing the database keeps its
# runs. The stages are the fake gpumix's, the analyses the real gpumix
# analyze (FAKE_REAL_ANALYZE).
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
scratch_dir >/dev/null
tmp=$_scratch
export FAKE_REAL_ANALYZE=$GPUMIX

# runs DIR: the database's runs, one "workload variant policy repetition"
# a line, sorted
runs() {
	db_query "$1/results/t/results.db" "SELECT w.name || ' ' || r.variant ||
		' ' || r.policy || ' ' || r.repetition FROM runs r JOIN workloads w
		ON w.id = r.workloadId ORDER BY 1"
}
# fresh NAME: the current study.yaml of $s run afresh in $tmp/NAME
fresh() {
	mkdir -p "$tmp/$1"
	cp -r "$s/progs" "$s/study.yaml" "$tmp/$1/"
	(cd "$tmp/$1" && FAKE_LOG= "$GPUMIX" run study.yaml >/dev/null 2>&1)
}
edited() { # edited WHAT: run $s again after an edit; its DB = a fresh one
	local out
	out=$(cd "$s" && "$GPUMIX" run study.yaml 2>&1)
	check_eq "$1: the study exits 0" 0 "$?"
	fresh "fresh-$2"
	check_eq "$1: the database holds the runs of the study as it is now" \
		"$(runs "$tmp/fresh-$2")" "$(runs "$s")"
	summary=$out
}

s=$tmp/s
make_study "$s" "a b c" "repeats: 2
" "single, cuda, nss"
(cd "$s" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
check_eq "the study: 3 single + 3 cuda + 3 nss, twice" 18 "$(runs "$s" | wc -l)"

sed -i 's/^variants: .*/variants: [single, cuda]/' "$s/study.yaml"
plan=$(cd "$s" && "$GPUMIX" run --dry-run study.yaml 2>&1)
check_match "the dry run lists the runs that will leave the database" \
	"^runs of an earlier version of the study, to leave the database: 6 \(a\+b\.nss, a\+c\.nss, b\+c\.nss, a\+b\.nss\.r1, a\+c\.nss\.r1, b\+c\.nss\.r1\)$" "$plan"
edited "a variant dropped" 1
check_eq "... no nss run is left" "" "$(runs "$s" | grep nss)"
check_match "... the summary says how many left" \
	"^- database: results/t/results.db \(6 runs of an earlier version of the study left it\)$" \
	"$(cat "$s/results/t/summary.md")"
check_eq "... the report lists what the database holds" 12 \
	"$(grep -c ' ok$' "$s/results/t/report/index.md")"
check "... their run directories stay" test -f "$s/results/t/runs/a+b.nss/manifest"
check_eq "... a second invocation has nothing to forget" "" \
	"$(cd "$s" && "$GPUMIX" run --dry-run study.yaml 2>&1 | grep 'earlier version')"

sed -i 's/^  - name: c$/  - name: d/' "$s/study.yaml"
edited "a program renamed" 2
check_eq "... no run of c is left" "" "$(runs "$s" | cut -d' ' -f1 | grep -E '(^|\+)c(\+|$)')"

sed -i 's/^repeats: 2$/repeats: 1/' "$s/study.yaml"
edited "fewer repetitions" 3
check_eq "... no second repetition is left" "" "$(runs "$s" | grep ' 1$')"

sed -i 's/^variants: .*/variants: [single, cuda, nss]/' "$s/study.yaml"
log=$tmp/log
FAKE_LOG=$log edited "a variant added back" 4
check_eq "... its runs that are still on disk load again, not replayed" \
	"analyze a+b.nss" "$(grep 'a+b\.nss' "$log")"

# Two studies sharing a database: one forgets only its own runs.
u1=$tmp/u1 u2=$tmp/u2
make_study "$u1" "a b" "paths: {database: $tmp/shared.db}
" "single, cuda"
make_study "$u2" "d e" "paths: {database: $tmp/shared.db}
" "single, cuda"
(cd "$u1" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
(cd "$u2" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
sed -i 's/^variants: .*/variants: [single]/' "$u1/study.yaml"
(cd "$u1" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
check_eq "a study that drops a variant keeps the other study's runs of it" \
	"a single|b single|d single|d+e cuda|e single" \
	"$(db_query "$tmp/shared.db" "SELECT w.name || ' ' || r.variant FROM runs r
		JOIN workloads w ON w.id = r.workloadId ORDER BY 1" | tr '\n' '|' | sed 's/|$//')"
done_testing
