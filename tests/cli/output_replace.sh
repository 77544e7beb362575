#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix deletes only what it wrote (common/output_dir.h): every command
# whose --force replaces a directory (report, reconstruct, replay,
# capture, scale) replaces only a directory that holds gpumix's marker of
# that kind (or, written before markers, its manifest or index), never a
# regular file, a symbolic link, a directory of the user's, or a gpumix
# output of another kind; what was there stays. What they write carries
# the marker.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic

"$GPUMIX" -q analyze tests/data/runs/good/study -o "$tmp/r.db"
quiet() { "$@" >/dev/null 2>&1; }
mine() { # mine PATH: a directory of the user's with a file in it
	mkdir -p "$1" && echo mine >"$1/notes.txt"
}
# refused NAME PATH KIND-TEXT CMD...: CMD exits 1 naming PATH, and PATH's
# content is as it was
refused() {
	local name=$1 path=$2 want=$3 before out rc; shift 3
	before=$(ls -la "$path" 2>&1; cat "$path/notes.txt" "$path" 2>/dev/null)
	out=$("$@" 2>&1); rc=$?
	check_eq "$name: exit 1" 1 "$rc"
	check_match "$name: says why" "^(error|  caused by): '$path' $want: it is not replaced$" "$out"
	check_eq "$name: what was there stays" "$before" \
		"$(ls -la "$path" 2>&1; cat "$path/notes.txt" "$path" 2>/dev/null)"
}
user="exists and was not written by gpumix as a"

# report -o
echo mine >"$tmp/file"
refused "report --force onto a regular file" "$tmp/file" \
	"exists and is a regular file, not a report that gpumix wrote" \
	"$GPUMIX" report "$tmp/r.db" -o "$tmp/file" --force --no-figures
mine "$tmp/dir"
refused "report --force onto a directory of the user's" "$tmp/dir" \
	"$user report \(it has no '.gpumix' marker of one\)" \
	"$GPUMIX" report "$tmp/r.db" -o "$tmp/dir" --force --no-figures
ln -s "$tmp/dir" "$tmp/link"
refused "report --force onto a symbolic link" "$tmp/link" \
	"exists and is a symbolic link, not a report that gpumix wrote" \
	"$GPUMIX" report "$tmp/r.db" -o "$tmp/link" --force --no-figures
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --no-figures
check_eq "a report carries the marker" "gpumix report" "$(cat "$tmp/rep/.gpumix")"
check "report --force replaces a report" \
	"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --force --no-figures
rm "$tmp/rep/.gpumix"
check "... and one written before markers (its index.md)" \
	"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --force --no-figures

# reconstruct -o
refused "reconstruct --force onto a directory of the user's" "$tmp/dir" \
	"$user build \(it has no '.gpumix' marker of one\)" \
	"$GPUMIX" -q reconstruct -o "$tmp/dir" --force "$B"
refused "reconstruct --force onto a report" "$tmp/rep" \
	"is a gpumix report, not a build" \
	"$GPUMIX" -q reconstruct -o "$tmp/rep" --force "$B"
"$GPUMIX" -q reconstruct -o "$tmp/build" "$B" 2>/dev/null
check_eq "a build carries the marker" "gpumix build" "$(cat "$tmp/build/.gpumix")"
check "reconstruct --force replaces a build" \
	quiet "$GPUMIX" -q reconstruct -o "$tmp/build" --force "$B"
rm "$tmp/build/.gpumix"
check "... and one written before markers (its manifest)" \
	quiet "$GPUMIX" -q reconstruct -o "$tmp/build" --force "$B"
refused "report --force onto a build" "$tmp/build" \
	"is a gpumix build, not a report" \
	"$GPUMIX" report "$tmp/r.db" -o "$tmp/build" --force --no-figures

# replay -o (the replay program's run directory)
"$GPUMIX" -q replay --build-only "$tmp/build" 2>/dev/null
refused "replay --force onto a directory of the user's" "$tmp/dir" \
	"$user run directory \(it has no '.gpumix' marker of one\)" \
	"$GPUMIX" -q replay --min-replays 2 --force -o "$tmp/dir" "$tmp/build"
"$GPUMIX" -q replay --min-replays 2 -o "$tmp/run" "$tmp/build" 2>/dev/null
check_eq "a run directory carries the marker" "gpumix run directory" \
	"$(cat "$tmp/run/.gpumix")"
check "replay --force replaces a run directory" \
	quiet "$GPUMIX" -q replay --min-replays 2 --force -o "$tmp/run" "$tmp/build"
check "... which loads as before" "$GPUMIX" -q analyze "$tmp/run" -o "$tmp/run.db"

# capture -o: refused before the program runs
refused "capture --force onto a directory of the user's" "$tmp/dir" \
	"$user trace bundle \(it has no '.gpumix' marker of one\)" \
	env -u LD_LIBRARY_PATH "$GPUMIX" -q capture --force -o "$tmp/dir" -- touch "$tmp/ran"
check "... before the program ran" test ! -e "$tmp/ran"

# scale -o
refused "scale --force onto a directory of the user's" "$tmp/dir" \
	"$user scale directory \(it has no '.gpumix' marker of one\)" \
	"$GPUMIX" -q scale --force -o "$tmp/dir" "$B"
done_testing
