#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Count the pixels of a PNG that are not (nearly) white, to tell a
rendered page from a blank one.

usage: png_ink.py FILE.png

Reads 8-bit RGB or RGBA, non-interlaced PNGs (what Chromium's
--screenshot writes) with the standard library only: the IDAT chunks
inflated with zlib, each scanline unfiltered (filters 0-4 of the PNG
specification). A pixel is ink when a colour channel is below 240.
Prints "WIDTH HEIGHT INK"; exits 1 on a file it cannot read.
"""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        print("%s: not a PNG file" % sys.argv[1])
        return 1
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if not hdr:
        print("%s: no IHDR chunk" % sys.argv[1])
        return 1
    width, height, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        print("%s: only 8-bit RGB(A) non-interlaced PNGs are read" % sys.argv[1])
        return 1
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    prev = bytearray(stride)
    ink = 0
    for y in range(height):
        off = y * (stride + 1)
        ftype = raw[off]
        line = bytearray(raw[off + 1:off + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xff
            elif ftype == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 0xff
        for i in range(0, stride, bpp):
            if min(line[i], line[i + 1], line[i + 2]) < 240:
                ink += 1
        prev = line
    print("%d %d %d" % (width, height, ink))
    return 0


if __name__ == "__main__":
    sys.exit(main())
