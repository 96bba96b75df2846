/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/module.h>: module metadata is dropped. */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

/* Each takes its ';' as a harmless declaration. */
#define MODULE_DESCRIPTION(s)	extern int shim_module_info
#define MODULE_LICENSE(s)	extern int shim_module_info
#define MODULE_AUTHOR(s)	extern int shim_module_info
#define MODULE_IMPORT_NS(ns)	extern int shim_module_info

#endif
