#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Regenerate the committed corpus of good and bad bundles. Every bundle is
# made by the real path (gpumix capture of the emitter, through the real
# LTTng session and provider, on a CPU); the bad ones are then damaged the
# way real bundles get damaged. For each bundle NAME, NAME.error holds the
# exact stderr of `gpumix trace check tests/data/bundles/NAME` (empty for
# good ones) and tests/cli/trace_corpus.sh checks it.
#
# usage (from the repository root, after make): tests/data/bundles/make-corpus.sh
# The committed corpus is of format 1 (no host times): it is what tests
# that the reader reads older bundles (doc/bundle-format.md, Versioning).
# Regenerating it writes the current format; do so only when the reader
# stops reading format 1.
set -eu
cd "$(dirname "$0")/../../.."
G=build/gpumix
E=build/tests/capture_emitter
D=tests/data/bundles
[ -x "$G" ] && [ -x "$E" ] || { echo "build first (make)" >&2; exit 1; }

names="good killed lost-events unsupported format no-manifest corrupt-blob
	missing-blob missing-module truncated-stream unknown-call changed-call
	bad-losses counts-truncated counts-edited counts-missing index-damaged
	stream-empty stream-missing stream-undecodable metadata-cut
	stream-packet-size"
for n in $names; do rm -rf "${D:?}/$n"; done

cap() { "$G" -q capture -o "$D/$1" -- "$E" --mini "${@:2}" >/dev/null 2>&1 || true; }

cap good
cap lost-events --lose 3
cap unsupported --unsupported

# killed: the program is killed after its events, mid-run
"$G" -q capture -o "$D/killed" -- "$E" --mini --hang-after 0 >/dev/null 2>"$D/.kerr" &
gp=$!
for _ in $(seq 200); do
	c=$(ls "$D"/killed.tmp-*/procs/*.counts 2>/dev/null | head -1)
	[ -n "$c" ] && grep -q waiting "$D/.kerr" && break
	sleep 0.05
done
kill -9 "$(basename "$c" .counts)"
wait "$gp" || true
rm -f "$D/.kerr"

copy() { cp -a "$D/good" "$D/$1"; }
copy format
sed -i "s/^format = gpumix-bundle [0-9]*$/format = gpumix-bundle 99/" "$D/format/manifest"
copy no-manifest
rm "$D/no-manifest/manifest"
copy corrupt-blob
b=$(ls "$D"/corrupt-blob/blobs/* | head -1)
printf 'X' | dd of="$b" bs=1 seek=100 conv=notrunc status=none
copy missing-blob
rm "$D"/missing-blob/blobs/*
copy missing-module
rm "$D"/missing-module/modules/*
copy truncated-stream
for s in "$D"/truncated-stream/ctf/ust/pid/*/gpumix_*; do
	[ "$(stat -c %s "$s")" -gt 0 ] && truncate -s 100 "$s"
done
copy unknown-call
sed -i 's/ cuMemFree_v2 / cuMemFreeOld /' "$D/unknown-call/api-table"
copy changed-call
sed -i 's/^\([0-9]* cuMemAlloc_v2 replayed NONE\) .*/\1 dptr:dptr:o,bytesize:u32:i/' \
	"$D/changed-call/api-table"
copy bad-losses
sed -i 's/^losses = 0$/losses = abc/' "$D/bad-losses/manifest"
# procs/PID.counts damaged, edited (2 more events in the first thread's
# slot: struct gm_counts ends with 256 slots of tid and events) or gone
copy counts-truncated
truncate -s 100 "$D"/counts-truncated/procs/*.counts
copy counts-edited
c=$(ls "$D"/counts-edited/procs/*.counts)
off=$(( $(stat -c %s "$c") - 256 * 16 + 8 ))
n=$(od -An -t u8 -j "$off" -N 8 "$c" | tr -d ' ')
printf "$(printf '%016x' $((n + 2)) | sed -E 's/(..)(..)(..)(..)(..)(..)(..)(..)/\\x\8\\x\7\\x\6\\x\5\\x\4\\x\3\\x\2\\x\1/')" |
	dd of="$c" bs=1 seek="$off" conv=notrunc status=none
copy counts-missing
rm "$D"/counts-missing/procs/*.counts

# The trace files (issue 26), all caught before babeltrace2 reads them
# but stream-undecodable and stream-packet-size: the first packet's
# offset in an index (babeltrace2's ctf plugin aborted on it), a stream
# emptied or removed under its index, eight flipped bits of a stream that
# babeltrace2 cannot decode, the metadata cut inside its second packet
# (babeltrace2 read it for ever), and the top byte of the first packet's
# content size in a stream (babeltrace2 fails an assertion on it: the
# reading in a child process names the trace).
# flip FILE OFFSET:MASK...: xor bytes of FILE
flip() {
	local f=$1 om b
	shift
	for om in "$@"; do
		b=$(od -An -tu1 -j "${om%:*}" -N1 "$f" | tr -d ' ')
		printf "$(printf '\\%03o' $((b ^ ${om#*:})))" |
			dd of="$f" bs=1 seek="${om%:*}" conv=notrunc status=none
	done
}
copy index-damaged
flip "$(ls "$D"/index-damaged/ctf/ust/pid/*/index/gpumix_0.idx)" 16:255
copy stream-empty
: >"$(ls "$D"/stream-empty/ctf/ust/pid/*/gpumix_0)"
copy stream-missing
rm "$(ls "$D"/stream-missing/ctf/ust/pid/*/gpumix_1)"
copy metadata-cut
truncate -s 5000 "$(ls "$D"/metadata-cut/ctf/ust/pid/*/metadata)"
copy stream-undecodable
flip "$(ls "$D"/stream-undecodable/ctf/ust/pid/*/gpumix_0)" 246:8 397:64 \
	1098:2 62:8 595:4 2854:2 192:8 3512:2
copy stream-packet-size
flip "$(ls "$D"/stream-packet-size/ctf/ust/pid/*/gpumix_0)" 55:255

for n in $names; do
	"$G" trace check "$D/$n" >/dev/null 2>"$D/$n.error" || true
	sed -i "s|$PWD/||g" "$D/$n.error"	# babeltrace2 uses absolute paths
done
"$G" trace dump "$D/good" | sed -E 's/^(#[0-9]+) [0-9.]+ [0-9]+:[0-9]+ /\1 TIME PID:TID /' \
	>"$D/good.dump"
echo "corpus: $(du -sh "$D" | cut -f1)"
