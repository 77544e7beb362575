#!/bin/sh
# SPDX-License-Identifier: MIT
# Write probe.bin of the run directory $1 from its probe.txt (start, duration
# and SM per line; '#' comments): the 16-byte header (GMPROBE\0, version 1,
# record size 16) and one 16-byte little-endian record per line. Run by
# tests/cli/analyze_probe.sh, which checks that the committed probe.bin is
# what this writes.
set -e
d=$1
u32() { printf "\\$(printf %o $(($1 & 255)))\\$(printf %o $((($1 >> 8) & 255)))\\$(printf %o $((($1 >> 16) & 255)))\\$(printf %o $((($1 >> 24) & 255)))"; }
{
	printf 'GMPROBE\000'
	u32 1
	u32 16
	grep -v '^#' "$d/probe.txt" | while read -r start dur sm; do
		u32 $((start & 4294967295))
		u32 $((start >> 32))
		u32 "$dur"
		u32 "$sm"
	done
} >"$d/probe.bin"
