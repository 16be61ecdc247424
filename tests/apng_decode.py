#!/usr/bin/env python3
# apng_decode.py — an independent APNG reader for crumple's animation tests.
#
#   python3 tests/apng_decode.py IN.png OUT.raw
#
# Checks the signature, every chunk CRC, the chunk order (IHDR, acTL before
# the first IDAT, one fcTL before each frame's data), that fcTL/fdAT sequence
# numbers run 0, 1, 2, ... without gaps, and that acTL's frame count matches
# the frames found; inflates each frame with Python's zlib, undoes the row
# filters and appends the raw RGB frames to OUT.raw. Prints
# "WIDTH HEIGHT FRAMES DELAY_NUM DELAY_DEN" on success; any problem goes to
# stderr with exit 1.
import struct
import sys
import zlib

from png_decode import unfilter  # the same row filters as a still PNG


def fail(msg):
    sys.stderr.write("apng_decode: %s\n" % msg)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        fail("usage: apng_decode.py IN.png OUT.raw")
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("bad signature")
    pos, header, actl, seq, frames, current, delay = 8, None, None, 0, [], None, None
    while pos < len(data):
        if pos + 12 > len(data):
            fail("truncated chunk at %d" % pos)
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            fail("CRC mismatch in %r chunk" % kind)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"acTL":
            if frames or current is not None:
                fail("acTL after frame data")
            actl = struct.unpack(">II", body)
        elif kind == b"fcTL":
            s, w, h, x, y, dn, dd, dispose, blend = struct.unpack(">IIIIIHHBB", body)
            if s != seq:
                fail("fcTL sequence %d, expected %d" % (s, seq))
            seq += 1
            if header is None or (w, h, x, y) != (header[0], header[1], 0, 0):
                fail("frame region %r is not the whole image" % ((w, h, x, y),))
            if current is not None:
                frames.append(current)
            current = b""
            delay = (dn, dd)
        elif kind == b"IDAT":
            if actl is None or current is None or frames:
                fail("IDAT without acTL and fcTL first, or after frame 0")
            current += body
        elif kind == b"fdAT":
            (s,) = struct.unpack(">I", body[:4])
            if s != seq:
                fail("fdAT sequence %d, expected %d" % (s, seq))
            seq += 1
            if current is None or not frames and current == b"":
                fail("fdAT without fcTL, or in frame 0")
            current += body[4:]
        elif kind == b"IEND":
            if current is not None:
                frames.append(current)
                current = None
        pos += 12 + n
    if header is None or actl is None:
        fail("missing IHDR or acTL")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour != 2 or interlace != 0:
        fail("unsupported format %r" % (header,))
    if actl[0] != len(frames):
        fail("acTL says %d frames, found %d" % (actl[0], len(frames)))
    with open(sys.argv[2], "wb") as out:
        for f in frames:
            try:
                out.write(unfilter(zlib.decompress(f), width, height, 3))
            except ValueError as e:
                fail(str(e))
    print(width, height, len(frames), delay[0], delay[1])


main()
