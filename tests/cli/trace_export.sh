#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix trace export: committed bundles and a fresh capture (2 threads, a
# forked child) as Chrome trace-event JSON, parsed and checked against the
# format's rules (tests/tools/check_timeline.py); its call slices, GPU
# slices and arrows are compared with `gpumix trace dump --events` (one
# slice per entry, one per activity record, one arrow per record whose
# correlation id a call of its process has). An incomplete bundle exports
# and says so; an unreadable one fails and writes nothing; --max and
# --window leave slices out and say how many; usage errors.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
chk=tests/tools/check_timeline.py
if ! command -v python3 >/dev/null; then
	skip "python3 is not installed (apt-get install python3)"
	done_testing
	exit 0
fi

usage_err() { # usage_err DESCRIPTION REGEX ARGS...
	local d=$1 re=$2 out
	shift 2
	out=$("$GPUMIX" trace export "$@" 2>&1)
	check_eq "$d: usage error" 2 "$?"
	check_match "$d: says why" "$re" "$out"
}
usage_err "no -o" "export needs -o" tests/data/bundles/good
usage_err "no bundle" "missing bundle directory" -o "$tmp/x.json"
usage_err "unknown option" "unknown option '--nope'" --nope -o "$tmp/x.json" tests/data/bundles/good
usage_err "--max x" "--max needs a count of slices .*not 'x'" --max x -o "$tmp/x.json" tests/data/bundles/good
usage_err "--window 3:1" "--window needs FROM:TO .*not '3:1'" --window 3:1 -o "$tmp/x.json" tests/data/bundles/good
usage_err "-o without a value" "option '-o' needs a value" tests/data/bundles/good -o
check "usage errors wrote nothing" test ! -e "$tmp/x.json"
out=$("$GPUMIX" trace --help)
check_match "trace --help describes export" "^  export   " "$out"

# What `trace dump --events` says the bundle holds, as the checker prints it.
expect() { # expect BUNDLE: slices per kind and the arrows
	"$GPUMIX" trace dump --events "$1" 2>/dev/null | awk '
	{ split($3, pt, ":"); pid = pt[1]; corr = ""
	  if (match($0, / corr=[0-9]+/)) corr = substr($0, RSTART + 1, RLENGTH - 1) }
	$4 == "enter" { calls++; has[pid " " corr] = 1 }
	$4 ~ /^act_/ { n[substr($4, 5)]++; acts[++na] = pid " " corr }
	END {
		if (calls) print "slices call " calls
		for (k in n) print "slices " k " " n[k]
		for (i = 1; i <= na; i++) if ((acts[i] in has) && acts[i] !~ / corr=0$/) f++
		print "flows " f + 0
	}' | sort
}
got_of() { # got_of CHECKER-OUTPUT: the same lines from the checker
	awk '/^slices/ {print $1, $2, $3} /^flows/' <<<"$1" | sort
}

