#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The SPMD predictor end to end on a CPU (mock driver, doc/spmd-model.md):
# a study of basic alone and 2 and 4 copies of it under cuda, the
# SM-stretch curves of basic (gpumix scale --stretch), both loaded into
# one database, and the report's spmd-model and spmd-deviation tables.
# The mock has 4 SMs and takes 10 ms per wave of one block per SM, so the
# 16-block kernels of basic hold 4 per SM and share SMs once copied. The
# model's arithmetic is checked by hand in tests/unit/test_spmd_model.c;
# here: which runs get a row, that one copy predicts its alone time
# exactly (the model adds nothing to N = 1), that the prediction grows
# with the copies, and that the curves are what it reads. Then on 32 mock
# SMs: kernels of no more blocks than SMs take T(1) from their alone
# launches, and 2 copies are exclusive space, eq. (10).
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset GPUMIX_STUDY_EXEC GPUMIX_STUDY_KILL_AT
scratch_dir >/dev/null
tmp=$_scratch
export MOCK_CUDA_SMS=4 MOCK_CUDA_WAVE_US=10000
B=tests/data/reconstruct/bundles/basic

cat >"$tmp/study.yaml" <<YAML
study: spmd
root: $GPUMIX_TOP
programs:
  - bundle: $B
workloads:
  - [basic]
  - {program: basic, copies: 2}
  - {program: basic, copies: 4}
variants: [single, cuda]
replay: {min_replays: 2, watchdog: 30s}
repeats: 1
paths: {output: $tmp/out}
YAML
"$GPUMIX" run "$tmp/study.yaml" >"$tmp/summary" 2>"$tmp/err"; rc=$?
check_eq "the study succeeds" 0 "$rc"
[ "$rc" = 0 ] || tail -20 "$tmp/err" | sed 's/^/#   /'
"$GPUMIX" scale --stretch --replays 2 -o "$tmp/st" "$B" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "gpumix scale --stretch succeeds" 0 "$rc"
[ "$rc" = 0 ] || tail -5 "$tmp/err" | sed 's/^/#   /'
"$GPUMIX" analyze -o "$tmp/r.db" "$tmp/out/runs" "$tmp/st" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "runs and curves load into one database" 0 "$rc"
[ "$rc" = 0 ] || tail -5 "$tmp/err" | sed 's/^/#   /'

csv=$("$GPUMIX" report "$tmp/r.db" --table spmd-model --format csv 2>"$tmp/err"); rc=$?
check_eq "report --table spmd-model: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/err"
col() { # col NAME: the column of the CSV's header called NAME
	printf '%s\n' "$csv" | head -1 | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1
}
c_copies=$(col copies); c_var=$(col variant); c_alone=$(col alone_ms)
c_pred=$(col predicted_ms); c_meas=$(col measured_ms); c_dev=$(col deviation_pct)
c_note=$(col note)
check "the columns are there" test -n "$c_copies" -a -n "$c_pred" -a -n "$c_dev" -a -n "$c_note"
check_eq "a row per cuda run of copies of basic: N = 1, 2, 4" "1 2 4" \
	"$(printf '%s\n' "$csv" | awk -F, -v c="$c_copies" -v v="$c_var" 'NR > 1 && $v == "cuda" { print $c }' | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_eq "no row for the alone runs" "" \
	"$(printf '%s\n' "$csv" | awk -F, -v v="$c_var" 'NR > 1 && $v == "single"')"
check_eq "N = 1 predicts the alone time" "" \
	"$(printf '%s\n' "$csv" | awk -F, -v c="$c_copies" -v a="$c_alone" -v p="$c_pred" 'NR > 1 && $c == 1 && ($p - $a > 0.002 || $a - $p > 0.002)')"
check_eq "the prediction grows with the copies" "ok" \
	"$(printf '%s\n' "$csv" | awk -F, -v c="$c_copies" -v p="$c_pred" 'NR > 1 { t[$c] = $p } END { print (t[2] > t[1] && t[4] > t[2]) ? "ok" : "no: " t[1] " " t[2] " " t[4] }')"
check_eq "the deviation is |predicted - measured| / measured" "" \
	"$(printf '%s\n' "$csv" | awk -F, -v p="$c_pred" -v m="$c_meas" -v d="$c_dev" 'NR > 1 { e = 100 * ($p - $m) / $m; if (e < 0) e = -e; if (e - $d > 0.05 || $d - e > 0.05) print }')"
check_eq "incr (not elastic: only its own 4 per SM, no T(1)) is the kernel without T(k)" \
	"1 of 3 kernels without T(k)" \
	"$(printf '%s\n' "$csv" | awk -F, -v c="$c_copies" -v n="$c_note" 'NR > 1 && $c == 4 { print $n }' | sed 's/;.*//')"

dev=$("$GPUMIX" report "$tmp/r.db" --table spmd-deviation --format csv 2>/dev/null); rc=$?
check_eq "report --table spmd-deviation: exit 0" 0 "$rc"
check_eq "its rows hold the 3 cuda runs" 3 \
	"$(printf '%s\n' "$dev" | awk -F, 'NR > 1 && $2 == "cuda" { n += $3 } END { print n + 0 }')"

# Without the curves the model still predicts, saying which kernels lack T(k).
"$GPUMIX" analyze -o "$tmp/nocurves.db" "$tmp/out/runs" >/dev/null 2>&1
csv=$("$GPUMIX" report "$tmp/nocurves.db" --table spmd-model --format csv 2>&1)
check_match "without the curves: kernels without T(k) named" \
	"3 of 3 kernels without T\(k\)" "$csv"

# 32 SMs: the 16-block kernels fit one round of one block per SM, so
# without curves each takes its mean launch alone as T(1); 2 copies (32
# blocks) are exclusive space, eq. (10): the alone time plus Tin + Tout.
sed -e "s|$tmp/out|$tmp/out32|" -e '/copies: 4/d' "$tmp/study.yaml" >"$tmp/study32.yaml"
MOCK_CUDA_SMS=32 "$GPUMIX" run "$tmp/study32.yaml" >/dev/null 2>"$tmp/err"; rc=$?
check_eq "the 32-SM study succeeds" 0 "$rc"
"$GPUMIX" analyze -o "$tmp/r32.db" "$tmp/out32/runs" >/dev/null 2>&1
csv=$("$GPUMIX" report "$tmp/r32.db" --table spmd-model --format csv 2>/dev/null)
c_copies=$(col copies); c_alone=$(col alone_ms); c_pred=$(col predicted_ms)
c_in=$(col tin_ms); c_out=$(col tout_ms); c_sc=$(col scenario); c_note=$(col note)
check_eq "2 copies on 32 SMs: exclusive space, T(1) of every kernel (only T(Nmax) extrapolated)" \
	"exclusive-space T(Nmax) extrapolated for 3" \
	"$(printf '%s\n' "$csv" | awk -F, -v c="$c_copies" -v s="$c_sc" -v n="$c_note" 'NR > 1 && $c == 2 { print $s, $n }')"
check_eq "eq. (10): predicted = alone + Tin + Tout" "" \
	"$(printf '%s\n' "$csv" | awk -F, -v c="$c_copies" -v a="$c_alone" -v p="$c_pred" -v i="$c_in" -v o="$c_out" \
		'NR > 1 && $c == 2 { d = $p - ($a + $i + $o); if (d < 0) d = -d; if (d > 0.003) print }')"
done_testing
