/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/bitops.h>: the bit helpers the units use. */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#include <linux/types.h>

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
/* A constant for a constant argument, as the kernel's. */
#define HWEIGHT(w)		((int)__builtin_popcountll(w))

static inline unsigned int hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

static inline unsigned int hweight32(u32 w)
{
	return __builtin_popcount(w);
}

static inline unsigned int hweight8(unsigned int w)
{
	return __builtin_popcount(w & 0xff);
}

/* Undefined for 0, as in the kernel. */
static inline unsigned int __ffs64(u64 w)
{
	return __builtin_ctzll(w);
}

static inline int fls64(u64 w)
{
	return w ? 64 - __builtin_clzll(w) : 0;
}

static inline u64 ror64(u64 w, unsigned int shift)
{
	return (w >> (shift & 63)) | (w << ((-shift) & 63));
}

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size,
					  unsigned long offset)
{
	for (; offset < size; offset++)
		if (test_bit(offset, addr))
			return offset;
	return size;
}

#define for_each_set_bit_from(bit, addr, size)				\
	for ((bit) = find_next_bit((addr), (size), (bit));		\
	     (bit) < (size);						\
	     (bit) = find_next_bit((addr), (size), (bit) + 1))

#endif
