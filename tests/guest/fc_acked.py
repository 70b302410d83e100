#!/usr/bin/env python3
"""fc_acked.py write DEVICE LOG STOPFILE BLOCKS SEED [MAX]
   fc_acked.py check DEVICE LOG BLOCKS

write: a database-like writer: 4 KiB O_DIRECT writes to random blocks of
the first BLOCKS 4 KiB blocks of DEVICE, each followed by fdatasync();
write n (numbered on from the last one LOG holds) holds (n, block) and a CRC-32 of its words in every 512-byte
sector.  Only after the fdatasync returns is the line "n block ms" (ms: the
write and the sync together) appended to LOG (an O_APPEND file, on the
/results share of tests/vm/two-hosts.sh: on the host as soon as write()
returns, so a power cut of this guest keeps it).  Stops when STOPFILE
exists or after MAX writes; prints "writes N max_ms M".

check: for each block the log names, the last acknowledged write n; the
block must hold a write m >= n for that block, whole in all eight sectors
(a later write was in flight: either is right).  Prints "acked N blocks B lost L
torn T" and the first few bad blocks; exits 1 when L + T > 0."""
import mmap
import os
import random
import struct
import sys
import time
import zlib

BS = 4096
SECT = 512


def parse(data, blk):
    """The write number a block holds, None if it is not one whole write."""
    ns = set()
    for s in range(BS // SECT):
        sec = data[s * SECT:(s + 1) * SECT]
        body = sec[:SECT - 4]
        crc = struct.unpack("<I", sec[SECT - 4:])[0]
        # the CRC covers the first SECT - 4 bytes
        if zlib.crc32(body) != crc:
            return None
        n, b, i = struct.unpack("<QQI", body[:20])
        if b != blk or i != s:
            return None
        ns.add(n)
    return ns.pop() if len(ns) == 1 else None


def make(n, blk):
    out = bytearray()
    for s in range(BS // SECT):
        body = struct.pack("<QQI", n, blk, s) + bytes(SECT - 4 - 20)
        out += body + struct.pack("<I", zlib.crc32(body))
    return bytes(out)


def last_n(log):
    n = 0
    try:
        with open(log) as f:
            for line in f:
                w = line.split()
                if len(w) == 3:
                    n = max(n, int(w[0]))
    except FileNotFoundError:
        pass
    return n


def write(dev, log, stop, blocks, seed, most):
    rng = random.Random(seed)
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    lf = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    buf = mmap.mmap(-1, BS)
    # numbers go on from the log's (an earlier writer's, on another host):
    # past its last one and the write it may have had in flight
    n = first = last_n(log) + 100
    worst = 0.0
    while not os.path.exists(stop) and (most == 0 or n - first < most):
        n += 1
        blk = rng.randrange(blocks)
        buf.seek(0)
        buf.write(make(n, blk))
        t = time.monotonic()
        if os.pwritev(fd, [buf], blk * BS) != BS:
            sys.exit("fc_acked.py: short write")
        os.fdatasync(fd)
        ms = (time.monotonic() - t) * 1000.0
        worst = max(worst, ms)
        os.write(lf, b"%d %d %.3f\n" % (n, blk, ms))
    print("writes %d max_ms %.1f" % (n - first, worst))


def check(dev, log, blocks):
    last = {}
    acked = 0
    with open(log) as f:
        for line in f:
            w = line.split()
            if len(w) != 3:
                continue        # a line cut by the power cut: not acked
            n, blk = int(w[0]), int(w[1])
            acked += 1
            if blk < blocks:
                last[blk] = max(n, last.get(blk, 0))
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BS)
    lost, torn, bad = 0, 0, []
    for blk in sorted(last):
        if os.preadv(fd, [buf], blk * BS) != BS:
            sys.exit("fc_acked.py: short read")
        got = parse(bytes(buf), blk)
        if got is None:
            torn += 1
            bad.append("%d:torn" % blk)
        elif got < last[blk]:
            lost += 1
            bad.append("%d:%d<%d" % (blk, got, last[blk]))
    print("acked %d blocks %d lost %d torn %d%s" % (
        acked, len(last), lost, torn, (" " + " ".join(bad[:8])) if bad else ""))
    sys.exit(1 if lost + torn else 0)


def main():
    a = sys.argv[1:]
    if len(a) >= 6 and a[0] == "write":
        write(a[1], a[2], a[3], int(a[4]), int(a[5]), int(a[6]) if len(a) > 6 else 0)
    elif len(a) == 4 and a[0] == "check":
        check(a[1], a[2], int(a[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
