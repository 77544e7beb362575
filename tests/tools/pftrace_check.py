#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Decode a Perfetto .pftrace written by gpumix with a protobuf wire-format
# decoder written here (no protobuf package needed) and check it against
# the Chrome JSON timeline of the same run: the Trace is nothing but
# TracePackets (field 1), each on trusted sequence 1 with a
# TrackDescriptor (field 60) or a timestamped TrackEvent (field 11);
# every event's track was described first; slices begin and end in pairs
# on their track; per category as many slices as the JSON has X events;
# each flow id starts once and ends once, as many as the JSON's arrows;
# kernels carry their annotations; the "gpumix" instant holds origin_ns
# as the JSON's otherData does. Prints "ok ..." or the problems.
# Usage: pftrace_check.py RUN.pftrace RUN.json
import collections
import json
import struct
import sys


def fields(buf):
    """(field number, wire type, value) of each field of message @buf."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v = struct.unpack_from("<Q", buf, i)[0]
            i += 8
        elif wt == 2:
            n, i = varint(buf, i)
            v = buf[i:i + n]
            if len(v) != n:
                raise ValueError(f"field {num}: {n} bytes, {len(v)} left")
            i += n
        elif wt == 5:
            v = struct.unpack_from("<I", buf, i)[0]
            i += 4
        else:
            raise ValueError(f"field {num}: wire type {wt}")
        out.append((num, wt, v))
    return out


def varint(buf, i):
    v = shift = 0
    while True:
        if i >= len(buf):
            raise ValueError("a varint runs past the end")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def one(fs, num):
    vals = [v for n, _, v in fs if n == num]
    return vals[0] if vals else None


def annotation(buf):
    fs = fields(buf)
    name = one(fs, 10).decode()
    for num in (2, 4, 5, 6):
        v = one(fs, num)
        if v is not None:
            if num == 4:
                v = v - (1 << 64) if v >= 1 << 63 else v
            elif num == 5:
                v = struct.unpack("<d", struct.pack("<Q", v))[0]
            elif num == 6:
                v = v.decode()
            else:
                v = bool(v)
            return name, v
    return name, None


def main():
    data = open(sys.argv[1], "rb").read()
    doc = json.load(open(sys.argv[2]))
    problems = []
    tracks, open_slices = {}, collections.Counter()
    slices, starts, ends = collections.Counter(), [], []
    info, kernels_ok, kernels = None, 0, 0
    packets = fields(data)
    for num, wt, p in packets:
        if num != 1 or wt != 2:
            problems.append(f"a Trace field {num} (wire type {wt})")
            continue
        pf = fields(p)
        if one(pf, 10) != 1:
            problems.append("a packet off trusted sequence 1")
        td, te = one(pf, 60), one(pf, 11)
        if td is not None:
            tf = fields(td)
            uuid = one(tf, 1)
            proc = one(tf, 3)
            name = one(tf, 2) or (proc and one(fields(proc), 6))
            parent = one(tf, 5)
            if parent is not None and parent not in tracks:
                problems.append(f"track {uuid}: parent {parent} not described")
            tracks[uuid] = name.decode() if name else ""
            continue
        if te is None or one(pf, 8) is None:
            problems.append("a packet with neither a descriptor nor a timed event")
            continue
        ef = fields(te)
        kind, track = one(ef, 9), one(ef, 11)
        if track not in tracks:
            problems.append(f"an event on undescribed track {track}")
        cat = one(ef, 22)
        args = dict(annotation(v) for n, _, v in ef if n == 4)
        starts += [v for n, _, v in ef if n == 47]
        ends += [v for n, _, v in ef if n == 48]
        if kind == 1:
            open_slices[track] += 1
            slices[cat.decode()] += 1
            if cat == b"kernel":
                kernels += 1
                kernels_ok += "grid" in args and isinstance(args.get("correlation_id"), int)
        elif kind == 2:
            open_slices[track] -= 1
            if open_slices[track] < 0:
                problems.append(f"a slice ends on track {track} before it began")
        elif kind == 3 and cat == b"gpumix":
            info = args
    if any(open_slices.values()):
        problems.append("slices left open")
    want = collections.Counter(e["cat"] for e in doc["traceEvents"] if e["ph"] == "X")
    if slices != want:
        problems.append(f"slices per category {dict(slices)}, the JSON's {dict(want)}")
    arrows = sum(1 for e in doc["traceEvents"] if e["ph"] == "s")
    if sorted(starts) != sorted(ends) or len(set(starts)) != len(starts):
        problems.append("flow ids do not start and end once each")
    if len(starts) != arrows:
        problems.append(f"{len(starts)} flows, the JSON's {arrows}")
    if kernels_ok != kernels:
        problems.append(f"{kernels - kernels_ok} of {kernels} kernels without"
                        " their grid or correlation_id annotations")
    if not info or info.get("origin_ns") != doc["otherData"]["origin_ns"]:
        problems.append(f"the gpumix instant's origin_ns {info and info.get('origin_ns')}")
    if problems:
        print("\n".join(problems[:10]))
    else:
        print(f"ok {len(packets)} packets, {len(tracks)} tracks,"
              f" {sum(slices.values())} slices, {len(starts)} flows")


main()
