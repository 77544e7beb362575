#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix report -o writes index.html beside index.md: one page with every
# table (as an HTML table, no raw Markdown linked) and every figure's SVG
# inline, needing nothing from the network (no scripts, styles or images
# fetched; every link a file of the report or an anchor of the page).
# Python's html.parser checks the structure: each table of tables.json
# under its heading, inside a box that scrolls, columns n/a in every row
# left out. Headless Chromium renders it: the screenshot is not blank,
# the page logs nothing on the console, and the page is no wider than the
# window (a wide table scrolls in its box). The same checks fail on a
# blank page, on one that logs an error and on the page without its
# scrolling boxes, so they can fail. Without chromium the rendering is a
# visible skip (CI installs it: .ci/run).
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
gen=$GPUMIX_BUILD/bench/gen_study

"$gen" -o "$tmp/runs" --kernels 2000 --workloads 2 >/dev/null
"$GPUMIX" -q analyze "$tmp/runs" -o "$tmp/r.db"
check_eq "load a generated study" 0 "$?"
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/rep" --timeline-max 50
check_eq "report -o: exit 0" 0 "$?"
html=$tmp/rep/index.html
check "index.html is written beside index.md" test -s "$html" -a -s "$tmp/rep/index.md"
page=$(cat "$html")
check_match "an HTML5 page in UTF-8" '^<!DOCTYPE html>' "$page"
check_match "the summary table, inline" '<h2 id="summary">Summary \(paper Table 4\)</h2>' "$page"
check_match "numbers in right-aligned cells" '<td class="num">[0-9]' "$page"
nfig=$(ls "$tmp/rep/figures/"*.svg | wc -l)
check_eq "every figure's SVG inline ($nfig)" "$nfig" "$(grep -c '^<svg' "$html")"
check_eq "no XML prolog inside the page" "" "$(grep -n '<?xml' "$html")"
check_eq "nothing fetched: no script, src or stylesheet link" "" \
	"$(grep -nE '<script|src=|<link' "$html")"
missing=0
while read -r href; do
	case $href in
	https://*|http://*) missing=$((missing + 1)) ;;
	'#'*) grep -q "id=\"${href#\#}\"" "$html" || missing=$((missing + 1)) ;;
	*) test -e "$tmp/rep/$href" || missing=$((missing + 1)) ;;
	esac
done < <(grep -oE 'href="[^"]*"' "$html" | sed 's/^href="//; s/"$//' | sed 's/&amp;/\&/g')
check_eq "every link is a file of the report or an anchor of the page" 0 "$missing"
check_eq "no link to a raw Markdown table" "" "$(grep -oE 'href="[^"]*\.md"' "$html")"
check_eq "the page's structure: every table shown, in a scrolling box" "ok" \
	"$(python3 tests/tools/report_html_check.py "$html" "$tmp/rep/tables.json" 2>&1)"
# The check can fail: a page that lost a table.
sed 's|<h2 id="paper">|<h2 id="not-paper">|' "$html" >"$tmp/lost.html"
check_match "the structure check sees a lost table" "paper" \
	"$(python3 tests/tools/report_html_check.py "$tmp/lost.html" "$tmp/rep/tables.json" 2>&1)"
"$GPUMIX" -q report "$tmp/r.db" -o "$tmp/nofig" --no-figures --no-timelines
check "--no-figures: index.html says so" grep -q 'Not drawn (--no-figures)' "$tmp/nofig/index.html"

chromium=$(command -v chromium || command -v chromium-browser)
if [ -z "$chromium" ]; then
	skip "chromium is not installed: index.html not rendered (apt-get install chromium)"
	done_testing
	exit 0
fi
render() { # render FILE.html SHOT.png LOG: headless, no network, own profile
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/profile-$$-$RANDOM" --no-first-run \
		--proxy-server=127.0.0.1:9 --window-size=1000,1400 \
		--virtual-time-budget=3000 --enable-logging=stderr --v=0 \
		--screenshot="$2" "file://$1" >"$3" 2>&1
}
ink() { python3 tests/tools/png_ink.py "$1" | awk '{print $3}'; }

render "$html" "$tmp/shot.png" "$tmp/chromium.log"
check_eq "chromium renders index.html" 0 "$?"
check "a screenshot was written" test -s "$tmp/shot.png"
n=$(ink "$tmp/shot.png")
check "the screenshot is not blank ($n of 1400000 pixels inked)" test "${n:-0}" -gt 20000
check_eq "no console messages" "" "$(grep 'CONSOLE' "$tmp/chromium.log")"
mkdir -p "$GPUMIX_BUILD/tests/out" && cp "$tmp/shot.png" "$GPUMIX_BUILD/tests/out/report_html.png"

# How far the page scrolls sideways, measured by a script added to a copy
# (the page itself has none), read back from the DOM chromium dumps.
overflow() { # overflow FILE.html: pixels the page is wider than the window
	local probe='<script>addEventListener("load",function(){var d=document.documentElement;document.body.setAttribute("data-overflow",String(d.scrollWidth-d.clientWidth))})</script>'
	sed "s|</body>|$probe</body>|" "$1" >"$1.probe.html"
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/profile-$$-$RANDOM" --no-first-run \
		--proxy-server=127.0.0.1:9 --window-size=1000,1400 \
		--virtual-time-budget=3000 --dump-dom "file://$1.probe.html" 2>/dev/null |
		sed -n 's/.*data-overflow="\([0-9-]*\)".*/\1/p'
}
check_eq "the page does not scroll sideways (wide tables scroll in their box)" \
	0 "$(overflow "$html")"
sed 's/div.scroll{overflow-x:auto;/div.scroll{/' "$html" >"$tmp/noscroll.html"
n=$(overflow "$tmp/noscroll.html")
check "without the scrolling boxes the page is wider than the window ($n px)" \
	test "${n:-0}" -gt 0

# The checks can fail: a blank page, and a page that logs an error.
printf '<!DOCTYPE html><html><body></body></html>\n' >"$tmp/blank.html"
render "$tmp/blank.html" "$tmp/blank.png" "$tmp/blank.log"
n=$(ink "$tmp/blank.png")
check "a blank page counts as blank ($n pixels inked)" test "${n:-1}" -lt 100
printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("boom")</script></body></html>\n' \
	>"$tmp/noisy.html"
render "$tmp/noisy.html" "$tmp/noisy.png" "$tmp/noisy.log"
check_match "a console error is seen" 'CONSOLE.*"boom"' "$(cat "$tmp/noisy.log")"

done_testing
