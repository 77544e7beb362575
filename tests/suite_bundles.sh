# SPDX-License-Identifier: MIT
#
# Captured bundles of the Parboil-style suite, shared by the reconstruct
# GPU tests and the fidelity benchmark (tests/gpu/reconstruct_*.sh,
# bench/replay_fidelity.sh): each program is captured once at its default
# size into a cache directory and reused. Sourced after tests/lib.sh (or
# with ok/not_ok defined); not a test itself.
#
#   GPUMIX_SUITE_BUNDLES=DIR  the cache (kept); default: a temporary
#                             directory removed at exit
#   GPUMIX_SUITE="bfs mm"     restricts the programs
# Scratch space: $OUT/NAME when $OUT is set (kept, small files only), else
# a temporary directory.
SUITE_PROGRAMS=${GPUMIX_SUITE:-"bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf"}
_suite_rm=()
_suite_cleanup() { [ ${#_suite_rm[@]} -eq 0 ] || rm -rf "${_suite_rm[@]}"; }
trap _suite_cleanup EXIT

# suite_cache: sets $SUITE_CACHE
suite_cache() {
	if [ -n "${GPUMIX_SUITE_BUNDLES:-}" ]; then
		SUITE_CACHE=$GPUMIX_SUITE_BUNDLES
		mkdir -p "$SUITE_CACHE"
	else
		SUITE_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-bundles.XXXXXX")
		_suite_rm+=("$SUITE_CACHE")
	fi
}

# suite_current B: bundle B is of the format this gpumix writes (a cached
# bundle of an older one lacks what later formats added, captured host
# times and the trace's hashes: captured again)
suite_current() {
	[ -f "$1/manifest" ] &&
		[ "$(sed -n 's/^format = //p' "$1/manifest")" = "$SUITE_BUNDLE_FORMAT" ]
}
# (what gpumix capture writes: GM_BUNDLE_FORMAT, read from common/record.h
# so that a new format is never taken for an old one)
SUITE_BUNDLE_FORMAT=$(sed -n 's/^#define GM_BUNDLE_FORMAT "\(.*\)"$/\1/p' \
	"${GPUMIX_TOP:-.}/common/record.h")

# suite_bundle P: the bundle of program P in $SUITE_CACHE, captured when
# missing or of an older format (its PASS line checked). Returns 1 when
# it cannot be had.
suite_bundle() {
	local p=$1 exe=$GPUMIX_BUILD/workloads/parboil/$1 out rc
	if suite_current "$SUITE_CACHE/$p"; then
		return 0
	fi
	if [ ! -x "$exe" ]; then
		not_ok "$p: $exe is built (make)"
		return 1
	fi
	rm -rf "${SUITE_CACHE:?}/$p"
	out=$(cd "$GPUMIX_TOP" && "$GPUMIX" -q capture -o "$SUITE_CACHE/$p" -- "$exe" 2>&1); rc=$?
	if [ "$rc" != 0 ] || ! grep -q "^PASS $p" <<<"$out"; then
		not_ok "$p: captured (exit $rc)"
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		rm -rf "${SUITE_CACHE:?}/$p"
		return 1
	fi
	echo "# $p: captured into $SUITE_CACHE/$p ($(sed -n 's/^events.found = //p' "$SUITE_CACHE/$p/manifest") events)"
	return 0
}

# suite_scratch NAME: sets $_scratch (large files) and $_results (small
# files worth keeping: $OUT/NAME when $OUT is set, else $_scratch).
suite_scratch() {
	_scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
	_suite_rm+=("$_scratch")
	if [ -n "${OUT:-}" ]; then
		_results=$OUT/$1
		rm -rf "$_results"
		mkdir -p "$_results"
	else
		_results=$_scratch
	fi
}
