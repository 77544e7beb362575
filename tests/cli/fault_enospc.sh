#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection: a full disk (ENOSPC) at random points of capture,
# reconstruct, analyze and a study. The test mounts a small tmpfs and,
# before each try, fills it to leave a random number of bytes free, from
# none to about what the command writes, so the first failing write falls
# anywhere in it. Each command either succeeds whole or fails with a
# clear error (an "error:" line that says the disk is full) and leaves
# nothing half-written under a final name, and a captured program is
# never killed by it: no bundle without its verdict,
# no partial build directory, a database with only whole runs, a study
# state that resumes, once space is back, to the undisturbed database.
# Needs root to mount (skips visibly otherwise). GPUMIX_FAULT_ITERATIONS
# sets the tries per command (default 8); GPUMIX_FAULT_SEED replays.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/data/study/setup.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
mnt=$tmp/disk
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=16m tmpfs "$mnt" 2>/dev/null; then
	rm -rf "$tmp"
	skip "cannot mount a small tmpfs (needs root): no full-disk tests"
	done_testing
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
E=$GPUMIX_BUILD/tests/capture_emitter
iters=${GPUMIX_FAULT_ITERATIONS:-8}
seed=${GPUMIX_FAULT_SEED:-$$}
RANDOM=$seed
echo "# seed $seed, $iters tries per command"

# leave_free BYTES: fill the disk but BYTES (rounded to its pages)
leave_free() {
	rm -f "$mnt/filler"
	local avail
	avail=$(stat -f -c '%a * %S' "$mnt")
	avail=$((avail))
	[ "$avail" -gt "$1" ] && fallocate -l $((avail - $1)) "$mnt/filler"
}
# rand_upto N: a random number in [0, N]
rand_upto() { echo $(( (RANDOM * 32768 + RANDOM) % ($1 + 1) )); }
full_msg='(No space left on device|disk .*is full|database or disk is full)'
clean() { # clean: empty the disk but the filler
	find "$mnt" -mindepth 1 -maxdepth 1 ! -name filler -exec rm -rf {} +
}

# ---- capture: ~3 MB, up to 6 MB while it runs; a bundle with its verdict, or none ----
ok_runs=0 failed=0 bad=0
for i in $(seq "$iters"); do
	clean
	leave_free "$(rand_upto 7500000)"
	"$GPUMIX" -q capture -o "$mnt/b" -- "$E" --threads 2 --repeat 3 --vary \
		>/dev/null 2>"$tmp/err"; rc=$?
	rm -f "$mnt/filler"
	if [ "$rc" = 0 ] && "$GPUMIX" trace check "$mnt/b" >/dev/null 2>&1; then
		ok_runs=$((ok_runs + 1))
		continue
	fi
	why=
	# (a failing program's own status is passed on: any non-zero one)
	if [ "$rc" = 0 ] || ! grep -qE "^error: .*" "$tmp/err" ||
	   ! grep -qE "$full_msg" "$tmp/err"; then
		why="exit $rc without a clear error: $(head -3 "$tmp/err")"
	elif grep -q "killed by signal" "$tmp/err"; then
		# (the capture must not hurt the program: a counter file
		# mapped over a full disk was a SIGBUS)
		why="the program was killed: $(grep -m1 'killed by signal' "$tmp/err")"
	elif [ -e "$mnt/b" ] && [ ! -f "$mnt/b/manifest" ]; then
		why="a bundle without a manifest under the final name"
	elif [ -e "$mnt/b" ]; then
		out=$("$GPUMIX" trace check "$mnt/b" 2>&1)
		printf '%s\n' "$out" | grep -qE "^error: bundle '$mnt/b' is incomplete: .*$full_msg" ||
			why="trace check does not say why: $(head -2 <<<"$out")"
	fi
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		not_ok "capture $i: $why"
	else
		failed=$((failed + 1))
	fi
done
echo "# capture: $ok_runs fit, $failed failed cleanly"
check_eq "capture on a full disk: whole or a clear error, never half-written ($iters tries)" 0 "$bad"

# ---- reconstruct: ~84 KB; the build directory whole or absent ----
R=$GPUMIX_TOP/tests/data/reconstruct/bundles
ok_runs=0 failed=0 bad=0
for i in $(seq "$iters"); do
	clean
	leave_free "$(rand_upto 100000)"
	"$GPUMIX" -q reconstruct --variant cuda -o "$mnt/wl" "$R/basic" "$R/threads" \
		>/dev/null 2>"$tmp/err"; rc=$?
	rm -f "$mnt/filler"
	why=
	if [ "$rc" = 0 ]; then
		[ -f "$mnt/wl/replay.c" ] && [ -f "$mnt/wl/manifest" ] || why="exit 0 without its files"
		ok_runs=$((ok_runs + 1))
	elif [ "$rc" != 1 ] || ! grep -qE "$full_msg" "$tmp/err"; then
		why="exit $rc without a clear error: $(grep -m2 . "$tmp/err")"
	elif [ -e "$mnt/wl" ]; then
		why="a partial build directory under the final name"
	elif [ -n "$(ls -A "$mnt" | grep -v '^filler$')" ]; then
		why="left behind: $(ls -A "$mnt" | tr '\n' ' ')"
	else
		failed=$((failed + 1))
	fi
	[ -n "$why" ] && { bad=$((bad + 1)); not_ok "reconstruct $i: $why"; }
