#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix analyze --merge: databases built by gpumix analyze from the
# committed run directories merge into one that equals the database built
# from all the run directories at once (same report, same rows), each run
# once however often it is given; inputs of another schema version,
# damaged ones and ones that break the one-run-per-configuration rule are
# refused, and the output is then left as it was (or not written at all).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
study=tests/data/runs/good/study
latency=tests/data/runs/good/latency

"$GPUMIX" -q analyze "$study" -o "$tmp/a.db" &&
"$GPUMIX" -q analyze "$latency" -o "$tmp/b.db" &&
"$GPUMIX" -q analyze "$study" "$latency" -o "$tmp/all.db"
check_eq "build the inputs and the reference" 0 "$?"

report() { "$GPUMIX" -q report "$1" --format json; }
# The rows of every table, loadedAt (the time of the load) masked.
rows() { sqlite3 "$1" .dump | sed -E "s/,'[0-9-]{10}T[0-9:]{8}Z'\);$/,'LOADED');/"; }
q() { sqlite3 "$1" "$2"; }

out=$("$GPUMIX" analyze --merge "$tmp/a.db" "$tmp/b.db" -o "$tmp/m.db" 2>&1)
check_eq "merge: exit 0" 0 "$?"
check_match "merge: summary line" \
	"^analyze: merged 2 databases into .*/m.db: 8 runs added, 0 already there, 8 in all, in [0-9.]+ s$" "$out"
check_eq "merged = loaded at once: the report" "$(report "$tmp/all.db")" \
	"$(report "$tmp/m.db")"
check_eq "merged = loaded at once: every row of every table" \
	"$(rows "$tmp/all.db")" "$(rows "$tmp/m.db")"
check_eq "the run's loadedAt is the input's" \
	"$(q "$tmp/a.db" "SELECT loadedAt FROM runs ORDER BY hash")" \
	"$(q "$tmp/m.db" "SELECT loadedAt FROM runs WHERE hash IN
	   (SELECT hash FROM runs WHERE path LIKE '%/study/%') ORDER BY hash")"

# Another order numbers rows (and names) differently; the contents are
# the same. a+c.cuda first: its names come first, a's are renumbered.
"$GPUMIX" -q analyze "$study/a+c.cuda" -o "$tmp/ac.db"
"$GPUMIX" -q analyze --merge "$tmp/b.db" "$tmp/ac.db" "$tmp/a.db" -o "$tmp/ba.db"
check "other order: the names are numbered differently" \
	test "$(q "$tmp/all.db" "SELECT group_concat(value) FROM StringIds")" != \
	"$(q "$tmp/ba.db" "SELECT group_concat(value) FROM StringIds")"
check_eq "other order: the same report" "$(report "$tmp/all.db")" \
	"$(report "$tmp/ba.db")"
for c in mangledName demangledName shortName; do
check_eq "other order: kernels keep their $c" \
	"$(q "$tmp/all.db" "SELECT r.hash, p.name, k.correlationId, s.value FROM
	   CUPTI_ACTIVITY_KIND_KERNEL k JOIN runs r ON r.id = k.runId JOIN
	   programs p ON p.id = k.programId JOIN StringIds s ON s.id = k.$c
	   ORDER BY 1, 2, 3")" \
	"$(q "$tmp/ba.db" "SELECT r.hash, p.name, k.correlationId, s.value FROM
	   CUPTI_ACTIVITY_KIND_KERNEL k JOIN runs r ON r.id = k.runId JOIN
	   programs p ON p.id = k.programId JOIN StringIds s ON s.id = k.$c
	   ORDER BY 1, 2, 3")"
done
check_eq "other order: launch calls keep their names" \
	"$(q "$tmp/all.db" "SELECT r.hash, a.correlationId, s.value FROM
	   CUPTI_ACTIVITY_KIND_RUNTIME a JOIN runs r ON r.id = a.runId JOIN
	   StringIds s ON s.id = a.nameId ORDER BY 1, 2")" \
	"$(q "$tmp/ba.db" "SELECT r.hash, a.correlationId, s.value FROM
	   CUPTI_ACTIVITY_KIND_RUNTIME a JOIN runs r ON r.id = a.runId JOIN
	   StringIds s ON s.id = a.nameId ORDER BY 1, 2")"

