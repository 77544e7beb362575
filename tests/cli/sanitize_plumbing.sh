#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make check-gpu-sanitize's plumbing on a CPU (tests/compute_sanitizer.sh,
# doc/reliability.md): the sweep over two committed bundles (basic and
# threads, put where a resumed sweep keeps its captures) against the mock
# driver, the stand-in MPS daemon, and a stand-in for compute-sanitizer
# that runs the program it is given and prints the tool's summary line,
# with 2 errors in each process that replays a program named in
# SAN_ERRORS_IN. The sanitizer
# itself needs a GPU; what is checked here is everything around it: the
# runs listed (racecheck kernel by kernel, memcheck alone and per pair and
# variant), mps through GPUMIX_PROCESS_WRAPPER (each replay process
# under the tool, never the whole replay), the counts added up over the
# processes, the statuses (clean, errors, unfinished), the exit status and
# a resumed sweep that runs only what did not finish.
. "$(dirname "$0")/../lib.sh"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp	# (the MPS pipe directories)
R=$GPUMIX_TOP/tests/data/reconstruct/bundles

# The stand-in: compute-sanitizer --tool T [--option value | --flag]...
# PROGRAM ARGS. Logs "TOOL PROGRAM ARGS" to SAN_LOG.
cat >"$tmp/compute-sanitizer" <<'EOF'
#!/usr/bin/env bash
tool=memcheck exitcode=0
while [ $# -gt 0 ]; do
	case $1 in
	--tool) tool=$2; shift 2;;
	--error-exitcode) exitcode=$2; shift 2;;
	--kernel-name|--launch-count) shift 2;;
	--*) shift;;
	*) break;;
	esac
