// SPDX-License-Identifier: GPL-2.0
/*
 * The x86_schedule_events() flow in miniature: begin, dynamic masks, the
 * fast path (keep every previous counter if all are still legal), the
 * matcher with the previous counters as hints, commit of a complete
 * placement, end. "Interrupts" are off for the pass, as in the kernel.
 * pass_xsu_hooks runs it on the series' own xsu.c.
 */
#include <linux/spinlock.h>

#include "../../../arch/x86/events/counter_match.h"
#include "../../../arch/x86/events/intel/xsu.h"
#include "pass.h"

void (*pass_commit_hook)(struct xsu_core *xc, int tid,
			 const struct pass_events *ev);

static void xsu_hook_begin(void *ctx, int tid)
{
	xsu_begin(ctx, tid);
}

static u64 xsu_hook_constrain(void *ctx, int tid, u64 mask, bool corrupting)
{
	return xsu_constrain(ctx, tid, mask, corrupting);
}

static bool xsu_hook_halve(void *ctx, int tid)
{
	return xsu_halve_gpmax(ctx, tid);
}

static void xsu_hook_commit(void *ctx, int tid, int cntr, bool corrupting)
{
	xsu_commit(ctx, tid, cntr, corrupting);
}

static void xsu_hook_end(void *ctx, int tid)
{
	xsu_end(ctx, tid);
}

const struct pass_hooks pass_xsu_hooks = {
	.begin = xsu_hook_begin,
	.constrain = xsu_hook_constrain,
	.halve_gpmax = xsu_hook_halve,
	.commit = xsu_hook_commit,
	.end = xsu_hook_end,
};

int pass_run(const struct pass_hooks *hooks, void *ctx, int tid,
	     struct pass_events *ev, int nr_gp, bool halve, u64 *dyn,
	     pass_match_fn match, int *out)
{
	u64 masks[64], used = 0;
	int assign[64], i, left = 0, gpmax = nr_gp;
	bool irqs = shim_irqs_off;

	shim_irqs_off = true;
	if (hooks)
		hooks->begin(ctx, tid);

	for (i = 0; i < ev->n; i++) {
		masks[i] = hooks ? hooks->constrain(ctx, tid, ev->mask[i],
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
		if (halve && hooks && hooks->halve_gpmax(ctx, tid))
			gpmax /= 2;
		for (i = 0; i < ev->n; i++)
			assign[i] = ev->counter[i];
		left = (match ? match : x86_counter_match)(masks, ev->n, 0,
							   gpmax, assign);
	}

	if (!left) {
		for (i = 0; i < ev->n; i++) {
			if (hooks)
				hooks->commit(ctx, tid, assign[i],
					      ev->corrupting[i]);
			if (out)
				out[i] = assign[i];
			else
				ev->counter[i] = assign[i];
		}
		if (pass_commit_hook && hooks == &pass_xsu_hooks)
			pass_commit_hook(ctx, tid, ev);
	}

	if (hooks)
		hooks->end(ctx, tid);
	shim_irqs_off = irqs;
	return left;
}
