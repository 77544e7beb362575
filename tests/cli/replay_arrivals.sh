#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Open-loop programs in the replay (doc/gpumix-replay.md, "Open-loop
# programs"), on the mock driver: --arrivals makes one program of a
# 2-program workload latency-critical. Its requests.tsv has one line per
# request, in order; the arrival times are reproducible from the seed and
# recorded (the same offsets in two runs with one seed, other offsets with
# another seed; the manifest names seed, process and requests); no
# request starts before it arrives; requests that all arrive at once (a
# trace of equal timestamps) wait in the queue: each starts no earlier
# than the one before ended, so its queueing delay is at least the
# service time before it; the batch program replays back to back beside
# them and its replays are not requests; the process variant (procs)
# merges its processes' requests. Checks compare recorded times with each
# other, never with a wall-clock threshold. Usage errors are refused.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp
. "$GPUMIX_TOP/tests/replay_check.sh"

"$GEN" tiny --fatbin "$FATBIN" --programs 2 -o "$tmp/wl" 2>/dev/null
check_eq "gen-workload tiny" 0 "$?"
"$GPUMIX" replay --build-only "$tmp/wl" >/dev/null 2>&1

# replay NAME ARGS...: replay into $tmp/NAME, checking it went well
replay() {
	local name=$1 rc out; shift
	out=$("$GPUMIX" replay -o "$tmp/$name" "$@" "$tmp/wl" 2>&1); rc=$?
	check_eq "$name: exit 0" 0 "$rc"
	check_eq "$name: status ok" ok "$(field "$tmp/$name/manifest" status)"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
}

# offsets NAME: each request's arrival less the first's (ns), one a line
# (in the shell's 64-bit integers: awk's doubles round ns since boot)
offsets() {
	local a0= p r a rest
	while IFS=$'\t' read -r p r a rest; do
		[ "$r" != request ] || continue
		[ -n "$a0" ] || a0=$a
		echo $((a - a0))
	done <"$tmp/$1/requests.tsv"
}

# well_formed NAME N: N requests of scale-a numbered 0..N-1, none
# starting before its arrival or before the one before it ended
well_formed() {
	check_eq "$1: header" "program	request	arrival_ns	start_ns	end_ns" \
		"$(head -1 "$tmp/$1/requests.tsv")"
	check_eq "$1: $2 requests, numbered in order" "$2 scale-a 0-$(($2 - 1))" \
		"$(awk -F'\t' 'NR > 1 { n++; p = $1; if ($2 != n - 1) bad = 1 }
		   END { print n, p, bad ? "bad" : "0-" n - 1 }' "$tmp/$1/requests.tsv")"
	check_eq "$1: none starts before it arrives, none before the last ended" "" \
		"$(awk -F'\t' 'NR > 1 && ($4 < $3 || $5 < $4 || (NR > 2 && $4 < end)) {
		   print "request " $2 } NR > 1 { end = $5 }' "$tmp/$1/requests.tsv")"
}

replay seed5 --variant cuda --arrivals scale-a=poisson:500 --requests 8 \
	--arrival-seed 5
well_formed seed5 8
check_eq "manifest: the seed" 5 "$(field "$tmp/seed5/manifest" arrivals.seed)"
check_eq "manifest: the process" poisson:500 \
	"$(field "$tmp/seed5/manifest" program.0.arrivals)"
check_eq "manifest: the requests" 8 \
	"$(field "$tmp/seed5/manifest" program.0.requests)"
check_eq "manifest: the batch program is not open-loop" "" \
	"$(field "$tmp/seed5/manifest" program.1.arrivals)"
check_eq "the open-loop program replays once per request" 8 \
	"$(awk -F'\t' '$1 == "scale-a"' "$tmp/seed5/replays.tsv" | wc -l)"
check_eq "... every one kept" 8 \
	"$(awk -F'\t' '$1 == "scale-a" && $6 == 1' "$tmp/seed5/replays.tsv" | wc -l)"
check_eq "the batch program's replays are no requests" 0 \
	"$(grep -c '^scale-b' "$tmp/seed5/requests.tsv")"
check_eq "the batch program keeps its rule: its last replay discarded" "0 1" \
	"$(awk -F'\t' '$1 == "scale-b" { n++; k[n] = $6 }
	   END { for (i = 1; i < n; i++) if (!k[i]) bad = 1; print k[n], bad ? 0 : 1 }' \
	   "$tmp/seed5/replays.tsv")"

replay again5 --variant cuda --arrivals scale-a=poisson:500 --requests 8 \
	--arrival-seed 5
check_eq "the same seed: the same arrival offsets" "$(offsets seed5)" \
	"$(offsets again5)"
replay seed6 --variant cuda --arrivals scale-a=poisson:500 --requests 8 \
	--arrival-seed 6
check_fails "another seed: other arrival offsets" \
	test "$(offsets seed5)" = "$(offsets seed6)"

# A burst: 5 requests at one instant queue behind each other.
printf 'TIMESTAMP,tokens\n10.0,1\n10.0,2\n10.0,3\n10.0,4\n10.0,5\n' >"$tmp/burst.csv"
replay burst --variant cuda --arrivals "scale-a=trace:$tmp/burst.csv"
well_formed burst 5
check_eq "burst: the trace recorded" "trace:$tmp/burst.csv#TIMESTAMP" \
	"$(field "$tmp/burst/manifest" program.0.arrivals)"
