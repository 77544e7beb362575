#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make check-gpu-sanitize: NVIDIA's compute-sanitizer over the replays of
# the Parboil-style suite, on the GPU (doc/reliability.md). Too slow for
# make check-gpu (tens of minutes at the default sizes), so a target of
# its own. Three sweeps, all runs of one sweep in parallel:
#   racecheck   every distinct kernel of every program, alone, in
#               `single` (the transformed kernels, elasticity off) and
#               `elastic` (MPMAX): its first launch instrumented
#               (--kernel-name kns=K --launch-count 1), the rest native;
#   memcheck,   six pairs that together hold all 11 programs, in every
#   synccheck   variant of VARIANTS, plus each program alone in `single`
#               and `elastic`.
# The programs are captured at -s SCALE: one racecheck-instrumented
# launch of cutcp, mm or tpacf at the default size runs past 7 minutes
# on an H100. Runs that the GPU cannot do are skipped, not failed (a
# cooperative grid larger than a green partition). No replay watchdog.
#
# Writes OUT/sanitize.tsv (a row per run) and OUT/logs/; prints a line per
# run and a summary. Exits 0 when every run finished clean, 1 when one
# reported an error or hazard, failed, or did not finish in time, 2
# without a GPU or compute-sanitizer.
#   GPUMIX_SAN_TOOLS    (racecheck memcheck synccheck)
#   GPUMIX_SAN_VARIANTS (cuda priority nss green mps): for the pairs; in
#                       mps the tool runs each replay process
#                       (GPUMIX_PROCESS_WRAPPER, doc/mps.md)
#   GPUMIX_SAN_SCALE    (0.01) the programs' -s
#   GPUMIX_SAN_PROGRAMS (the 11), GPUMIX_SAN_PARALLEL (12),
#   GPUMIX_SAN_TIMEOUT  (900 s per run), GPUMIX_SAN_OUT (build/sanitize-gpu:
#                       replaced when it holds an earlier sweep)
#   GPUMIX_SAN_RESUME=1 goes on with the sweep in GPUMIX_SAN_OUT instead:
#                       its captures, builds and finished runs are kept,
#                       runs that failed or did not finish run again (a
#                       sweep longer than one sitting, in parts)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
TOP=${GPUMIX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${GPUMIX_BUILD:-$TOP/build}
GPUMIX=${GPUMIX:-$BUILD/gpumix}
TOOLS=${GPUMIX_SAN_TOOLS:-racecheck memcheck synccheck}
VARIANTS=${GPUMIX_SAN_VARIANTS:-cuda priority nss green mps}
SCALE=${GPUMIX_SAN_SCALE:-0.01}
PROGRAMS=${GPUMIX_SAN_PROGRAMS:-bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf}
PARALLEL=${GPUMIX_SAN_PARALLEL:-12}
RESUME=${GPUMIX_SAN_RESUME:-0}
TIMEOUT=${GPUMIX_SAN_TIMEOUT:-900}
OUT=${GPUMIX_SAN_OUT:-$BUILD/sanitize-gpu}
SAN=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer ||
	echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")}

if ! "$BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "error: no GPU on this machine: make check-gpu-sanitize runs on a GPU host" >&2
	exit 2
fi
if [ ! -x "$SAN" ]; then
	echo "error: compute-sanitizer not found (PATH, CUDA_HOME or COMPUTE_SANITIZER)" >&2
	exit 2
fi
# replace an earlier sweep (or go on with it), never a directory that is
# something else
if [ -e "$OUT" ] && [ ! -e "$OUT/sanitize.tsv" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "error: '$OUT' exists and is not an earlier sweep's output (no sanitize.tsv)" >&2
	exit 2
fi
if [ "$RESUME" = 1 ] && [ -e "$OUT/sanitize.tsv" ]; then
	if [ "$(cat "$OUT/scale" 2>/dev/null)" != "$SCALE" ]; then
		echo "error: the sweep in '$OUT' captured at -s $(cat "$OUT/scale" 2>/dev/null || echo '?'), not $SCALE: cannot go on with it" >&2
		exit 2
	fi
else
	rm -rf "$OUT"
	mkdir -p "$OUT/logs" "$OUT/bundles" "$OUT/replays" "$OUT/runs"
	printf 'unit\ttool\tvariant\tkernel\tstatus\terrors\tseconds\n' >"$OUT/sanitize.tsv"
	echo "$SCALE" >"$OUT/scale"
fi
start=$(date +%s)
say() { echo "sanitize: $* ($(( $(date +%s) - start )) s)"; }

# the six pairs: every program in one of them, as far as PROGRAMS allows
pairs() {
	local p q=""
	for p in $PROGRAMS; do
		if [ -z "$q" ]; then q=$p; else echo "$q+$p"; q=""; fi
	done
	[ -z "$q" ] || echo "$q+${PROGRAMS%% *}"
}

for p in $PROGRAMS; do
	log=$OUT/logs/capture-$p.log
	[ -f "$OUT/bundles/$p/manifest" ] && continue	# a resumed sweep's
	if ! (cd "$TOP" && "$GPUMIX" -q capture -o "$OUT/bundles/$p" -- \
		"$BUILD/workloads/parboil/$p" -s "$SCALE") >"$log" 2>&1 ||
	   ! grep -q "^PASS $p" "$log"; then
		echo "error: $p did not capture at -s $SCALE: $(tail -1 "$log")" >&2
		exit 1
	fi
done
say "captured $(wc -w <<<"$PROGRAMS") programs at -s $SCALE"
units="$PROGRAMS $(pairs | tr '\n' ' ')"
for u in $units; do
	log=$OUT/logs/build-$u.log
	[ -x "$OUT/replays/$u/replay" ] && continue	# a resumed sweep's
	# shellcheck disable=SC2046
	if ! "$GPUMIX" -q reconstruct --elastic -o "$OUT/replays/$u" \
		$(for q in ${u//+/ }; do echo "$OUT/bundles/$q"; done) >"$log" 2>&1 ||
	   ! "$GPUMIX" -q replay --build-only "$OUT/replays/$u" >>"$log" 2>&1; then
		echo "error: $u: reconstruct or build failed: $(tail -1 "$log")" >&2
		exit 1
	fi
done
say "built $(wc -w <<<"$units") replay programs"

# the runs, one per line: UNIT TOOL VARIANT [KERNEL]
runs() {
	local t u v k
	for t in $TOOLS; do
		case $t in
		racecheck)
			for u in $PROGRAMS; do
				"$GPUMIX" trace dump --events "$OUT/bundles/$u" |
					awk '$4 == "act_kernel" && !seen[$5]++ { print $5 }' |
					while read -r k; do
						echo "$u $t single $k"; echo "$u $t elastic $k"
					done
			done;;
		*)
			for u in $PROGRAMS; do echo "$u $t single"; echo "$u $t elastic"; done
			for u in $(pairs); do for v in $VARIANTS; do echo "$u $t $v"; done; done;;
		esac
	done
}

# one run: prints UNIT TOOL VARIANT KERNEL STATUS ERRORS SECONDS
run_one() {
	local u=$1 t=$2 v=$3 k=${4:--} tag args filt=() s rc st errs
	case $v in
	single) args=(--variant single --elastic identity);;
	elastic) args=(--variant elastic --policy mpmax);;
	# mps: the tool runs each replay process, not the whole replay: around
	# it, it would hold the MPS daemon too, whose server then never starts
	mps) args=(--variant mps);;
	*) args=(--variant "$v");;
	esac
	tag=$u-$t-$v
	if [ "$v" = mps ] && ! command -v nvidia-cuda-mps-control >/dev/null; then
		printf '%s\t%s\t%s\t%s\tskipped\t-\t0\n' "$u" "$t" "$v" "$k"	# no MPS here
		return
	fi
	if [ "$k" != - ]; then
		filt+=(--kernel-name "kns=$k" --launch-count 1)
		tag=$tag-$k
	fi
	s=$(date +%s)
	rm -rf "$OUT/runs/$tag"	# an earlier try's, in a resumed sweep
	local tool=("$SAN" --tool "$t" "${filt[@]}" --error-exitcode 9) wrap=()
	if [ "$v" = mps ]; then
		wrap=("${tool[@]}"); tool=()
	fi
	GPUMIX_PROCESS_WRAPPER="${wrap[*]}" timeout "$TIMEOUT" "${tool[@]}" \
		"$OUT/replays/$u/replay" "${args[@]}" --min-replays 2 --no-profile \
		--watchdog 0 -o "$OUT/runs/$tag" >"$OUT/logs/$tag.log" 2>&1
	rc=$?
	# the tool's own count, summed over its processes (mps: one each):
	# "ERROR SUMMARY: N errors" or "RACECHECK SUMMARY: N hazards displayed"
	errs=$(sed -n 's/.*\(ERROR\|RACECHECK\) SUMMARY: \([0-9]*\).*/\2/p' "$OUT/logs/$tag.log" |
		awk '{ s += $1; n++ } END { if (n) print s }')
	st=$(sed -n 's/^status = //p' "$OUT/runs/$tag/manifest" 2>/dev/null)
	if [ "$rc" = 124 ]; then
		st=unfinished
	elif grep -q COOPERATIVE_LAUNCH_TOO_LARGE "$OUT/runs/$tag/manifest" 2>/dev/null; then
		st=skipped	# a cooperative grid larger than the partition
	elif [ "$rc" = 0 ] && [ "$st" = ok ]; then
		st=clean
	elif [ "${errs:-0}" -gt 0 ]; then
		st=errors
	else
		st=failed
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$u" "$t" "$v" "$k" "$st" "${errs:--}" "$(( $(date +%s) - s ))"
}
export -f run_one
export OUT SAN TIMEOUT

