#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix replay --probe blocks on a CPU (doc/gpumix-replay.md, "The block
# probe"), against the mock driver, which writes the records the
# transformed kernels' probe code would (one per logical block of the
# launch's range, its SM, start and duration; tests/mock/mock_cuda.c) and
# CUPTI's external correlation records: probe.tsv and probe.bin agree with
# each other and with the activity log (tests/probe_check.sh) under cuda,
# the elastic variant's timeslices (a launch in two ranges, each with its
# own records), without profiling (correlation id 0), mps and procs (the
# processes' files merged, correlation ids unique); a kernel that was not
# transformed is listed as not probed with the transformer's reason; the
# option's errors.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
. "$GPUMIX_TOP/tests/probe_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp
B=tests/data/reconstruct/bundles/basic
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

"$GPUMIX" -q reconstruct --variant cuda --elastic -o "$tmp/e" "$B" 2>/dev/null
"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/plain" "$B" 2>/dev/null

# ---- errors ----
out=$("$GPUMIX" replay --probe all -o "$tmp/x" "$tmp/e" 2>&1); rc=$?
check_eq "--probe all: usage error" 2 "$rc"
check_match "its message" "^error: --probe must be 'off' or 'blocks', not 'all'$" "$out"
out=$("$GPUMIX" replay --probe blocks -o "$tmp/x" "$tmp/plain" 2>&1); rc=$?
check_eq "--probe blocks without elastic modules: error" 1 "$rc"
check_match "its message" "^error: '$tmp/plain' has no elastic modules, which --probe blocks needs$" "$out"
check_match "its hint" "^hint: reconstruct it with 'gpumix reconstruct --elastic'$" "$out"
check_match "--help lists --probe" "--probe off\|blocks" "$("$GPUMIX" replay --help)"

# ---- cuda: every launch probed, joined to its kernel ----
out=$("$GPUMIX" replay --variant cuda --probe blocks --min-replays 3 -o "$tmp/cuda" "$tmp/e" 2>&1); rc=$?
check_eq "cuda --probe blocks: exit 0 (results verified)" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_run "$tmp/cuda" 1 3
check_probe cuda "$tmp/cuda" 132
check_eq "cuda: the transformed kernels, elasticity off" identity "$(field "$tmp/cuda/manifest" elastic)"
check_eq "cuda: 3 launches a replay, 3 replays" 9 "$(field "$tmp/cuda/manifest" probe.probed_launches)"
check_eq "cuda: 16 blocks a launch" 144 "$(field "$tmp/cuda/manifest" probe.records)"
check_eq "cuda: a line per replay and kernel" "0 1 2" \
	"$(awk -F'\t' 'NR > 1 && $5 == "_Z5scalePjPKjjj" { print $2 }' "$tmp/cuda/probe.tsv" | tr '\n' ' ' | sed 's/ $//')"
check_eq "cuda: the mock's blocks, one per SM: SMs 0-15 in one wave" \
	"$(seq 0 15 | tr '\n' ' ')" \
	"$(probe_records "$tmp/cuda" | head -16 | awk '{ printf "%s ", $4 }')"
out=$("$GPUMIX" replay --variant cuda --min-replays 2 -o "$tmp/off" "$tmp/e" 2>&1); rc=$?
check_eq "without --probe: exit 0" 0 "$rc"
check_fails "without --probe: no probe.tsv" test -e "$tmp/off/probe.tsv"
check "without --probe: no probe key" test -z "$(field "$tmp/off/manifest" probe)"

# ---- through analyze and report: the probe's tables ----
out=$("$GPUMIX" -q analyze "$tmp/cuda" -o "$tmp/cuda.db" 2>&1); rc=$?
check_eq "analyze loads the probed run" 0 "$rc"
check_eq "every record loaded, on CUPTI's clock (an offset found)" "144|1" \
	"$(sqlite3 "$tmp/cuda.db" 'SELECT (SELECT count(*) FROM probe_blocks),
		(SELECT clockOffset IS NOT NULL FROM probe_runs)')"
check_eq "probe-kernels: each kernel's 3 launches probed, 16 SMs each" \
	"scale,3,3,16|incr,3,3,16|tex_copy,3,3,16" \
	"$("$GPUMIX" -q report "$tmp/cuda.db" --format csv --table probe-kernels |
		awk -F, 'NR > 1 { printf "%s%s,%s,%s,%s", (NR > 2 ? "|" : ""), $4, $5, $6, $10 }')"
check_match "probe-sm: the program's SM-time" "^basic,cuda,basic,[0-9.]+,0,16," \
	"$("$GPUMIX" -q report "$tmp/cuda.db" --format csv --table probe-sm)"

# ---- without profiling: no correlation ids, the records still ----
out=$("$GPUMIX" replay --variant cuda --probe blocks --no-profile --min-replays 2 \
	-o "$tmp/noprof" "$tmp/e" 2>&1); rc=$?
