/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/compiler.h>: READ_ONCE()/WRITE_ONCE() as
 * relaxed atomics, so that ThreadSanitizer sees them as the marked,
 * intentionally racy accesses they are in the kernel.
 */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

#ifndef noinline
#define noinline		__attribute__((__noinline__))
#endif

#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif
