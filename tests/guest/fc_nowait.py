#!/usr/bin/env python3
"""fc_nowait.py read|write DEVICE OFFSET TAG [nowait]

One 4 KiB O_DIRECT read or write at byte OFFSET of DEVICE, with
RWF_NOWAIT (preadv2/pwritev2) when the last argument is "nowait".  The
block's content is TAG (a word) and OFFSET in every 16-byte cell, so a
block read back names what it holds.

write: writes TAG's block.  read: reads the block and compares it with
TAG's; TAG "-" prints what the block holds instead ("tag OFFSET").
Prints "ok", or "again" (EAGAIN: a REQ_NOWAIT bio the device would
have had to wait for), or "errno N"; exits 0 for ok, 11 for again, 1
for anything else (a mismatch prints "mismatch: holds TAG2 OFFSET2").
A test of REQ_NOWAIT (tests/guest/fc_nowait.sh)."""
import errno
import mmap
import os
import struct
import sys

BS = 4096


def cell(tag, off):
    return struct.pack("<8sQ", tag.encode()[:8].ljust(8, b"."), off)


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("read", "write"):
        print(__doc__, file=sys.stderr)
        return 2
    op, dev, off, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    flags = os.RWF_NOWAIT if len(sys.argv) > 5 and sys.argv[5] == "nowait" else 0
    buf = mmap.mmap(-1, BS)
    fd = os.open(dev, (os.O_RDWR if op == "write" else os.O_RDONLY) | os.O_DIRECT)
    try:
        if op == "write":
            buf.write(cell(tag, off) * (BS // 16))
            n = os.pwritev(fd, [buf], off, flags)
        else:
            n = os.preadv(fd, [buf], off, flags)
    except OSError as e:
        if e.errno == errno.EAGAIN:
            print("again")
            return 11
        print("errno %d (%s)" % (e.errno, os.strerror(e.errno)))
        return 1
    finally:
        os.close(fd)
    if n != BS:
        print("short: %d" % n)
        return 1
    if op == "read":
        got = bytes(buf[:BS])
        held, where = struct.unpack("<8sQ", got[:16])
        held = held.decode(errors="replace").rstrip(".")
        if tag == "-":
            print("tag %s %d" % (held, where))
            return 0
        if got != cell(tag, off) * (BS // 16):
            print("mismatch: holds %s %d" % (held, where))
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