done
echo "$tool $*" >>"$SAN_LOG"
echo "========= COMPUTE-SANITIZER"
[ -n "${SAN_SLEEP:-}" ] && sleep "$SAN_SLEEP"
"$@"; rc=$?
n=0
for p in ${SAN_ERRORS_IN:-}; do
	# (a program of the unit: replays/UNIT/replay, UNIT = P or P+Q)
	case "$1" in */replays/$p/*|*/replays/$p+*|*+$p/*) n=2;; esac
done
if [ "$tool" = racecheck ]; then
	echo "========= RACECHECK SUMMARY: $n hazards displayed"
else
	echo "========= ERROR SUMMARY: $n errors"
fi
[ "$n" -gt 0 ] && [ "$exitcode" != 0 ] && exit "$exitcode"
exit "$rc"
EOF
chmod +x "$tmp/compute-sanitizer"

# sweep OUT [VAR=VALUE...]: the target's script over basic and threads,
# their bundles put where a sweep keeps its captures; its output in $out,
# its exit status in $rc
sweep() {
	local dir=$1; shift
	if [ ! -e "$dir/sanitize.tsv" ]; then
		mkdir -p "$dir/bundles" "$dir/logs" "$dir/replays" "$dir/runs"
		cp -r "$R/basic" "$R/threads" "$dir/bundles/"
		printf 'unit\ttool\tvariant\tkernel\tstatus\terrors\tseconds\n' >"$dir/sanitize.tsv"
		echo 0.01 >"$dir/scale"
	fi
	env GPUMIX_TOP="$GPUMIX_TOP" GPUMIX_BUILD="$GPUMIX_BUILD" \
		COMPUTE_SANITIZER="$tmp/compute-sanitizer" SAN_LOG="$dir.san" \
		GPUMIX_SAN_OUT="$dir" GPUMIX_SAN_RESUME=1 \
		GPUMIX_SAN_PROGRAMS="basic threads" GPUMIX_SAN_PARALLEL=4 \
		GPUMIX_SAN_TOOLS="racecheck memcheck" GPUMIX_SAN_VARIANTS="cuda mps" \
		"$@" bash "$GPUMIX_TOP/tests/compute_sanitizer.sh" >"$dir.out" 2>&1
	rc=$?
	out=$(cat "$dir.out")
}
row() { # row OUT UNIT TOOL VARIANT: its status and count
	awk -F'\t' -v u="$2" -v t="$3" -v v="$4" '$1 == u && $2 == t && $3 == v { print $5, $6 }' \
		"$1/sanitize.tsv"
}

# -- every run clean
sweep "$tmp/a"; st=$rc
check_eq "a clean sweep exits 0" 0 "$st"
[ "$st" = 0 ] || printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
nk=$(for b in basic threads; do "$GPUMIX" trace dump --events "$R/$b" |
	awk '$4 == "act_kernel" && !seen[$5]++' | wc -l; done | awk '{ s += $1 } END { print s }')
check "the bundles have kernels to race-check ($nk distinct)" test "$nk" -gt 0
check_eq "a row per run: racecheck per distinct kernel in single and elastic, memcheck alone in both and the pair in cuda and mps" \
	$(( 2 * nk + 4 + 2 )) "$(($(wc -l <"$tmp/a/sanitize.tsv") - 1))"
check_eq "every row clean" "" "$(awk -F'\t' 'NR > 1 && $5 != "clean"' "$tmp/a/sanitize.tsv")"
check_match "the summary counts them" "^sanitize: $(( 2 * nk + 6 )) runs: $(( 2 * nk + 6 )) clean$" "$out"
check_eq "racecheck runs one kernel at a time, each under the tool once per mode" \
	"$(( 2 * nk ))" "$(grep -c '^racecheck ' "$tmp/a.san")"
check_eq "mps: the tool ran each replay process, never the whole replay" "2 0" \
	"$(grep -c -- '--variant mps.*--process-child' "$tmp/a.san") $(grep -- '--variant mps' "$tmp/a.san" | grep -vc -- '--process-child')"
check_eq "cuda: the tool ran the whole replay" 1 "$(grep -- '--variant cuda' "$tmp/a.san" | grep -c '/basic+threads/replay')"
check_match "the mps run is a real one: ok, under the MPS daemon" "^status = ok" \
	"$(cat "$tmp/a/runs/basic+threads-memcheck-mps/manifest")"

# -- errors in one program: its runs, and the pairs holding it
sweep "$tmp/b" SAN_ERRORS_IN=threads GPUMIX_SAN_TOOLS=memcheck; st=$rc
check_eq "a sweep with errors exits 1" 1 "$st"
check_eq "threads alone: errors, 2 reported" "errors 2" "$(row "$tmp/b" threads memcheck single)"
check_eq "basic alone: clean" "clean 0" "$(row "$tmp/b" basic memcheck single)"
check_eq "the pair under cuda: errors" "errors 2" "$(row "$tmp/b" basic+threads memcheck cuda)"
check_eq "the pair under mps: both processes' counts added up (2 + 2)" "errors 4" \
	"$(row "$tmp/b" basic+threads memcheck mps)"
check_match "the output says which" "basic\+threads memcheck mps: errors, 4 reported" "$out"

# -- a run that does not finish in time, then the sweep resumed
sweep "$tmp/c" SAN_SLEEP=3 GPUMIX_SAN_TIMEOUT=1 GPUMIX_SAN_TOOLS=memcheck \
	GPUMIX_SAN_VARIANTS=cuda; st=$rc
check_eq "runs past the time limit: exit 1" 1 "$st"
check_eq "every run unfinished" "5" "$(awk -F'\t' 'NR > 1 && $5 == "unfinished"' "$tmp/c/sanitize.tsv" | wc -l)"
: >"$tmp/c.san"
sweep "$tmp/c" GPUMIX_SAN_TOOLS=memcheck GPUMIX_SAN_VARIANTS=cuda; st=$rc
check_eq "resumed without the limit: exit 0" 0 "$st"
check_eq "each run ran again once" 5 "$(grep -c . "$tmp/c.san")"
check_eq "one row per run, the last one" "5 5" \
	"$(($(wc -l <"$tmp/c/sanitize.tsv") - 1)) $(awk -F'\t' 'NR > 1 && $5 == "clean"' "$tmp/c/sanitize.tsv" | wc -l)"
: >"$tmp/c.san"
sweep "$tmp/c" GPUMIX_SAN_TOOLS=memcheck GPUMIX_SAN_VARIANTS=cuda; st=$rc
check_eq "resumed when all is done: nothing runs again" "0 0" "$st $(grep -c . "$tmp/c.san")"
sweep "$tmp/c" GPUMIX_SAN_SCALE=0.1; st=$rc
check_eq "resumed at another scale: refused" 2 "$st"
check_match "saying why" "captured at -s 0.01, not 0.1" "$out"

done_testing