# Duplicates: a run in several inputs (or given twice) is copied once.
"$GPUMIX" -q analyze "$study/a+b.cuda" "$latency/x+y.cuda" -o "$tmp/c.db"
out=$("$GPUMIX" analyze --merge "$tmp/c.db" "$tmp/a.db" "$tmp/b.db" "$tmp/b.db" \
	-o "$tmp/dup.db" 2>&1)
check_eq "duplicates: exit 0" 0 "$?"
# c: 2 new; a: 4 new, a+b.cuda again; b: 2 new, x+y.cuda again; b: 3 again.
check_match "duplicates: counted" "8 runs added, 5 already there, 8 in all" "$out"
check_eq "duplicates: the same report" "$(report "$tmp/all.db")" \
	"$(report "$tmp/dup.db")"
for t in runs programs replays CUPTI_ACTIVITY_KIND_KERNEL \
	 CUPTI_ACTIVITY_KIND_RUNTIME StringIds workloads; do
	check_eq "duplicates: $t rows once" "$(q "$tmp/all.db" "SELECT count(*) FROM $t")" \
		"$(q "$tmp/dup.db" "SELECT count(*) FROM $t")"
done

# An existing output is added to; merging it into itself changes nothing.
cp "$tmp/a.db" "$tmp/add.db"
out=$("$GPUMIX" analyze --merge "$tmp/b.db" "$tmp/add.db" -o "$tmp/add.db" 2>&1)
check_match "add to an existing output" "3 runs added, 5 already there, 8 in all" "$out"
check_eq "... equals the whole" "$(report "$tmp/all.db")" "$(report "$tmp/add.db")"

# A table a user added to a database is not in the way, and not copied.
cp "$tmp/a.db" "$tmp/notes.db"
sqlite3 "$tmp/notes.db" "CREATE TABLE myNotes (runId INTEGER, note TEXT);
	INSERT INTO myNotes VALUES (1, 'fan was loud')"
"$GPUMIX" -q analyze --merge "$tmp/notes.db" "$tmp/b.db" -o "$tmp/from-notes.db"
check_eq "an input's own table: merged anyway" "$(report "$tmp/all.db")" \
	"$(report "$tmp/from-notes.db")"
check_eq "... and not copied" "" \
	"$(q "$tmp/from-notes.db" "SELECT name FROM sqlite_master WHERE name = 'myNotes'")"
"$GPUMIX" -q analyze --merge "$tmp/b.db" -o "$tmp/notes.db"
check_eq "the output's own table stays" "fan was loud" \
	"$(q "$tmp/notes.db" "SELECT note FROM myNotes")"

# Refusals leave the output as it was, and a new one is not written.
refused() { # refused WHAT REGEX INPUT...: merge into a copy of a.db and a new file
	local what=$1 re=$2; shift 2
	cp "$tmp/a.db" "$tmp/old.db"
	local before; before=$(cksum < "$tmp/old.db")
	out=$("$GPUMIX" analyze --merge "$@" -o "$tmp/old.db" 2>&1)
	check_eq "$what: exit 1" 1 "$?"
	check_match "$what: names the problem" "$re" "$out"
	check_eq "$what: the existing output is unchanged" "$before" "$(cksum < "$tmp/old.db")"
	rm -f "$tmp/new.db"
	"$GPUMIX" -q analyze --merge "$tmp/a.db" "$tmp/b.db" "$@" -o "$tmp/new.db" 2>/dev/null
	check_eq "$what: a new output is not written" "" \
		"$(cd "$tmp" && ls new.db* 2>/dev/null; ls old.db.* 2>/dev/null)"
}

sqlite3 "$tmp/v2.db" "PRAGMA application_id = 1735227441; PRAGMA user_version = 2; CREATE TABLE runs (id INTEGER);"
refused "schema version 2" \
	"error: cannot merge '.*/v2.db' into '.*/old.db' \(it was left as it was\)
  caused by: '.*/v2.db' has schema version 2, older than version 17 that this gpumix reads and writes" \
	"$tmp/v2.db"
sqlite3 "$tmp/v9.db" "PRAGMA application_id = 1735227441; PRAGMA user_version = 18; CREATE TABLE t (a);"
refused "a newer schema" "has schema version 18, newer than version 17" "$tmp/v9.db"
sqlite3 "$tmp/other.db" "CREATE TABLE t (a);"
refused "not a gpumix database" "is a SQLite database but not a gpumix results database" "$tmp/other.db"
refused "a missing input" "cannot open database '.*/nothing.db'" "$tmp/nothing.db"

