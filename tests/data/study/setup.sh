# SPDX-License-Identifier: MIT
#
# Sourced by the study tests (tests/cli/run_*.sh) after tests/lib.sh: a
# small study in a scratch directory whose stages run through the fake
# gpumix (tests/data/study/fake-gpumix), with one program binary each so a
# test can change one of them.
#
#   make_study DIR [PROGRAMS] [EXTRA YAML] [VARIANTS]  write DIR/study.yaml:
#       every pair of PROGRAMS (default "a b c") under VARIANTS (default
#       "single, cuda"), each run once (repeats: 1) unless EXTRA YAML
#       says 'repeats:'

#   stages FILE [PATTERN]  number of lines of the fake log (matching)
export GPUMIX_STUDY_EXEC=$GPUMIX_TOP/tests/data/study/fake-gpumix
unset FAKE_LOG FAKE_ARGS FAKE_MARK FAKE_FAIL FAKE_HUNG FAKE_CRASH FAKE_SLEEP \
	FAKE_NS FAKE_REAL_ANALYZE FAKE_MEET FAKE_MEET_DIR GPUMIX_STUDY_KILL_AT

make_study() {
	local dir=$1 progs=${2:-a b c} extra=${3:-} variants=${4:-single, cuda} p
	mkdir -p "$dir/progs"
	{
		echo "study: t"
		echo "programs:"
		for p in $progs; do
			cp "$GPUMIX_TOP/tests/data/study/prog" "$dir/progs/$p"
			echo "  - name: $p"
			echo "    command: progs/$p -s 1"
		done
		echo "workloads:"
		echo "  - combinations: {size: 2}"
		echo "variants: [$variants]"
		echo "replay: {min_replays: 3}"
		case $extra in *repeats:*) ;; *) echo "repeats: 1" ;; esac
		printf '%s' "$extra"
	} >"$dir/study.yaml"
}

stages() {
	if [ ! -f "$1" ]; then
		echo 0
	elif [ -n "${2:-}" ]; then
		grep -c -- "$2" "$1"
	else
		wc -l <"$1" | tr -d ' '
	fi
}
