#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# 2-D and 3-D copies and CUDA arrays, capture to replay on a CPU:
# arrays-emitter (tests/tools/arrays_emitter.c) runs on the mock CUDA
# driver under `gpumix capture` through the real CUPTI subscriber
# (cuArray3DCreate, cuArrayCreate, cuMemcpy2DAsync, cuMemcpy2D,
# cuMemcpy2DUnaligned, cuMemcpy3D, cuMemcpy3DAsync to and from arrays,
# a texture object over an array read by a kernel, cuMemcpyHtoA and
# cuMemcpyAtoH, cuArrayDestroy and an array made again). Nothing is
# unsupported; reconstructed, the copies are COPY_IN/COPY_OUT/COPY_DEV
# over copy descriptions, the arrays made at init (an id reused by an
# array of the same description); replayed on the mock (which checks
# every row a copy touches, and positions inside arrays) in single,
# cuda and nss and beside another program, every result verifies. A
# wrong pitch or position in a copy description fails the run.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=$tmp/arrays

out=$("$GPUMIX" -q capture -o "$B" -- "$GPUMIX_BUILD/tests/arrays-emitter" 2>&1); rc=$?
check_eq "capture exits 0" 0 "$rc"
check_match "the program's own checks passed on the mock" "arrays-emitter: ok" "$out"
info=$("$GPUMIX" trace info "$B" 2>&1)
check_match "no call is unsupported" "^unsupported calls:
  none$" "$info"

export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for v in single cuda nss; do
	rec=$("$GPUMIX" -v reconstruct --variant $v -o "$tmp/w.$v" "$B" 2>&1)
	check_eq "$v: reconstruct exits 0" 0 "$?"
	check_match "$v: every result has its hash, nothing unsupported" \
		"^program 'arrays': .* 0 results not verifiable, 0 unsupported calls" "$rec"
	out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 -o "$tmp/run.$v" "$tmp/w.$v" 2>&1); rc=$?
	check_eq "$v: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
	check_eq "$v: status ok (every result verified)" ok "$(field "$tmp/run.$v/manifest" status)"
done
c=$(cat "$tmp/w.cuda/replay.c")
check_eq "three arrays, the first id reused by the array made again" \
	"3 0" "$(grep -c '^	{ [0-9]*, [0-9]*, [0-9]*, 3, 1, 0 },' <<<"$c") $(grep 'GM_ARRAY_CREATE(' <<<"$c" | tail -1 | sed 's/.*, \([0-9]*\)),$/\1/')"
check_match "the texture lies on an array" '\.res_type = 0, \.ref = GM_R\(0\)' "$c"
check_match "a 2-D copy from pinned host rows into an array" \
	'cuMemcpy2DAsync_v2 \*/ GM_COPY_IN\([0-9]+, 1, GM_F_PINNED, 0, ' "$c"
check_match "one from the array into pitched device memory" \
	'cuMemcpy2DAsync_v2 \*/ GM_COPY_DEV\([0-9]+, 1, 0, 1\)' "$c"
check_match "a synchronous one into pageable host memory, its 320 bytes packed" \
	'cuMemcpy2D_v2 \*/ GM_COPY_OUT\([0-9]+, 0, GM_F_SYNC, 2, [0-9]+, [0-9]+, 320\)' "$c"
check_match "the unaligned one synchronous" \
	'cuMemcpy2DUnaligned_v2 \*/ GM_COPY_DEV\([0-9]+, 0, GM_F_SYNC, 3\)' "$c"
check_match "its description says which call" 'GM_COPYCALL_2D_UNALIGNED,' "$c"
check_eq "a block at a position of the array into pitched memory" \
	"{ GM_END_DEVICE, GM_A(1), 0, 16, 1, 0, 512, 0 }," \
	"$(grep -A1 '{ GM_END_ARRAY, 0, 0, 32, 3, 0, 0, 0 },' <<<"$c" | tail -1 | sed 's/^[[:space:]]*//')"
check_match "a 3-D slice (z 2) out of an array" 'GM_END_ARRAY, 1, 0, 0, 0, 2, 0, 0' "$c"
check_eq "the linear array copies are rectangles of its rows (rows 1-2; 8 elements from the third of row 2)" \
	"2 2" "$(grep -A1 'GM_END_ARRAY, 2, 0, 0, 1, 0, 0, 0 },' <<<"$c" | grep -c '64, 2, 1 }\|GM_END_ARRAY, 2, 0, 0, 1') $(grep -c 'GM_END_ARRAY, 2, 0, 8, 2, 0, 0, 0 },\|^	  32, 1, 1 },' <<<"$c")"

"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$B" \
	tests/data/reconstruct/bundles/basic 2>/dev/null
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.pair" "$tmp/pair" 2>&1); rc=$?
check_eq "beside another program (cuda): exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/#   /'
check_eq "beside another program: status ok" ok "$(field "$tmp/run.pair/manifest" status)"

# Wrong rules fail: a pitch, an array position.
cp -r "$tmp/w.cuda" "$tmp/bad1"
sed -i 's/{ GM_END_DEVICE, GM_A(1), 0, 16, 1, 0, 512, 0 },\n	  32, 10, 1 }/X/' "$tmp/bad1/replay.c"
python3 - "$tmp/bad1/replay.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("{ GM_END_DEVICE, GM_A(1), 0, 16, 1, 0, 512, 0 },\n\t  32, 10, 1 },\t/* 1 */",
              "{ GM_END_DEVICE, GM_A(1), 0, 16, 1, 0, 256, 0 },\n\t  32, 10, 1 },\t/* 1 */", 1)
open(p, "w").write(s)
PY
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.bad1" "$tmp/bad1" 2>&1); rc=$?
check_eq "a wrong pitch fails the run" 1 "$rc"
check_match "... at a result" "result differs" "$(field "$tmp/run.bad1/manifest" failure)"
cp -r "$tmp/w.cuda" "$tmp/bad2"
sed -i 's/GM_END_ARRAY, 1, 0, 0, 0, 2, 0, 0/GM_END_ARRAY, 1, 0, 0, 0, 3, 0, 0/' "$tmp/bad2/replay.c"
out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run.bad2" "$tmp/bad2" 2>&1); rc=$?
check_eq "a slice beyond the array fails the run" 1 "$rc"
check_match "... naming the copy" "device-to-host copy \(2-D, 3-D or array\).*cuMemcpy3D" \
	"$(field "$tmp/run.bad2/manifest" failure)"

done_testing
