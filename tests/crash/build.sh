#!/bin/sh
# Build the replay tools on the host into build/crash/ (the guest sees the
# same path).  -Wall -Wextra -Werror; prints the failing tool and exits 1.
# cw_point is lw_replay + cw_work + fcachectl check's code in one process.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/crash
src=$top/tests/crash
mkdir -p "$out" || exit 1
# build TOOL "EXTRA_DEPS" SOURCES...
build() {
	t=$1 deps=$2
	shift 2
	newer=0
	for f in "$@" $deps; do [ "$f" -nt "$out/$t" ] && newer=1; done
	[ -e "$out/$t" ] && [ $newer = 0 ] && return 0
	gcc -O2 -g -Wall -Wextra -Werror -std=gnu11 -I"$top/include" -I"$top/userspace/lib" -o "$out/$t.tmp" "$@" ||
		{ echo "build.sh: cannot build $t" >&2; exit 1; }
	mv "$out/$t.tmp" "$out/$t"
}
build lw_replay "$src/crash_util.h" "$src/lw_replay.c"
build lw_mklog "" "$src/lw_mklog.c"
build cw_work "$src/crash_util.h" "$src/cw_work.c"
# fcachectl check's code: the checker (lib/fc_check*.c) and the lib files it uses
lib=$top/userspace/lib
build cw_point "$src/crash_util.h $src/lw_replay.c $src/cw_work.c $lib/fc_check.h $lib/fc_check_int.h $lib/fc_dev.h $top/include/fcache_format.h" \
	"$src/cw_point.c" "$lib"/fc_check*.c "$lib/fc_dev.c" "$lib/fc_json.c" "$top/engine/fc_format.c"
