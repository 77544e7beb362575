#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Replay fidelity (GPU): each suite program captured (its bundle holds
# CUPTI's kernel, copy and memset durations of the captured run), then
# reconstructed in the single variant and replayed (R replays, the last
# discarded); the run directory's activity.tsv holds the replay's
# durations. Per program:
#   - per-kernel GPU duration, replay / captured, for kernel launches of
#     at least U us (50) in the captured run (launch i of kernel K in the
#     capture against launch i of K in each kept replay, median over the
#     replays): median, 10th and 90th percentile. Target 1.00 +- 0.05.
#   - total GPU time (kernels, copies, memsets): mean over the kept
#     replays / captured. Target within 3%.
#   - host overhead of the replay part: wall time of a replay (end - start
#     - io, replays.tsv) against the time the GPU was busy in it (union
#     of its records' intervals), median over the kept replays.
#   - wall time: the replayed GPU section (a replay's wall time, from its
#     first operation's issue to its last one's completion, with the
#     captured host time spent: doc/gpumix-replay.md, "Host time"),
#     median over the kept replays, against the captured GPU section
#     (first to last GPU call, on the host clock without the capture's
#     own time: `gpumix trace info`'s "gpu section"). Target: median
#     within 2%, each program within 5%.
# The suite and the real-library set (tests/libraries.sh: cuBLAS, cuFFT,
# cuRAND, cuSPARSE, a PyTorch training step, PyTorch inference, a
# transformer's generate loop, CuPy; those whose library this host lacks
# are skipped). Prints a table and the overall median ratios; exits 1
# only when a step fails. Without a GPU it says so and skips.
#   GPUMIX_SUITE_BUNDLES=DIR (reuse captured bundles), GPUMIX_SUITE="bfs mm",
#   GPUMIX_FIDELITY_LIBRARIES=0 (the suite only),
#   GPUMIX_FIDELITY_REPLAYS=R (5), GPUMIX_FIDELITY_MIN_US=U (50: the
#   shortest captured launch compared one by one),
#   GPUMIX_FIDELITY_REPLAY_ARGS="--warm-host" (more gpumix replay options),
#   OUT=DIR (keeps fidelity.tsv, copies.txt and copy_records.tsv, a row
#   per copy, there)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
BENCH_NAME="replay fidelity"
. "$(dirname "$0")/suite_bench.sh"
. "$GPUMIX_TOP/tests/libraries.sh"
R=${GPUMIX_FIDELITY_REPLAYS:-5}
MIN_US=${GPUMIX_FIDELITY_MIN_US:-50}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bench.XXXXXX")
_suite_rm+=("$tmp")
res=$tmp
if [ -n "${OUT:-}" ]; then
	res=$OUT/replay_fidelity
	mkdir -p "$res"
fi
suite_cache

# Timestamps are nanoseconds near 2^61: awk's doubles keep only the last
# 12 digits, relative to a base B (runs are far shorter than 1000 s).
REL='function rel(x, v) { v = substr(x, length(x) - 11) - B
	if (v < -5e11) v += 1e12; else if (v > 5e11) v -= 1e12; return v }'

# A captured copy's name: CUPTI's copy kind and source and destination
# memory kinds (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind), as
# HTOD:pageable>device:BYTES; the replay's activity.tsv gives HTOD:BYTES.
COPY_NAME='
function copy_name(  i, f, c, sk, dk, b) {
	split("HTOD DTOH HTOA ATOH ATOA ATOD DTOA DTOD HTOH PTOP", CK, " ")
	split("unknown pageable pinned device array managed device_static managed_static", MK, " ")
	for (i = 6; i <= NF; i++) {
		split($i, f, "=")
		if (f[1] == "copyKind") c = f[2] + 0
		else if (f[1] == "srcKind") sk = f[2] + 0
		else if (f[1] == "dstKind") dk = f[2] + 0
		else if (f[1] == "bytes") b = f[2]
	}
	return ((c in CK) ? CK[c] : "copy" c) ":" ((sk + 1) in MK ? MK[sk + 1] : sk) ">" ((dk + 1) in MK ? MK[dk + 1] : dk) ":" b
}'

