/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/jiffies.h>: HZ for timeouts, in real time. */
#ifndef _SHIM_LINUX_JIFFIES_H
#define _SHIM_LINUX_JIFFIES_H

#define HZ	100

#endif
