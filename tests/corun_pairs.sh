# SPDX-License-Identifier: MIT
#
# Pairs for native co-runs on a GPU, shared by tests/gpu/corun.sh and
# bench/corun_fidelity.sh: each program is a suite program
# (tests/suite_bundles.sh) or one of the real-library set
# (tests/libraries.sh), captured once into the suite's bundle cache; a
# study (doc/study-yaml.md) over pairs of them with the `corun` key.
# Sourced after tests/suite_bundles.sh and tests/libraries.sh, with
# $SUITE_CACHE set (suite_cache); not a test itself.

# corun_bundle NAME: the bundle $SUITE_CACHE/NAME of program NAME,
# captured when missing (its PASS line checked). Returns 1 when it cannot
# be had (2 when it is a library program this host cannot run: a skip).
corun_bundle() {
	local name=$1 line out rc
	for p in $SUITE_PROGRAMS; do
		if [ "$p" = "$name" ]; then
			suite_bundle "$name"
			return
		fi
	done
	[ -f "$SUITE_CACHE/$name/manifest" ] && return 0
	for line in "${LIBRARY_PROGRAMS[@]}"; do
		library_fields "$line"
		[ "$lib_name" = "$name" ] || continue
		if [ -n "$lib_req" ] && ! (cd "$GPUMIX_TOP" && eval "$lib_req") >/dev/null 2>&1; then
			return 2
		fi
		rm -rf "${SUITE_CACHE:?}/$name"
		# shellcheck disable=SC2086
		out=$(cd "$GPUMIX_TOP" && "$GPUMIX" -q capture -o "$SUITE_CACHE/$name" -- $lib_cmd 2>&1); rc=$?
		if [ "$rc" != 0 ] || ! grep -q "^PASS $name" <<<"$out"; then
			not_ok "$name: captured (exit $rc)"
			printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
			rm -rf "${SUITE_CACHE:?}/$name"
			return 1
		fi
		echo "# $name: captured into $SUITE_CACHE/$name"
		return 0
	done
	not_ok "$name: neither a suite program nor one of the real-library set"
	return 1
}

# _corun_skip WHY: a visible skip (tests), a note (benchmarks)
_corun_skip() {
	if declare -F skip >/dev/null; then skip "$1"; else echo "# skipped: $1"; fi
}

# corun_study FILE OUTPUT K MECHANISMS PAIR...: write the study FILE: the
# pairs (a:b) whose bundles could be had, `single` and the `corun` key with
# K runs under MECHANISMS ("procs, mps"), one repetition, its output in
# OUTPUT. Sets $corun_pairs to the pairs it holds ("a+b ...").
corun_study() {
	local file=$1 output=$2 k=$3 mechs=$4 pair a b rc
	local programs="" workloads="" seen=" " top cache
	shift 4
	# (the study file's relative paths would start at its own directory)
	top=$(cd "$GPUMIX_TOP" && pwd)
	cache=$(cd "$SUITE_CACHE" && pwd)
	corun_pairs=
	for pair in "$@"; do
		a=${pair%%:*} b=${pair#*:}
		corun_bundle "$a"; rc=$?
		[ "$rc" = 2 ] && { _corun_skip "$pair: $a cannot run here"; continue; }
		[ "$rc" = 0 ] || continue
		corun_bundle "$b"; rc=$?
		[ "$rc" = 2 ] && { _corun_skip "$pair: $b cannot run here"; continue; }
		[ "$rc" = 0 ] || continue
		for p in "$a" "$b"; do
			case $seen in *" $p "*) continue ;; esac
			seen="$seen$p "
			programs="$programs  - bundle: $cache/$p
"
		done
		workloads="$workloads  - [$a, $b]
"
		corun_pairs="$corun_pairs $a+$b"
	done
	cat >"$file" <<EOF
study: corun
root: $top
programs:
$programs
workloads:
$workloads
variants: [single]
repeats: 1
corun: {repeats: $k, mechanisms: [$mechs]}
stage_timeout: 30min
paths: {output: $output}
EOF
}
