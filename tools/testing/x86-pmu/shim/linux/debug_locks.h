/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/debug_locks.h>: debug_locks is 1 until
 * the shim's lock checking (spinlock.h) reports a problem, then 0, as
 * lockdep turns it off after its first report.
 */
#ifndef _SHIM_LINUX_DEBUG_LOCKS_H
#define _SHIM_LINUX_DEBUG_LOCKS_H

extern int debug_locks;

#endif
