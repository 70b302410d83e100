#!/usr/bin/env python3
"""A database-like writer and its checker for tests/guest/fc_ordered_fs.sh.

  ord_fswriter.py write DIR ACKED SECONDS SEED
      Appends 512-byte records (magic, seq, crc32 of the payload, payload)
      to DIR/redo.log, fsync()ing after each (a commit); every 4th record
      also rewrites a random 4 KiB page of DIR/data.db (seq, crc) and
      fsync()s it.  After each fsync returns, writes the record's seq to
      ACKED (outside the volume).  Stops after SECONDS.
  ord_fswriter.py check DIR [ACKED]
      redo.log must be records 1..k, each whole and right, then nothing
      (or zeroes); every page of data.db zero or a right page of a record
      <= k + 1.  Prints "records 1..k" (and how far behind ACKED's value);
      exit 1 on anything else.
"""
import os
import random
import struct
import sys
import time
import zlib

REC = 512
PAGE = 4096
MAGIC = 0x44524f57524f4446
PAGES = 256


def record(seq):
    rnd = random.Random(seq)
    payload = rnd.randbytes(REC - 24)
    return struct.pack("<QQQ", MAGIC, seq, zlib.crc32(payload)) + payload


def page(seq, n):
    rnd = random.Random(seq * 7919 + n)
    payload = rnd.randbytes(PAGE - 32)
    return struct.pack("<QQQQ", MAGIC, seq, n, zlib.crc32(payload)) + payload


def write(d, acked, seconds, seed):
    rnd = random.Random(seed)
    log = os.open(os.path.join(d, "redo.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    db = os.open(os.path.join(d, "data.db"), os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(db, PAGES * PAGE)
    os.fsync(db)
    seq = 0
    end = time.time() + seconds
    while time.time() < end:
        seq += 1
        if seq % 4 == 0:
            n = rnd.randrange(PAGES)
            os.pwrite(db, page(seq, n), n * PAGE)
            os.fsync(db)
        os.write(log, record(seq))
        os.fsync(log)
        with open(acked + ".tmp", "w") as f:
            f.write("%d\n" % seq)
        os.rename(acked + ".tmp", acked)
    os.close(log)
    os.close(db)
    print("wrote %d records" % seq)


def check(d, acked):
    try:
        with open(os.path.join(d, "redo.log"), "rb") as f:
            data = f.read()
    except FileNotFoundError:
        data = b""	# a flush point before the writer created it
    k = 0
    off = 0
    while off + REC <= len(data):
        rec = data[off:off + REC]
        if rec == bytes(REC):
            break
        if rec != record(k + 1):
            print("torn: redo.log record %d at %d is not record %d" % (k + 1, off, k + 1))
            return 1
        k += 1
        off += REC
    if data[off:].strip(b"\0"):
        print("torn: redo.log has %d bytes after record %d that are no record" % (len(data) - off, k))
        return 1
    try:
        with open(os.path.join(d, "data.db"), "rb") as f:
            db = f.read()
    except FileNotFoundError:
        db = b""
    for n in range(len(db) // PAGE):
        p = db[n * PAGE:(n + 1) * PAGE]
        if p == bytes(PAGE):
            continue
        magic, seq, pn, _ = struct.unpack("<QQQQ", p[:32])
        if magic != MAGIC or pn != n or p != page(seq, n):
            print("torn: data.db page %d holds no page of a record" % n)
            return 1
        if seq > k + 1:
            print("torn: data.db page %d is of record %d, the redo log ends at %d" % (n, seq, k))
            return 1
    behind = ""
    if acked:
        try:
            behind = " (%d acknowledged then)" % int(open(acked).read())
        except (OSError, ValueError):
            pass
    print("records 1..%d%s" % (k, behind))
    return 0


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "write":
        write(a[2], a[3], float(a[4]), int(a[5]))
    elif a[1] == "check":
        sys.exit(check(a[2], a[3] if len(a) > 3 else None))
    else:
        sys.exit(__doc__)
