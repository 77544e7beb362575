#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Load a report's tables the way a script does, with python's csv and
# json modules, and check that they agree: tables.json (or a `gpumix
# report --format json` document) against tables/NAME.csv of the same
# report. Each table: keys in snake_case (no spaces, units or
# parentheses in a name), unique, the CSV header equal to the JSON
# "columns", as many rows, and every value the same (a number within the
# CSV's 9 significant digits, text equal, a missing value empty in CSV
# and null in JSON). Prints "ok N tables, M cells", or the problems.
# Usage: report_formats_check.py tables.json TABLES_DIR
import csv
import json
import math
import os
import re
import sys

KEY = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    problems, cells = [], 0
    for t in doc["tables"]:
        name, cols = t["name"], t["columns"]
        if len(set(cols)) != len(cols):
            problems.append(f"{name}: duplicate keys {cols}")
        for c in cols:
            if not KEY.match(c):
                problems.append(f"{name}: key '{c}' is not snake_case")
        if len(t["labels"]) != len(cols):
            problems.append(f"{name}: {len(t['labels'])} labels for"
                            f" {len(cols)} columns")
        with open(os.path.join(sys.argv[2], name + ".csv"), newline="",
                  encoding="utf-8") as f:
            rows = list(csv.reader(f))
        if rows[0] != cols:
            problems.append(f"{name}: CSV header {rows[0]} is not {cols}")
        if len(rows) - 1 != len(t["rows"]):
            problems.append(f"{name}: {len(rows) - 1} CSV rows,"
                            f" {len(t['rows'])} JSON rows")
        for r, (c_row, j_row) in enumerate(zip(rows[1:], t["rows"])):
            if len(c_row) != len(cols) or len(j_row) != len(cols):
                problems.append(f"{name} row {r}: {len(c_row)} CSV and"
                                f" {len(j_row)} JSON cells")
                continue
            for k, (c, j) in enumerate(zip(c_row, j_row)):
                cells += 1
                if j is None:
                    ok = c == ""
                elif isinstance(j, str):
                    ok = c == j
                elif isinstance(j, bool):
                    ok = False
                else:
                    ok = c != "" and math.isclose(float(c), j, rel_tol=1e-8,
                                                  abs_tol=1e-300)
                if not ok:
                    problems.append(f"{name} row {r} {cols[k]}: CSV '{c}',"
                                    f" JSON {j!r}")
    if problems:
        print("\n".join(problems[:20]))
    else:
        print(f"ok {len(doc['tables'])} tables, {cells} cells")


main()
