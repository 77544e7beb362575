#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix report -o writes timelines/<run>.json for every run: each file
# is parsed by python's json module and checked against the trace-event
# format's rules (tests/tools/check_timeline.py: X slices with dur,
# microsecond timestamps, named pids and tids, nested slices, paired
# flows), and its slices are compared with the database's records of the
# same run (counts and total durations per kind, flows, replay markers).
# The limits (--timeline-replays, --timeline-window, --timeline-max)
# leave records out and the file says how many; bad limits are usage
# errors; odd program names stay valid JSON. The checker itself fails on
# files that break the rules.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
chk=tests/tools/check_timeline.py
gen=$GPUMIX_BUILD/bench/gen_study

if ! command -v python3 >/dev/null; then
	skip "python3 is not installed (apt-get install python3)"
	done_testing
	exit 0
fi

# The checker refuses what the format does not allow.
bad() { # bad NAME JSON REGEX: the checker fails on JSON, saying REGEX
	printf '%s' "$2" >"$tmp/bad-$1.json"
	local out
	out=$(python3 "$chk" "$tmp/bad-$1.json")
	check_eq "checker refuses $1" 1 "$?"
	check_match "checker names the problem ($1)" "$3" "$out"
}
meta='{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"p"}},{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"t"}}'
x1='{"ph":"X","pid":1,"tid":1,"cat":"k","name":"a","ts":1.000,"dur":5.000}'
bad begin-end "{\"traceEvents\":[$meta,{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"cat\":\"k\",\"name\":\"a\",\"ts\":1}]}" "phase 'B'"
bad no-dur "{\"traceEvents\":[$meta,{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"cat\":\"k\",\"name\":\"a\",\"ts\":1}]}" "dur None"
bad sub-ns "{\"traceEvents\":[$meta,{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"cat\":\"k\",\"name\":\"a\",\"ts\":1.00001,\"dur\":1}]}" "ns precision"
bad unnamed "{\"traceEvents\":[$meta,{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"cat\":\"k\",\"name\":\"a\",\"ts\":1,\"dur\":1}]}" "process 2 has no process_name"
bad crossing "{\"traceEvents\":[$meta,$x1,{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"cat\":\"k\",\"name\":\"b\",\"ts\":3,\"dur\":5}]}" "overlaps its parent"
bad lone-flow "{\"traceEvents\":[$meta,$x1,{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"cat\":\"l\",\"name\":\"l\",\"ts\":2,\"id\":7}]}" "flow 7: not one s and one f"
bad nan "{\"traceEvents\":[$meta,{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"cat\":\"k\",\"name\":\"a\",\"ts\":NaN,\"dur\":1}]}" "not JSON: NaN"
bad text "{\"traceEvents\":[$meta,$x1" "Expecting"
x2='{"ph":"X","pid":1,"tid":1,"cat":"k","name":"b","ts":10,"dur":1}'
printf '{"traceEvents":[%s,%s,%s,%s,%s]}' "$meta" "$x1" "$x2" \
	'{"ph":"s","pid":1,"tid":1,"cat":"l","name":"l","ts":10,"id":1}' \
	'{"ph":"f","pid":1,"tid":1,"cat":"l","name":"l","ts":1,"id":1,"bp":"e"}' >"$tmp/back.json"
check "checker: an arrow back in time is well-formed" python3 "$chk" "$tmp/back.json"
out=$(python3 "$chk" --causal "$tmp/back.json")
check_eq "checker --causal refuses it" 1 "$?"
check_match "... saying so" "flow 1: ends at 1000 ns, before it starts \(10000 ns\)" "$out"
printf '{"traceEvents":[%s,%s]}' "$meta" "$x1" >"$tmp/good.json"
check_eq "checker accepts a good file" "slices k 1 5000" \
	"$(python3 "$chk" "$tmp/good.json" | grep '^slices')"

# The committed study: every run's timeline against the database.
"$GPUMIX" -q analyze tests/data/runs/good/study -o "$tmp/s.db"
check_eq "load the committed study" 0 "$?"
out=$("$GPUMIX" report "$tmp/s.db" -o "$tmp/rep" --no-figures 2>&1)
check_eq "report -o: exit 0" 0 "$?"
check_match "summary counts the timelines" "5 timelines in " "$out"

