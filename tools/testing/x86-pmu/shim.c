// SPDX-License-Identifier: GPL-2.0
/* State behind the user-space shim headers. */
#include <stdbool.h>

unsigned long shim_warnings;
__thread bool shim_irqs_off;
