#!/usr/bin/env python3
"""Writer and checker of tests/guest/fc_ordered.sh (ordered write-back).

  ord_writer.py write DEV LOG NWRITES NBLOCKS SEED
      NWRITES 4 KiB writes, O_DIRECT|O_DSYNC (each its own flush point:
      REQ_FUA), one at a time, to the first 4 KiB of 32 KiB block b of DEV
      (b random below NBLOCKS); every 7th write is followed by an
      fdatasync.  Appends "seq block" to LOG before each write (seq
      goes on from the writes LOG holds already).
  ord_writer.py check IMAGE LOG NBLOCKS [--final]
      IMAGE (the origin alone, or a read of the volume) must equal the
      state after some write E (E = 0: none yet) plus perhaps write E+1:
      prints "consistent at E of N" or "torn: ..." (exit 1).  --final:
      only E = N (every write) will do.
"""
import mmap
import os
import random
import struct
import sys

BS = 4096
STRIDE = 32768


def content(seq, block):
    head = struct.pack("<QQ", 0x4f52444552454446, (seq << 16) | block)
    rnd = random.Random(seq * 1000003 + block)
    return head + rnd.randbytes(BS - len(head))


def write(dev, log, n, nblocks, seed):
    rnd = random.Random(seed)
    buf = mmap.mmap(-1, BS)
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT | os.O_DSYNC)
    first = 1 + sum(1 for _ in open(log)) if os.path.exists(log) else 1
    with open(log, "a") as lg:
        for seq in range(first, first + n):
            b = rnd.randrange(nblocks)
            lg.write("%d %d\n" % (seq, b))
            lg.flush()
            buf.seek(0)
            buf.write(content(seq, b))
            if os.pwrite(fd, buf, b * STRIDE) != BS:
                sys.exit("short write")
            if seq % 7 == 0:
                os.fdatasync(fd)
    os.close(fd)


def check(image, log, nblocks, final):
    writes = [tuple(map(int, l.split())) for l in open(log)]
    n = len(writes)
    got = {}
    with open(image, "rb") as f:
        for b in range(nblocks):
            f.seek(b * STRIDE)
            data = f.read(BS)
            if data == bytes(BS):
                got[b] = 0
                continue
            magic, key = struct.unpack("<QQ", data[:16])
            seq, blk = key >> 16, key & 0xffff
            if magic != 0x4f52444552454446 or blk != b or not 1 <= seq <= n or \
                    writes[seq - 1][1] != b or data != content(seq, b):
                print("torn: block %d holds no write of its own (magic %x, seq %d, block %d%s)" %
                      (b, magic, seq, blk, ", content right" if 1 <= seq <= n and
                       data == content(seq, blk) else ""))
                return 1
            got[b] = seq
    # the state after write E: each block's last write <= E
    last = {b: 0 for b in range(nblocks)}
    ok = []
    for e in range(0, n + 1):
        if e:
            last[writes[e - 1][1]] = e
        nxt = writes[e] if e < n else None
        if all(got[b] == last[b] or (nxt and nxt[1] == b and got[b] == e + 1)
               for b in range(nblocks)):
            ok.append(e)
    if not ok or (final and ok[-1] != n):
        bad = [b for b in range(nblocks) if got[b] != last[b]]
        print("torn: no write E fits (%d writes; blocks off the final state: %s)" % (n, bad[:8]))
        return 1
    print("consistent at %d of %d" % (ok[-1], n))
    return 0


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "write":
        write(a[2], a[3], int(a[4]), int(a[5]), int(a[6]))
    elif a[1] == "check":
        sys.exit(check(a[2], a[3], int(a[4]), "--final" in a))
    else:
        sys.exit(__doc__)
