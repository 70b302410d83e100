// SPDX-License-Identifier: GPL-2.0
/* Verbs not written yet. */
#include "fcachectl.h"
#define STUB(f) int f(int argc, char **argv) { (void)argc; return fc_fail("%s: not implemented yet", argv[0]); }
STUB(cmd_pool) STUB(cmd_enable) STUB(cmd_disable) STUB(cmd_status) STUB(cmd_set) STUB(cmd_flush)
STUB(cmd_up) STUB(cmd_down) STUB(cmd_udev_probe)
