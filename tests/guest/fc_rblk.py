#!/usr/bin/env python3
"""fc_rblk.py DEVICE BLOCK_BYTES OP...: read blocks of DEVICE with O_DIRECT,
one at a time, each after the one before completed, in one process, so the
time between two reads is what the test says: an OP is a block number
(read it) or sN (sleep N seconds, a decimal).  tests/guest/fc_counters.sh
times the reads of a range scan against the read-ahead's windows with it."""
import mmap
import os
import sys
import time


def main():
    dev, bs = sys.argv[1], int(sys.argv[2])
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, bs)
    for op in sys.argv[3:]:
        if op.startswith("s"):
            time.sleep(float(op[1:]))
            continue
        n = os.preadv(fd, [buf], int(op) * bs)
        if n != bs:
            sys.exit("fc_rblk.py: block %s: short read (%d)" % (op, n))
    os.close(fd)


if __name__ == "__main__":
    main()
