#!/bin/sh
# Build the replay tools on the host into build/crash/ (the guest sees the
# same path).  -Wall -Wextra -Werror; prints the failing tool and exits 1.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/crash
mkdir -p "$out" || exit 1
for t in lw_replay lw_mklog $(ls "$top"/tests/crash/cw_work.c >/dev/null 2>&1 && echo cw_work); do
	src=$top/tests/crash/$t.c
	[ "$out/$t" -nt "$src" ] && continue
	gcc -O2 -g -Wall -Wextra -Werror -o "$out/$t.tmp" "$src" || { echo "build.sh: cannot build $t" >&2; exit 1; }
	mv "$out/$t.tmp" "$out/$t"
done
