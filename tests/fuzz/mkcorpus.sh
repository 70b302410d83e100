#!/bin/sh
# Regenerate the seed corpora of the libFuzzer targets (tests/fuzz/corpus/):
#   sh tests/fuzz/mkcorpus.sh            (or: make fuzz-corpus)
# fuzz_check: pool images from tests/host/ctl_mkimage.c (1 MiB, 32 KiB
#   blocks: six metadata pages), good and damaged, cut to their metadata
#   pages without trailing zeros, behind a control byte (see fuzz_check.c).
# fuzz_format: their superblocks (160 bytes) with a device size and
#   sub-block arguments.
# fuzz_parse: real table option lines and messages behind a selector byte.
# fuzz_olog: writer scripts (ring size, record count, record sizes and
#   flags) with and without damage triples (see fuzz_olog.c), seeded.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/tests/fuzz/corpus
tmp=$(mktemp -d /tmp/fcfuzz-corpus.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cc -O1 -Wall -Wextra -Werror -I"$top/include" -o "$tmp/mkimage" \
	"$top/tests/host/ctl_mkimage.c" "$top/engine/fc_format.c"
rm -rf "$out"
mkdir -p "$out/fuzz_check" "$out/fuzz_format" "$out/fuzz_parse" "$out/fuzz_olog"

# seed FILE CTL IMAGE BYTES: control byte CTL (octal), then BYTES of IMAGE
# with the trailing zeros cut off
seed() {
	printf "\\$2" >"$1"
	head -c "$4" "$3" | python3 -c '
import sys
d = sys.stdin.buffer.read()
sys.stdout.buffer.write(d.rstrip(b"\0"))' >>"$1"
}

# ctl bits: 1 re-seal, 2 grow to the flash size, 4 repair, 8 JSON, 16 dump
for kind in none mdseq leftover leftover-nc failed-commit mdseq-above torn \
	overlap vt-dupid cut-commit cut-commit-bad; do
	case $kind in
	none) "$tmp/mkimage" "$tmp/img" --size 1 >/dev/null ;;
	mdseq) "$tmp/mkimage" "$tmp/img" --size 1 --mdseq >/dev/null ;;
	*) "$tmp/mkimage" "$tmp/img" --size 1 --damage "$kind" >/dev/null ;;
	esac
	seed "$out/fuzz_check/$kind" 002 "$tmp/img" 24576
	case $kind in
	none|failed-commit|overlap)
		seed "$out/fuzz_check/$kind-repair" 006 "$tmp/img" 24576 ;;
	mdseq|torn|cut-commit)
		seed "$out/fuzz_check/$kind-dump-json" 033 "$tmp/img" 24576 ;;
	esac
	# superblock in use + 1 MiB device + sub-block arguments
	python3 - "$tmp/img" "$out/fuzz_format/$kind" <<'PY'
import struct, sys
img = open(sys.argv[1], "rb").read()
s0, s1 = img[0:160], img[4096:4096 + 160]
seq = lambda p: struct.unpack_from("<Q", p, 24)[0]
sb = s0 if seq(s0) >= seq(s1) else s1
open(sys.argv[2], "wb").write(sb + struct.pack("<QIIII", 2048, 8, 40, 3, 77))
PY
done

i=0
while IFS='|' read -r sel line; do
	i=$((i + 1))
	printf "\\$sel%s" "$line" >"$out/fuzz_parse/seed$i"
done <<'EOF'
000|
000|0
000|2 writeback_high 80
000|4 writeback_low 5 commit_interval 0
000|10 writeback_high 90 writeback_low 10 max_dirty_age 300 writeback_jobs 64 commit_interval 1000
001|2 sequential_cutoff 1024
001|4 label vg0-oradata sequential_cutoff 0
001|2 label sdb
001|2 label a\ b
002|flush
002|clear_stats
002|dump
002|forget 3
002|writeback_high 70
002|commit_interval 500
003|flush
003|invalidate
003|clear_stats
003|sequential_cutoff 2048
004|/dev/nvme0n1 64
004|/dev/mapper/fast /dev/md0 1 writeback
004|252:0 253:1 63 writethrough
004|4294967295 4294967296 writearound passthrough 0 2147483648
002|stats
002|peer_outdated
002|resolve 3 replay
002|resolve 2147483647 discard
002|ordered_lag 6
003|stats
003|detach
003|cancel_detach
001|4 ordered_log 253:7 label db1
001|2 ordered_log /dev/vg0/oralog
EOF
python3 - "$out/fuzz_olog" <<'PY'
import random, sys
r = random.Random(38)
# ring size byte, record count, (pages, flags) pairs, then damage triples
for name, ring, nrec, big, dmg in (("wrap", 0, 60, 1, 0), ("small", 3, 20, 0, 0),
                                   ("groups", 40, 40, 0, 0), ("torn", 1, 30, 1, 6),
                                   ("torn-resealed", 2, 30, 0, 8), ("full", 0, 63, 2, 0)):
    b = bytearray([ring, nrec])
    for i in range(nrec):
        pages = r.randrange(256) | (0x80 if big and r.random() < 0.3 * big else 0)
        flags = r.randrange(256) & (0xff if name == "groups" else 0xef)
        b += bytes([pages & 0xff, flags])
    for i in range(dmg):
        b += bytes([r.randrange(256), r.randrange(4), r.randrange(256), 1 + r.randrange(255)])
    open(sys.argv[1] + "/" + name, "wb").write(bytes(b))
PY
echo "corpus: $(ls "$out/fuzz_check" | wc -l) check, $(ls "$out/fuzz_format" | wc -l) format, $(ls "$out/fuzz_parse" | wc -l) parse, $(ls "$out/fuzz_olog" | wc -l) olog seeds ($(du -sk "$out" | cut -f1) KiB)"
