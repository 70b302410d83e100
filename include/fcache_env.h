/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcache environment header: the only place where the shared logic in
 * engine/ (fc_format.c, fc_policy.c, fc_decide.c, fc_parse.c, fc_olog.c) learns
 * whether it is built into the kernel module or into userspace (fcachectl,
 * host unit tests): no file in engine/ includes a kernel header itself.
 * Shared code uses only: fixed-width types (__u8.. __u64, __le32, __le64),
 * bool, size_t, memset/memcpy/memcmp/strcmp, the le*_to_cpu / cpu_to_le*
 * helpers, ARRAY_SIZE() and errno values.
 */
#ifndef FCACHE_ENV_H
#define FCACHE_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <asm/byteorder.h>
#include <linux/crc32c.h>	/* crc32c(): fc_crc32c() in engine/fc_format.c */
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <endian.h>

typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int64_t __s64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;

#define cpu_to_le16(x) htole16(x)
#define cpu_to_le32(x) htole32(x)
#define cpu_to_le64(x) htole64(x)
#define le16_to_cpu(x) le16toh(x)
#define le32_to_cpu(x) le32toh(x)
#define le64_to_cpu(x) le64toh(x)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif
