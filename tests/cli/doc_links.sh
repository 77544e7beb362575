#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every relative link of README.md and doc/*.md resolves inside a clone of
# the repository: the file (or directory) it names exists, relative to the
# page, and lies inside the repository (no ../shared/... of a checkout's
# neighbours). Links to the web (http:, https:, mailto:) and anchors within
# the page are not followed. Fenced code blocks are not read.
. "$GPUMIX_TOP/tests/lib.sh"
top=$(cd "$GPUMIX_TOP" && pwd -P)
n=0
bad=
for page in "$top"/README.md "$top"/doc/*.md; do
	dir=$(dirname "$page")
	# the link targets of the page, outside ``` blocks
	targets=$(awk '/^ *```/ { code = !code; next } !code' "$page" |
		grep -oE '\]\([^) ]+\)' | sed 's/^](//; s/)$//')
	for t in $targets; do
		case $t in http:*|https:*|mailto:*|\#*) continue ;; esac
		n=$((n + 1))
		path=${t%%#*}
		resolved=$(cd "$dir" && realpath -m -- "$path")
		case $resolved in
		"$top"|"$top"/*) ;;
		*) bad="$bad ${page#"$top"/}:$t(outside)"; continue ;;
		esac
		[ -e "$resolved" ] || bad="$bad ${page#"$top"/}:$t"
	done
done
check "the pages have relative links ($n)" test "$n" -ge 20
check_eq "every relative link resolves inside the repository" "" "$bad"
check_eq "no page names ../shared" "" \
	"$(grep -l '\.\./shared' "$top"/README.md "$top"/doc/*.md)"
done_testing
