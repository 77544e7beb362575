#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Check a timeline written with --timeline-format hta as Holistic Trace
# Analysis reads Kineto's traces: the top-level schemaVersion,
# distributedInfo.rank and deviceProperties; the categories HTA selects
# on (cuda_runtime/cuda_driver calls, kernel, gpu_memcpy, gpu_memset);
# copies and memsets named Memcpy .../Memset (HTA's memory work by name);
# every GPU event with integer args correlation, stream and device, every
# call with correlation; each "ac2g" flow (s then f) carrying the
# correlation id of a call where it starts and of GPU work where it ends;
# and as many GPU slices, calls and arrows as the Chrome timeline of the
# same run. Prints "ok ..." or the problems.
# Usage: hta_check.py RUN.hta.json RUN.json
import collections
import json
import re
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
CALLS = {"cuda_runtime", "cuda_driver"}


def main():
    text = open(sys.argv[1]).read()
    doc = json.loads(text)
    chrome = json.load(open(sys.argv[2]))
    problems = []
    if doc.get("schemaVersion") != 1 or doc.get("distributedInfo", {}).get("rank") != 0:
        problems.append("no schemaVersion 1 or distributedInfo.rank 0")
    # HTA finds a file's rank by this pattern, line by line.
    if not re.search(r'"rank":\s+(\d+)', text):
        problems.append("no rank where HTA looks for it ('\"rank\": N')")
    if not doc.get("deviceProperties") or "id" not in doc["deviceProperties"][0]:
        problems.append("no deviceProperties")
    ev = doc["traceEvents"]
    cats = collections.Counter(e.get("cat") for e in ev if e["ph"] == "X")
    at = {}   # (pid, tid, ts) -> the correlation of the slice starting there
    for e in ev:
        if e["ph"] != "X":
            continue
        a = e.get("args", {})
        if e["cat"] in ("gpu_memcpy", "gpu_memset") and \
                not e["name"].startswith(("Memcpy", "Memset")):
            problems.append(f"{e['cat']} '{e['name']}' not named Memcpy/Memset")
        if e["cat"] in GPU:
            for k in ("correlation", "stream", "device"):
                if not isinstance(a.get(k), int):
                    problems.append(f"{e['cat']} '{e['name']}' without int arg {k}")
        elif e["cat"] in CALLS:
            if not isinstance(a.get("correlation"), int):
                problems.append(f"call '{e['name']}' without int arg correlation")
        elif e["cat"] != "replay":
            problems.append(f"category '{e['cat']}' is not one of HTA's")
        at[(e["pid"], e["tid"], e["ts"])] = (e["cat"], a.get("correlation"))
    flows = [e for e in ev if e["ph"] in "sf"]
    for e in flows:
        if e["cat"] != "ac2g":
            problems.append(f"a flow of category {e['cat']}")
    starts = {e["id"]: e for e in flows if e["ph"] == "s"}
    for f in (e for e in flows if e["ph"] == "f"):
        s = starts.get(f["id"])
        if s is None:
            problems.append(f"flow {f['id']} ends without a start")
            continue
        # The start lies inside its call (bound to the enclosing slice);
        # the end is where the GPU work starts (bp e).
        gpu = at.get((f["pid"], f["tid"], f["ts"]))
        if not gpu or gpu[0] not in GPU or gpu[1] != f["id"]:
            problems.append(f"flow {f['id']} does not end at GPU work of that correlation")
        calls = [c for (p, t, ts), c in at.items()
                 if p == s["pid"] and t == s["tid"] and c[0] in CALLS and c[1] == s["id"]]
        if not calls:
            problems.append(f"flow {s['id']} does not start at a call of that correlation")
    want = collections.Counter(e.get("cat") for e in chrome["traceEvents"] if e["ph"] == "X")
    ngpu = sum(cats[c] for c in GPU)
    if ngpu != want["kernel"] + want["memcpy"] + want["memset"] or \
            sum(cats[c] for c in CALLS) != want["api"]:
        problems.append(f"categories {dict(cats)}, the Chrome timeline's {dict(want)}")
    arrows = sum(1 for e in chrome["traceEvents"] if e["ph"] == "s")
    if len(starts) != arrows:
        problems.append(f"{len(starts)} ac2g flows, the Chrome timeline's {arrows}")
    if problems:
        print("\n".join(problems[:10]))
    else:
        print(f"ok {ngpu} GPU slices, {sum(cats[c] for c in CALLS)} calls,"
              f" {len(starts)} flows")


main()
