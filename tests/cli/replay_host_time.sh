#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Captured host time in the replay (doc/gpumix-replay.md, "Host time"), on
# the mock driver, whose MOCK_CUDA_CALL_LOG lists when each work call was
# entered. The hostgap workload of gen-workload has memsets from two
# captured threads with known gaps (its hostgap_calls[]): by default every
# variant spends them before issuing each call (the entry of memset k is
# at least its gap after the entry of its thread's previous one), in the
# captured order, per captured thread; --host-time none spends none;
# --max-host-gap caps them; a gap longer than the watchdog's timeout is
# not a hang; the manifest says what was spent and how precisely.
# Checks are on the order and spacing of the calls the mock saw, lower
# bounds from the captured gaps, and on the sleeps the replay asked for
# (the mock's call log has them): no assertion that something took less
# than some time, which a loaded machine cannot promise.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp	# (mps: the private pipe directories go here)
. "$GPUMIX_TOP/tests/replay_check.sh"

# The workload's memsets: memset k is HOSTGAP_BYTES(k) = 4096 + 64k
# bytes, made by thread T[k] after a gap of G[k] ms (tests/tools/
# gen_workload.c hostgap_calls[]; 5 and 6 are one call; a kernel launch
# comes before 9, which waits for it).
T=(a a b a b a a a b a a)
G=(0 30 0 5 60 10 0 150 1 0 300)
NOPS=${#T[@]}
NGAPS=7			# of them not 0
GAPS_MS=556		# their sum
GAPS_OVER_10=4		# of them longer than 10 ms
CAPPED_MS=56		# their sum, capped at 10 ms

"$GEN" hostgap --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
check_eq "gen-workload hostgap" 0 "$?"
check_eq "the reconstruct manifest: host time captured" captured \
	"$(field "$tmp/wl/manifest" program.0.host_time)"
check_eq "... from two captured threads" 2 "$(field "$tmp/wl/manifest" program.0.host_threads)"
"$GPUMIX" replay --build-only "$tmp/wl" >/dev/null 2>&1

# replay NAME ARGS...: replay the workload 2+ times into $tmp/NAME with the
# call log in $tmp/NAME.log
replay() {
	local name=$1 rc; shift
	rm -f "$tmp/$name.log"
	out=$(MOCK_CUDA_CALL_LOG=$tmp/$name.log "$GPUMIX" replay --min-replays 2 \
		-o "$tmp/$name" "$@" "$tmp/wl" 2>&1); rc=$?
	check_eq "$name: exit 0" 0 "$rc"
	check_eq "$name: status ok" ok "$(field "$tmp/$name/manifest" status)"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
}

# spacing LOG [TID]: per replay, one line "k1,k2,... d1 d2 ...": the order
# of the memsets seen and each one's entry less the entry of its thread's
# previous one in that replay (ms; - for a thread's first)
spacing() {
	awk -v n="$NOPS" -v tid="${2:-}" -v th="${T[*]}" '
	BEGIN { split(th, t, " ") }
	$3 == "memset" && $4 >= 4096 && $4 < 4096 + 64 * n && ($4 - 4096) % 64 == 0 &&
	(tid == "" || $2 == tid) {
		k = ($4 - 4096) / 64
		if (k == 0 && seen) { print order, d; order = ""; d = ""; delete last }
		seen = 1
		order = order (order == "" ? "" : ",") k
		who = t[k + 1]
		d = d " " (who in last ? sprintf("%.3f", ($1 - last[who]) / 1e6) : "-")
		last[who] = $1
	}
	END { if (seen) print order, d }' "$1"
}

# spent NAME [TID] [CAP_MS] [SKIP]: each replay issued the memsets in
# order, each at least its (capped) gap after its thread's previous one
# (but memset SKIP, whose previous one was issued after its call returned)
spent() {
	local name=$1 tid=${2:-} cap=${3:-} skip=${4:--1} lines bad
	lines=$(spacing "$tmp/$name.log" "$tid")
	check "$name: the call log has the replays' memsets" test -n "$lines"
	check_eq "$name: in the captured order, every replay" "" \
		"$(grep -v "^$(seq -s, 0 $((NOPS - 1))) " <<<"$lines")"
	bad=$(awk -v g="${G[*]}" -v cap="$cap" -v skip="$skip" '
		BEGIN { split(g, gap, " ") }
		{ for (k = 1; k <= NF - 1; k++) {
			want = gap[k]; if (cap != "" && want > cap) want = cap
			if (k - 1 != skip && $(k + 1) != "-" && $(k + 1) + 0 < want)
				print "op " k - 1 ": " $(k + 1) " < " want
		} }' <<<"$lines")
	check_eq "$name: every gap spent before its memset (ms since its thread's last)" "" "$bad"
}

# ---- the default: captured, every variant of one process ----
replay cuda
spent cuda
R=$(awk -F'\t' 'NR > 1' "$tmp/cuda/replays.tsv" | wc -l)
check_eq "cuda: run-level host_time" captured "$(field "$tmp/cuda/manifest" host_time)"
check_eq "cuda: program host_time" captured "$(field "$tmp/cuda/manifest" program.0.host_time)"
check_eq "cuda: the gaps spent, per replay" $((NGAPS * R)) "$(field "$tmp/cuda/manifest" program.0.host_gaps)"
check_eq "cuda: none capped" 0 "$(field "$tmp/cuda/manifest" program.0.host_gaps_capped)"
check_eq "cuda: their time" "$(awk -v r="$R" -v g="$GAPS_MS" 'BEGIN { printf "%.6f", r * g / 1000 }')" \
	"$(field "$tmp/cuda/manifest" program.0.host_gap_s)"
for k in median p99 max; do
	check_match "cuda: the issue error's $k" '^[0-9]+\.[0-9]{3}$' \
		"$(field "$tmp/cuda/manifest" program.0.host_error_us_$k)"
done
# Thread b's op 4 is due 60 ms after op 2 returned, thread a's op 5 10 ms
# after op 3: op 5 comes later in the captured order, so it is late by
# that order (the one replay thread issues them in turn), as is op 8
# after op 7's 150 ms. Were the gaps measured from the previous operation
# of any thread, nothing would be late.
check_eq "cuda: gaps are per captured thread: two operations late by the order, per replay" \
	$((2 * R)) "$(field "$tmp/cuda/manifest" program.0.host_order_late)"

# gpumix analyze keeps them, per program (doc/database.md)
"$GPUMIX" -q analyze "$tmp/cuda" -o "$tmp/db" 2>/dev/null
check_eq "analyze: the program's host time in the database" \
	"captured|$((NGAPS * R))|$(field "$tmp/cuda/manifest" program.0.host_gap_s | sed 's/0*$//')" \
	"$(sqlite3 "$tmp/db" 'SELECT hostTime, hostGapCount, hostGapTime FROM programs')"

for v in single priority; do
	replay "$v" --variant "$v"
	spent "$v"
	check_eq "$v: the gaps spent" captured "$(field "$tmp/$v/manifest" program.0.host_time)"
done
# nss holds the launch back until memset 8 before it is done, and memset
# 9 until the kernel is (about 200 us each on the mock): its dispatcher
# must issue them while the program spends the 300 ms before memset 10,
# not after. (So they reach the driver after their operations returned,
# from which memset 10's gap counts: that one is checked from memset 8,
# which nothing held back.)
replay nss --variant nss
spent nss "" "" 10
check_eq "nss: the gaps spent" captured "$(field "$tmp/nss/manifest" program.0.host_time)"
# (memset 9 waits for a kernel, so nss holds it back; memset 10 comes
# 300 ms later: the replay issues memset 9 before it sleeps through them)
check_eq "nss: work held back is issued during a host gap, before its sleeps" "" \
	"$(awk '$3 == "memset" && $4 == 4096 + 64 * 8 { at = 8; t = $2; n = 0 }
		$3 == "sleep" && $2 == t && at == 8 { print "a sleep before memset 9" }
		$3 == "sleep" && $2 == t && at == 9 { n++ }
		$3 == "memset" && $4 == 4096 + 64 * 9 && at == 8 { at = 9 }
		$3 == "memset" && $4 == 4096 + 64 * 10 && at == 9 {
			if (!n) print "no sleep between memset 9 and memset 10"; at = 0 }' \
		"$tmp/nss.log" | sort -u)"
check_eq "nss: memset 10 at least its 300 ms after memset 8" "" \
	"$(awk '$3 == "memset" && $4 == 4096 + 64 * 8 { l = $1 }
		$3 == "memset" && $4 == 4096 + 64 * 10 && $1 - l < 300e6 {
			printf "%.1f ms\n", ($1 - l) / 1e6 }' "$tmp/nss.log")"

# ---- none: back to back ----
replay none --host-time none
check_eq "none: recorded" none "$(field "$tmp/none/manifest" host_time)"
check_eq "none: the program's too" none "$(field "$tmp/none/manifest" program.0.host_time)"
check_eq "none: nothing spent, nothing measured" "" "$(field "$tmp/none/manifest" program.0.host_gaps)"
lines=$(spacing "$tmp/none.log")
check_eq "none: in the captured order" "" "$(grep -v "^$(seq -s, 0 $((NOPS - 1))) " <<<"$lines")"
check_eq "none: the replay never slept" "" "$(grep ' sleep ' "$tmp/none.log")"

# ---- a cap ----
replay cap --max-host-gap 0.01
spent cap "" 10
check_eq "cap: recorded" 0.01 "$(field "$tmp/cap/manifest" max_host_gap_s)"
Rc=$(awk -F'\t' 'NR > 1' "$tmp/cap/replays.tsv" | wc -l)
check_eq "cap: the gaps over 10 ms were capped" $((GAPS_OVER_10 * Rc)) \
	"$(field "$tmp/cap/manifest" program.0.host_gaps_capped)"
check_eq "cap: the time spent" "$(awk -v r="$Rc" -v c="$CAPPED_MS" 'BEGIN { printf "%.6f", r * c / 1000 }')" \
	"$(field "$tmp/cap/manifest" program.0.host_gap_s)"
check_eq "cap: no sleep longer than the cap was asked for (the 150 ms gap was not spent)" "" \
	"$(awk '$3 == "sleep" && $4 > 10000000' "$tmp/cap.log")"
check "... though the replay slept" grep -q ' sleep ' "$tmp/cap.log"
out=$("$GPUMIX" replay --max-host-gap -1 -o "$tmp/bad" "$tmp/wl" 2>&1); rc=$?
check_eq "a negative cap is a usage error" 2 "$rc"
check_match "... saying what it takes" "max-host-gap must be 0 or more, not -1" "$out"
out=$("$GPUMIX" replay --host-time some -o "$tmp/bad" "$tmp/wl" 2>&1); rc=$?
check_eq "an unknown --host-time is a usage error" 2 "$rc"
check_match "... naming the choices" "host-time must be 'captured' or 'none', not 'some'" "$out"

# ---- the watchdog: a 2 s gap under a 0.5 s timeout is no hang ----
"$GEN" hostgap --long-gap-ms 2000 --fatbin "$FATBIN" -o "$tmp/wllong" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 0.5 -o "$tmp/watchdog" "$tmp/wllong" 2>&1); rc=$?
check_eq "watchdog: a gap four times its timeout: exit 0" 0 "$rc"
check_eq "watchdog: status ok, not hung" ok "$(field "$tmp/watchdog/manifest" status)"
check_match "watchdog: the long gap was spent" '^[0-9]+\.[0-9]+$' \
	"$(awk -v s="$(field "$tmp/watchdog/manifest" program.0.host_gap_s)" 'BEGIN { if (s >= 4) print s }')"

# ---- mps: two programs, two processes, the keys of each ----
"$GEN" hostgap --programs 2 --fatbin "$FATBIN" -o "$tmp/wl2" 2>/dev/null
rm -f "$tmp/mps.log"
out=$(PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH MOCK_CUDA_CALL_LOG=$tmp/mps.log \
	"$GPUMIX" replay --variant mps --min-replays 2 -o "$tmp/mps" "$tmp/wl2" 2>&1); rc=$?
check_eq "mps: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
for i in 0 1; do
	check_eq "mps: program $i's host time, from its process" captured \
		"$(field "$tmp/mps/manifest" program.$i.host_time)"
	check_match "mps: program $i's gaps spent" '^[1-9][0-9]*$' \
		"$(field "$tmp/mps/manifest" program.$i.host_gaps)"
done
tids=$(awk '$3 == "memset" && $4 == 4096 { print $2 }' "$tmp/mps.log" | sort -u)
check_eq "mps: each process issued its memsets" 2 "$(wc -w <<<"$tids")"
for t in $tids; do
	cp "$tmp/mps.log" "$tmp/mps-$t.log"
	spent "mps-$t" "$t"
done

# ---- a program without host times (from a bundle of format 1, as
# reconstruct_corpus.sh shows: no tables, as gen-workload tiny's) ----
"$GEN" tiny --programs 1 --fatbin "$FATBIN" -o "$tmp/old" 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/oldrun" "$tmp/old" 2>&1); rc=$?
check_eq "no host times: exit 0" 0 "$rc"
check_match "no host times: the log says its calls go back to back" \
	"program 'scale-a' has no captured host times \(its bundle or its reconstruction predates them\): its calls are replayed back to back" "$out"
check_eq "no host times: the manifest says none" none \
	"$(field "$tmp/oldrun/manifest" program.0.host_time)"

done_testing