check_eq "burst: every request arrives with the first" "0 0 0 0 0" \
	"$(offsets burst | tr '\n' ' ' | sed 's/ $//')"
check_eq "burst: each waits at least the service times before it" "" \
	"$(awk -F'\t' 'NR > 1 { q = $4 - $3; if (q < served) print "request " $2;
	   served += $5 - $4 }' "$tmp/burst/requests.tsv")"
check_eq "burst: the last waits longer than the first" 1 \
	"$(awk -F'\t' 'NR == 2 { q0 = $4 - $3 } NR == 6 { print ($4 - $3 > q0) ? 1 : 0 }' \
	   "$tmp/burst/requests.tsv")"

replay procs --variant procs --arrivals scale-a=poisson:500 --requests 6 \
	--arrival-seed 5
well_formed procs 6
check_eq "procs: the parent's manifest names the process" poisson:500 \
	"$(field "$tmp/procs/manifest" program.0.arrivals)"
check_eq "procs: the same offsets as the threads' run" \
	"$(offsets seed5 | head -6)" "$(offsets procs)"

replay single --variant single --arrivals scale-b=poisson:500 --requests 3
check_eq "single: the open-loop program is the second" "3 scale-b" \
	"$(awk -F'\t' 'NR > 1 { n++; p = $1 } END { print n, p }' "$tmp/single/requests.tsv")"
check_eq "manifest: program.1's arrivals" poisson:500 \
	"$(field "$tmp/single/manifest" program.1.arrivals)"

# What analyze loads from them: every request, the process and the SLO.
replay slo --variant cuda --arrivals scale-a=poisson:500 --requests 4 --slo 3ms
check_eq "manifest: the SLO" 3ms "$(field "$tmp/slo/manifest" arrivals.slo)"
check_eq "manifest: the default SLO" 2x "$(field "$tmp/seed5/manifest" arrivals.slo)"
"$GPUMIX" -q analyze "$tmp/slo" "$tmp/procs" -o "$tmp/ol.db"
check_eq "analyze: loaded" 0 "$?"
check_eq "analyze: the open-loop rows" "cuda poisson:500 4 1 3ms
procs poisson:500 6 5 2x" "$(sqlite3 -separator ' ' "$tmp/ol.db" "SELECT r.variant,
	o.arrivals, o.requests, o.seed, o.slo FROM open_loop o JOIN runs r ON
	r.id = o.runId ORDER BY r.variant")"
check_eq "analyze: every request" "cuda 4
procs 6" "$(sqlite3 -separator ' ' "$tmp/ol.db" "SELECT r.variant, count(*) FROM
	requests q JOIN runs r ON r.id = q.runId GROUP BY r.variant ORDER BY 1")"

# Two points of a sweep under one variant: two runs, told apart by their
# label (runs.openLoop), each a configuration of its own.
replay low --variant cuda --arrivals scale-a=poisson:200 --requests 3 --arrivals-label load0.2
replay high --variant cuda --arrivals scale-a=poisson:800 --requests 3 --arrivals-label load0.8
check_eq "manifest: the label" load0.2 "$(field "$tmp/low/manifest" arrivals.label)"
"$GPUMIX" -q analyze "$tmp/low" "$tmp/high" -o "$tmp/sweep.db"
check_eq "analyze: both points loaded" 0 "$?"
check_eq "analyze: runs.openLoop" "load0.2
load0.8" "$(sqlite3 "$tmp/sweep.db" "SELECT openLoop FROM runs ORDER BY 1")"
check_eq "report: a variant label per point" "cuda+load0.2 cuda+load0.8" \
	"$("$GPUMIX" -q report "$tmp/sweep.db" --format csv --table open-loop |
	   awk -F, 'NR > 1 { print $2 }' | sort | tr '\n' ' ' | sed 's/ $//')"

# Usage errors.
refused() { # refused WHAT MESSAGE ARGS...
	local what=$1 msg=$2 out rc; shift 2
	out=$("$GPUMIX" replay -o "$tmp/refused" "$@" "$tmp/wl" 2>&1); rc=$?
	check_eq "$what: exit 2" 2 "$rc"
	check_match "$what: says why" "$msg" "$out"
}
refused "--requests alone" "--requests applies to the programs of --arrivals" \
	--requests 5
refused "--one-shot" "--one-shot does not apply" --one-shot \
	--arrivals scale-a=poisson:5
refused "a program named twice" "names program 'scale-a' twice" \
	--arrivals scale-a=poisson:5 --arrivals scale-a=poisson:6
refused "a bad rate" "rate in requests per second above 0" \
	--arrivals scale-a=poisson:fast
refused "a bad SLO" "a latency target .* not '2'" \
	--arrivals scale-a=poisson:5 --slo 2
refused "--slo alone" "--slo applies to the programs of --arrivals" --slo 2x
refused "a bad label" "--arrivals-label takes 1 to 32 letters" \
	--arrivals scale-a=poisson:5 --arrivals-label "0.5"
out=$("$GPUMIX" replay -o "$tmp/nope" --arrivals nope=poisson:5 "$tmp/wl" 2>&1)
check_match "an unknown program named" "the workload has no program 'nope'" "$out"
check_fails "... and no run directory" test -e "$tmp/nope/manifest"

done_testing
