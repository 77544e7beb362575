#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How fast a large pageable copy runs by where its host pages come from
# (needs a GPU; doc/results/fidelity-2026-11-27.md): the program's way
# (a new heap buffer per result, a just-written source) against the
# replay's (one result area given back with MADV_DONTNEED, a source
# filled once), with transparent huge pages as the kernel decides, off
# and on for the buffer. Each case in its own process first (its first
# copy is the process's first), then all in one process. Prints per case
# the first copy and the median of the others, in ms.
# GPUMIX_PAGES_MIB (256), GPUMIX_PAGES_ROUNDS (6).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs sh
set -u
: "${GPUMIX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${GPUMIX_BUILD:=$GPUMIX_TOP/build}"
P=$GPUMIX_BUILD/bench/host-pages
mib=${GPUMIX_PAGES_MIB:-256}
rounds=${GPUMIX_PAGES_ROUNDS:-6}
if ! "$GPUMIX_BUILD/tests/has-gpu" >/dev/null 2>&1; then
	echo "host_pages bench: no GPU, skipped"
	exit 0
fi
cases="d2h-malloc d2h-dontneed d2h-warm h2d-malloc h2d-kept
       d2h-malloc-nohuge d2h-dontneed-nohuge h2d-malloc-nohuge
       d2h-malloc-huge d2h-dontneed-huge"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
	"defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
echo "$mib MiB per copy, $rounds copies per case"
echo
summary() {
	awk -F'\t' -v how="$1" '
	$2 == 0 { first[$1] = $3; order[++n] = $1; next }
	{ v[$1, ++k[$1]] = $3 }
	END {
		for (i = 1; i <= n; i++) {
			c = order[i]; m = k[c]
			for (a = 1; a <= m; a++) w[a] = v[c, a]
			for (a = 2; a <= m; a++) for (b = a; b > 1 && w[b - 1] > w[b]; b--) { t = w[b]; w[b] = w[b - 1]; w[b - 1] = t }
			med = m ? ((m % 2) ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2) : 0
			printf "| %s | %s | %.1f | %.1f |\n", how, c, first[c], med
		}
	}'
}
status=0
echo "| process | case | first copy ms | median of the rest ms |"
echo "| --- | --- | ---: | ---: |"
for c in $cases; do
	"$P" "$mib" "$rounds" "$c" | summary "own" || status=1
done
# shellcheck disable=SC2086 # the cases, split on purpose
"$P" "$mib" "$rounds" $cases | summary "shared" || status=1
exit $status
