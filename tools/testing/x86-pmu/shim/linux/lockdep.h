/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/lockdep.h>: the assertions are checked. */
#ifndef _SHIM_LINUX_LOCKDEP_H
#define _SHIM_LINUX_LOCKDEP_H

#include <linux/bug.h>
#include <linux/spinlock.h>

#define lockdep_assert_held(l)		WARN_ON(!shim_lock_held(l))
#define lockdep_assert_irqs_disabled()	WARN_ON(!shim_irqs_off)

#endif