# Damaged: cut short, and a page overwritten in the middle.
size=$(stat -c %s "$tmp/b.db")
head -c $((size / 2)) "$tmp/b.db" > "$tmp/short.db"
refused "a truncated input" "cannot merge '.*/short.db'" "$tmp/short.db"
cp "$tmp/b.db" "$tmp/garbled.db"
page=$(q "$tmp/b.db" "PRAGMA page_size")
# The header of page 3, a b-tree page (quick_check checks structure, not values).
printf 'garbagegarbage' | dd of="$tmp/garbled.db" bs=1 seek=$((page * 2)) \
	conv=notrunc status=none
refused "a garbled page" "cannot merge '.*/garbled.db'" "$tmp/garbled.db"

# Another run of a configuration already there (a re-run: other hash).
cp -r "$study/a+b.cuda" "$tmp/rerun"
sed -i 's/^finished_at = .*/finished_at = 2025-01-02T00:00:00Z/' "$tmp/rerun/manifest"
"$GPUMIX" -q analyze "$tmp/rerun" -o "$tmp/rerun.db"
refused "another run of a+b.cuda" \
	"caused by: '.*/rerun.db' holds another run of 'a\+b.cuda' \(loaded from '.*/rerun'\) than the databases merged before it \(loaded from 'tests/data/runs/good/study/a\+b.cuda'\)" \
	"$tmp/rerun.db"
# ... but a repetition of it is a run of its own: merged beside it, and a
# second run of that repetition is refused with the repetition named.
cp -r "$study/a+b.cuda" "$tmp/rep1"
sed -i 's/^finished_at = .*/finished_at = 2025-01-03T00:00:00Z/' "$tmp/rep1/manifest"
echo "run.repetition = 1" >>"$tmp/rep1/manifest"
"$GPUMIX" -q analyze "$tmp/rep1" -o "$tmp/rep1.db"
"$GPUMIX" -q analyze --merge "$tmp/a.db" "$tmp/rep1.db" -o "$tmp/reps.db"
check_eq "repetitions merge beside each other" "0 1" \
	"$(q "$tmp/reps.db" "SELECT group_concat(repetition, ' ') FROM (SELECT
	   r.repetition FROM runs r JOIN workloads w ON w.id = r.workloadId
	   WHERE w.name = 'a+b' AND r.variant = 'cuda' ORDER BY 1)")"
cp -r "$tmp/rep1" "$tmp/rep1b"
sed -i 's/^finished_at = .*/finished_at = 2025-01-04T00:00:00Z/' "$tmp/rep1b/manifest"
"$GPUMIX" -q analyze "$tmp/rep1b" -o "$tmp/rep1b.db"
out=$("$GPUMIX" analyze --merge "$tmp/rep1b.db" -o "$tmp/reps.db" 2>&1)
check_match "another run of repetition 1: refused, the repetition named" \
	"holds another run of 'a\+b\.cuda\.r1' \(loaded from '.*/rep1b'\)" "$out"
# The same run (same hash) with other records, and a workload whose
# program count differs.
cp "$tmp/a.db" "$tmp/edited.db"
sqlite3 "$tmp/edited.db" "UPDATE runs SET kernelCount = 99 WHERE variant = 'cuda'"
refused "the same run with other records" "with the same manifest and replays but other records" \
	"$tmp/edited.db"
cp "$tmp/b.db" "$tmp/count.db"
sqlite3 "$tmp/count.db" "UPDATE workloads SET name = 'a+b', programCount = 3"
refused "a workload with another program count" \
	"workload 'a\+b' has 3 programs in '.*/count.db' but 2 in the databases merged before it" \
	"$tmp/count.db"

check_eq "--merge --force: usage error" 2 \
	"$("$GPUMIX" analyze --merge --force "$tmp/a.db" -o "$tmp/x.db" >/dev/null 2>&1; echo $?)"
check_eq "--merge without a database: usage error" 2 \
	"$("$GPUMIX" analyze --merge -o "$tmp/x.db" >/dev/null 2>&1; echo $?)"
done_testing