# captured records: "KIND NAME START END" (ns from the first) from the
# bundle's activity events
captured() {
	"$GPUMIX" trace dump --events "$1" | awk "$REL$COPY_NAME"'
	$4 ~ /^act_(kernel|memcpy|memset)$/ {
		s = e = ""
		for (i = 6; i <= NF; i++) {
			if ($i ~ /^start=/) { s = substr($i, 7) }
			if ($i ~ /^end=/) { e = substr($i, 5) }
		}
		if (s == "" || e == "") { next }
		if (!based) { B = substr(s, length(s) - 11) + 0; based = 1 }
		k = $4 == "act_kernel" ? "K" : "C"
		n = $4 == "act_kernel" ? $5 : $4 == "act_memset" ? "MEMSET" : copy_name()
		if (rel(e) > rel(s)) { print k, n, rel(s), rel(e) }
	}' | sort -k3,3n
}

# replayed records of program P: "KIND NAME START END REPLAY" in kept replays
replayed() {
	awk -F'\t' -v p="$2" "$REL"'
	FILENAME ~ /replays.tsv$/ {
		if (FNR > 1 && $1 == p && $6 == 1) {
			if (!n) { B = substr($3, length($3) - 11) + 0 }
			n++; rs[n] = rel($3); re[n] = rel($4); ri[n] = $2
		}
		next
	}
	$2 != p { next }
	# KIND program correlationId start end ... (doc/run-directory.md)
	$1 == "KERNEL" || $1 == "MEMCPY" || $1 == "MEMSET" {
		s = rel($4); e = rel($5)
		for (i = 1; i <= n; i++) {
			if (s >= rs[i] && s <= re[i]) {
				print ($1 == "KERNEL" ? "K" : "C"), ($1 == "KERNEL" ? $NF : $1 == "MEMSET" ? "MEMSET" : $6 ":" $7), s, e, ri[i]
				break
			}
		}
	}' "$1/replays.tsv" "$1/activity.tsv" | sort -k3,3n
}


printf '%-14s %6s %7s %6s %6s %9s %9s %7s %9s %9s %7s %9s %9s %8s %10s %10s %7s\n' program kernels median p10 p90 \
	cap_k_ms rep_k_ms k_rat cap_gpu_ms rep_gpu_ms gpu_rat wall_ms busy_ms overhead \
	cap_sec_ms rep_sec_ms sec_rat >"$res/fidelity.txt"
printf 'program\tkernels\tmedian\tp10\tp90\tcap_kernel_ms\trep_kernel_ms\tkernel_ratio\tcap_gpu_ms\trep_gpu_ms\tgpu_ratio\twall_ms\tbusy_ms\toverhead\tcap_section_ms\trep_section_ms\tsection_ratio\n' \
	>"$res/fidelity.tsv"
: >"$tmp/all_ratios"
printf '%-14s %-7s %6s %9s %8s %9s %7s  %s\n' program kind cap_n cap_ms rep_n rep_ms ratio captured_memory \
	>"$res/copies.txt"
printf 'program\tkind\tindex\tbytes\tcaptured_memory\tcap_us\trep_us\tratio\n' >"$res/copy_records.tsv"
# library_bundle NAME COMMAND: the bundle of a real-library program in
# $SUITE_CACHE, captured when missing or of an older format
library_bundle() {
	local out rc
	suite_current "$SUITE_CACHE/$1" && return 0
	rm -rf "${SUITE_CACHE:?}/$1"
	# shellcheck disable=SC2086 # the command's words
	out=$(cd "$GPUMIX_TOP" && "$GPUMIX" -q capture -o "$SUITE_CACHE/$1" -- $2 2>&1); rc=$?
	if [ "$rc" != 0 ] || ! grep -q "^PASS $1" <<<"$out"; then
		not_ok "$1: captured (exit $rc)"
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /' >&2
		rm -rf "${SUITE_CACHE:?}/$1"
		return 1
	fi
}