done
echo "# reconstruct: $ok_runs fit, $failed failed cleanly"
check_eq "reconstruct on a full disk: whole or a clear error, nothing left ($iters tries)" 0 "$bad"

# ---- analyze: ~110 KB; only whole runs in the database ----
runs=("$GPUMIX_TOP"/tests/data/runs/good/study/*/)
"$GPUMIX" -q analyze "${runs[@]}" -o "$tmp/ref.db" >/dev/null 2>&1
summary() { # summary DB: each run with its kernel count, as loaded
	sqlite3 "$1" "SELECT r.path, r.kernelCount, (SELECT count(*) FROM
		CUPTI_ACTIVITY_KIND_KERNEL k WHERE k.runId = r.id) FROM runs r
		ORDER BY r.path" 2>&1
}
ok_runs=0 failed=0 bad=0
for i in $(seq "$iters"); do
	clean
	leave_free "$(rand_upto 300000)"
	"$GPUMIX" -q analyze "${runs[@]}" -o "$mnt/r.db" >/dev/null 2>"$tmp/err"; rc=$?
	rm -f "$mnt/filler"
	why=
	if [ "$rc" = 0 ]; then
		ok_runs=$((ok_runs + 1))
	elif [ "$rc" != 1 ] || ! grep -qE "$full_msg" "$tmp/err"; then
		why="exit $rc without a clear error: $(grep -m2 . "$tmp/err")"
	else
		failed=$((failed + 1))
	fi
	if [ -z "$why" ] && [ -e "$mnt/r.db" ]; then
		# whatever is in it is whole: each run with all its kernels
		s=$(summary "$mnt/r.db")
		if printf '%s\n' "$s" | awk -F'|' '$2 != $3 { bad = 1 } END { exit !bad }'; then
			why="a run loaded in part: $s"
		# and with space back, loading again completes it
		elif ! "$GPUMIX" -q analyze "${runs[@]}" -o "$mnt/r.db" >/dev/null 2>&1 ||
		     [ "$(summary "$mnt/r.db")" != "$(summary "$tmp/ref.db")" ]; then
			why="loading again with space does not give the undisturbed database"
		fi
	fi
	[ -n "$why" ] && { bad=$((bad + 1)); not_ok "analyze $i: $why"; }
done
echo "# analyze: $ok_runs fit, $failed failed cleanly"
check_eq "analyze on a full disk: whole runs or a clear error ($iters tries)" 0 "$bad"

# ---- a study: state, logs and summary on the full disk ----
ref=$tmp/ref
make_study "$ref" "a b"
(cd "$ref" && "$GPUMIX" run study.yaml >/dev/null 2>&1)
db_dump() { sqlite3 "$1/results/t/results.db" 'SELECT * FROM runs ORDER BY id' 2>&1; }
ok_runs=0 failed=0 bad=0
for i in $(seq "$iters"); do
	clean
	d=$tmp/s$i
	make_study "$d" "a b" "paths: {state: $mnt/study.state, logs: $mnt/logs, summary: $mnt/summary.md}
"
	leave_free "$(rand_upto 40000)"
	(cd "$d" && "$GPUMIX" run study.yaml >"$tmp/out" 2>&1); rc=$?
	rm -f "$mnt/filler"
	why=
	if [ "$rc" = 0 ]; then
		ok_runs=$((ok_runs + 1))
	elif ! grep -qE "$full_msg" "$tmp/out"; then
		why="exit $rc without a clear error: $(grep -m2 '^error' "$tmp/out")"
	else
		failed=$((failed + 1))
	fi
	if [ -z "$why" ]; then
		if [ -n "$(find "$mnt" -name '*.tmp*')" ]; then
			:	# a killed study's leftovers are removed on resume
		fi
		(cd "$d" && "$GPUMIX" run study.yaml >"$tmp/out2" 2>&1) ||
			why="does not resume once space is back: $(grep -m2 '^error' "$tmp/out2")"
	fi
	if [ -z "$why" ] && [ "$(db_dump "$d")" != "$(db_dump "$ref")" ]; then
		why="resumed to a different database"
	fi
	if [ -z "$why" ] && [ -n "$(find "$mnt" -name '*.tmp*')" ]; then
		why="temporary files left: $(find "$mnt" -name '*.tmp*' | tr '\n' ' ')"
	fi
	[ -n "$why" ] && { bad=$((bad + 1)); not_ok "study $i: $why"; }
	rm -rf "$d"
done
echo "# study: $ok_runs fit, $failed failed cleanly, all resumed"
check_eq "a study on a full disk: a clear error, then it resumes to the undisturbed database ($iters tries)" 0 "$bad"
done_testing
