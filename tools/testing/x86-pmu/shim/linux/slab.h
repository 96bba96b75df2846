/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/slab.h>: allocation flags are ignored. */
#ifndef _SHIM_LINUX_SLAB_H
#define _SHIM_LINUX_SLAB_H

typedef unsigned int gfp_t;

#define GFP_KERNEL	0u
#define GFP_ATOMIC	1u

#endif