programs=$SUITE_PROGRAMS
if [ "${GPUMIX_FIDELITY_LIBRARIES:-1}" != 0 ]; then
	for line in "${LIBRARY_PROGRAMS[@]}"; do
		library_fields "$line"
		if [ -n "$lib_req" ] && ! (eval "$lib_req") >/dev/null 2>&1; then
			echo "$BENCH_NAME: $lib_name skipped: its library is not usable here"
			continue
		fi
		# bench/real_libraries.sh names its programs in GPUMIX_SUITE too:
		# each is measured once
		case " $programs " in *" $lib_name "*) continue ;; esac
		library_bundle "$lib_name" "$lib_cmd" && programs="$programs $lib_name"
	done
fi
for p in $programs; do
	case " $SUITE_PROGRAMS " in *" $p "*) suite_bundle "$p" || continue ;; esac
	# shellcheck disable=SC2086 # GPUMIX_FIDELITY_REPLAY_ARGS: options, split on purpose
	if ! "$GPUMIX" -q reconstruct --variant single -o "$tmp/$p" "$SUITE_CACHE/$p" 2>"$tmp/err" ||
	   ! "$GPUMIX" -q replay --min-replays "$R" ${GPUMIX_FIDELITY_REPLAY_ARGS:-} \
		-o "$tmp/run-$p" "$tmp/$p" >"$tmp/out" 2>&1; then
		not_ok "$p: reconstruct or replay failed"
		tail -n 3 "$tmp/err" "$tmp/out" >&2
		continue
	fi
	captured "$SUITE_CACHE/$p" >"$tmp/cap"
	replayed "$tmp/run-$p" "$p" >"$tmp/rep"
	# launch i of kernel K: captured duration, then per replay
	awk '$1 == "K" { i[$2]++; print $2 "#" i[$2], $4 - $3 }' "$tmp/cap" >"$tmp/capk"
	awk '$1 == "K" { i[$5, $2]++; print $2 "#" i[$5, $2], $4 - $3, $5 }' "$tmp/rep" >"$tmp/repk"
	awk 'NR == FNR { cap[$1] = $2; next }
	     ($1 in cap) && cap[$1] >= min { print $1, $2 / cap[$1] }' min=$((MIN_US * 1000)) "$tmp/capk" "$tmp/repk" |
		sort -k1,1 >"$tmp/inst"
	# per launch: the median over the replays
	: >"$tmp/ratios"
	for k in $(cut -d' ' -f1 "$tmp/inst" | uniq); do
		awk -v k="$k" '$1 == k { print $2 }' "$tmp/inst" | median >>"$tmp/ratios"
	done
	cat "$tmp/ratios" >>"$tmp/all_ratios"
	nk=$(wc -l <"$tmp/ratios")
	med=$(median <"$tmp/ratios"); p10=$(pct 0.1 <"$tmp/ratios"); p90=$(pct 0.9 <"$tmp/ratios")
	nrep=$(awk '{ print $5 }' "$tmp/rep" | sort -u | wc -l)
	capk_ms=$(awk '$1 == "K" { s += $4 - $3 } END { printf "%.3f", s / 1e6 }' "$tmp/cap")
	repk_ms=$(awk -v n="$nrep" '$1 == "K" { s += $4 - $3 } END { printf "%.3f", n ? s / n / 1e6 : 0 }' "$tmp/rep")
	k_rat=$(awk -v a="$repk_ms" -v b="$capk_ms" 'BEGIN { printf "%.4f", (b > 0) ? a / b : 0 }')
	cap_ms=$(awk '{ s += $4 - $3 } END { printf "%.3f", s / 1e6 }' "$tmp/cap")
	rep_ms=$(awk -v n="$nrep" '{ s += $4 - $3 } END { printf "%.3f", n ? s / n / 1e6 : 0 }' "$tmp/rep")
	gpu_rat=$(awk -v a="$rep_ms" -v b="$cap_ms" 'BEGIN { printf "%.4f", (b > 0) ? a / b : 0 }')
	# copies and memsets by kind: captured against the mean kept replay
	awk -v p="$p" -v n="$nrep" '
	FILENAME ~ /cap$/ && $1 == "C" { split($2, f, ":"); k = f[1]; cn[k]++; cs[k] += $4 - $3
		if (index(mk[k], f[2]) == 0) mk[k] = mk[k] (mk[k] == "" ? "" : ",") f[2]; keys[k] = 1 }
	FILENAME ~ /rep$/ && $1 == "C" { split($2, f, ":"); k = f[1]; rn[k]++; rs[k] += $4 - $3; keys[k] = 1 }
	END { for (k in keys) printf "%-14s %-7s %6d %9.3f %8.1f %9.3f %7.3f  %s\n", p, k, cn[k], cs[k] / 1e6,
		(n ? rn[k] / n : 0), (n ? rs[k] / n / 1e6 : 0), ((cs[k] > 0 && n) ? rs[k] / n / cs[k] : 0), ((k in mk) ? mk[k] : "-") }' \
		"$tmp/cap" "$tmp/rep" | sort >>"$res/copies.txt"
	# copy i of kind K: captured duration against the median over the
	# kept replays, with its bytes and captured memory kinds
	awk '$1 == "C" && $2 != "MEMSET" { split($2, f, ":"); print f[1] "#" (++i[f[1], $5]), $4 - $3 }' \
		"$tmp/rep" | sort -k1,1 >"$tmp/repc"
	awk '$1 == "C" && $2 != "MEMSET" { split($2, f, ":"); print f[1] "#" (++i[f[1]]), $4 - $3, f[3], f[2] }' \
		"$tmp/cap" | sort -k1,1 >"$tmp/capc"
	# (one pass: the replays' durations of each copy, sorted, their median)
	awk -v p="$p" 'NR == FNR { v[$1, ++n[$1]] = $2; next }
	{ k = n[$1] + 0
	  for (i = 1; i <= k; i++) w[i] = v[$1, i] + 0
	  for (i = 2; i <= k; i++) for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
	  m = (k % 2) ? w[(k + 1) / 2] : (w[k / 2] + w[k / 2 + 1]) / 2
	  split($1, c, "#")
	  printf "%s\t%s\t%d\t%s\t%s\t%.1f\t%s\t%s\n", p, c[1], c[2], $3, $4, $2 / 1e3,
		k ? sprintf("%.1f", m / 1e3) : "nan", k ? sprintf("%.3f", $2 > 0 ? m / $2 : 0) : "nan" }' \
		"$tmp/repc" "$tmp/capc" >>"$res/copy_records.tsv"
	# host overhead: wall of each kept replay against its GPU busy time
	awk -F'\t' -v p="$p" 'NR > 1 && $1 == p && $6 == 1 { print $2, $4 - $3 - $5 }' \
		"$tmp/run-$p/replays.tsv" | LC_ALL=C sort -k1,1 >"$tmp/wall"
	sort -k5,5n -k3,3n "$tmp/rep" | awk '
	function flush() { if (have) { busy[r] += e - s } have = 0 }
	BEGIN { r = "none" }
	{
		if ($5 != r) { flush(); r = $5 }
		if (have && $3 <= e) { if ($4 > e) e = $4 }
		else { flush(); s = $3; e = $4; have = 1 }
	}
	END { flush(); for (k in busy) print k, busy[k] }' | LC_ALL=C sort -k1,1 >"$tmp/busy"
	LC_ALL=C join "$tmp/wall" "$tmp/busy" >"$tmp/wb"
	wall=$(awk '{ print $2 / 1e6 }' "$tmp/wb" | median)
	busy=$(awk '{ print $3 / 1e6 }' "$tmp/wb" | median)
	over=$(awk '{ print ($2 - $3) / $2 }' "$tmp/wb" | median)
	# the GPU section: captured (clean clock) against the replay's wall
	sec=$(awk -F'\t' -v p="$p" 'NR > 1 && $1 == p && $6 == 1 { print ($4 - $3 - $5) / 1e6 }' \
		"$tmp/run-$p/replays.tsv" | median)
	cap_sec=$("$GPUMIX" trace info "$SUITE_CACHE/$p" 2>/dev/null |
		sed -n 's/^gpu section: .*; \([0-9.]*\) ms without the capture.*/\1/p')
	[ -n "$cap_sec" ] || cap_sec=nan
	sec_rat=$(awk -v a="$sec" -v b="$cap_sec" 'BEGIN { printf "%.4f", (b + 0 > 0) ? a / b : 0 }')
	[ "$(field "$tmp/run-$p/manifest" program.0.host_time)" = captured ] ||
		not_ok "$p: the replay did not spend captured host time"
	printf '%-14s %6d %7.4f %6.3f %6.3f %9s %9s %7s %9s %9s %7s %9.3f %9.3f %7.1f%% %10s %10.3f %7s\n' "$p" "$nk" \
		"$med" "$p10" "$p90" "$capk_ms" "$repk_ms" "$k_rat" "$cap_ms" "$rep_ms" "$gpu_rat" "$wall" "$busy" \
		"$(awk -v o="$over" 'BEGIN { print o * 100 }')" "$cap_sec" "$sec" "$sec_rat" >>"$res/fidelity.txt"
	printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$nk" "$med" "$p10" "$p90" \
		"$capk_ms" "$repk_ms" "$k_rat" "$cap_ms" "$rep_ms" "$gpu_rat" "$wall" "$busy" "$over" \
		"$cap_sec" "$sec" "$sec_rat" >>"$res/fidelity.tsv"
