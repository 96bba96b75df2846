// SPDX-License-Identifier: GPL-2.0
/*
 * The x86_schedule_events() flow in miniature: begin, dynamic masks, the
 * fast path (keep every previous counter if all are still legal), the
 * matcher with the previous counters as hints, commit of a complete
 * placement, end. "Interrupts" are off for the pass, as in the kernel.
 * pass_xsu_hooks runs it on the series' own xsu.c, pass_xsu_arb_hooks
 * adds its xsu_arb.c the way the kernel glue does.
 */
#include <linux/spinlock.h>

#include "counter_match.h"
#include "intel/xsu.h"
#include "intel/xsu_arb.h"
#include "pass.h"

void (*pass_commit_hook)(struct xsu_core *xc, int tid,
			 const struct pass_events *ev);

static void xsu_hook_begin(void *ctx, int tid, int first)
{
	xsu_begin(ctx, tid, false);
}

static u64 xsu_hook_constrain(void *ctx, int tid, int idx, u64 mask,
			      bool corrupting)
{
	return xsu_constrain(ctx, tid, mask, corrupting, false);
}

static int xsu_hook_gpmax(void *ctx, int tid, int gpmax)
{
	return gpmax;
}

static void xsu_hook_commit(void *ctx, int tid, int cntr, bool corrupting)
{
	xsu_commit(ctx, tid, cntr, corrupting, false);
}

static void xsu_hook_end(void *ctx, int tid, u64 unplaced)
{
	xsu_end(ctx, tid);
}

const struct pass_hooks pass_xsu_hooks = {
	.begin = xsu_hook_begin,
	.constrain = xsu_hook_constrain,
	.gpmax = xsu_hook_gpmax,
	.commit = xsu_hook_commit,
	.end = xsu_hook_end,
	.fast_path_gpmax = true,
};

/*
 * The kernel glue of xsu_arb.c (intel/core.c): note every event's static
 * mask, cap gpmax by the budget, and at the end of a failed pass with a
 * corrupting event on the core publish the demand and maybe kick the
 * sibling.
 */
static void arb_hook_begin(void *ctx, int tid, int first)
{
	struct pass_xsu_arb *p = ctx;

	xsu_begin(p->xc, tid, false);
	if (xsu_pass_enabled(p->xc, tid)) {
		xsu_arb_begin(p->arb, tid);
		xsu_arb_adds(p->arb, tid, first);
	}
}

static u64 arb_hook_constrain(void *ctx, int tid, int idx, u64 mask,
			      bool corrupting)
{
	struct pass_xsu_arb *p = ctx;

	if (!xsu_pass_enabled(p->xc, tid))
		return mask;
	xsu_arb_note(p->arb, tid, idx, mask, corrupting);
	return xsu_constrain(p->xc, tid, mask, corrupting, false) &
	       ~xsu_arb_avoid(p->arb, tid, p->now);
}

static int arb_hook_gpmax(void *ctx, int tid, int gpmax)
{
	struct pass_xsu_arb *p = ctx;

	if (!xsu_pass_enabled(p->xc, tid))
		return gpmax;
	return xsu_arb_gpmax(p->arb, tid, gpmax, p->now);
}

static void arb_hook_commit(void *ctx, int tid, int cntr, bool corrupting)
{
	struct pass_xsu_arb *p = ctx;

	xsu_commit(p->xc, tid, cntr, corrupting, false);
}

static void arb_hook_end(void *ctx, int tid, u64 unplaced)
{
	struct pass_xsu_arb *p = ctx;

	if ((xsu_corrupting_present(p->xc, tid) ||
	     (xsu_pass_enabled(p->xc, tid) &&
	      xsu_arb_pass_corrupting(p->arb, tid))) &&
	    xsu_arb_end(p->arb, tid, xsu_pass_committed(p->xc, tid) ?
			0 : xsu_arb_unplaced(p->arb, tid, unplaced),
			xsu_held(p->xc, tid), xsu_held(p->xc, tid ^ 1), p->now,
			p->hold))
		p->kick[tid ^ 1] = true;
	xsu_end(p->xc, tid);
}

const struct pass_hooks pass_xsu_arb_hooks = {
	.begin = arb_hook_begin,
	.constrain = arb_hook_constrain,
	.gpmax = arb_hook_gpmax,
	.commit = arb_hook_commit,
	.end = arb_hook_end,
	.fast_path_gpmax = true,
};

int pass_run(const struct pass_hooks *hooks, void *ctx, int tid,
	     struct pass_events *ev, int nr_gp, u64 *dyn, pass_match_fn match,
	     int *out)
{
	u64 masks[64], used = 0, unplaced = 0;
	int assign[64], i, nr, left = 0, gpmax = nr_gp;
	bool irqs = shim_irqs_off;

	shim_irqs_off = true;
	if (hooks)
		hooks->begin(ctx, tid, ev->n0);

	for (i = 0; i < ev->n; i++) {
		masks[i] = hooks ? hooks->constrain(ctx, tid, i, ev->mask[i],
						    ev->corrupting[i]) :
				   ev->mask[i];
		if (dyn)
			dyn[i] = masks[i];
	}

	if (hooks)
		gpmax = hooks->gpmax(ctx, tid, gpmax);

	/* fast path: every event keeps its counter */
	for (i = 0, nr = 0; i < ev->n; i++) {
		int c = ev->counter[i];

		if (c < 0 || !(masks[i] >> c & 1) || (used >> c & 1))
			break;
		if (c < 32 && hooks && hooks->fast_path_gpmax && ++nr > gpmax)
			break;
		used |= 1ULL << c;
		assign[i] = c;
	}

	if (i < ev->n) {
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
		else if (pass_commit_hook && hooks == &pass_xsu_arb_hooks)
			pass_commit_hook(((struct pass_xsu_arb *)ctx)->xc, tid,
					 ev);
	}

	for (i = 0; left && i < ev->n; i++)
		if (assign[i] < 0)
			unplaced |= 1ULL << i;
	/* The failed pass's new events are put before the pass ends. */
	for (i = ev->n0; left && ev->release && i < ev->n; i++)
		ev->release(ev->release_ctx, i);
	if (hooks)
		hooks->end(ctx, tid, unplaced);
	shim_irqs_off = irqs;
	return left;
}
