/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One scheduling pass of a thread, as x86_schedule_events() runs it with
 * the series applied: XSU transaction around the fast path and the
 * matcher. Used by the XSU tests, the stress test and the simulator.
 */
#ifndef _X86_PMU_PASS_H
#define _X86_PMU_PASS_H

#include <linux/types.h>

struct xsu_core;

struct pass_events {
	int n;			/* events in the window */
	u64 mask[64];		/* static constraint masks */
	bool corrupting[64];	/* event code 0xd0-0xd3 */
	int counter[64];	/* counter held (hw.idx), -1 if none */
};

/*
 * Schedule the window @ev on thread @tid of @xc (NULL: no XSU) with @nr_gp
 * general-purpose counters; @halve applies upstream's gpmax halving.
 * On success every event gets a counter in ev->counter and the placement
 * is committed; on failure nothing changes. @dyn, if not NULL, receives
 * the dynamic masks. Returns the number of events left out.
 */
int pass_schedule(struct xsu_core *xc, int tid, struct pass_events *ev,
		  int nr_gp, bool halve, u64 *dyn);

/*
 * If set, called by every successful pass after xsu_commit() and before
 * xsu_end(), with the core lock held when the pass took it.
 */
extern void (*pass_commit_hook)(struct xsu_core *xc, int tid,
				const struct pass_events *ev);

#endif
