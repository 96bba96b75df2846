/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/kernel.h>: what the KUnit suites use. */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <limits.h>
#include <stddef.h>
#include <linux/kconfig.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/bug.h>
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/irqflags.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