done
echo "replay fidelity: single variant vs the captured runs, $R replays each (last discarded)"
cat "$res/fidelity.txt"
echo "replay fidelity: copies and memsets by kind (rep_n, rep_ms: per kept replay; captured_memory: CUPTI's source>destination kinds)"
cat "$res/copies.txt"
echo "replay fidelity: copies of 100 us or more, one by one (rep_us: median over the kept replays)"
awk -F'\t' 'NR == 1 || $6 >= 100 { printf "%-14s %-5s %5s %12s %-16s %9s %9s %7s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
	"$res/copy_records.tsv"
all=$(median <"$tmp/all_ratios")
n=$(wc -l <"$tmp/all_ratios")
awk -v m="$all" -v n="$n" -v u="$MIN_US" 'BEGIN {
	printf "replay fidelity: per-kernel duration ratio over %d launches of >= %d us: median %.4f (target 1.00 +- 0.05: %s)\n",
		n, u, m, (m >= 0.95 && m <= 1.05) ? "met" : "MISSED" }'
awk -F'\t' 'NR > 1 { d = $8 - 1; if (d < 0) d = -d; if (d > 0.03) bk = bk " " $1
	d = $11 - 1; if (d < 0) d = -d; if (d > 0.03) bg = bg " " $1 }
     END { printf "replay fidelity: total kernel time within 3%% of the capture: %s\n",
	(bk == "") ? "met for every program" : "MISSED for" bk
	printf "replay fidelity: total GPU time (kernels, copies, memsets) within 3%%: %s\n",
	(bg == "") ? "met for every program" : "MISSED for" bg }' "$res/fidelity.tsv"
