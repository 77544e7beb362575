#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a Chrome trace-event JSON file (doc/timeline.md) against the
format's rules and print what it holds, for the timeline tests.

usage: check_timeline.py [--causal] FILE.json

Parses FILE with python's json module (NaN and Infinity refused, as
JSON has none) and checks: a traceEvents array; only the phases gpumix
writes (X, i, s, f, M), no B/E; integer pid and tid; ts and dur numbers
in microseconds with at most nanosecond precision, dur >= 0; every
process and every thread with an event is named (M events); slices on a
thread nest properly (none starts inside another and ends after it); flow
arrows are pairs (one s and one f per id), the s inside a slice of its
thread, the f at the start of a slice of its thread. With --causal,
also that every arrow points forward in time (GPU work starts after the
call that launched it: true of any real timeline whose clocks are
aligned).

Prints, on success, lines "slices CAT COUNT TOTAL_NS", "range FIRST LAST"
(the earliest and latest slice start, ns), "instants N", "flows N" and
"other KEY VALUE" (otherData, JSON values) and exits 0;
prints "FILE: problem" lines and exits 1 otherwise.
"""
import decimal
import json
import sys


def ns(us):
    """Microseconds (a JSON number, read exactly) as integer ns, or None
    when it is finer than a nanosecond."""
    v = decimal.Decimal(us) * 1000
    return int(v) if v == v.to_integral_value() else None


def main():
    args = sys.argv[1:]
    causal = bool(args) and args[0] == "--causal"
    path = args[-1]
    problems = []

    def bad(msg):
        problems.append(msg)

    def refuse(c):
        raise ValueError("not JSON: %s" % c)

    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        doc = json.loads(text, parse_constant=refuse,
                         parse_float=decimal.Decimal)
    except (ValueError, UnicodeDecodeError) as e:
        print("%s: %s" % (path, e))
        return 1
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("%s: no traceEvents array" % path)
        return 1
    pnames, tnames = set(), set()
    used_p, used_t = set(), set()
    slices = {}        # (pid, tid) -> [(start, end)]
    per_cat = {}       # cat -> [count, total ns]
    flows = {}         # id -> {"s": ev, "f": ev}
    instants = 0
    for i, ev in enumerate(doc["traceEvents"]):
        where = "event %d" % i
        ph = ev.get("ph")
        pid, tid = ev.get("pid"), ev.get("tid")
        if type(pid) is not int or type(tid) is not int:
            bad("%s: pid and tid must be integers" % where)
            continue
        if ph == "M":
            if ev.get("name") == "process_name":
                pnames.add(pid)
            elif ev.get("name") == "thread_name":
                tnames.add((pid, tid))
            elif ev.get("name") not in ("process_sort_index", "thread_sort_index"):
                bad("%s: unknown metadata %r" % (where, ev.get("name")))
            continue
        if ph not in ("X", "i", "s", "f"):
            bad("%s: phase %r (only X, i, s, f, M are written)" % (where, ph))
            continue
        ts = ev.get("ts")
        if not isinstance(ts, (int, decimal.Decimal)) or ns(ts) is None or ts < 0:
            bad("%s: ts %r is not microseconds with ns precision" % (where, ts))
            continue
        if not isinstance(ev.get("name"), str) or not isinstance(ev.get("cat"), str):
            bad("%s: name and cat must be strings" % where)
        used_p.add(pid)
        if ph == "X":
            dur = ev.get("dur")
            if not isinstance(dur, (int, decimal.Decimal)) or ns(dur) is None or dur < 0:
                bad("%s: dur %r is not microseconds >= 0" % (where, dur))
                continue
            used_t.add((pid, tid))
            slices.setdefault((pid, tid), []).append((ns(ts), ns(ts) + ns(dur)))
            c = per_cat.setdefault(ev["cat"], [0, 0])
            c[0] += 1
            c[1] += ns(dur)
        elif ph == "i":
            instants += 1
            if ev.get("s") not in ("g", "p", "t"):
                bad("%s: instant scope %r" % (where, ev.get("s")))
        else:
            used_t.add((pid, tid))
            fid = ev.get("id")
            if fid is None:
                bad("%s: flow without id" % where)
                continue
            pair = flows.setdefault(fid, {})
            if ph in pair:
                bad("%s: second %s event of flow %r" % (where, ph, fid))
            pair[ph] = ev
            if ph == "f" and ev.get("bp") != "e":
                bad("%s: flow end without \"bp\": \"e\"" % where)
    for p in sorted(used_p - pnames):
        bad("process %d has no process_name" % p)
    for t in sorted(used_t - tnames):
        bad("thread %d/%d has no thread_name" % t)
    for key, sl in slices.items():
        sl.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, e in sl:
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and e > stack[-1]:
                bad("thread %d/%d: slice [%d, %d) ns overlaps its parent"
                    " ending at %d" % (key + (s, e, stack[-1])))
            stack.append(e)
    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            bad("flow %r: not one s and one f" % fid)
            continue
        s, f = pair["s"], pair["f"]
        t = ns(s["ts"])
        if not any(a <= t < max(b, a + 1) for a, b in
                   slices.get((s["pid"], s["tid"]), [])):
            bad("flow %r: its start is in no slice of %d/%d" %
                (fid, s["pid"], s["tid"]))
        if causal and ns(f["ts"]) < t:
            bad("flow %r: ends at %d ns, before it starts (%d ns)" %
                (fid, ns(f["ts"]), t))
        t = ns(f["ts"])
        if not any(a == t for a, _ in slices.get((f["pid"], f["tid"]), [])):
            bad("flow %r: its end starts no slice of %d/%d" %
                (fid, f["pid"], f["tid"]))
    if problems:
        for p in problems[:20]:
            print("%s: %s" % (path, p))
        return 1
    for cat in sorted(per_cat):
        print("slices %s %d %d" % (cat, per_cat[cat][0], per_cat[cat][1]))
    starts = [a for sl in slices.values() for a, _ in sl]
    if starts:
        print("range %d %d" % (min(starts), max(starts)))
    print("instants %d" % instants)
    print("flows %d" % len(flows))
    # otherData as plain JSON values (floats where it has fractions).
    for k, v in sorted(json.loads(text).get("otherData", {}).items()):
        print("other %s %s" % (k, json.dumps(v, sort_keys=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
