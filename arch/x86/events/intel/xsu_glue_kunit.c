// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite x86_intel_xsu_glue: the XSU glue of intel/core.c driven
 * through the kernel's own scheduling pass, x86_schedule_events(), with the
 * callbacks the boot bound through static calls (intel_start_scheduling(),
 * intel_get_event_constraints(), intel_commit_scheduling(),
 * intel_stop_scheduling(), intel_put_event_constraints()) and
 * intel_xsu_settle() as intel_pmu_enable_all() calls it.
 *
 * This file is included at the end of intel/core.c, so that it reaches the
 * glue's static functions; it is built only when the KUnit tests of the XSU
 * unit are built in. It needs an affected PMU (SandyBridge, IvyBridge,
 * Haswell with Hyper-Threading on, 4 GP counters per thread, as on the
 * emulated host) and skips elsewhere.
 *
 * The two hyper-threads are test-owned struct cpu_hw_events sharing a
 * test-owned struct intel_xsu, both of whose threads are the CPU running
 * the pass: a kick to the sibling is then not sent (intel_xsu_kick_thread()
 * skips the own CPU), and no real per-CPU state is touched. The tests do
 * what perf's callers do around a pass: x86_pmu_add() collects the event
 * and keeps the assignment of a pass that placed everything,
 * x86_pmu_enable() moves the events to their counters, then settles; a
 * reschedule takes every event out.
 */
#include <kunit/test.h>

#define GLUE_CORRUPTING	0x5381d0	/* MEM_UOPS_RETIRED.ALL_LOADS, usr+os */
#define GLUE_OTHER	0x5300c4	/* BR_INST_RETIRED.ALL_BRANCHES */
#define GLUE_PREC_DIST	0x5301c0	/* INST_RETIRED.PREC_DIST: counter 1 */
#define GLUE_L1D_PEND	0x530148	/* L1D_PEND_MISS.PENDING: counter 2 */

struct xsu_glue {
	struct intel_xsu	*x;
	struct cpu_hw_events	*cpuc[2];
};

/*
 * Both threads of the test core are the CPU running the pass, so that a
 * kick is never queued: called with interrupts disabled, before anything
 * that may kick.
 */
static void xsu_glue_here(struct xsu_glue *g)
{
	g->x->cpu[0] = smp_processor_id();
	g->x->cpu[1] = smp_processor_id();
}

/**
 * xsu_glue_new() - two sibling threads on a test-owned core
 * @test: the test
 *
 * Skips the test unless the boot's PMU has the erratum with its scheduling
 * callbacks bound (PMU_FL_EXCL_CNTRS) and 4 GP counters per thread, which
 * the written expectations assume.
 *
 * Return: the threads, every counter Unused, the workaround on.
 */
static struct xsu_glue *xsu_glue_new(struct kunit *test)
{
	size_t sz = X86_PMC_IDX_MAX * sizeof(struct event_constraint);
	struct xsu_glue *g;
	int tid;

	if (!(x86_pmu.flags & PMU_FL_EXCL_CNTRS) ||
	    x86_pmu.start_scheduling != intel_start_scheduling)
		kunit_skip(test, "no PMU with the HT counter-corruption erratum");
	if (x86_pmu_max_num_counters(NULL) != 4)
		kunit_skip(test, "written for 4 GP counters per thread");

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->x = kunit_kzalloc(test, sizeof(*g->x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g->x);
	xsu_init(&g->x->core, true);
	xsu_arb_init(&g->x->arb, x86_pmu_max_num_counters(NULL));

	for (tid = 0; tid < 2; tid++) {
		struct cpu_hw_events *cpuc;

		cpuc = kunit_kzalloc(test, sizeof(*cpuc), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, cpuc);
		cpuc->constraint_list = kunit_kzalloc(test, sz, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, cpuc->constraint_list);
		cpuc->xsu = &g->x->core;
		cpuc->xsu_arb = &g->x->arb;
		cpuc->xsu_tid = tid;
		xsu_thread_online(&g->x->core, tid, true);
		g->cpuc[tid] = cpuc;
	}
	return g;
}

/* A raw event as x86_pmu_event_init() leaves it, never scheduled. */
static struct perf_event *xsu_glue_event(struct kunit *test, u64 config,
					 bool pinned)
{
	struct perf_event *event;

	event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, event);
	event->attr.type = PERF_TYPE_RAW;
	event->attr.config = config & X86_RAW_EVENT_MASK;
	event->attr.pinned = pinned;
	event->hw.config = config;
	event->hw.idx = -1;
	event->hw.last_cpu = -1;
	event->hw.extra_reg.idx = EXTRA_REG_NONE;
	event->hw.branch_reg.idx = EXTRA_REG_NONE;
	event->group_leader = event;
	return event;
}

