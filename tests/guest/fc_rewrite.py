#!/usr/bin/env python3
"""fc_rewrite.py write DEVICE STOPFILE STEP COUNT
   fc_rewrite.py check DEVICE ROUND STEP COUNT

write: rounds of COUNT 4 KiB O_DIRECT writes at byte offsets 0, STEP,
2*STEP, ... of DEVICE, round r's block k holding (r, k) in every 8-byte
word, until STOPFILE exists (checked between rounds, so every block holds
the last round when it returns); prints "first round written" once it
is, "rounds R" at the end.  A rewriter of the same
blocks again and again, as a database's hot pages are, while a test changes
the cache under it (tests/guest/ctl_inplace.sh: disable during writeback).

check: read the COUNT blocks back with O_DIRECT and compare them with round
ROUND; prints "stale N" (blocks holding anything else, the first few named)
and exits 1 when N > 0."""
import mmap
import os
import struct
import sys

BS = 4096


def fill(buf, rnd, k):
    word = struct.pack("<II", rnd, k)
    buf.seek(0)
    buf.write(word * (BS // len(word)))


def write(dev, stop, step, count):
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BS)
    rnd = 0
    while True:
        rnd += 1
        for k in range(count):
            fill(buf, rnd, k)
            if os.pwritev(fd, [buf], k * step) != BS:
                sys.exit("fc_rewrite.py: short write")
        if rnd == 1:
            print("first round written", flush=True)
        if os.path.exists(stop):
            break
    os.fsync(fd)
    os.close(fd)
    print("rounds %d" % rnd)


def check(dev, rnd, step, count):
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BS)
    want = mmap.mmap(-1, BS)
    stale = []
    for k in range(count):
        if os.preadv(fd, [buf], k * step) != BS:
            sys.exit("fc_rewrite.py: short read")
        fill(want, rnd, k)
        if buf[:] != want[:]:
            got = struct.unpack("<II", buf[:8])
            stale.append("block %d holds round %d (of %d)" % (k, got[0], rnd))
    os.close(fd)
    print("stale %d%s" % (len(stale), (": " + "; ".join(stale[:4])) if stale else ""))
    return 1 if stale else 0


def main():
    a = sys.argv
    if len(a) == 6 and a[1] == "write":
        write(a[2], a[3], int(a[4]), int(a[5]))
        return 0
    if len(a) == 6 and a[1] == "check":
        return check(a[2], int(a[3]), int(a[4]), int(a[5]))
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
