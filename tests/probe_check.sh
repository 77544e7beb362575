# SPDX-License-Identifier: MIT
#
# Shared checks of the block probe's files in a run directory
# (doc/run-directory.md, probe.tsv and probe.bin), sourced after
# tests/lib.sh and tests/replay_check.sh by tests/cli/replay_probe.sh
# (mock driver) and tests/gpu/probe.sh (real GPU). Not a test itself.

# probe_records DIR: probe.bin's records, one "start_lo start_hi dur sm"
# line each (od, after the 16-byte header)
probe_records() {
	od -An -v -j 16 -t u4 -w16 "$1/probe.bin" | awk 'NF == 4'
}

# check_probe NAME DIR SMS: probe.tsv and probe.bin agree with each other
# and with the run: the header, the END line's counts, the file size, a
# record for every logical block of each probed launch (records = blocks)
# with a start, an SM below SMS and a duration below 4.29 s, and, when
# the run was profiled, a CUPTI correlation id per launch that is a
# KERNEL record of the same program and kernel, on the physical grid.
check_probe() {
	local name=$1 d=$2 sms=$3 lines recs size bad
	check_eq "$name: probe.tsv header" \
		"$(printf 'program\treplay\tcorrelationId\thost_ns\tkernel\tgridX\tgridY\tgridZ\tblockX\tblockY\tblockZ\tphysX\tphysY\tphysZ\toffset\tblocks\trecords\tnot_probed')" \
		"$(head -1 "$d/probe.tsv")"
	lines=$(awk 'NR > 1 && $1 != "END"' "$d/probe.tsv" | wc -l)
	recs=$(awk -F'\t' 'NR > 1 && $1 != "END" { n += $17 } END { print n + 0 }' "$d/probe.tsv")
	check_eq "$name: the END line counts the launches and records" \
		"$(printf 'END\t%s\t%s' "$lines" "$recs")" "$(tail -1 "$d/probe.tsv")"
	size=$(stat -c %s "$d/probe.bin")
	check_eq "$name: probe.bin holds the header and 16 bytes per record" \
		$((16 + 16 * recs)) "$size"
	check_eq "$name: probe.bin's magic" GMPROBE "$(head -c 7 "$d/probe.bin")"
	check_eq "$name: every probed launch has a record per logical block" "" \
		"$(awk -F'\t' 'NR > 1 && $1 != "END" && $17 > 0 && $17 != $16 { print NR ": " $17 " of " $16 }' \
		"$d/probe.tsv" | head -3)"
	check_eq "$name: a launch is probed or says why not" "" \
		"$(awk -F'\t' 'NR > 1 && $1 != "END" && (($17 > 0) == ($18 != "-")) { print NR }' \
		"$d/probe.tsv" | head -3)"
	bad=$(probe_records "$d" | awk -v sms="$sms" '
		$1 == 0 && $2 == 0 { print "record " NR - 1 ": no start"; exit }
		$4 >= sms { print "record " NR - 1 ": SM " $4; exit }
		$3 == 4294967295 { print "record " NR - 1 ": 4.29 s or more"; exit }')
	check_eq "$name: every record has a start, a duration and an SM below $sms" "" "$bad"
	if [ "$(field "$d/manifest" profiled)" = 1 ]; then
		check_eq "$name: every launch has a correlation id of a KERNEL record of its program and kernel, on its physical grid" "" \
			"$(awk -F'\t' 'FILENAME ~ /activity.tsv$/ {
					if ($1 == "KERNEL") k[$3] = $2 "|" $NF "|" $11 "," $12 "," $13
					next }
				FNR > 1 && $1 != "END" && k[$3] != $1 "|" $5 "|" $12 "," $13 "," $14 {
					print FNR ": " $3; exit }' "$d/activity.tsv" "$d/probe.tsv")"
	fi
	check_eq "$name: manifest: probe blocks" blocks "$(field "$d/manifest" probe)"
	check_eq "$name: manifest: the records" "$recs" "$(field "$d/manifest" probe.records)"
	check_eq "$name: manifest: the launches" "$lines" "$(field "$d/manifest" probe.launches)"
}
