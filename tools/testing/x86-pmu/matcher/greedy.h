/* SPDX-License-Identifier: GPL-2.0 */
/* Upstream 6.12's greedy perf_assign_events(), called with plain masks. */
#ifndef _X86_PMU_GREEDY_H
#define _X86_PMU_GREEDY_H

#include <linux/types.h>

/*
 * Same contract as x86_counter_match() (returns the number of events left
 * out, assign[i] = -1 for those), computed by upstream's own code.
 */
int greedy_assign(const u64 *masks, int n, u64 paired, int gpmax,
		  int *assign);

#endif