"$GPUMIX" -q capture -o "$tmp/cap" -- "$GPUMIX_BUILD/tests/capture_emitter" --threads 2 --fork >/dev/null 2>&1
check_eq "capture for the export tests" 0 "$?"
for b in tests/data/bundles/good tests/data/reconstruct/bundles/basic \
	 tests/data/reconstruct/bundles/threads tests/data/reconstruct/bundles/fork \
	 "$tmp/cap"; do
	name=${b##*/}
	out=$("$GPUMIX" trace export -o "$tmp/$name.json" "$b" 2>&1)
	check_eq "$name: exit 0" 0 "$?"
	got=$(python3 "$chk" "$tmp/$name.json")
	check_eq "$name: the JSON follows the format's rules" 0 "$?"
	check_eq "$name: a slice per call and per GPU record, an arrow per linked record" \
		"$(expect "$b")" "$(got_of "$got")"
	check_match "$name: the summary line" \
		"^export: [0-9]+ calls, [0-9]+ GPU records, [0-9]+ arrows in $tmp/$name.json" "$out"
done
got=$(python3 "$chk" "$tmp/basic.json")
check_match "basic: kernels become slices with arrows" '^slices kernel 3 ' "$got"
check_match "basic: every kernel has its arrow" '^flows 3$' "$got"
check_match "basic: a call slice names its call and status" \
	'"cat":"call","name":"cuLaunchKernel","ts":[0-9.]+,"dur":[0-9.]+,"args":\{"status":0' \
	"$(cat "$tmp/basic.json")"
check_match "basic: the bundle says its GPU clock is not aligned" \
	'^other unaligned_processes 1$' "$got"
got=$(python3 "$chk" "$tmp/cap.json")
check_eq "capture: a process per captured process" 2 \
	"$(grep -c '"name":"process_name","args":{"name":"[^"]* (pid [0-9]*)"}' "$tmp/cap.json")"
check_eq "capture: aligned by the process events" "other unaligned_processes 0" \
	"$(grep '^other unaligned_processes' <<<"$got")"
check_match "capture: a track per thread" '"thread_name","args":\{"name":"thread [0-9]+"\}' \
	"$(cat "$tmp/cap.json")"

out=$("$GPUMIX" trace export -o "$tmp/basic.json" tests/data/reconstruct/bundles/basic 2>&1)
check_eq "an existing file: exit 1" 1 "$?"
check_match "an existing file: says so" "^error: '$tmp/basic.json' already exists" "$out"
"$GPUMIX" -q trace export --force -o "$tmp/basic.json" tests/data/reconstruct/bundles/basic
check_eq "--force replaces it" 0 "$?"
"$GPUMIX" -q trace export -o - tests/data/reconstruct/bundles/basic >"$tmp/stdout.json"
check_eq "-o -: exit 0" 0 "$?"
check_eq "-o -: the same document on stdout" "" "$(cmp "$tmp/stdout.json" "$tmp/basic.json")"

out=$("$GPUMIX" trace export -o "$tmp/killed.json" tests/data/bundles/killed 2>&1)
check_eq "an incomplete bundle exports: exit 0" 0 "$?"
check_match "... and the file says it is incomplete" '^other complete "no"$' \
	"$(python3 "$chk" "$tmp/killed.json")"
out=$("$GPUMIX" trace export -o "$tmp/trunc.json" tests/data/bundles/truncated-stream 2>&1)
check_eq "an unreadable bundle: exit 1" 1 "$?"
check_match "... says why" "^error: cannot export the timeline of 'tests/data/bundles/truncated-stream'" "$out"
check "... and writes nothing" test ! -e "$tmp/trunc.json"

total=$(python3 "$chk" "$tmp/cap.json" | awk '/^slices/ {n += $3} END {print n}')
out=$("$GPUMIX" trace export --max 50 -o "$tmp/max.json" "$tmp/cap" 2>&1)
got=$(python3 "$chk" "$tmp/max.json")
check_eq "--max 50: follows the rules" 0 "$?"
check_eq "--max 50: 50 slices" 50 "$(awk '/^slices/ {n += $3} END {print n}' <<<"$got")"
check_eq "--max 50: the rest left out, said so" "other left_out $(( total - 50 ))" \
	"$(grep '^other left_out' <<<"$got")"
check_match "--max 50: a note" "note: $(( total - 50 )) slices outside the window left out" "$out"
"$GPUMIX" -q trace export --window 1: -o "$tmp/win.json" "$tmp/cap"
got=$(python3 "$chk" "$tmp/win.json")
check_eq "--window 1:: follows the rules" 0 "$?"
read -r _ first _ <<<"$(grep '^range' <<<"$got")"
check "--window 1:: nothing starts before 1 ms ($first ns)" test "$first" -ge 1000000

# --format perfetto: the same timeline as a .pftrace, decoded by the
# test's own protobuf decoder and compared with the JSON.
"$GPUMIX" -q trace export --format perfetto -o "$tmp/cap.pftrace" "$tmp/cap"
check_eq "--format perfetto: exit 0" 0 "$?"
check_match "--format perfetto: decodes, the JSON's slices and arrows" "^ok [0-9]+ packets" \
	"$(python3 tests/tools/pftrace_check.py "$tmp/cap.pftrace" "$tmp/cap.json" 2>&1)"
"$GPUMIX" trace export --format hta -o "$tmp/x" "$tmp/cap" >/dev/null 2>&1
check_eq "--format hta: usage error (a report's format)" 2 "$?"
"$GPUMIX" trace info --format perfetto "$tmp/cap" >/dev/null 2>&1
check_eq "--format with another subcommand: usage error" 2 "$?"

done_testing
