# SPDX-License-Identifier: MIT
#
# TAP helpers for shell tests. Source it, call the assertions, end with
# done_testing. GPU tests call require_gpu first: without a GPU they skip
# visibly under `make check` and fail under `make check-gpu`.
: "${GPUMIX_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
GPUMIX=$GPUMIX_BUILD/gpumix
_tap_n=0
_tap_failed=0

ok() { # ok DESCRIPTION: a passing assertion
	_tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"
}
not_ok() { # not_ok DESCRIPTION: a failing assertion
	_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $*"
}
skip() { # skip REASON: a visible skip
	_tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"
}
check() { # check DESCRIPTION CMD...: pass when CMD succeeds
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
check_fails() { # check_fails DESCRIPTION CMD...: pass when CMD fails
	local d=$1; shift
	if "$@"; then not_ok "$d"; else ok "$d"; fi
}
check_eq() { # check_eq DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1"; echo "#   expected: $2"; echo "#   actual:   $3"; fi
}
check_match() { # check_match DESCRIPTION REGEX TEXT
	if printf '%s\n' "$3" | grep -qE -- "$2"; then ok "$1"; else
		not_ok "$1"; echo "#   pattern: $2"; printf '%s\n' "$3" | sed 's/^/#   | /'; fi
}
have_gpu() {
	[ -x "$GPUMIX_BUILD/tests/has-gpu" ] && "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1
}
require_gpu() { # require_gpu: skip (check) or fail (check-gpu) without a GPU
	if have_gpu; then return 0; fi
	if [ "${GPUMIX_REQUIRE_GPU:-0}" = 1 ]; then
		not_ok "a GPU is required by make check-gpu but none was found"
	else
		skip "no GPU on this machine (run make check-gpu on a GPU host)"
	fi
	exit 0
}
done_testing() {
	[ "$_tap_n" -gt 0 ] || not_ok "no assertions ran"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}
db_query() { # db_query DB SQL: the rows, '|'-separated, as sqlite3 prints
	# them; through python3's sqlite3 module on a host without the
	# sqlite3 tool (the GPU host has python3 but no sqlite3)
	if command -v sqlite3 >/dev/null; then
		sqlite3 "$1" "$2"
		return
	fi
	python3 - "$1" "$2" <<'PY'
import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
PY
}
have_gnuplot() { # the report draws figures only with gnuplot
	command -v "${GPUMIX_GNUPLOT:-gnuplot}" >/dev/null
}
scratch_dir() { # sets $_scratch to a fresh directory removed at exit
	# Call it directly (not as $(scratch_dir)): the trap must belong to the
	# test's own shell, or the directory vanishes with the subshell.
	_scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
	trap 'rm -rf "$_scratch"' EXIT
}
