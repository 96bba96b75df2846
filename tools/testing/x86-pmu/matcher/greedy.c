// SPDX-License-Identifier: GPL-2.0
/*
 * Adapter from masks to upstream's struct event_constraint, the way
 * x86_schedule_events() calls perf_assign_events() in 6.12.
 */
#include "greedy.h"
#include "upstream_greedy.h"

int greedy_assign(const u64 *masks, int n, u64 paired, int gpmax,
		  int *assign)
{
	struct event_constraint cons[X86_PMC_IDX_MAX];
	struct event_constraint *c[X86_PMC_IDX_MAX];
	int i, wmin = X86_PMC_IDX_MAX, wmax = 0;

	for (i = 0; i < n; i++) {
		memset(&cons[i], 0, sizeof(cons[i]));
		cons[i].idxmsk64 = masks[i];
		cons[i].weight = hweight64(masks[i]);
		if (paired >> i & 1)
			cons[i].flags = PERF_X86_EVENT_PAIR;
		c[i] = &cons[i];
		if (cons[i].weight < wmin)
			wmin = cons[i].weight;
		if (cons[i].weight > wmax)
			wmax = cons[i].weight;
		if (assign)
			assign[i] = -1;
	}
	return upstream_perf_assign_events(c, n, wmin, wmax, gpmax, assign);
}
