/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One scheduling pass of a thread, as x86_schedule_events() runs it with
 * the series applied: the XSU transaction around the fast path and the
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
	/*
	 * put_event_constraints() of the events the pass adds, from index
	 * n0 on: x86_schedule_events() releases them when the pass fails,
	 * before the x86_pmu's stop_scheduling (hooks->end) runs. NULL:
	 * the caller releases nothing.
	 */
	int n0;
	void (*release)(void *ctx, int i);
	void *release_ctx;
};

/* A counter assignment function with x86_counter_match()'s contract. */
typedef int (*pass_match_fn)(const u64 *masks, int n, u64 paired, int gpmax,
			     int *assign);

/*
 * The cross-thread exclusion a pass runs under: the start/get-constraints
 * /commit/stop callbacks of the kernel's x86_pmu, and the cap on GP
 * counters x86_schedule_events() computes. The series' xsu.c without any
 * cap is pass_xsu_hooks (ctx: the struct xsu_core); with the fair
 * arbitration of xsu_arb.c, as the kernel glue runs them, it is
 * pass_xsu_arb_hooks (ctx: a struct pass_xsu_arb). The simulator also
 * models Linux 6.12's intel_excl_cntrs with its own hooks.
 */
struct pass_hooks {
	/* the pass adds the window's events from @first on */
	void (*begin)(void *ctx, int tid, int first);
	u64 (*constrain)(void *ctx, int tid, int idx, u64 mask,
			 bool corrupting);
	int (*gpmax)(void *ctx, int tid, int gpmax);
	void (*commit)(void *ctx, int tid, int cntr, bool corrupting);
	void (*end)(void *ctx, int tid, u64 unplaced);	/* events left out */
	bool fast_path_gpmax;	/* the fast path honours gpmax (the series) */
};

extern const struct pass_hooks pass_xsu_hooks;
extern const struct pass_hooks pass_xsu_arb_hooks;

struct xsu_arb;

/* Context of pass_xsu_arb_hooks: what the kernel glue holds. */
struct pass_xsu_arb {
	struct xsu_core *xc;
	struct xsu_arb *arb;
	unsigned long now;	/* the clock (jiffies; ticks in the simulator) */
	unsigned long hold;	/* lifetime of a demand */
	bool kick[2];		/* thread t was asked to reschedule */
};

/*
 * Schedule the window @ev on thread @tid with @nr_gp general-purpose
 * counters, under @hooks with @ctx (NULL hooks: no exclusion).
 * ev->counter holds each event's hw.idx: the fast path keeps them if all
 * are legal, else @match (NULL: x86_counter_match) gets them as hints.
 * On success every event gets a counter in @out (NULL: ev->counter) and
 * the placement is committed; on failure nothing changes. @dyn, if not
 * NULL, receives the dynamic masks. Returns the number of events left
 * out.
 */
int pass_run(const struct pass_hooks *hooks, void *ctx, int tid,
	     struct pass_events *ev, int nr_gp, u64 *dyn, pass_match_fn match,
	     int *out);

/* pass_run() under the series' XSU with no cap (@xc NULL: none). */
static inline int pass_schedule(struct xsu_core *xc, int tid,
				struct pass_events *ev, int nr_gp, u64 *dyn)
{
	return pass_run(xc ? &pass_xsu_hooks : NULL, xc, tid, ev, nr_gp,
			dyn, NULL, NULL);
}

/*
 * If set, called by every successful pass after the commits and before
 * the end hook (with the core lock held under pass_xsu_hooks).
 */
extern void (*pass_commit_hook)(struct xsu_core *xc, int tid,
				const struct pass_events *ev);

#endif