/**
 * xsu_glue_add() - add one event to a thread, as x86_pmu_add() does
 * @g:     the threads
 * @tid:   the thread
 * @event: the new event
 *
 * The pass runs over the thread's events so far and @event, with
 * interrupts disabled; a pass that placed every event keeps its
 * assignment in cpuc->assign[] and the event stays collected.
 *
 * Return: what x86_schedule_events() returned: 0, -EBUSY when the pass
 * failed only because of the sibling, -EINVAL otherwise.
 */
static int xsu_glue_add(struct xsu_glue *g, int tid, struct perf_event *event)
{
	struct cpu_hw_events *cpuc = g->cpuc[tid];
	int assign[X86_PMC_IDX_MAX], n = cpuc->n_events, ret;
	unsigned long flags;

	cpuc->event_list[n] = event;
	local_irq_save(flags);
	xsu_glue_here(g);
	ret = x86_schedule_events(cpuc, n + 1, assign);
	local_irq_restore(flags);
	if (!ret) {
		memcpy(cpuc->assign, assign, (n + 1) * sizeof(*assign));
		cpuc->n_events = n + 1;
	}
	return ret;
}

/* The counter the thread's last successful pass gave @event, -1: none. */
static int xsu_glue_counter(struct xsu_glue *g, int tid,
			    struct perf_event *event)
{
	struct cpu_hw_events *cpuc = g->cpuc[tid];
	int i;

	for (i = 0; i < cpuc->n_events; i++) {
		if (cpuc->event_list[i] == event)
			return cpuc->assign[i];
	}
	return -1;
}

/*
 * x86_pmu_enable(): the events run on the counters of the last successful
 * pass, then intel_pmu_enable_all() settles the thread's states.
 */
static void xsu_glue_enable(struct xsu_glue *g, int tid)
{
	struct cpu_hw_events *cpuc = g->cpuc[tid];
	unsigned long flags;
	int i;

	for (i = 0; i < cpuc->n_events; i++)
		cpuc->event_list[i]->hw.idx = cpuc->assign[i];
	local_irq_save(flags);
	xsu_glue_here(g);
	intel_xsu_settle(cpuc);
	local_irq_restore(flags);
}

/*
 * A reschedule takes every event of the thread out (x86_pmu_del()): each
 * gives back its counter through the put callback. The events keep
 * hw.idx, which the next pass starts from.
 */
static void xsu_glue_sched_out(struct xsu_glue *g, int tid)
{
	struct cpu_hw_events *cpuc = g->cpuc[tid];
	unsigned long flags;
	int i;

	local_irq_save(flags);
	for (i = 0; i < cpuc->n_events; i++)
		x86_pmu.put_event_constraints(cpuc, cpuc->event_list[i]);
	for (i = 0; i < cpuc->n_events; i++)
		cpuc->event_constraint[i] = NULL;
	cpuc->n_events = 0;
	local_irq_restore(flags);
}

/* The intel_xsu_kick_fn() part that follows the kicked reschedule. */
static void xsu_glue_rescheduled(struct xsu_glue *g, int tid)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&g->x->core.lock, flags);
	xsu_arb_rescheduled(&g->x->arb, tid);
	raw_spin_unlock_irqrestore(&g->x->core.lock, flags);
}

/*
 * Thread @tid takes every counter eXclusive: four corrupting events added
 * one by one, then its PMU enabled. @x receives them.
 */
static void xsu_glue_hold_all(struct kunit *test, struct xsu_glue *g,
			      int tid, struct perf_event **x)
{
	int i;

	for (i = 0; i < 4; i++) {
		x[i] = xsu_glue_event(test, GLUE_CORRUPTING, false);
		KUNIT_ASSERT_EQ(test, xsu_glue_add(g, tid, x[i]), 0);
	}
	xsu_glue_enable(g, tid);
}

