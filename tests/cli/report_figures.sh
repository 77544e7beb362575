#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix report -o: a synthetic study (bench/gen_study) gives a report
# directory with index.md, every table in Markdown and CSV, and every
# figure as a non-empty PNG and SVG drawn by gnuplot; an existing report
# is only replaced with --force; gnuplot missing or failing is an error
# that leaves nothing behind; options naming no kernel or run are errors;
# a study without `single` runs still reports, with a note; names with
# quotes, tabs and non-ASCII survive into the database, tables and plots.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
gen=$GPUMIX_BUILD/bench/gen_study

"$gen" -o "$tmp/runs" --kernels 4000 --workloads 3 >/dev/null
check_eq "generate a study" 0 "$?"
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/r.db"
check_eq "load it" 0 "$?"

out=$("$GPUMIX" report "$tmp/r.db" -o "$tmp/rep" 2>&1)
check_eq "report -o: exit 0" 0 "$?"
# (the tables: one per row of the registry, each written as Markdown)
ntables=$(ls "$tmp/rep/tables"/*.md 2>/dev/null | wc -l)
check "a table per registry row (more than 20)" test "$ntables" -gt 20
check_match "report -o: summary line" \
	"^report: 15 runs, $ntables tables, 9 figures, 15 timelines in .*/rep/index.md \([0-9.]+ s\)$" "$out"
check "index.md exists" test -s "$tmp/rep/index.md"

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { [ -s "$1" ] && grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }

for f in fig07-kernel fig08-overlap fig09-waiting fig10-stp fig11-antt \
	 fig12-running fig13-threads timeline; do
	check "$f.png is a non-empty PNG" is_png "$tmp/rep/figures/$f.png"
	check "$f.svg is a non-empty SVG" is_svg "$tmp/rep/figures/$f.svg"
	check "$f: data and script kept" test -s "$tmp/rep/figures/$f.dat" -a \
		-s "$tmp/rep/figures/$f.gp"
	check "$f: index shows it" grep -qF "](figures/$f.png)" "$tmp/rep/index.md"
done
for t in summary improvement workloads programs waiting waiting-runs overlap \
	 overlap-runs utilization utilization-runs resources runs; do
	check "table $t: Markdown and CSV" test -s "$tmp/rep/tables/$t.md" -a \
		-s "$tmp/rep/tables/$t.csv"
	check "table $t: linked from the index" \
		grep -qF "(tables/$t.md) ([CSV](tables/$t.csv))" "$tmp/rep/index.md"
done
tl=$(cat "$tmp/rep/figures/timeline.gp")
check_match "timeline: one lane per program and stream" \
	"^set ytics \('[a-z]+ / stream [0-9]+' 1, '[a-z]+ / stream [0-9]+' 0\)$" "$tl"
check_match "timeline: coloured by program, one series each" \
	"index 0 using .* lc rgb '#1f77b4' title '[a-z]+', .*index 1 using .* lc rgb '#ff7f0e' title" \
	"$(tr -d '\n\\' <<<"$tl")"
check_match "timeline: zoomed to a few replays" "^set xrange \[[0-9.]+:[0-9.]+\]$" "$tl"
check_match "timeline: dashed lines at replay starts" "^set arrow from [0-9.]+, graph 0 to" "$tl"
check_match "timeline: the caption names the replays and the window" \
	"Shows replays 1 to 3 \([0-9.]+ to [0-9.]+ ms\), [0-9]+ of the run's [0-9]+ kernels" \
	"$(cat "$tmp/rep/index.md")"
check_match "index shows the summary inline" "^## Summary \(paper Table 4\)" \
	"$(cat "$tmp/rep/index.md")"
check "a script redraws its figure by itself" \
	sh -c "cd '$tmp/rep/figures' && rm fig10-stp.png && gnuplot fig10-stp.gp && test -s fig10-stp.png"

out=$("$GPUMIX" report "$tmp/r.db" -o "$tmp/rep" 2>&1)
check_eq "existing report: exit 1" 1 "$?"
check_eq "existing report: message" "error: '$tmp/rep' already exists
hint: use --force to replace it, or choose another -o" "$out"
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --force --no-figures
check_eq "--force --no-figures: exit 0" 0 "$?"
check "--force replaced it (no figures now)" test ! -e "$tmp/rep/figures/fig10-stp.png"
check "--no-figures still writes the tables" test -s "$tmp/rep/tables/summary.csv"
check_eq "no temporary directories left" "" "$(ls "$tmp" | grep -E 'tmp-|old-')"

out=$(GPUMIX_GNUPLOT=/nonexistent/gnuplot "$GPUMIX" -q report "$tmp/r.db" -o "$tmp/nognuplot" 2>&1)
check_eq "gnuplot missing: exit 1" 1 "$?"
check_match "gnuplot missing: says so" \
	"cannot draw the figures: '/nonexistent/gnuplot' did not run" "$out"
check_match "gnuplot missing: hint" "hint: install gnuplot" "$out"
check "gnuplot missing: no report left behind" test ! -e "$tmp/nognuplot"

out=$(GPUMIX_GNUPLOT=false "$GPUMIX" -q report "$tmp/r.db" -o "$tmp/badgnuplot" 2>&1)
check_eq "gnuplot failing: exit 1" 1 "$?"
check_match "gnuplot failing: exit status named" "gnuplot failed with exit status 1" "$out"
check_eq "gnuplot failing: nothing left behind" "" "$(ls "$tmp" | grep badgnuplot)"

# --figure-scripts: data and scripts, gnuplot never run, drawable later
out=$(GPUMIX_GNUPLOT=/nonexistent/gnuplot "$GPUMIX" report "$tmp/r.db" -o "$tmp/scripts" \
	--figure-scripts 2>&1)
check_eq "--figure-scripts without gnuplot: exit 0" 0 "$?"
check_match "  the summary line says so" "figures \(data and scripts only: --figure-scripts\)" "$out"
check "  each figure's script and data are written" \
	test -s "$tmp/scripts/figures/fig10-stp.gp" -a -s "$tmp/scripts/figures/fig10-stp.dat"
check_eq "  and no figure is drawn" "" "$(ls "$tmp/scripts/figures" | grep -E '\.(png|svg)$')"
check_match "  index.md lists the scripts" "^- \[figures/fig10-stp\.gp\]\(figures/fig10-stp\.gp\)" \
	"$(cat "$tmp/scripts/index.md")"
check "  index.html says how to draw them" grep -q 'gnuplot \*\.gp' "$tmp/scripts/index.html"
check "  the scripts draw the figures where gnuplot is" \
	sh -c "cd '$tmp/scripts/figures' && gnuplot *.gp && test -s fig10-stp.png && test -s fig10-stp.svg"
out=$("$GPUMIX" -q report "$tmp/r.db" -o "$tmp/both" --no-figures --figure-scripts 2>&1)
check_eq "--no-figures with --figure-scripts: a usage error" 2 "$?"

out=$("$GPUMIX" -q report "$tmp/r.db" --kernel no_such_kernel 2>&1)
check_eq "--kernel unknown: exit 1" 1 "$?"
check_match "--kernel unknown: message" "no kernel called 'no_such_kernel'" "$out"
out=$("$GPUMIX" -q report "$tmp/r.db" --run no.such.run 2>&1)
check_eq "--run unknown: exit 1" 1 "$?"
check_match "--run unknown: message" "no run 'no.such.run'" "$out"
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/k" --kernel 'GPU_FFT_Global(int, float2*, float2*, int)' \
	--run cutcp+fft.nss
check_eq "--kernel (demangled) and --run: exit 0" 0 "$?"
check_match "Fig. 7 shows the chosen kernel and run" \
	"GPU_FFT_Global in cutcp\+fft.nss" "$(cat "$tmp/k/figures/fig07-kernel.gp")"
"$GPUMIX" report "$tmp/r.db" --format xml >/dev/null 2>&1
check_eq "--format xml: usage error" 2 "$?"
"$GPUMIX" report "$tmp/r.db" --table nope >/dev/null 2>&1
check_eq "--table nope: usage error" 2 "$?"
"$GPUMIX" report "$tmp/r.db" --force >/dev/null 2>&1
check_eq "--force without -o: usage error" 2 "$?"

# No single runs: STP/ANTT are not computed, the rest is, exit 0.
"$gen" -o "$tmp/nosingle" --kernels 1000 --workloads 2 --variants cuda,nss >/dev/null
"$GPUMIX" -q analyze "$tmp/nosingle" -o "$tmp/nosingle.db"
out=$("$GPUMIX" report "$tmp/nosingle.db" -o "$tmp/nosingle-rep" 2>&1)
check_eq "no single runs: exit 0" 0 "$?"
check_match "no single runs: a clear note" \
	"note: run 'bfs\+cutcp.cuda': no \`single\` run of 'bfs', 'cutcp': STP and ANTT not computed" "$out"
check_match "no single runs: the note is in the index" "no \\\\\`single\\\\\` run of" \
	"$(cat "$tmp/nosingle-rep/index.md")"
check_match "no single runs: workloads table has n/a STP" "^bfs\+cutcp,2,cuda,,,[0-9.]+,1,1," \
	"$(cat "$tmp/nosingle-rep/tables/workloads.csv")"
check_match "no single runs: waiting time still there" "^cuda,[1-9][0-9]*,0\.0" \
	"$(cat "$tmp/nosingle-rep/tables/waiting.csv")"
check "no single runs: Fig. 10 not drawn, said why" \
	grep -q "Not drawn: Fig. 10: STP per workload, sorted: no values to plot" \
	"$tmp/nosingle-rep/index.md"
check "no single runs: Fig. 8 drawn" is_png "$tmp/nosingle-rep/figures/fig08-overlap.png"

# Quotes, a tab and non-ASCII in program and kernel names.
"$gen" -o "$tmp/odd" --kernels 600 --workloads 1 --odd-names >/dev/null
"$GPUMIX" -q analyze "$tmp/odd" -o "$tmp/odd.db"
check_eq "odd names: loaded" 0 "$?"
check_eq "odd names: program names intact" "o'brien \"q\"|ünï	code" \
	"$(sqlite3 "$tmp/odd.db" "SELECT group_concat(name, '|') FROM
	   (SELECT DISTINCT name FROM programs ORDER BY idx)")"
check_eq "odd names: kernel names intact" "kernel_\"quoted\"'s|kernel_ünïcode_é" \
	"$(sqlite3 "$tmp/odd.db" "SELECT group_concat(value, '|') FROM
	   (SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k
	    JOIN StringIds s ON s.id = k.shortName ORDER BY s.value)")"
"$GPUMIX" -q report "$tmp/odd.db" -o "$tmp/odd-rep"
check_eq "odd names: report drawn" 0 "$?"
check "odd names: timeline drawn" is_svg "$tmp/odd-rep/figures/timeline.svg"
check_match "odd names: CSV quotes the quote" '^"o'"'"'brien ""q""\+ünï	code",2,cuda,' \
	"$(cat "$tmp/odd-rep/tables/workloads.csv")"
check_match "odd names: Markdown keeps the text" "\| o'brien \"q\"\+ünï code \|" \
	"$(cat "$tmp/odd-rep/tables/workloads.md")"
check_match "odd names: gnuplot labels doubled quotes" "'o''brien \"q\" / stream [0-9]+' [0-9]" \
	"$(cat "$tmp/odd-rep/figures/timeline.gp")"

done_testing
