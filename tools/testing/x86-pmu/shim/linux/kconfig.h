/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/kconfig.h>: IS_ENABLED() as the kernel
 * spells it, and the few options the harness models.
 *
 * CONFIG_PROVE_LOCKING is on because the shim's spinlock (spinlock.h)
 * checks the one lockdep rule a user-space program can see: a lock class
 * taken in hard interrupt context (an irq_work, irq_work.h) and elsewhere
 * with interrupts enabled. What lockdep does beyond that (lock order and
 * deadlock chains, classes of nested locks, recursion, softirq and
 * NMI contexts) is not modelled: a KUnit case that needs it passes here
 * without proving it; the boots run it under the real lockdep.
 *
 * CONFIG_CPU_SUP_INTEL is on because the Intel table the matcher's suite
 * reads (Gracemont's PEBS constraints) is taken from intel/ds.c of the
 * kernel tree (kunit-perf-event.sh).
 */
#ifndef _SHIM_LINUX_KCONFIG_H
#define _SHIM_LINUX_KCONFIG_H

#define CONFIG_PROVE_LOCKING	1
#define CONFIG_KUNIT		1
#define CONFIG_CPU_SUP_INTEL	1

#define __ARG_PLACEHOLDER_1	0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)

/* Nothing is built as a module here: y or nothing. */
#define IS_BUILTIN(option)	__is_defined(option)
#define IS_ENABLED(option)	__is_defined(option)

#endif
