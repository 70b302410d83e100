/* SPDX-License-Identifier: GPL-2.0 */
/* Stub for the fc_compat.h syntax check (mk/buildcheck.mk). */
#define IOPRIO_DEFAULT 0
