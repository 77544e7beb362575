#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The ranking table ranks the mechanisms fairly: over the workloads that
# every variant ran (a workload one variant lacks is left out for all),
# in STP order, with each geomean equal to the one computed here from the
# per-workload table, each rank consistent with its column, and the
# "best STP in" counts adding up to at least the common workloads.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
gen=$GPUMIX_BUILD/bench/gen_study

"$GPUMIX_BUILD/bench/gen_study" -o "$tmp/runs" --kernels 400 --workloads 5 \
	--variants single,cuda,nss,elastic+mpmax,elastic+queuemold >/dev/null
check_eq "generate a study of 5 workloads under 4 concurrent variants" 0 "$?"
# One variant misses one workload: that workload must leave the ranking.
gone=$(find "$tmp/runs" -maxdepth 1 -name '*.nss' | sort | sed -n 2p)
gone_wl=$(basename "$gone" .nss)
rm -rf "$gone"
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/r.db"
check_eq "load it" 0 "$?"
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --no-figures
check_eq "report it" 0 "$?"
T=$tmp/rep/tables
check "the ranking table is written" test -s "$T/ranking.csv"
check_eq "the index shows the ranking first" "## Ranking of the mechanisms" \
	"$(grep -m1 '^## [A-Z][a-z]* of\|^## Summary' "$tmp/rep/index.md")"

col() { # col NAME: the column number of NAME in ranking.csv
	head -1 "$T/ranking.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}
check_eq "one row per variant but single" "cuda elastic+mpmax elastic+queuemold nss" \
	"$(sed 1d "$T/ranking.csv" | cut -d, -f"$(col variant)" | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "every row over the 4 workloads all ran" "4 4 4 4" \
	"$(sed 1d "$T/ranking.csv" | cut -d, -f"$(col workloads)" | tr '\n' ' ' | sed 's/ $//')"
check_eq "every row says one workload was left out" "1 1 1 1" \
	"$(sed 1d "$T/ranking.csv" | cut -d, -f"$(col left_out)" | tr '\n' ' ' | sed 's/ $//')"

# The geomeans, computed here from the per-workload STPs without the
# left-out workload.
expect=$(awk -F, -v gone="$gone_wl" '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["workload"] != gone { s[$h["variant"]] += log($h["stp"]); n[$h["variant"]]++ }
	END { for (v in s) printf "%s %.4f\n", v, exp(s[v] / n[v]) }' "$T/workloads.csv" | sort)
got=$(awk -F, -v c="$(col variant)" -v g="$(col stp_geomean)" \
	'NR > 1 { printf "%s %.4f\n", $c, $g }' "$T/ranking.csv" | sort)
check_eq "STP geomeans over the common workloads" "$expect" "$got"
check_eq "rows in STP order" \
	"$(sed 1d "$T/ranking.csv" | cut -d, -f"$(col stp_geomean)" | sort -gr | tr '\n' ' ')" \
	"$(sed 1d "$T/ranking.csv" | cut -d, -f"$(col stp_geomean)" | tr '\n' ' ')"
check_eq "the rank column counts 1, 2, ..." "1 2 3 4" \
	"$(sed 1d "$T/ranking.csv" | cut -d, -f"$(col rank)" | tr '\n' ' ' | sed 's/ $//')"
# ANTT rank: 1 + the rows with a strictly lower ANTT geomean.
check_eq "ANTT ranks follow the ANTT geomeans" "" \
	"$(awk -F, -v a="$(col antt_geomean)" -v r="$(col antt_rank)" '
		NR > 1 { v[NR] = $a; k[NR] = $r }
		END { for (i in v) { n = 1; for (j in v) if (v[j] < v[i]) n++;
			if (n != k[i]) print "row " i ": rank " k[i] ", expected " n } }' "$T/ranking.csv")"
check_match "best-STP counts cover the common workloads" "^([4-9]|[1-9][0-9])$" \
	"$(awk -F, -v c="$(col best_stp_in)" 'NR > 1 { n += $c } END { print n }' "$T/ranking.csv")"
done_testing
