/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcachectl bench: the OLTP benchmark mode (bench*.c).
 *
 *   fcachectl bench prepare DEV   lay a datafile out on DEV (or a file)
 *   fcachectl bench run DEV       warm-up + a ladder of user counts
 *   fcachectl bench compare ...   the same run on the bare origin, on fcache
 *                                 and (--anchors) on dm-cache/dm-writecache
 *
 * Exit codes: 0 ok, 1 failed (including any integrity error), 2 usage.
 */
#ifndef FC_BENCH_H
#define FC_BENCH_H

int fc_cmd_bench(int argc, char **argv);

#endif
