#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix scale --stretch on the mock driver: the SM-stretch
# microbenchmark (doc/spmd-model.md). The basic bundle's elastic kernels
# (scale, tex_copy: 16 blocks) replayed with k = 1, 2, ... blocks on each
# of 4 mock SMs: k = 1..4 hold exactly k (4 x 4 = 16 is the whole grid),
# 5 cannot (the grid caps it), so the curve stops there. The mock takes
# 20 ms per wave of one block per SM (MOCK_CUDA_WAVE_US): k waves for
# the elastic grid of k x 4 blocks, so T(k) = time x k x 4 / 16 is at
# least 5 k^2 ms (sleeps are never shorter; no upper bound is assumed).
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
B=tests/data/reconstruct/bundles/basic
export MOCK_CUDA_SMS=4 MOCK_CUDA_WAVE_US=20000

out=$("$GPUMIX" scale --stretch -o "$tmp/st" --replays 2 "$B" 2>"$tmp/err"); rc=$?
check_eq "gpumix scale --stretch: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
check_eq "the runs: as captured, then k = 1 .. 5" \
	"identity sm sm=2 sm=3 sm=4 sm=5" \
	"$(for m in identity sm=1 sm=2 sm=3 sm=4 sm=5; do sed -n 's/^elastic = //p' "$tmp/st/runs/basic.$m/manifest"; done | tr '\n' ' ' | sed 's/ $//')"
check "no run with 6 per SM (5 held none)" test ! -e "$tmp/st/runs/basic.sm=6"
check_match "saying why it stopped" "no launch holds 5 blocks on every SM" "$(cat "$tmp/err")"
check_eq "scale and tex_copy: points k = 1..4, one launch each (the one kept replay of 2)" \
	"_Z5scalePjPKjjj:1:1 _Z5scalePjPKjjj:2:1 _Z5scalePjPKjjj:3:1 _Z5scalePjPKjjj:4:1 _Z8tex_copyPjyj:1:1 _Z8tex_copyPjyj:2:1 _Z8tex_copyPjyj:3:1 _Z8tex_copyPjyj:4:1" \
	"$(awk -F, '$2 ~ /scale|tex_copy/ { printf "%s%s:%s:%s", n++ ? " " : "", $2, $3, $4 }' "$tmp/st/stretch.csv")"
check_eq "the not-elastic incr counts only where its 16 blocks are 4 per SM" "4" \
	"$(awk -F, '$2 ~ /incr/ { print $3 }' "$tmp/st/stretch.csv")"
check_eq "T(k) >= 5 k^2 ms (k waves of 20 ms, times 4k / 16)" "" \
	"$(awk -F, 'NR > 1 && $2 ~ /scale|tex_copy/ && $6 < 5 * $3 * $3 - 1e-9 { print }' "$tmp/st/stretch.csv")"
check_eq "TSM_str(k - 1) = T(k) - T(k - 1), T(1) at k = 1; linear = k T(1)" "" \
	"$(awk -F, 'NR > 1 && $2 ~ /scale/ { if ($3 == 1) t1 = $6; want = $3 == 1 ? $6 : $6 - prev;
		d = $7 - want; if (d < 0) d = -d; l = $8 - $3 * t1; if (l < 0) l = -l;
		if (d > 1e-5 || l > 1e-5) print; prev = $6 }' "$tmp/st/stretch.csv")"
check_match "the Markdown table is printed: a column per k" \
	"\| kernel \| alone \| k=1 \| k=2 \| k=3 \| k=4 \|" "$out"
check_eq "and written to stretch.md" "$out" "$(cat "$tmp/st/stretch.md")"

# ---- into the database (doc/database.md, stretch) ----
out=$("$GPUMIX" analyze -o "$tmp/st.db" "$tmp/st" 2>&1); rc=$?
check_eq "gpumix analyze DIR: exit 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
check_eq "a row per point of stretch.csv" "$(($(wc -l < "$tmp/st/stretch.csv") - 1))" \
	"$(db_query "$tmp/st.db" 'SELECT count(*) FROM stretch')"
check_eq "the device and SMs of the identity run" "Mock GPU|4" \
	"$(db_query "$tmp/st.db" 'SELECT DISTINCT deviceName, smCount FROM stretch')"
check_eq "T(2) of scale as in the CSV" \
	"$(awk -F, '$2 ~ /scale/ && $3 == 2 { printf "%.6f", $6 }' "$tmp/st/stretch.csv")" \
	"$(db_query "$tmp/st.db" "SELECT printf('%.6f', roundMs) FROM stretch WHERE kernel LIKE '%scale%' AND k = 2")"
check_eq "no TSM_str where k - 1 has no point (incr at 4)" "1" \
	"$(db_query "$tmp/st.db" "SELECT count(*) FROM stretch WHERE stretchMs IS NULL")"
"$GPUMIX" analyze -o "$tmp/st.db" "$tmp/st" >/dev/null 2>&1
check_eq "loaded again: replaced, not added" "$(($(wc -l < "$tmp/st/stretch.csv") - 1))" \
	"$(db_query "$tmp/st.db" 'SELECT count(*) FROM stretch')"
"$GPUMIX" analyze --merge "$tmp/st.db" -o "$tmp/merged.db" >/dev/null 2>&1
check_eq "merged into another database" "$(($(wc -l < "$tmp/st/stretch.csv") - 1))" \
	"$(db_query "$tmp/merged.db" 'SELECT count(*) FROM stretch')"
cp -r "$tmp/st" "$tmp/bad"
echo 'basic,_Z5scalePjPKjjj,x,1,1,1,,' >> "$tmp/bad/stretch.csv"
out=$("$GPUMIX" analyze -o "$tmp/bad.db" "$tmp/bad" 2>&1); rc=$?
check_eq "a damaged stretch.csv: exit 1" 1 "$rc"
check_match "naming its line" "stretch.csv:$(wc -l < "$tmp/bad/stretch.csv"): not a stretch point" "$out"
check "and nothing of it loaded (no database made of it)" test ! -e "$tmp/bad.db"

out=$("$GPUMIX" scale --max-per-sm 4 -o "$tmp/x" "$B" 2>&1); rc=$?
check_eq "--max-per-sm without --stretch: usage error" 2 "$rc"
check_match "saying so" "--max-per-sm needs --stretch" "$out"
out=$("$GPUMIX" scale --stretch --max-per-sm 0 -o "$tmp/x" "$B" 2>&1); rc=$?
check_eq "--max-per-sm 0: usage error" 2 "$rc"
out=$("$GPUMIX" scale --stretch --max-per-sm 2 --replays 2 -o "$tmp/m2" "$B" 2>&1); rc=$?
check_eq "--max-per-sm 2: exit 0" 0 "$rc"
check_eq "stops at k = 2" "1 2" \
	"$(awk -F, '$2 ~ /scale/ { print $3 }' "$tmp/m2/stretch.csv" | tr '\n' ' ' | sed 's/ $//')"
done_testing
