#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix analyze on the run-directory corpus: every bad run gives exactly
# the error in tests/data/runs/bad/<case>.expected, exits 1 and loads
# nothing of itself (into a new database: leaves none); a bad run among good ones does not stop them.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
# scratch_dir must not run in $(...): its EXIT trap would fire at once.
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1

count() { sqlite3 "$1" "SELECT count(*) FROM $2"; }

for d in tests/data/runs/bad/*/; do
	d=${d%/}
	name=${d##*/}
	db=$tmp/$name.db
	err=$("$GPUMIX" -q analyze "$d" -o "$db" 2>&1 >/dev/null)
	rc=$?
	check_eq "bad/$name: exit status 1" 1 "$rc"
	check_eq "bad/$name: exact error" "$(cat "$d.expected")" "$err"
	# (a load that fails into a new database leaves none)
	check "bad/$name: nothing loaded, no database left" test ! -e "$db"
done

# A corrupt log in the middle of good runs: the others load, exit 1.
db=$tmp/mixed.db
out=$("$GPUMIX" analyze tests/data/runs/good/study/a+b.cuda \
	tests/data/runs/bad/activity-count tests/data/runs/good/study/a+c.cuda \
	-o "$db" 2>&1)
check_eq "mixed: exit status 1" 1 "$?"
check_eq "mixed: the two good runs are loaded" 2 "$(count "$db" runs)"
check_eq "mixed: their kernels only" 13 "$(count "$db" CUPTI_ACTIVITY_KIND_KERNEL)"
check_match "mixed: the bad one is named" \
	"activity-count/activity.tsv:11: END says 11 records" "$out"
check_match "mixed: summary line counts the failure" \
	"^analyze: 2 runs loaded, 13 kernels, 25 records, into .*; 1 failed$" "$out"

# Inputs that are not regular files are refused at once: opening a FIFO
# for reading used to wait for a writer forever (timeout says 124 then).
for f in manifest replays.tsv activity.tsv; do
	rm -rf "$tmp/fifo" "$tmp/fifo.db"
	cp -r tests/data/runs/good/study/a+b.single "$tmp/fifo"
	rm "$tmp/fifo/$f"
	mkfifo "$tmp/fifo/$f"
	err=$(timeout 30 "$GPUMIX" -q analyze "$tmp/fifo" -o "$tmp/fifo.db" 2>&1 >/dev/null)
	check_eq "$f as a FIFO: exit status 1 at once" 1 "$?"
	check_match "... it is not a regular file" \
		"caused by: '$tmp/fifo/$f' is not a regular file \(a FIFO\)$" "$err"
done

# A path that does not exist, or loops, is not called "not a directory".
err=$("$GPUMIX" -q analyze "$tmp/nosuch" -o "$tmp/x.db" 2>&1 >/dev/null)
check_match "a missing run directory: said so" \
	"cannot open run directory '$tmp/nosuch': No such file or directory" "$err"
ln -s loop "$tmp/loop"
err=$("$GPUMIX" -q analyze "$tmp/loop" -o "$tmp/x.db" 2>&1 >/dev/null)
check_match "a symbolic link loop: said so" \
	"cannot open run directory '$tmp/loop': Too many levels of symbolic links" "$err"

done_testing
