# SPDX-License-Identifier: MIT
#
# Shared checks of a replay run directory (doc/run-directory.md), sourced
# by tests/cli/replay_mock.sh (mock driver) and tests/gpu/replay_*.sh
# (real GPU) after tests/lib.sh, and the study the run_* tests give the
# real stages on the mock driver. Not a test itself.

field() { # field FILE KEY
	sed -n "s/^$2 = //p" "$1"
}

# mock_study FILE NAME VARIANTS REPLAY OUTPUT [MORE]: write FILE, study NAME
# over the committed bundles basic and threads (their pair) under VARIANTS,
# with the replay mapping's body REPLAY, OUTPUT as its output directory and
# MORE, if given, as further top-level lines (e.g. "policies: [...]"); each
# run once (repeats: 1) unless MORE says 'repeats:'
mock_study() {
	cat >"$1" <<EOF
study: $2
root: $GPUMIX_TOP
programs:
  - bundle: tests/data/reconstruct/bundles/basic
  - bundle: tests/data/reconstruct/bundles/threads
workloads:
  - [basic, threads]
variants: [$3]
replay: {$4}
paths: {output: $5}
EOF
	[ -z "${6:-}" ] || printf '%s\n' "$6" >>"$1"
	case ${6:-} in *repeats:*) ;; *) echo "repeats: 1" >>"$1" ;; esac
}

# reconstruct_replay NAME VARIANT R [RECONSTRUCT OPTIONS] BUNDLE...:
# reconstructs the bundles (gpumix -v reconstruct, its output in
# $recon_out) into $tmp/r-NAME.VARIANT and replays it R times into
# $tmp/run-NAME.VARIANT: both exit 0 and every result is verified (status
# ok), or the failure is shown. The GPU tests' common step. $REPLAY_OPTS,
# when set, are more replay options (word-split).
reconstruct_replay() {
	local name=$1 v=$2 r=$3 rc; shift 3
	recon_out=$("$GPUMIX" -v reconstruct --variant "$v" -o "$tmp/r-$name.$v" "$@" 2>&1); rc=$?
	check_eq "$name $v: reconstruct exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$recon_out" | tail -4 | sed 's/^/#   /'
	# (library programs load for long: a generous watchdog)
	# shellcheck disable=SC2086
	out=$("$GPUMIX" replay --min-replays "$r" --watchdog 120 ${REPLAY_OPTS:-} \
		-o "$tmp/run-$name.$v" "$tmp/r-$name.$v" 2>&1); rc=$?
	check_eq "$name $v: replay exits 0" 0 "$rc"
	check_eq "$name $v: status ok (every result verified)" ok \
		"$(field "$tmp/run-$name.$v/manifest" status)"
	[ "$rc" = 0 ] || echo "#   failure: $(field "$tmp/run-$name.$v/manifest" failure)"
}

# check_run DIR PROGRAMS R: the run directory is complete and consistent
check_run() {
	local d=$1 n=$2 r=$3 p
	check_eq "$d: status ok" ok "$(field "$d/manifest" status)"
	check_eq "$d: format" "gpumix-run 1" "$(field "$d/manifest" format)"
	check_eq "$d: programs" "$n" "$(field "$d/manifest" programs)"
	check_eq "$d: replays.tsv header" \
		"$(printf 'program\treplay\tstart_ns\tend_ns\tio_ns\tkept')" \
		"$(head -1 "$d/replays.tsv")"
	for p in $(sed -n 's/^program\.[0-9]*\.name = //p' "$d/manifest"); do
		local total kept
		total=$(awk -F'\t' -v p="$p" '$1 == p' "$d/replays.tsv" | wc -l)
		kept=$(awk -F'\t' -v p="$p" '$1 == p && $6 == 1' "$d/replays.tsv" | wc -l)
		check "$d: $p replayed at least $r times ($total)" test "$total" -ge "$r"
		check_eq "$d: $p: only its last replay is discarded" $((total - 1)) "$kept"
		check "$d: $p has kernel records" \
			grep -q "^KERNEL	$p	" "$d/activity.tsv"
		check "$d: $p has API records" grep -q "^API	$p	" "$d/activity.tsv"
	done
	check_eq "$d: activity.tsv END counts the records" \
		"END	$(($(wc -l < "$d/activity.tsv") - 1))" "$(tail -1 "$d/activity.tsv")"
	if [ "${REPLAY_CHECK_LATENCY:-0}" = 1 ]; then
		check_match "$d: kernel records have queued/submitted times" \
			'^KERNEL	[^	]*	[0-9]+	[0-9]+	[0-9]+	[1-9][0-9]*	[1-9]' \
			"$(grep -m1 '^KERNEL' "$d/activity.tsv")"
	else
		echo "# $d: first kernel record: $(grep -m1 '^KERNEL' "$d/activity.tsv")"
	fi
	check "$d: no KERNEL record of an unknown program" \
		test -z "$(cut -f2 "$d/activity.tsv" | grep -v '^[0-9]*$' |
			sort -u | grep -vxF "$(sed -n 's/^program\.[0-9]*\.name = //p' "$d/manifest")")"
}