static enum xsu_state xsu_glue_state(struct xsu_glue *g, int tid, int cntr)
{
	return xsu_counter_state(&g->x->core, tid, cntr);
}

/*
 * The protocol step by step: HT0 adds a corrupting event, HT1 another one,
 * HT0 another one, HT1 a corrupting one, HT0 another one, HT1 a corrupting
 * one, each add a pass of that thread's whole window. Written per step:
 * the new event's dynamic mask and its counter, or the failure.
 */
static void glue_protocol_walkthrough(struct kunit *test)
{
	static const struct {
		int tid;
		bool corrupting;
		u64 mask;
		int counter;	/* -1: the pass fails */
	} step[] = {
		{ 0, true,  0xf, 0 },
		{ 1, false, 0xe, 1 },
		{ 0, false, 0xf, 1 },
		{ 1, true,  0xc, 2 },
		{ 0, false, 0xb, 3 },
		{ 1, true,  0x4, -1 },
	};
	struct xsu_glue *g = xsu_glue_new(test);
	int s;

	for (s = 0; s < ARRAY_SIZE(step); s++) {
		struct cpu_hw_events *cpuc = g->cpuc[step[s].tid];
		struct perf_event *event;
		int n = cpuc->n_events, ret;

		event = xsu_glue_event(test, step[s].corrupting ?
				       GLUE_CORRUPTING : GLUE_OTHER, false);
		ret = xsu_glue_add(g, step[s].tid, event);
		/* the dynamic constraint the pass computed, kept at its index */
		KUNIT_EXPECT_EQ_MSG(test, cpuc->constraint_list[n].idxmsk64,
				    step[s].mask, "step %d", s + 1);
		if (step[s].counter < 0) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EBUSY, "step %d", s + 1);
			KUNIT_EXPECT_EQ(test, cpuc->n_events, n);
			KUNIT_EXPECT_NULL(test, cpuc->event_constraint[n]);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "step %d", s + 1);
		KUNIT_EXPECT_EQ_MSG(test, xsu_glue_counter(g, step[s].tid, event),
				    step[s].counter, "step %d", s + 1);
		xsu_glue_enable(g, step[s].tid);
	}
	/* HT0: X S U S, HT1: U S X U */
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 0), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 1), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 2), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 3), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, 0), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, 1), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, 2), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, 3), XSU_UNUSED);
}

/*
 * A pass moves HT0's corrupting event from counter 1 to another one, but
 * the event leaves counter 1 only when x86_pmu_enable() reprograms the
 * PMU. Until intel_pmu_enable_all() settles, HT1 must not start an event
 * on counter 1 (it would be corrupted), nor on the new counter.
 */
static void glue_move_exposure_window(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	struct perf_event *c0, *prec, *victim, *c1;
	int b;

	c0 = xsu_glue_event(test, GLUE_CORRUPTING, false);
	prec = xsu_glue_event(test, GLUE_PREC_DIST, false);
	victim = xsu_glue_event(test, GLUE_PREC_DIST, false);
	c1 = xsu_glue_event(test, GLUE_CORRUPTING, false);

	/* It ran on counter 1 before (re-added after a reschedule). */
	c0->hw.idx = 1;
	KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 0, c0), 0);
	KUNIT_ASSERT_EQ(test, xsu_glue_counter(g, 0, c0), 1);
	xsu_glue_enable(g, 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 1), XSU_EXCLUSIVE);

	/* An event that can only use counter 1 pushes it off. */
	KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 0, prec), 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(g, 0, prec), 1);
	b = xsu_glue_counter(g, 0, c0);
	KUNIT_ASSERT_TRUE(test, b == 0 || b == 2 || b == 3);

	/* Not settled: both counters stay eXclusive for HT1. */
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 1), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, b), XSU_EXCLUSIVE);
	/* HT1's event tied to counter 1 waits for the sibling. */
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 1, victim), -EBUSY);
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(g, 1, victim), -1);
	/* A corrupting event on HT1 gets neither counter. */
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 1, c1), 0);
	KUNIT_EXPECT_NE(test, xsu_glue_counter(g, 1, c1), 1);
	KUNIT_EXPECT_NE(test, xsu_glue_counter(g, 1, c1), b);
	xsu_glue_enable(g, 1);

	/* HT0's PMU now runs the move: counter 1 holds the other event. */
	xsu_glue_enable(g, 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 1), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, b), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 1, victim), 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(g, 1, victim), 1);
}