echo "replay fidelity: overhead = (replay wall time - GPU busy time) / wall time of the replay part"
# wall time: the replayed GPU section over the captured one
awk -F'\t' 'NR > 1 && $17 + 0 > 0 { print $17 }' "$res/fidelity.tsv" >"$tmp/sec_ratios"
awk -F'\t' 'NR > 1 && $17 + 0 > 0 { d = $17 - 1; if (d < 0) d = -d; print d, $1, $17 }' \
	"$res/fidelity.tsv" | sort -g | tail -1 >"$tmp/sec_worst"
awk -v m="$(median <"$tmp/sec_ratios")" -v n="$(wc -l <"$tmp/sec_ratios")" \
	-v w="$(cut -d' ' -f2- "$tmp/sec_worst")" 'BEGIN {
	split(w, f, " "); d = f[2] - 1; if (d < 0) d = -d; e = m - 1; if (e < 0) e = -e
	printf "replay fidelity: wall time, replayed GPU section / captured (without the capture'"'"'s own time) over %d programs: median %.4f (target within 2%%: %s), worst %s %.4f (target each within 5%%: %s)\n",
		n, m, (e <= 0.02) ? "met" : "MISSED", f[1], f[2], (d <= 0.05) ? "met" : "MISSED" }'
exit $status
