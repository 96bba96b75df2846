/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/percpu.h>: each pthread plays a CPU (as
 * in irqflags.h), so a per-CPU variable is a thread-local one.
 */
#ifndef _SHIM_LINUX_PERCPU_H
#define _SHIM_LINUX_PERCPU_H

#define DEFINE_PER_CPU(type, name)	__thread type name
#define this_cpu_ptr(ptr)		(ptr)

#endif
