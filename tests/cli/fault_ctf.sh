#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Damaged traces (issue 26): flipped bytes in a bundle's CTF streams and
# indexes, streams emptied, removed, unreadable or added. Each is an
# error naming the file, from every command that reads the trace (`trace
# check`, `info`, `dump`, `export`, `reconstruct`), never a crash: before,
# one flipped index byte made babeltrace2's ctf plugin abort gpumix, some
# flipped stream bytes left an error on the thread that aborted it at the
# next step of the graph, and most single-byte flips in a stream passed
# `trace check` and changed the replay program. A bundle of the current
# format (captured here, through the real LTTng session) has the hashes
# of its trace files; the committed ones of older formats are checked for
# structure only, and `trace check` says they are unverified.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
OLD=tests/data/reconstruct/bundles/basic
E=$GPUMIX_BUILD/tests/capture_emitter

# flip FILE OFFSET MASK: xor one byte of FILE with MASK
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ $3)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
# copy NAME FROM: a fresh copy of bundle FROM in $tmp/NAME; $t its trace
copy() {
	rm -rf "${tmp:?}/$1"
	cp -a "$2" "$tmp/$1"
	t=$(ls -d "$tmp/$1"/ctf/ust/pid/*)
}
# every reader: never a crash (exit 0 or 1 only), and the exit statuses
readers() { # readers BUNDLE: sets $statuses ("check info dump export recon")
	local c rc
	statuses=
	for c in "trace check" "trace info" "trace dump" \
		 "trace export --force -o $tmp/x.json" "reconstruct -o $tmp/rec"; do
		rm -rf "$tmp/rec"
		timeout -k 5 120 "$GPUMIX" $c "$1" >/dev/null 2>"$tmp/err.${c%% *}"
		rc=$?
		statuses="$statuses$rc "
	done
	rm -rf "$tmp/rec"
}

"$GPUMIX" -q capture -o "$tmp/new" -- "$E" --mini >/dev/null 2>"$tmp/err"
check_eq "a bundle captured now" 0 "$?"
check_match "... is of format 3" "^format = gpumix-bundle 3$" "$(cat "$tmp/new/manifest")"
nfiles=$(find "$tmp/new/ctf" -type f | wc -l)
check_eq "... lists each of its $nfiles trace files" "ctf.files = $nfiles" \
	"$(grep '^ctf.files = ' "$tmp/new/manifest")"
out=$("$GPUMIX" trace check "$tmp/new")
check_match "trace check verifies them by hash" ", $nfiles trace files by hash$" "$out"
out=$("$GPUMIX" trace check "$OLD")
check_match "an older bundle: trace check says they are unverified" \
	"; its trace files are unverified \(a bundle of format 2 has no hashes of them\)$" "$out"
check_match "... and so does trace info" "^trace files: unverified" \
	"$("$GPUMIX" trace info "$OLD")"

# A single flipped byte anywhere in the new bundle's streams and indexes:
# every reader fails, naming the file (before: 10 of 40 passed).
RANDOM=${GPUMIX_FAULT_SEED:-26}
echo "# seed ${GPUMIX_FAULT_SEED:-26}"
files=()
for f in $(cd "$tmp/new" && find ctf -type f ! -name metadata | sort); do
	files+=("$f")
done
caught=0 tries=${GPUMIX_FAULT_ITERATIONS:-12}
for i in $(seq "$tries"); do
	f=${files[RANDOM % ${#files[@]}]}
	size=$(stat -c %s "$tmp/new/$f")
	off=$(( (RANDOM * 32768 + RANDOM) % size ))
	copy flip "$tmp/new"
	flip "$tmp/flip/$f" "$off" $((1 << (RANDOM % 8)))
	readers "$tmp/flip"
	if [ "$statuses" = "1 1 1 1 1 " ] &&
	   grep -q "trace file '$tmp/flip/$f' is damaged" "$tmp/err.trace"; then
		caught=$((caught + 1))
	else
		echo "#   $f byte $off: exit statuses $statuses"
		sed 's/^/#   | /' "$tmp/err.trace"
	fi
done
check_eq "one flipped byte: every reader fails, naming the file ($tries tries)" \
	"$tries" "$caught"

# The older bundle, unverified: each byte of an index flipped (before,
# the packet's offset and size aborted gpumix in babeltrace2's ctf
# plugin); no reader crashes, and a damaged index is named.
idx=index/gpumix_0.idx
crashed=0 named=0
for off in $(seq 0 "$(( $(stat -c %s "$(ls -d $OLD/ctf/ust/pid/*)/$idx") - 1 ))"); do
	copy idx "$OLD"
	flip "$t/$idx" "$off" 255
	readers "$tmp/idx"
	case $statuses in *[2-9]*|*1[0-9][0-9]*) crashed=$((crashed + 1))
		echo "#   index byte $off: exit statuses $statuses";; esac
	grep -q "index '$t/$idx'" "$tmp/err.trace" && named=$((named + 1))
done
check_eq "an older bundle's index, each byte flipped: no reader crashes" 0 "$crashed"
check "... and a damaged index is named ($named of 88)" test "$named" -ge 40

# Stream bytes babeltrace2 cannot decode, in an older bundle: it handed
# out the events before them with the error left on the thread, and the
# next step of the graph aborted (3 of 40 sets of 8 flips did).
copy stream "$OLD"
for fo in gpumix_0:10122:1 gpumix_1:3585:2 gpumix_1:2309:64 gpumix_1:3636:4 \
	  gpumix_0:1491:64 gpumix_0:8907:16 gpumix_1:3541:32 gpumix_0:8628:8; do
	IFS=: read -r f o m <<<"$fo"
	flip "$t/$f" "$o" "$m"
done
readers "$tmp/stream"
check_eq "undecodable stream bytes: every reader fails, none aborts" \
	"1 1 1 1 1 " "$statuses"
check_match "... naming the trace" \
	"cannot decode trace '$t' \(one of its stream files is damaged\)" \
	"$(cat "$tmp/err.trace")"

# Stream bytes on which babeltrace2 ends the process whatever gpumix
# does (the trace is read through in a child process first): the top
# byte of the first packet's content size (an assertion in its ctf
# plugin), and an event payload running past its packet, after which
# the muxer asks the next stream for events with the error still on the
# thread ("API function called while current thread has an error", found
# by make fuzz). Every reader fails naming the trace, none aborts.
for case in "packet size|$OLD|gpumix_0:55:255" \
	    "muxer after an error|tests/data/reconstruct/bundles/untraced|gpumix_0:881:255 gpumix_0:882:19"; do
	IFS='|' read -r what from flips <<<"$case"
	copy abort "$from"
	for fo in $flips; do
		IFS=: read -r f o m <<<"$fo"
		flip "$t/$f" "$o" "$m"
	done
	readers "$tmp/abort"
	check_eq "$what: every reader fails, none aborts" "1 1 1 1 1 " "$statuses"
	check_match "... naming the trace" \
		"the CTF trace 'ctf/ust/pid/$(basename "$t")' is damaged" \
		"$(cat "$tmp/err.trace")"
	check_match "... and why" \
		"babeltrace2 crashed reading it: the reading process was killed by signal 6 \(Aborted\)" \
		"$(cat "$tmp/err.trace")"
done

# A stream emptied, removed, unreadable; a file added. Each named, and
# `trace info` exits 1 (before: 0 events shown, exit 0, no file named).
for b in new old; do
	[ "$b" = new ] && from=$tmp/new || from=$OLD
	for what in empty missing unreadable added; do
		copy "$what" "$from"
		s=$t/gpumix_0
		case $what in
		empty) : >"$s"
			[ "$b" = new ] && says="'$s' holds 0 bytes, the manifest says" ||
				says="'$s' is empty";;
		missing) rm "$s"
			[ "$b" = new ] && says="'$s' is missing$" ||
				says="'$s' is missing \(its index";;
		unreadable) chmod 000 "$s"; says="cannot open '$s': Permission denied";;
		added) echo x >"$t/extra"
			says="'$t/extra' is not in the manifest \(added after the capture\)";;
		esac
		[ "$what" = added ] && [ "$b" = old ] && continue	# no list to miss it from
		run=()
		if [ "$what" = unreadable ]; then
			# root reads everything: as nobody, where there is one
			if [ "$(id -u)" = 0 ]; then
				id nobody >/dev/null 2>&1 || { skip "unreadable: no user nobody"; continue; }
				chmod -R a+rX "$tmp/$what" && chmod 711 "$tmp"
				chmod 000 "$s"
				run=(runuser -u nobody --)
			fi
		fi
		err=$("${run[@]}" "$GPUMIX" trace check "$tmp/$what" 2>&1); rc=$?
		check_eq "$b bundle, stream $what: trace check exits 1" 1 "$rc"
		check_match "... naming the file" "$says" "$err"
		"${run[@]}" "$GPUMIX" trace info "$tmp/$what" >/dev/null 2>&1
		check_eq "... trace info exits 1" 1 "$?"
	done
done

# A format 3 manifest without its hashes (stripped) is refused.
copy stripped "$tmp/new"
sed -i '/^ctf\./d' "$tmp/stripped/manifest"
err=$("$GPUMIX" trace check "$tmp/stripped" 2>&1)
check_match "a format 3 manifest without the hashes is refused" \
	"lacks the hashes of its trace files \('ctf.files'\)" "$err"

# A FIFO and a link to /dev/zero among the trace files: refused at once.
for kind in fifo zero; do
	copy special "$tmp/new"
	rm "$t/gpumix_1"
	[ "$kind" = fifo ] && mkfifo "$t/gpumix_1" || ln -s /dev/zero "$t/gpumix_1"
	err=$(timeout -k 5 60 "$GPUMIX" trace check "$tmp/special" 2>&1); rc=$?
	check_eq "a stream that is a $kind: exit 1 at once" 1 "$rc"
	check_match "... it is not a regular file" "'$t/gpumix_1' is not a regular file" "$err"
done

done_testing
