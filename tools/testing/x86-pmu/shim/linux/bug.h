/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/bug.h>. A warning is counted, not ignored:
 * every harness program fails when shim_warnings is non-zero at exit.
 */
#ifndef _SHIM_LINUX_BUG_H
#define _SHIM_LINUX_BUG_H

#include <stdio.h>

extern unsigned long shim_warnings;

#define WARN_ON(cond) ({						\
	int __c = !!(cond);						\
	if (__c) {							\
		__atomic_fetch_add(&shim_warnings, 1, __ATOMIC_RELAXED); \
		fprintf(stderr, "WARNING: %s:%d: %s\n",			\
			__FILE__, __LINE__, #cond);			\
	}								\
	__c;								\
})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif
