#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make install into a temporary prefix, then use only what it installed:
# the installed gpumix captures with the installed capture library and
# reconstructs a workload; the generated replay program builds with
# `pkg-config --cflags --libs gpumix-replay` alone and replays against
# the CUDA mock with its results verified; the man pages render with man
# and are valid roff (groff's warnings); the study files are there with
# the suite they name. DESTDIR stages an install whose pkg-config file
# names the final prefix. make uninstall leaves nothing behind.
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
p=$tmp/prefix
# The build this suite runs in (a sanitizer build has its own directory).
mk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$GPUMIX_TOP"
	B="$GPUMIX_BUILD")
[ "$(basename "$GPUMIX_BUILD")" = build-san ] && mk+=(SANITIZE=1)

"${mk[@]}" install PREFIX="$p" >"$tmp/out" 2>&1; rc=$?
check_eq "make install PREFIX=... exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -5 "$tmp/out" | sed 's/^/#   /'
for f in bin/gpumix lib/gpumix/libgpumix-capture.so lib/gpumix/libgpumix-corun.so \
	include/gpumix/gpumix_replay.h lib/gpumix/libgpumix-replay.a \
	lib/gpumix/libgpumix-common.a lib/pkgconfig/gpumix-replay.pc \
	share/man/man1/gpumix.1 share/man/man1/gpumix-capture.1 \
	share/man/man7/gpumix-bundle-format.7 share/gpumix/workloads/demo.yaml \
	share/bash-completion/completions/gpumix; do
	check "it installs $f" test -s "$p/$f"
done
check_eq "a man page for every doc page" "$(ls "$GPUMIX_TOP"/doc/*.md | wc -l)" \
	"$(ls "$p"/share/man/man[17]/* | wc -l)"
for prog in $(sed -n 's|^ *command: build/workloads/parboil/\([a-z-]*\).*|\1|p' \
		"$p/share/gpumix/workloads/demo.yaml"); do
	check "the demo study's $prog is installed where the study names it" \
		test -x "$p/share/gpumix/build/workloads/parboil/$prog"
done

# The installed gpumix finds the installed capture library (not the build's:
# the build directory is not next to it).
G=$p/bin/gpumix
out=$("$G" capture -o "$tmp/bundle" -- "$GPUMIX_BUILD/tests/capture_emitter" 2>&1 >/dev/null); rc=$?
check_eq "the installed gpumix captures" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
mv "$p/lib/gpumix/libgpumix-capture.so" "$tmp/moved.so"
"$G" capture -o "$tmp/bundle2" -- "$GPUMIX_BUILD/tests/capture_emitter" \
	>/dev/null 2>&1
check_eq "... with the installed library (it fails without it)" 1 "$?"
mv "$tmp/moved.so" "$p/lib/gpumix/libgpumix-capture.so"

# A generated replay program built with pkg-config alone, run on the mock.
"$G" -q reconstruct -o "$tmp/w" "$GPUMIX_TOP/tests/data/reconstruct/bundles/basic" \
	>/dev/null 2>&1
check "the installed gpumix reconstructs" test -s "$tmp/w/replay.c"
flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs gpumix-replay); rc=$?
check_eq "pkg-config knows gpumix-replay" 0 "$rc"
check_match "... from the prefix" "-I$p/include/gpumix .*-L$p/lib/gpumix " "$flags"
# shellcheck disable=SC2086
out=$(${CC:-cc} -o "$tmp/w/prog" "$tmp/w/replay.c" $flags 2>&1); rc=$?
check_eq "the replay program builds with its flags alone" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | head -5 | sed 's/^/#   /'
LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$tmp/w/prog" --min-replays 2 -o "$tmp/run" >/dev/null 2>&1; rc=$?
check_eq "... and replays on the mock" 0 "$rc"
check "... its results verified" grep -qx 'status = ok' "$tmp/run/manifest"

# The man pages: man finds and renders them; groff finds no error in any
# (layout warnings aside: long table rows, lines it cannot break).
out=$(MANPATH=$p/share/man MANWIDTH=80 man gpumix-capture 2>&1); rc=$?
check_eq "man gpumix-capture renders the installed page" 0 "$rc"
check_match "... with its NAME line" \
	"gpumix-capture +- +run a program and record its CUDA calls" "$out"
check_match "... and its text" "CUDA_INJECTION64_PATH" "$out"
check_match "man -l renders a section 7 page" "gpumix-bundle-format - Trace bundle format" \
	"$(MANWIDTH=200 man -l "$p/share/man/man7/gpumix-bundle-format.7" 2>&1)"
bad=
for f in "$p"/share/man/man[17]/*; do
	w=$(groff -t -man -Tutf8 -ww -Wbreak -z "$f" 2>&1 |
		grep -v 'table wider than line width\|^warning: file .*, around line [0-9]*:$')
	[ -z "$w" ] || bad="$bad $(basename "$f"): $w"
done
check_eq "groff reports no error in any page" "" "$bad"
# The sections of a man page (build-aux/man-page), and no Markdown left:
# no link syntax, no code fence, no heading mark in what man shows.
missing=
leaks=
for f in "$p"/share/man/man[17]/*; do
	want="NAME DESCRIPTION SEE_ALSO"
	case $f in *.1) want="NAME SYNOPSIS DESCRIPTION OPTIONS EXIT_STATUS SEE_ALSO" ;; esac
	for sect in $want; do
		grep -qx ".SH ${sect/_/ }" "$f" || missing="$missing $(basename "$f"):$sect"
	done
	l=$(MANWIDTH=200 man -l "$f" 2>/dev/null | grep -E '\]\(|⟨|```|^ {0,7}#+ ')
	[ -z "$l" ] || leaks="$leaks $(basename "$f"): $l"
done
check_eq "every page has its sections (commands: SYNOPSIS, OPTIONS, EXIT STATUS)" \
	"" "$missing"
check_eq "no page shows Markdown (links, fences, headings)" "" "$leaks"
check_match "a command's OPTIONS are its --help's" "--subbuf-size <bytes>" \
	"$(MANWIDTH=200 man -l "$p/share/man/man1/gpumix-capture.1" 2>&1 |
	   sed -n '/^OPTIONS/,/^EXIT STATUS/p')"
check_match "... its SEE ALSO names the pages it links to" "gpumix-bundle-format\(7\)" \
	"$(MANWIDTH=200 man -l "$p/share/man/man1/gpumix-capture.1" 2>&1 |
	   sed -n '/^SEE ALSO/,$p')"

"${mk[@]}" uninstall PREFIX="$p" >"$tmp/out" 2>&1; rc=$?
check_eq "make uninstall exits 0" 0 "$rc"
check_eq "... and leaves no file" "" "$(find "$p" -type f -o -type l)"

# DESTDIR: staged under it, made for PREFIX.
"${mk[@]}" install DESTDIR="$tmp/stage" PREFIX=/opt/gm >"$tmp/out" 2>&1; rc=$?
check_eq "make install DESTDIR=... exits 0" 0 "$rc"
check "it stages under DESTDIR" test -x "$tmp/stage/opt/gm/bin/gpumix"
check "its pkg-config file names the final prefix" \
	grep -qx 'prefix=/opt/gm' "$tmp/stage/opt/gm/lib/pkgconfig/gpumix-replay.pc"
"${mk[@]}" uninstall DESTDIR="$tmp/stage" PREFIX=/opt/gm >/dev/null 2>&1
check_eq "make uninstall DESTDIR=... leaves no file" "" \
	"$(find "$tmp/stage" -type f -o -type l)"

done_testing
