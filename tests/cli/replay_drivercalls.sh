#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The replay's own driver-call times (drivercalls.tsv, doc/run-directory.md;
# replay/drvcalls.h) on the mock driver: every run writes them, per
# program, phase and call, with a histogram that adds up to the count and
# an END line; the launch calls of the timed part are as many as the
# kernels CUPTI saw; a launch call that blocked (MOCK_CUDA_SLOW makes the
# second one sleep 40 ms at its entry, as a full launch queue would) shows
# as such, in the maximum, the histogram and a SLOW line on the run's
# clock inside that program's replay; the mps variant merges its
# processes' files.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp
B=tests/data/reconstruct/bundles/basic
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cp -r "$B" "$tmp/other"
"$GPUMIX" -q reconstruct -o "$tmp/w" "$B" "$tmp/other" 2>/dev/null

# check_calls NAME DIR: the file's format
check_calls() {
	local d=$2
	check "$1: drivercalls.tsv is written" test -s "$d/drivercalls.tsv"
	check_eq "$1: its END line counts its lines" \
		"$(printf 'END\t%s' "$(($(wc -l <"$d/drivercalls.tsv") - 1))")" \
		"$(tail -1 "$d/drivercalls.tsv")"
	check_eq "$1: CALLS lines of 9 fields, SLOW lines of 6, nothing else" "" \
		"$(awk -F'\t' '$1 == "END" { next }
			!($1 == "CALLS" && NF == 9) && !($1 == "SLOW" && NF == 6) { print NR ": " $0; exit }' \
			"$d/drivercalls.tsv")"
	check_eq "$1: each histogram adds up to its count, the total is at least the maximum" "" \
		"$(awk -F'\t' '$1 == "CALLS" { n = split($9, h, ","); s = 0
			for (i = 1; i <= n; i++) s += h[i]
			if (n != 25 || s != $6 || $7 < $8) { print NR ": " $0; exit } }' \
			"$d/drivercalls.tsv")"
	check_eq "$1: every call named by its driver function (cu...)" "" \
		"$(awk -F'\t' '($1 == "CALLS" && $4 !~ /^cu[A-Z]/) || ($1 == "SLOW" && $3 !~ /^cu[A-Z]/) { print NR ": " $0; exit }' \
			"$d/drivercalls.tsv")"
	check_eq "$1: both programs' threads" "basic other" \
		"$(awk -F'\t' '$1 == "CALLS" { print $2 }' "$d/drivercalls.tsv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
	check_eq "$1: a launch call in the timed part per kernel CUPTI saw" \
		"$(awk -F'\t' '$1 == "KERNEL"' "$d/activity.tsv" | wc -l)" \
		"$(awk -F'\t' '$1 == "CALLS" && $3 == "replay" && $5 == "launch" { n += $6 } END { print n + 0 }' \
		"$d/drivercalls.tsv")"
}

out=$("$GPUMIX" replay --variant cuda --min-replays 3 -o "$tmp/cuda" "$tmp/w" 2>&1); rc=$?
check_eq "cuda: exit 0" 0 "$rc"
check_calls cuda "$tmp/cuda"
check_match "cuda: the kinds" "$(printf 'CALLS\tbasic\treplay\tcuStreamSynchronize\tsync\t')" \
	"$(cat "$tmp/cuda/drivercalls.tsv")"
check_match "cuda: init calls apart from the timed part" \
	"$(printf 'CALLS\tbasic\tsetup\tcuLibraryLoadData\tother\t1\t')" "$(cat "$tmp/cuda/drivercalls.tsv")"

# a launch call that blocked for 40 ms
out=$(MOCK_CUDA_SLOW="cuLaunchKernel:2:40:$tmp/slow.at" "$GPUMIX" replay --variant cuda \
	--min-replays 3 -o "$tmp/slow" "$tmp/w" 2>&1); rc=$?
check_eq "a blocked launch: exit 0" 0 "$rc"
check_calls slow "$tmp/slow"
check_eq "the blocked launch: one launch line's maximum is 40 ms or more" 1 \
	"$(awk -F'\t' '$1 == "CALLS" && $5 == "launch" && $8 >= 40000000' "$tmp/slow/drivercalls.tsv" | wc -l)"
check_eq "  in a histogram bucket of 32 ms or more" 1 \
	"$(awk -F'\t' '$1 == "CALLS" && $5 == "launch" { split($9, h, ","); s = 0
		for (i = 17; i <= 25; i++) s += h[i]; n += s } END { print n + 0 }' "$tmp/slow/drivercalls.tsv")"
# the longest SLOW launch line (a slow machine, a sanitized build, may list
# other launches among the slowest calls too)
line=$(awk -F'\t' '$1 == "SLOW" && $4 == "launch" && (!n++ || $6 - $5 > best) {
	best = $6 - $5; l = $0 } END { if (n) print l }' "$tmp/slow/drivercalls.tsv")
check_match "  a SLOW line of the launch" "^SLOW	(basic|other)	cuLaunchKernel(Ex)?	launch	[0-9]+	[0-9]+$" "$line"
prog=$(cut -f2 <<<"$line"); s=$(cut -f5 <<<"$line"); e=$(cut -f6 <<<"$line")
at=$(head -1 "$tmp/slow.at")
check "  lasting 40 ms or more ($s - $e)" test $(( (e - s) / 1000000 )) -ge 40
check "  ending after the mock's sleep ended ($at), on the run's clock" test "$e" -ge "$at"
check_eq "  inside one of $prog's replays" 1 \
	"$(awk -F'\t' -v p="$prog" -v s="$s" -v e="$e" 'NR > 1 && $1 == p &&
		substr($3, 8) + 0 <= substr(s, 8) + 0 && substr(e, 8) + 0 <= substr($4, 8) + 0' \
		"$tmp/slow/replays.tsv" | wc -l)"

# nss: the dispatcher's event queries, each counted once under its name
out=$("$GPUMIX" replay --variant nss --completion event --min-replays 3 -o "$tmp/nss" "$tmp/w" 2>&1); rc=$?
check_eq "nss: exit 0" 0 "$rc"
check_calls nss "$tmp/nss"
check_match "nss: its event queries" "$(printf 'CALLS\t[a-z]+\treplay\tcuEventQuery\tquery\t')" \
	"$(cat "$tmp/nss/drivercalls.tsv")"

# mps: the processes' files merged
out=$(PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH "$GPUMIX" replay --variant mps --min-replays 3 \
	-o "$tmp/mps" "$tmp/w" 2>&1); rc=$?
check_eq "mps: exit 0" 0 "$rc"
check_calls mps "$tmp/mps"
check_fails "mps: the processes' files are in the run's only" test -e "$tmp/mps/mps/0/drivercalls.tsv"
done_testing
