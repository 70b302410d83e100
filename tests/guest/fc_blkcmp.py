#!/usr/bin/env python3
"""fc_blkcmp.py DEVICE EXPECTED BLOCK_BYTES: read DEVICE block by block with
O_DIRECT, as far as the file EXPECTED goes, and compare each block with
EXPECTED's.  A block reads back exactly (ok), fails with an I/O error (eio),
or returns other data (bad; zero: bad and all zeros).  Prints
"ok N eio N bad N zero N" and the first bad block numbers; exits 0 when no
block is bad.  An error is an honest answer for a block whose only copy is
unreadable; other data never is (tests/guest/fc_mirror_faults.sh)."""
import errno
import mmap
import os
import sys


def main():
    dev, exp, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(exp, "rb") as f:
        want = f.read()
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, bs)
    ok = eio = bad = zero = 0
    first = []
    zeros = bytes(bs)
    for b in range(len(want) // bs):
        try:
            n = os.preadv(fd, [buf], b * bs)
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            eio += 1
            continue
        got = buf[:n]
        if n == bs and got == want[b * bs:(b + 1) * bs]:
            ok += 1
            continue
        bad += 1
        zero += got == zeros
        if len(first) < 8:
            first.append(b)
    os.close(fd)
    print("ok %d eio %d bad %d zero %d%s" % (ok, eio, bad, zero,
          " first bad blocks %s" % first if first else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
