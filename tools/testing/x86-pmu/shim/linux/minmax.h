/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/minmax.h>. */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define clamp(v, lo, hi) min(max((v), (lo)), (hi))
#define min_t(t, a, b)	min((t)(a), (t)(b))

#endif
