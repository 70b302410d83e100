#!/usr/bin/env python3
"""fc_twins.py IMAGE [DEVICE]: every twin on leg 1 of a mirrored fcache
pool whose entry lives on leg 0, read from an image of a leg (the metadata
is the same on both legs; layout: include/fcache_format.h).  Prints
"sector count" of each; with DEVICE (leg 1), also overwrites each with
random bytes (tests/guest/fc_mirror.sh damages second copies on purpose)."""
import os
import struct
import sys

PAGE = 4096
SB_MAGIC, ME_MAGIC = 0x42534346, 0x454d4346
HDR = struct.Struct("<IIIIQQ16s16s")
SB = struct.Struct("<IIQQQIIQIIIIQ16sQ16s16sIIQ2Q2Q")
ENTRY = struct.Struct("<QBBBBI")
PER_PAGE = (PAGE - HDR.size) // ENTRY.size


def page(f, n):
    f.seek(n * PAGE)
    return f.read(PAGE)


def seq_of(p, magic):
    _, m, _, _, _, seq, _, _ = HDR.unpack_from(p)
    return seq if m == magic else None


def main():
    dev = os.open(sys.argv[2], os.O_WRONLY) if len(sys.argv) > 2 else None
    with open(sys.argv[1], "rb") as f:
        sbs = [page(f, 0), page(f, 1)]
        sb = max((p for p in sbs if seq_of(p, SB_MAGIC) is not None),
                 key=lambda p: seq_of(p, SB_MAGIC))
        v = SB.unpack_from(sb, HDR.size)
        bs, data_start, md_pages, md_seq = v[0], v[3], v[4], v[14]
        leg0 = v[20]
        for lp in range(1, md_pages):
            slots = [page(f, 2 + 2 * lp + s) for s in (0, 1)]
            ok = [p for p in slots
                  if seq_of(p, ME_MAGIC) is not None and seq_of(p, ME_MAGIC) <= md_seq]
            if not ok:
                continue
            p = max(ok, key=lambda q: seq_of(q, ME_MAGIC))
            for i in range(PER_PAGE):
                _, _, _, dirty, flags, twin = ENTRY.unpack_from(p, HDR.size + i * ENTRY.size)
                idx = (lp - 1) * PER_PAGE + i
                if dirty and flags & 1 and idx < leg0 <= twin:
                    sector = data_start + (twin - leg0) * bs
                    print(sector, bs)
                    if dev is not None:
                        os.pwrite(dev, os.urandom(bs * 512), sector * 512)
    if dev is not None:
        os.fsync(dev)
        os.close(dev)


main()
