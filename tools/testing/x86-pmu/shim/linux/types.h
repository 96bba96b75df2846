/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/types.h>: the fixed-width kernel types,
 * 64-bit ones as long long as on every kernel architecture (int-ll64.h),
 * so that the kernel's "%llx" of a u64 is right here too.
 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef int8_t s8;
typedef uint16_t u16;
typedef int16_t s16;
typedef uint32_t u32;
typedef int32_t s32;
typedef unsigned long long u64;
typedef long long s64;
typedef u64 __u64;

#endif
