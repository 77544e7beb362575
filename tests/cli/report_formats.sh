#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The report's tables as programs read them (doc/gpumix-report.md,
# "Tables for programs"): CSV one table per file, its header the
# columns' snake_case keys; JSON every table in one document with typed
# values. Python's csv and json modules load both, from a generated study
# and from the committed mock-driver runs (tests/data/runs), and every
# value must agree; `--format csv` without a table is a usage error, not
# several tables joined. The checker fails on a CSV header with a label
# and on a changed value (both tried below).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
check_py() { python3 tests/tools/report_formats_check.py "$@" 2>&1; }

"$GPUMIX_BUILD/bench/gen_study" -o "$tmp/runs" --kernels 2000 --workloads 2 >/dev/null
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/gen.db" &&
"$GPUMIX" -q analyze tests/data/runs/good/latency -o "$tmp/lat.db"
check_eq "load a generated study and the mock runs" 0 "$?"

for db in gen lat; do
	"$GPUMIX" -q report "$tmp/$db.db" -o "$tmp/$db" --no-figures --no-timelines
	check_eq "$db: report -o: exit 0" 0 "$?"
	check_match "$db: tables.json and every tables/*.csv agree" "^ok $(ls "$tmp/$db/tables/"*.csv | wc -l) tables, [0-9]+ cells$" \
		"$(check_py "$tmp/$db/tables.json" "$tmp/$db/tables")"
	"$GPUMIX" -q report "$tmp/$db.db" --format json >"$tmp/$db.json"
	check_eq "$db: --format json is tables.json" "" "$(cmp "$tmp/$db.json" "$tmp/$db/tables.json")"
	mkdir -p "$tmp/$db-stdout"
	for t in summary latency-runs paper runs; do
		"$GPUMIX" -q report "$tmp/$db.db" --format csv --table "$t" >"$tmp/$db-stdout/$t.csv"
	done
	"$GPUMIX" -q report "$tmp/$db.db" --format json --table latency-runs >"$tmp/$db-one.json"
	check_match "$db: --table with json: that table, the same as its CSV on stdout" \
		"^ok 1 tables, " "$(check_py "$tmp/$db-one.json" "$tmp/$db-stdout")"
done

check_eq "a unit in the key: latency-runs p50_ms" "p50_ms" \
	"$(python3 -c 'import json, sys; t = [x for x in json.load(open(sys.argv[1]))["tables"] if x["name"] == "latency-runs"][0]; print(t["columns"][t["labels"].index("p50 (ms)")])' "$tmp/lat.json")"
check_match "JSON values are typed: numbers as numbers, missing as null" "^True True$" \
	"$(python3 -c 'import json, sys; rows = [v for t in json.load(open(sys.argv[1]))["tables"] for r in t["rows"] for v in r]; print(any(isinstance(v, float) for v in rows), any(v is None for v in rows))' "$tmp/gen.json")"

out=$("$GPUMIX" report "$tmp/gen.db" --format csv 2>&1 >"$tmp/joined")
check_eq "--format csv without --table: usage error" 2 "$?"
check_match "... saying where the tables go" "--format csv prints one table" "$out"
check_eq "... and nothing on stdout" "" "$(cat "$tmp/joined")"
"$GPUMIX" -q report --compare "$tmp/gen.db" "$tmp/gen.db" --format json |
	python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["tables"]))' >"$tmp/cmp"
check_eq "--compare --format json: both tables" "compare-summary compare-workloads" "$(cat "$tmp/cmp")"
"$GPUMIX" report "$tmp/gen.db" --format xml >/dev/null 2>&1
check_eq "--format xml: usage error" 2 "$?"

# The checker can fail: a label in a header, a changed value.
cp -r "$tmp/gen/tables" "$tmp/bad" && sed -i '1s/p50_ms/p50 (ms)/' "$tmp/bad/latency-runs.csv"
check_match "a header with a label is caught" "latency-runs: CSV header" \
	"$(check_py "$tmp/gen/tables.json" "$tmp/bad")"
cp "$tmp/gen/tables/summary.csv" "$tmp/bad/" && sed -i '2s/,cuda,/,cudax,/' "$tmp/bad/summary.csv"
check_match "a changed value is caught" "summary row 0 variant" \
	"$(check_py "$tmp/gen/tables.json" "$tmp/bad")"

done_testing
