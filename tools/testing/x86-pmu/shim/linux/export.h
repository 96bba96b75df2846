/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/export.h>: nothing to export. */
#ifndef _SHIM_LINUX_EXPORT_H
#define _SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif
