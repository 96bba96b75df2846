// SPDX-License-Identifier: GPL-2.0
/*
 * The x86_schedule_events() flow in miniature, calling the series' own
 * units: xsu_begin(), dynamic masks from xsu_constrain(), the fast path
 * (keep every previous counter if all are still legal), the matcher with
 * the previous counters as hints, xsu_commit() of a complete placement,
 * xsu_end(). "Interrupts" are off for the pass, as in the kernel.
 */
#include <linux/spinlock.h>

#include "../../../arch/x86/events/counter_match.h"
#include "../../../arch/x86/events/intel/xsu.h"
#include "pass.h"

void (*pass_commit_hook)(struct xsu_core *xc, int tid,
			 const struct pass_events *ev);

int pass_schedule(struct xsu_core *xc, int tid, struct pass_events *ev,
		  int nr_gp, bool halve, u64 *dyn)
{
	u64 masks[64], used = 0;
	int assign[64], i, left = 0, gpmax = nr_gp;
	bool irqs = shim_irqs_off;

	shim_irqs_off = true;
	if (xc)
		xsu_begin(xc, tid);

	for (i = 0; i < ev->n; i++) {
		masks[i] = xc ? xsu_constrain(xc, tid, ev->mask[i],
					      ev->corrupting[i]) :
				ev->mask[i];
		if (dyn)
			dyn[i] = masks[i];
	}

	/* fast path: every event keeps its counter */
	for (i = 0; i < ev->n; i++) {
		int c = ev->counter[i];

		if (c < 0 || !(masks[i] >> c & 1) || (used >> c & 1))
			break;
		used |= 1ULL << c;
		assign[i] = c;
	}

	if (i < ev->n) {
		if (halve && xsu_halve_gpmax(xc, tid))
			gpmax /= 2;
		for (i = 0; i < ev->n; i++)
			assign[i] = ev->counter[i];
		left = x86_counter_match(masks, ev->n, 0, gpmax, assign);
	}

	if (!left) {
		for (i = 0; i < ev->n; i++) {
			if (xc)
				xsu_commit(xc, tid, assign[i], ev->corrupting[i]);
			ev->counter[i] = assign[i];
		}
		if (pass_commit_hook)
			pass_commit_hook(xc, tid, ev);
	}

	if (xc)
		xsu_end(xc, tid);
	shim_irqs_off = irqs;
	return left;
}
