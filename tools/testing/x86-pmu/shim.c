// SPDX-License-Identifier: GPL-2.0
/* State behind the user-space shim headers. */
unsigned long shim_warnings;
