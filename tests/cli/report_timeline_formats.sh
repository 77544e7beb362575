#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix report --timeline-format (doc/timeline.md, "Formats"): the
# committed mock-driver study's timelines as Chrome JSON, as Kineto-style
# JSON for Holistic Trace Analysis and as Perfetto's protobuf trace. The
# .pftrace is decoded by a protobuf wire-format decoder written in the
# test (tests/tools/pftrace_check.py) and the HTA JSON checked with
# python's json (tests/tools/hta_check.py), each against the Chrome
# timeline of the same run. otherData.origin_ns is a string (the
# nanosecond clock passes 2^53, which JavaScript numbers round). Both
# checkers fail on a damaged file (tried below).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1

"$GPUMIX" -q analyze tests/data/runs/good/study -o "$tmp/s.db"
check_eq "load the study" 0 "$?"
for f in chrome hta perfetto; do
	"$GPUMIX" -q report "$tmp/s.db" -o "$tmp/$f" --no-figures --timeline-format "$f"
	check_eq "--timeline-format $f: exit 0" 0 "$?"
done
runs=$(cd "$tmp/chrome/timelines" && ls *.json | sed 's/\.json$//')
check "the study has timelines" test -n "$runs"
check_eq "perfetto: a .pftrace per run" "$(ls "$tmp/chrome/timelines" | sed 's/\.json$/.pftrace/')" \
	"$(ls "$tmp/perfetto/timelines")"
check "index.html links the .pftrace files" grep -q 'href="timelines/a+b.cuda.pftrace"' "$tmp/perfetto/index.html"
for r in $runs; do
	check_match "$r: origin_ns is a string of digits" '^"[0-9]+"$' \
		"$(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["otherData"]["origin_ns"]))' "$tmp/chrome/timelines/$r.json")"
	check_match "$r: the .pftrace decodes and matches the JSON" "^ok [0-9]+ packets" \
		"$(python3 tests/tools/pftrace_check.py "$tmp/perfetto/timelines/$r.pftrace" "$tmp/chrome/timelines/$r.json" 2>&1)"
	check_match "$r: the HTA JSON has Kineto's categories, args and ac2g flows" "^ok " \
		"$(python3 tests/tools/hta_check.py "$tmp/hta/timelines/$r.json" "$tmp/chrome/timelines/$r.json" 2>&1)"
done
check_match "the kernels have flows from their launch calls" "[1-9][0-9]* flows$" \
	"$(python3 tests/tools/hta_check.py "$tmp/hta/timelines/a+b.cuda.json" "$tmp/chrome/timelines/a+b.cuda.json")"
check_eq "hta: the categories HTA reads" "cuda_driver gpu_memcpy gpu_memset kernel" \
	"$(python3 -c 'import json, sys; print(" ".join(sorted({e["cat"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X" and e["cat"] != "replay"})))' "$tmp/hta/timelines/a+b.single.json")"

"$GPUMIX" report "$tmp/s.db" -o "$tmp/x" --timeline-format svg >/dev/null 2>&1
check_eq "--timeline-format svg: usage error" 2 "$?"
"$GPUMIX" report "$tmp/s.db" --timeline-format hta >/dev/null 2>&1
check_eq "--timeline-format without -o: usage error" 2 "$?"

# The checkers can fail: a cut .pftrace, an HTA file without correlations.
f=$tmp/perfetto/timelines/a+b.cuda.pftrace
head -c $(( $(wc -c <"$f") - 3 )) "$f" >"$tmp/cut.pftrace"
check_match "a cut .pftrace is caught" "runs past the end|bytes|open|slices|flows" \
	"$(python3 tests/tools/pftrace_check.py "$tmp/cut.pftrace" "$tmp/chrome/timelines/a+b.cuda.json" 2>&1)"
sed 's/"correlation":/"corr":/g' "$tmp/hta/timelines/a+b.cuda.json" >"$tmp/nocorr.json"
check_match "an HTA file without correlations is caught" "without int arg correlation" \
	"$(python3 tests/tools/hta_check.py "$tmp/nocorr.json" "$tmp/chrome/timelines/a+b.cuda.json" 2>&1)"

done_testing