# the runs still to do: those without a row that finished (a resumed sweep)
todo() {
	runs | awk -F'\t' 'NR == FNR { if (FNR > 1 && $5 ~ /^(clean|skipped|errors)$/) done[$1 " " $2 " " $3 " " $4] = 1; next }
		{ k = $0; if (split($0, f, " ") == 3) k = k " -" } !(k in done)' "$OUT/sanitize.tsv" -
}
todo >"$OUT/todo"	# once: each listing reads every bundle's kernels
n=$(wc -l <"$OUT/todo")
say "$n runs, $PARALLEL at a time, at most $TIMEOUT s each"
xargs -r -P "$PARALLEL" -L1 bash -c 'run_one "$@"' run_one <"$OUT/todo" |
	tee -a "$OUT/sanitize.tsv" | awk -F'\t' '{ printf "sanitize: %s %s %s%s: %s%s (%d s)\n", $1, $2, $3,
		($4 == "-" ? "" : " " $4), $5, ($6 == "-" ? "" : ", " $6 " reported"), $7 }'
# a run tried again keeps its last row
awk -F'\t' 'NR == 1 { print; next } { k = $1 FS $2 FS $3 FS $4; if (!(k in row)) order[++n] = k; row[k] = $0 }
	END { for (i = 1; i <= n; i++) print row[order[i]] }' "$OUT/sanitize.tsv" >"$OUT/sanitize.tsv.tmp" &&
	mv "$OUT/sanitize.tsv.tmp" "$OUT/sanitize.tsv"
awk -F'\t' 'NR > 1 { n[$5]++; t++ } END {
	printf "sanitize: %d runs:", t
	for (s in n) printf " %d %s", n[s], s
	printf "\n" }' "$OUT/sanitize.tsv"
say "table in $OUT/sanitize.tsv, logs in $OUT/logs"
awk -F'\t' 'NR > 1 && $5 != "clean" && $5 != "skipped" { bad = 1 } END { exit bad }' "$OUT/sanitize.tsv"