check_eq "--no-profile --probe blocks: exit 0" 0 "$rc"
check_probe no-profile "$tmp/noprof" 132
check_eq "--no-profile: correlation ids 0" 0 \
	"$(awk -F'\t' 'NR > 1 && $1 != "END" { s += $3 } END { print s + 0 }' "$tmp/noprof/probe.tsv")"

# ---- a kernel the transformer refused: listed, not probed, with why ----
cp -r "$tmp/e" "$tmp/refused"
rm -f "$tmp/refused/replay"
k=$(sed -n 's/^\(module\.0\.kernel\.[0-9]*\)\.name = _Z8tex_copyPjyj$/\1/p' "$tmp/refused/elastic/index")
sed -i "s/^$k\.class = .*/$k.class = not-elastic/" "$tmp/refused/elastic/index"
awk -F'\t' 'BEGIN { OFS = "\t" } $2 == "_Z8tex_copyPjyj" { $3 = "not-elastic"; $9 = "a reason of the transformer" } { print }' \
	"$tmp/e/elastic/kernels.tsv" >"$tmp/refused/elastic/kernels.tsv"
out=$("$GPUMIX" replay --variant cuda --probe blocks --min-replays 2 -o "$tmp/refused-run" \
	"$tmp/refused" 2>&1); rc=$?
check_eq "a refused kernel: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_probe refused "$tmp/refused-run" 132
check_eq "the refused kernel: listed, no records, the transformer's reason" \
	"0 a reason of the transformer" \
	"$(awk -F'\t' '$5 == "_Z8tex_copyPjyj" { print $17, $18; exit }' "$tmp/refused-run/probe.tsv")"
check_eq "the others: probed, in both replays" 4 "$(field "$tmp/refused-run/manifest" probe.probed_launches)"

# ---- the elastic variant's timeslices: a launch in two ranges ----
"$GPUMIX" -q replay --variant single --elastic identity --min-replays 2 -o "$tmp/single" "$tmp/e" 2>/dev/null
"$GPUMIX" -q profile -o "$tmp/profile.tsv" "$tmp/single" 2>/dev/null
awk -F'\t' 'BEGIN { OFS = "\t" } NR > 2 { $9 = "10000000.0" } { print }' \
	"$tmp/profile.tsv" >"$tmp/long.tsv"
out=$(MOCK_CUDA_SMS=1 "$GPUMIX" replay --variant elastic --policy mpmax --probe blocks \
	--profile "$tmp/long.tsv" --min-replays 2 -o "$tmp/sliced" "$tmp/e" 2>&1); rc=$?
check_eq "elastic, timesliced on a one-SM mock, probed: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_probe sliced "$tmp/sliced" 1
check_eq "each launch in two ranges of 8 blocks: offsets 0 and 8" "0 8" \
	"$(awk -F'\t' 'NR > 1 && $5 == "_Z5scalePjPKjjj" && $2 == 0 { printf "%s ", $15 }' \
	"$tmp/sliced/probe.tsv" | sed 's/ $//')"
check_eq "every range probed, 8 records" "8 8" \
	"$(awk -F'\t' 'NR > 1 && $5 == "_Z5scalePjPKjjj" && $2 == 0 { printf "%s ", $17 }' \
	"$tmp/sliced/probe.tsv" | sed 's/ $//')"
check_eq "one SM: one block at a time, each after the last" "" \
	"$(probe_records "$tmp/sliced" | head -8 | awk '
		NR == 1 { hi0 = $2; lo0 = $1 }
		{ t = ($2 - hi0) * 4294967296 + ($1 - lo0)	# (exact in a double)
		  if (NR > 1 && t < last + dur) { print NR; exit } last = t; dur = $3 }')"

# ---- mps: the processes' files merged ----
cp -r "$B" "$tmp/other"
"$GPUMIX" -q reconstruct --elastic -o "$tmp/pair" "$B" "$tmp/other" 2>/dev/null
out=$(PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH "$GPUMIX" replay --variant mps --probe blocks \
	--min-replays 3 -o "$tmp/mps" "$tmp/pair" 2>&1); rc=$?
check_eq "mps --probe blocks: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_probe mps "$tmp/mps" 132
check_eq "mps: both programs' launches" "basic other" \
	"$(awk -F'\t' 'NR > 1 && $1 != "END" { print $1 }' "$tmp/mps/probe.tsv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "mps: correlation ids unique" "" \
	"$(awk -F'\t' 'NR > 1 && $1 != "END" { print $3 }' "$tmp/mps/probe.tsv" | sort | uniq -d | head -3)"
check_fails "mps: the processes' probe files are in the run's only" test -e "$tmp/mps/mps/0/probe.tsv"
check_eq "mps: the processes' counts add up" \
	"$(awk -F'\t' 'NR > 1 && $1 != "END"' "$tmp/mps/probe.tsv" | wc -l)" \
	"$(field "$tmp/mps/manifest" probe.launches)"
out=$("$GPUMIX" replay --variant procs --probe blocks --min-replays 2 -o "$tmp/procs" \
	"$tmp/pair" 2>&1); rc=$?
check_eq "procs --probe blocks: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_probe procs "$tmp/procs" 132
done_testing