/*
 * An event already placed whose dynamic mask comes out empty keeps its
 * dynamic constraint, so that the next pass recomputes it: a cached
 * &emptyconstraint is not dynamic and would fail every later pass on the
 * thread. The sibling's state covers the event's only counter as the
 * switch of ht_bug_workaround to 1 leaves it: each thread records what it
 * runs (intel_xsu_track_cpu()), masks apply, and the sibling reschedules.
 */
static void glue_empty_mask_stays_dynamic(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	struct perf_event *e, *f, *x;
	struct event_constraint *c;

	e = xsu_glue_event(test, GLUE_L1D_PEND, false);
	f = xsu_glue_event(test, GLUE_OTHER, false);
	x = xsu_glue_event(test, GLUE_CORRUPTING, false);

	KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 0, e), 0);
	KUNIT_ASSERT_EQ(test, xsu_glue_counter(g, 0, e), 2);
	xsu_glue_enable(g, 0);

	/* Workaround off: HT1's corrupting event goes back on counter 2. */
	xsu_disable(&g->x->core);
	x->hw.idx = 2;
	KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 1, x), 0);
	KUNIT_ASSERT_EQ(test, xsu_glue_counter(g, 1, x), 2);
	xsu_glue_enable(g, 1);

	/* On again: each thread records its counters, then masks apply. */
	xsu_track(&g->x->core, 0, 0, BIT_ULL(2), 0);
	xsu_track(&g->x->core, 1, BIT_ULL(2), 0, 0);
	xsu_enable(&g->x->core);

	/* HT0 adds an event: e's only counter is eXclusive on HT1. */
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, f), -EBUSY);
	c = g->cpuc[0]->event_constraint[0];
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_TRUE(test, c->flags & PERF_X86_EVENT_DYNAMIC);
	KUNIT_EXPECT_EQ(test, c->weight, 0);

	/* HT1 reschedules: its corrupting event leaves counter 2. */
	xsu_glue_sched_out(g, 1);
	xsu_glue_enable(g, 1);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, 2), XSU_UNUSED);

	/* The next pass on HT0 places both. */
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, f), 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(g, 0, e), 2);
	KUNIT_EXPECT_NE(test, xsu_glue_counter(g, 0, f), 2);
	KUNIT_EXPECT_NE(test, xsu_glue_counter(g, 0, f), -1);
}

/*
 * A pinned event that fails only on the sibling's states waits: -EBUSY,
 * and a demand that holds the sibling to 3 GP counters.
 */
static void glue_sibling_failure_busy(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	struct perf_event *x[4], *p;
	int i;

	xsu_glue_hold_all(test, g, 1, x);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, i), XSU_EXCLUSIVE);

	p = xsu_glue_event(test, GLUE_OTHER, true);
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, p), -EBUSY);
	KUNIT_EXPECT_EQ(test, g->cpuc[0]->n_events, 0);
	KUNIT_EXPECT_TRUE(test, xsu_arb_waits(&g->x->arb, 0));
	KUNIT_EXPECT_EQ(test, g->x->arb.demand[0], 1);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(&g->x->arb, 1, 4, jiffies), 3);
}

/*
 * A group of two, the first event tied to counter 1 (PREC_DIST), the
 * second free, fails on a sibling holding every counter eXclusive: the
 * waiting event is the first the pass left out, so the demand asks for
 * counter 1 in particular, however many events were noted after it.
 */
static void glue_want_from_first_unplaced(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	int assign[X86_PMC_IDX_MAX], ret;
	struct cpu_hw_events *cpuc;
	struct perf_event *x[4];
	unsigned long flags;

	xsu_glue_hold_all(test, g, 1, x);

	/* Both events new in one pass, as a group's transaction brings them. */
	cpuc = g->cpuc[0];
	cpuc->event_list[0] = xsu_glue_event(test, GLUE_PREC_DIST, false);
	cpuc->event_list[1] = xsu_glue_event(test, GLUE_OTHER, false);
	local_irq_save(flags);
	xsu_glue_here(g);
	ret = x86_schedule_events(cpuc, 2, assign);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_TRUE(test, xsu_arb_waits(&g->x->arb, 0));
	KUNIT_EXPECT_EQ(test, g->x->arb.want[0], 0x2ULL);
	/* While it stands, the sibling's flexible events leave counter 1. */
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(&g->x->arb, 1, jiffies), 0x2ULL);
}