q() { sqlite3 "$tmp/s.db" "$1"; }
for label in a+b.single a+b.cuda a+b.nss a+c.cuda a+c.elastic.median; do
	f=$tmp/rep/timelines/$label.json
	IFS=. read -r w v p <<<"$label"
	run=$(q "SELECT r.id FROM runs r JOIN workloads w ON w.id = r.workloadId
		 WHERE w.name = '$w' AND r.variant = '$v' AND r.policy = '${p:-none}'")
	got=$(python3 "$chk" --causal "$f")
	check_eq "$label: the JSON follows the format's rules, arrows point forward" 0 "$?"
	# What the database holds for the run, as the checker prints it.
	want=""
	for kind in RUNTIME:api KERNEL:kernel MEMCPY:memcpy MEMSET:memset; do
		row=$(q "SELECT count(*), coalesce(sum(end - start), 0)
			 FROM CUPTI_ACTIVITY_KIND_${kind%%:*} WHERE runId = $run
			 AND NOT (start = 0 AND end = 0 AND '${kind#*:}' <> 'api')")
		[ "${row%%|*}" = 0 ] || want+="slices ${kind#*:} ${row/|/ }"$'\n'
	done
	check_eq "$label: slices per kind and total ns = the database's" \
		"${want%$'\n'}" "$(grep '^slices' <<<"$got")"
	flows=$(q "SELECT count(*) FROM (SELECT runId, correlationId FROM
		 CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT runId, correlationId
		 FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT runId,
		 correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET) g WHERE g.runId = $run
		 AND EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME a WHERE
		 a.runId = $run AND a.correlationId = g.correlationId)")
	check_eq "$label: one arrow per GPU record with a launch call" \
		"flows $flows" "$(grep '^flows' <<<"$got")"
	check_eq "$label: a start and an end marker per replay" \
		"instants $(( 2 * $(q "SELECT count(*) FROM replays WHERE runId = $run") ))" \
		"$(grep '^instants' <<<"$got")"
	check_eq "$label: nothing left out" \
		'other left_out {"api": 0, "kernel": 0, "memcpy": 0, "memset": 0}' \
		"$(grep '^other left_out ' <<<"$got")"
done
f=$tmp/rep/timelines/a+b.cuda.json
check_match "a kernel slice carries grid, block and overlap category" \
	'"cat":"kernel","name":"kernelA","ts":10\.000,"dur":100\.000,"args":\{"kernel":"kernelA\(float\*\)","overlap":"SHARED/FULL","grid":\[132,1,1\],"block":\[256,1,1\]' \
	"$(cat "$f")"
check_match "tracks are named by stream and by thread" \
	'"name":"thread_name","args":\{"name":"stream 7"\}.*"name":"thread_name","args":\{"name":"thread 100"\}|"thread 100".*"stream 7"' \
	"$(tr -d '\n' <"$f")"
check_match "programs are processes" '"pid":2,"tid":0,"name":"process_name","args":\{"name":"b"\}' "$(cat "$f")"
check_match "the launch call starts the arrow" '"ph":"s","pid":1,"tid":1,"cat":"launch","name":"launch","ts":0\.000' "$(cat "$f")"
check_match "replays are instant markers" '"ph":"i","pid":1,"tid":0,"cat":"replay","name":"replay 0 start"' "$(cat "$f")"
check "index.md links every timeline" grep -qF "](timelines/a+c.elastic.median.json): " "$tmp/rep/index.md"
check "index.html links every timeline" grep -qF 'href="timelines/a+b.cuda.json"' "$tmp/rep/index.html"
"$GPUMIX" -q report "$tmp/s.db" -o "$tmp/none" --no-figures --no-timelines
check_eq "--no-timelines: exit 0" 0 "$?"
check "--no-timelines: no timelines/" test ! -e "$tmp/none/timelines"

# The timeline figure falls back to the whole run when the replays it
# would show hold no kernel (replays moved after every kernel here).
cp -r tests/data/runs/good/study "$tmp/late"
awk -F'\t' -v OFS='\t' 'NR > 1 { $3 = sprintf("%.0f", $3 + 5000000); $4 = sprintf("%.0f", $4 + 5000000) } 1' \
	tests/data/runs/good/study/a+b.cuda/replays.tsv >"$tmp/late/a+b.cuda/replays.tsv"
"$GPUMIX" -q analyze "$tmp/late" -o "$tmp/late.db"
"$GPUMIX" -q report "$tmp/late.db" -o "$tmp/late-rep" --run a+b.cuda --no-timelines
check_eq "replays without kernels: the figure is drawn" 0 "$?"
check_match "... over the whole run, saying so" \
	"Shows -5\.000 to -3\.900 ms, 11 of the run's 11 kernels" "$(cat "$tmp/late-rep/index.md")"

# A larger study and the limits.
"$gen" -o "$tmp/g" --kernels 3000 --workloads 2 >/dev/null
"$GPUMIX" -q analyze "$tmp/g" -o "$tmp/g.db"
check_eq "load a generated study" 0 "$?"
run=$(sqlite3 "$tmp/g.db" "SELECT r.id FROM runs r JOIN workloads w ON w.id = r.workloadId
	WHERE w.name = 'bfs+cutcp' AND r.variant = 'cuda'")
total=$(sqlite3 "$tmp/g.db" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = $run")
sum_kernels() { # sum_kernels CHECKER-OUTPUT: written + left out kernels
	python3 -c 'import json,sys
d={l.split(" ",2)[1]: l.split(" ",2)[2] for l in sys.stdin if l.startswith("other ")}
print(json.loads(d["written"])["kernel"] + json.loads(d["left_out"])["kernel"])'
}
"$GPUMIX" -q report "$tmp/g.db" -o "$tmp/g1" --no-figures --timeline-replays 1
check_eq "--timeline-replays 1: exit 0" 0 "$?"
got=$(python3 "$chk" --causal "$tmp/g1/timelines/bfs+cutcp.cuda.json")
check_eq "--timeline-replays 1: still follows the rules" 0 "$?"
check_match "--timeline-replays 1: kernels left out, said so" \
	'^other left_out \{"api": [1-9][0-9]*, "kernel": [1-9][0-9]*' "$got"
check_eq "--timeline-replays 1: written + left out = the run's kernels" \
	"$total" "$(sum_kernels <<<"$got")"
end=$(sqlite3 "$tmp/g.db" "SELECT max(end) - (SELECT min(start) FROM replays
	WHERE runId = $run) FROM replays WHERE runId = $run AND replay = 0")
check_match "--timeline-replays 1: the window ends with the last program's first replay" \
	"^other window_to_us $(( end / 1000 ))(\.[0-9]+)?$" "$got"
last=$(awk '/^range/ {print $3}' <<<"$got")
check "--timeline-replays 1: no slice starts after it" test "$last" -lt "$end"

"$GPUMIX" -q report "$tmp/g.db" -o "$tmp/g2" --no-figures --timeline-max 100
got=$(python3 "$chk" "$tmp/g2/timelines/bfs+cutcp.cuda.json")
check_eq "--timeline-max 100: follows the rules" 0 "$?"
gpu=$(awk '/^slices (kernel|memcpy|memset)/ {n += $3} END {print n}' <<<"$got")
check "--timeline-max 100: at most 100 GPU slices ($gpu)" test "$gpu" -le 100 -a "$gpu" -ge 90
check_eq "--timeline-max 100: the limit is stated" "other limit_max_slices 100" \
	"$(grep '^other limit_max_slices' <<<"$got")"
check_eq "--timeline-max 100: written + left out = the run's kernels" \
	"$total" "$(sum_kernels <<<"$got")"
check_match "--timeline-max 100: the index says what was left out" \
	"^- \[bfs\+cutcp\.cuda\]\(timelines/bfs\+cutcp\.cuda\.json\): [0-9]+ kernels, .* [1-9][0-9]* records outside 0\.000-[0-9.]+ ms left out$" \
	"$(cat "$tmp/g2/index.md")"
"$GPUMIX" -q report "$tmp/g.db" -o "$tmp/g0" --no-figures --timeline-max 0
got=$(python3 "$chk" "$tmp/g0/timelines/bfs+cutcp.cuda.json")
check_eq "--timeline-max 0: every kernel" "$total" \
	"$(awk '/^slices kernel/ {print $3}' <<<"$got")"

"$GPUMIX" -q report "$tmp/g.db" -o "$tmp/g3" --no-figures --timeline-window 2:3.5
got=$(python3 "$chk" "$tmp/g3/timelines/bfs+cutcp.cuda.json")
check_eq "--timeline-window 2:3.5: follows the rules" 0 "$?"
read -r _ first last <<<"$(grep '^range' <<<"$got")"
check "--timeline-window 2:3.5: slices start inside it ($first..$last ns)" \
	test "$first" -ge 2000000 -a "$last" -lt 3500000
check_match "--timeline-window: stated" "^other window_from_us 2000$" "$got"

usage_err() { # usage_err DESCRIPTION REGEX ARGS...
	local d=$1 re=$2 out
	shift 2
	out=$("$GPUMIX" report "$tmp/g.db" "$@" 2>&1)
	check_eq "$d: usage error" 2 "$?"
	check_match "$d: says why" "$re" "$out"
}
usage_err "--timeline-replays 0" "needs a count of replays >= 1, not '0'" \
	-o "$tmp/x" --timeline-replays 0
usage_err "--timeline-window 5:1" "FROM < TO .*not '5:1'" -o "$tmp/x" --timeline-window 5:1
usage_err "--timeline-window 5" "not '5'" -o "$tmp/x" --timeline-window 5
usage_err "--timeline-max x" "needs a count of slices .*not 'x'" -o "$tmp/x" --timeline-max x
usage_err "--timeline-max without -o" "need -o" --timeline-max 5
usage_err "--no-timelines with a limit" "contradict" -o "$tmp/x" --no-timelines --timeline-max 5
check "usage errors wrote nothing" test ! -e "$tmp/x"

# Odd program names: quotes, a tab and non-ASCII stay valid JSON.
"$gen" -o "$tmp/odd" --kernels 300 --workloads 1 --odd-names >/dev/null
"$GPUMIX" -q analyze "$tmp/odd" -o "$tmp/odd.db"
"$GPUMIX" -q report "$tmp/odd.db" -o "$tmp/odd-rep" --no-figures
check_eq "odd names: report written" 0 "$?"
n=0
for f in "$tmp"/odd-rep/timelines/*.json; do
	python3 "$chk" "$f" >/dev/null || n=$((n + 1))
	case ${f##*/} in
	*[!A-Za-z0-9._+-]*) n=$((n + 1)) ;;
	esac
done
check_eq "odd names: every file valid, every file name plain" 0 "$n"
check_match "odd names: the program name survives" '"name":"o'"'"'brien \\"q\\""' \
	"$(cat "$tmp"/odd-rep/timelines/*cuda*.json)"

done_testing
