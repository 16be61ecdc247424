#!/usr/bin/env python3
# png_decode.py — an independent PNG reader for crumple's PNG tests.
#
#   python3 tests/png_decode.py IN.png OUT.raw
#
# Checks the signature and every chunk CRC, inflates the IDAT stream with
# Python's zlib (a decoder we did not write), undoes the row filters, and
# writes the raw 8-bit pixels (rows top to bottom, no padding) to OUT.raw.
# Prints "WIDTH HEIGHT CHANNELS" on success; on any problem prints the reason
# to stderr and exits 1, so the C test can tell a bad file from a good one.
import struct
import sys
import zlib


def fail(msg):
    sys.stderr.write("png_decode: %s\n" % msg)
    sys.exit(1)


def unfilter(raw, width, height, bpp):
    """Undoes PNG's row filters (also used by apng_decode.py); ValueError on bad data."""
    stride = width * bpp
    if len(raw) != (stride + 1) * height:
        raise ValueError("inflated %d bytes, expected %d" % (len(raw), (stride + 1) * height))
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        base = y * (stride + 1)
        f = raw[base]
        row = bytearray(raw[base + 1:base + 1 + stride])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 0:
                pred = 0
            elif f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) >> 1
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
            else:
                raise ValueError("bad filter %d on row %d" % (f, y))
            row[i] = (row[i] + pred) & 255
        out += row
        prev = row
    return out


def main():
    if len(sys.argv) != 3:
        fail("usage: png_decode.py IN.png OUT.raw")
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("bad signature")
    pos, idat, header, seen_end = 8, b"", None, False
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
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            seen_end = True
        pos += 12 + n
    if header is None or not seen_end:
        fail("missing IHDR or IEND")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace != 0 or colour not in (0, 2, 6):
        fail("unsupported format %r" % (header,))
    bpp = {0: 1, 2: 3, 6: 4}[colour]
    try:
        out = unfilter(zlib.decompress(idat), width, height, bpp)
    except ValueError as e:
        fail(str(e))
    open(sys.argv[2], "wb").write(bytes(out))
    print("%d %d %d" % (width, height, bpp))


if __name__ == "__main__":
    main()
