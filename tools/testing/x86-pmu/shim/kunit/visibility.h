/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <kunit/visibility.h>. */
#ifndef _SHIM_KUNIT_VISIBILITY_H
#define _SHIM_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif
