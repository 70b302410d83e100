#!/bin/sh
# Boot the guest and measure what fcache costs once the data is on the
# flash (issue 34): fio at queue depths 1 and 32 against dm-linear over the
# same flash, dm-cache and dm-writecache; pgbench with the database fitting
# the flash (needs PostgreSQL: apt-get install postgresql); optionally a
# profile of the time per I/O (ftrace).  Output: results/hitpath/hitpath.txt.
#   tests/bench/hitpath.sh [SECONDS [ROUNDS [profile=1] [pg=N] [ab=KO] [abfio=KO] [engine=io_uring]]]
#   (abfio=KO: fio's IOPS of this module against KO on fcache alone, ROUNDS
#   rounds, instead of the table: about a minute a round)
#   (defaults 5 and 3, pg=2: about 25 minutes under TCG; ROUNDS 0: no fio
#   table, for the profile alone)
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/results/hitpath"
exec sh "$top/tests/vm/run-guest.sh" --name hitpath --results "$top/results/hitpath" \
	--timeout 5400 --mem 3072 tests/guest/fio_hitpath.sh "$@"
