#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Inputs that are not what they claim to be (issue 26): a blob, a module
# image, a study file, a PTX file or a database that is a FIFO or a link
# to /dev/zero, and a blob larger than its trace says. Each is refused at
# once with an error naming the file: nothing waits on a FIFO for ever or
# reads a device without end (before, `trace check` and `reconstruct`
# grew to 24 GB until the OOM killer, and a FIFO blocked for good).
#
# Every command runs under `timeout` (a hang is exit 124, a failure, not a
# threshold on how fast it ran) and, in the plain build, under a 2 GB
# address-space limit (ASan reserves far more address space than that).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
B=tests/data/reconstruct/bundles/basic

bounded() { # bounded CMD...: at most 60 s, and 2 GB where not sanitized
	if [ -z "${GPUMIX_SANITIZER_LOGS:-}" ]; then
		(ulimit -v 2000000; timeout -k 5 60 "$@")
	else
		timeout -k 5 60 "$@"
	fi
}

# bundle NAME: a fresh copy of the basic bundle in $tmp/NAME
bundle() { rm -rf "${tmp:?}/$1"; cp -a "$B" "$tmp/$1"; }

# A blob and a module image replaced by a link to /dev/zero, by a FIFO,
# and a blob by a regular file larger than the trace says.
blob=$(basename "$(ls "$B"/blobs/* | head -1)")
mod=$(basename "$(ls "$B"/modules/* | head -1)")
for what in blobs/$blob modules/$mod; do
	for kind in zero fifo big; do
		[ "$kind" = big ] && [ "${what%%/*}" = modules ] && continue
		bundle special
		f=$tmp/special/$what
		rm "$f"
		case $kind in
		zero) ln -s /dev/zero "$f"; says="is not a regular file \(a device\)";;
		fifo) mkfifo "$f"; says="is not a regular file \(a FIFO\)";;
		big) truncate -s 8G "$f"; says="has 8589934592 bytes, the trace says [0-9]+";;
		esac
		out=$(bounded "$GPUMIX" trace check "$tmp/special" 2>&1); rc=$?
		check_eq "$what as $kind: trace check fails at once" 1 "$rc"
		check_match "... naming the file" "'$f' $says" "$out"
		rm -rf "$tmp/out"
		out=$(bounded "$GPUMIX" reconstruct -o "$tmp/out" "$tmp/special" 2>&1); rc=$?
		check_eq "$what as $kind: reconstruct fails at once" 1 "$rc"
		check_match "... naming the file" "'$f'.*(regular|holds|bytes)" "$out"
		check "... and writes nothing" test ! -e "$tmp/out"
	done
done

# Files named on the command line: a study, a PTX file, a database.
mkfifo "$tmp/fifo"
for f in /dev/zero "$tmp/fifo"; do
	case $f in /dev/zero) says="a device";; *) says="a FIFO";; esac
	out=$(bounded "$GPUMIX" run --dry-run "$f" 2>&1); rc=$?
	check_eq "run --dry-run $f: exit 1 at once" 1 "$rc"
	check_eq "... saying what it is" "error: '$f' is not a regular file ($says)" "$out"
	out=$(bounded "$GPUMIX" elastic "$f" 2>&1); rc=$?
	check_eq "elastic $f: exit 1 at once" 1 "$rc"
	check_eq "... saying what it is" "error: '$f' is not a regular file ($says)" "$out"
	out=$(bounded "$GPUMIX" report "$f" 2>&1); rc=$?
	check_eq "report $f: exit 1 at once" 1 "$rc"
	check_match "... saying what it is" "'$f' is not a regular file \($says\)" "$out"
	out=$(bounded "$GPUMIX" analyze --merge "$f" -o "$tmp/m.db" 2>&1); rc=$?
	check_eq "analyze --merge $f: exit 1 at once" 1 "$rc"
	check_match "... saying what it is" "'$f' is not a regular file \($says\)" "$out"
done
# The study limit counts what is read, not the size the name shows.
out=$(bounded "$GPUMIX" run --dry-run /dev/stdin </dev/zero 2>&1); rc=$?
check_eq "a study read from an endless pipe: exit 1" 1 "$rc"
check_match "... it is not a regular file" "is not a regular file" "$out"

done_testing
