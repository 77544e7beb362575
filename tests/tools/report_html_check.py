#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Check the structure of a report's index.html against its tables.json
# with Python's html.parser: every table of the report appears as an
# <h2 id="NAME"> followed by a <div class="scroll"> holding a <table>
# whose header has the table's columns less those n/a in every row (and
# interval bounds, which the page shows inside their column), and no
# link goes to a Markdown file. Prints "ok", or one line per problem.
# Usage: report_html_check.py index.html tables.json
import json
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables = {}        # heading id -> list of header cells
        self.heading = None     # the last <h2>'s id
        self.in_scroll = 0      # depth inside div.scroll
        self.stack = []
        self.in_th = False
        self.th = ""
        self.current = None
        self.problems = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2":
            self.heading = a.get("id")
        if tag == "div":
            self.stack.append(a.get("class") == "scroll")
            self.in_scroll += self.stack[-1]
        if tag == "a" and a.get("href", "").endswith(".md"):
            self.problems.append("a link to Markdown: " + a["href"])
        if tag == "table":
            if not self.in_scroll:
                self.problems.append(f"table under '{self.heading}' is not"
                                     " in a scrolling box")
            self.current = []
            self.tables[self.heading] = self.current
        if tag == "th":
            self.in_th = True
            self.th = ""

    def handle_endtag(self, tag):
        if tag == "div" and self.stack:
            self.in_scroll -= self.stack.pop()
        if tag == "th":
            self.in_th = False
            self.current.append(self.th)

    def handle_data(self, data):
        if self.in_th:
            self.th += data


def main():
    page = Page()
    with open(sys.argv[1], encoding="utf-8") as f:
        page.feed(f.read())
    with open(sys.argv[2], encoding="utf-8") as f:
        doc = json.load(f)
    problems = page.problems
    for t in doc["tables"]:
        shown = page.tables.get(t["name"])
        if shown is None:
            problems.append(f"table '{t['name']}' is not on the page")
            continue
        ncols = len(t["labels"]) - sum(1 for l in t["labels"]
                                       if l.endswith(" lo") or l.endswith(" hi"))
        want = []
        for i, label in enumerate(t["labels"][:ncols]):
            empty = all(r[i] is None or r[i] in ("", "n/a") for r in t["rows"])
            if not (t["rows"] and empty):
                want.append(label)
        if shown != want:
            problems.append(f"table '{t['name']}' shows {shown}, not {want}")
    print("\n".join(problems) if problems else "ok")


main()