/*
 * HT1 waits for a counter HT0 holds with four corrupting events, and has
 * asked HT0 to give one back; HT1 then goes offline before HT0 has. The
 * demand goes with it: HT0's budget is every counter again at once, not
 * once the kick has been answered.
 */
static void glue_offline_forgets_demand(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	struct perf_event *x[4], *p;
	unsigned long flags;
	int i;

	xsu_glue_hold_all(test, g, 0, x);
	p = xsu_glue_event(test, GLUE_OTHER, false);
	KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 1, p), -EBUSY);
	KUNIT_ASSERT_EQ(test, xsu_arb_gpmax(&g->x->arb, 0, 4, jiffies), 3);

	local_irq_save(flags);
	intel_xsu_thread_dying(g->cpuc[1]);
	local_irq_restore(flags);

	KUNIT_EXPECT_FALSE(test, xsu_arb_waits(&g->x->arb, 1));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(&g->x->arb, 0, 4, jiffies), 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(&g->x->arb, 0, jiffies), 0ULL);
	/* HT0's next reschedule keeps all four events. */
	xsu_glue_sched_out(g, 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, x[i]), 0);
}

/* Five GP events on four counters: multiplexing, -EINVAL, no demand. */
static void glue_too_many_events_inval(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	struct perf_event *event;
	int i;

	event = xsu_glue_event(test, GLUE_CORRUPTING, false);
	KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 0, event), 0);
	for (i = 0; i < 3; i++) {
		event = xsu_glue_event(test, GLUE_OTHER, false);
		KUNIT_ASSERT_EQ(test, xsu_glue_add(g, 0, event), 0);
	}
	event = xsu_glue_event(test, GLUE_OTHER, false);
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, event), -EINVAL);
	KUNIT_EXPECT_EQ(test, g->cpuc[0]->n_events, 4);
	KUNIT_EXPECT_FALSE(test, xsu_arb_waits(&g->x->arb, 0));
	KUNIT_EXPECT_EQ(test, g->x->arb.demand[0], 0);
}

/*
 * The starvation the arbitration prevents: HT0 runs four corrupting
 * events, HT1 then adds one other event. HT1's pass fails and asks HT0 to
 * reschedule; HT0, now held to 3 counters, keeps three on their counters
 * and HT1 gets the fourth.
 */
static void glue_no_starvation(struct kunit *test)
{
	struct xsu_glue *g = xsu_glue_new(test);
	struct perf_event *x[4], *br;
	int i;

	xsu_glue_hold_all(test, g, 0, x);
	br = xsu_glue_event(test, GLUE_OTHER, false);

	/* Every counter eXclusive on HT0. */
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 1, br), -EBUSY);
	KUNIT_EXPECT_EQ(test, g->x->arb.demand[1], 1);

	/* HT0's reschedule: three fit its budget, the fourth waits. */
	xsu_glue_sched_out(g, 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, x[i]), 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 0, x[3]), -EBUSY);
	xsu_glue_enable(g, 0);
	xsu_glue_rescheduled(g, 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, xsu_glue_counter(g, 0, x[i]), i);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 0, 3), XSU_UNUSED);

	/* HT1 retries and gets the counter HT0 gave back. */
	KUNIT_EXPECT_EQ(test, xsu_glue_add(g, 1, br), 0);
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(g, 1, br), 3);
	xsu_glue_enable(g, 1);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(g, 1, 3), XSU_SHARED);
}

static struct kunit_case x86_intel_xsu_glue_cases[] = {
	KUNIT_CASE(glue_protocol_walkthrough),
	KUNIT_CASE(glue_move_exposure_window),
	KUNIT_CASE(glue_empty_mask_stays_dynamic),
	KUNIT_CASE(glue_sibling_failure_busy),
	KUNIT_CASE(glue_want_from_first_unplaced),
	KUNIT_CASE(glue_offline_forgets_demand),
	KUNIT_CASE(glue_too_many_events_inval),
	KUNIT_CASE(glue_no_starvation),
	{}
};

static struct kunit_suite x86_intel_xsu_glue_suite = {
	.name = "x86_intel_xsu_glue",
	.test_cases = x86_intel_xsu_glue_cases,
};

kunit_test_suites(&x86_intel_xsu_glue_suite);
