// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the XSU unit (xsu.c): the exclusion table, release,
 * moves, failed transactions, switching the workaround off and on,
 * hotplug, and the lock used from hard interrupt context as the scheduler
 * does (run with lockdep); and for its fair arbitration (xsu_arb.c):
 * budgets, demands, kicks and retries. The units are called directly, on
 * private state, with the counters the tests write: no PMU hardware
 * needed. Scheduling decisions (which counter an event gets, whether a
 * pass fails) are tested on the kernel's own pass, x86_schedule_events(),
 * by the suite x86_intel_xsu_glue (xsu_glue_kunit.c).
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/debug_locks.h>
#include <linux/irq_work.h>
#include <linux/completion.h>

#include "xsu.h"
#include "xsu_arb.h"

struct xsu_window {
	int n;
	u64 mask[8];
	bool corrupting[8];
	bool pinned[8];
	int counter[8];
	bool reclaim;
};

/*
 * One transaction of thread @tid on the unit alone, as the glue brackets a
 * pass: begin, the dynamic mask of each event of @w into @dyn, then, if
 * @commit, each event committed on the counter the test wrote for it in
 * @w, end. Nothing here chooses a counter.
 */
static void xsu_txn(struct xsu_core *xc, int tid, const struct xsu_window *w,
		    bool commit, u64 *dyn)
{
	unsigned long flags;
	int i;

	local_irq_save(flags);
	xsu_begin(xc, tid, w->reclaim);
	for (i = 0; i < w->n; i++)
		dyn[i] = xsu_constrain(xc, tid, w->mask[i], w->corrupting[i],
				       w->pinned[i]);
	for (i = 0; commit && i < w->n; i++)
		xsu_commit(xc, tid, w->counter[i], w->corrupting[i],
			   w->pinned[i]);
	xsu_end(xc, tid);
	local_irq_restore(flags);
}

/* x86_pmu_enable(): the hardware runs thread @tid's placement. */
static bool xsu_settled(struct xsu_core *xc, int tid)
{
	unsigned long flags;
	bool notify;

	local_irq_save(flags);
	notify = xsu_settle(xc, tid);
	local_irq_restore(flags);
	return notify;
}

/* An event of @w with @mask, on counter @counter when committed. */
static void xsu_add(struct xsu_window *w, u64 mask, bool corrupting,
		    int counter)
{
	w->mask[w->n] = mask;
	w->corrupting[w->n] = corrupting;
	w->pinned[w->n] = false;
	w->counter[w->n] = counter;
	w->n++;
}

/* The same, for an event of a pinned group. */
static void xsu_add_pinned(struct xsu_window *w, u64 mask, bool corrupting,
			   int counter)
{
	xsu_add(w, mask, corrupting, counter);
	w->pinned[w->n - 1] = true;
}

/* x86_pmu_enable() after xsu_settle(): the counters kept disabled. */
static u64 xsu_held_now(struct xsu_core *xc, int tid)
{
	unsigned long flags;
	u64 held;

	local_irq_save(flags);
	held = xsu_hold(xc, tid);
	local_irq_restore(flags);
	return held;
}

static struct xsu_core *xsu_new(struct kunit *test)
{
	struct xsu_core *xc = kunit_kzalloc(test, sizeof(*xc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, xc);
	xsu_init(xc, true);
	xsu_thread_online(xc, 0, true);
	xsu_thread_online(xc, 1, true);
	return xc;
}

/*
 * The XSU table as the admin guide writes it: whether an event may use a
 * counter, by the sibling's state of that counter and by whether the event
 * corrupts.
 */
static const bool xsu_table[3][2] = {
	/*		  other	 corrupting */
	[XSU_UNUSED]	= { true,  true },
	[XSU_SHARED]	= { true,  false },
	[XSU_EXCLUSIVE]	= { false, false },
};

/*
 * Every static mask on 4 counters, corrupting or not, against every
 * combination of sibling states (number @st, base 3, one digit per
 * counter): each counter of the static mask must be allowed exactly where
 * the written table says so.
 */
static void allowed_mask_table(struct kunit *test)
{
	int m, corr, st, c, s;
	u64 ex, sh, got;

	for (m = 0; m < 16; m++) {
		for (corr = 0; corr < 2; corr++) {
			for (st = 0; st < 81; st++) {
				ex = 0;
				sh = 0;
				for (c = 0, s = st; c < 4; c++, s /= 3) {
					if (s % 3 == XSU_EXCLUSIVE)
						ex |= BIT_ULL(c);
					else if (s % 3 == XSU_SHARED)
						sh |= BIT_ULL(c);
				}
				got = xsu_allowed_mask(m, corr, ex, sh);
				for (c = 0, s = st; c < 4; c++, s /= 3)
					KUNIT_EXPECT_EQ(test, !!(got & BIT_ULL(c)),
							(m & BIT_ULL(c)) &&
							xsu_table[s % 3][corr]);
			}
		}
	}
}

/* No corrupting event: all 15 masks stay static against S/U siblings. */
static void static_without_corrupting(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	unsigned long flags;
	int m, sh;
	u64 dyn;

	for (sh = 0; sh < 16; sh++) {
		xsu_track(xc, 1, 0, sh, 0);
		for (m = 1; m < 16; m++) {
			local_irq_save(flags);
			xsu_begin(xc, 0, false);
			dyn = xsu_constrain(xc, 0, m, false, false);
			xsu_end(xc, 0);
			local_irq_restore(flags);
			KUNIT_EXPECT_EQ(test, dyn, (u64)m);
		}
	}
}

static void release_returns_unused(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	unsigned long flags;
	u64 dyn[8];

	xsu_add(&a, 0x1, false, 0);
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_add(&b, 0x1, true, 0);
	xsu_txn(xc, 1, &b, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0);

	/* Until the hardware has stopped the event, its counter stays marked. */
	local_irq_save(flags);
	xsu_release(xc, 0, a.counter[0]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_SHARED);
	xsu_txn(xc, 1, &b, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_UNUSED);
	xsu_txn(xc, 1, &b, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x1);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_EXCLUSIVE);
}

/*
 * A move marks the old counter and the new one until the hardware has
 * moved the event: the sibling must not start a corrupting event beside
 * the old counter meanwhile.
 */
static void move_keeps_old_counter_until_settled(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	bool waits, first, again;
	unsigned long flags;
	u64 dyn[8];

	xsu_add(&a, 0x1, false, 0);
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_settled(xc, 0);
	/* HT0's event moves from c0 to c1 */
	a.mask[0] = 0x2;
	a.counter[0] = 1;
	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 1), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_held(xc, 0), 0x2);
	xsu_add(&b, 0x1, true, 0);
	xsu_txn(xc, 1, &b, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0);
	/* HT1 failed on a counter HT0 is leaving: HT0 will report settling */
	local_irq_save(flags);
	xsu_begin(xc, 1, false);
	waits = xsu_wait_settle(xc, 1, false);
	xsu_end(xc, 1);
	first = xsu_settle(xc, 0);
	again = xsu_settle(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, waits);
	KUNIT_EXPECT_TRUE(test, first);
	KUNIT_EXPECT_FALSE(test, again);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_UNUSED);
	xsu_txn(xc, 1, &b, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x1);
	/* settled: nothing to wait for */
	local_irq_save(flags);
	xsu_begin(xc, 0, false);
	waits = xsu_wait_settle(xc, 0, false);
	xsu_end(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, waits);
	/*
	 * Unless HT1 is being asked to give counters back: its next settle,
	 * once it has, reports it, and only that one.
	 */
	local_irq_save(flags);
	xsu_begin(xc, 0, false);
	waits = xsu_wait_settle(xc, 0, true);
	xsu_end(xc, 0);
	xsu_release(xc, 1, 0);
	first = xsu_settle(xc, 1);
	xsu_release(xc, 1, 0);
	again = xsu_settle(xc, 1);
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, waits);
	KUNIT_EXPECT_TRUE(test, first);
	KUNIT_EXPECT_FALSE(test, again);
}

/*
 * The sibling that failed on counters being left is told once: after the
 * settle that reported it, later settles of the thread report nothing
 * until the sibling fails on them again.
 */
static void settle_reports_once(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	unsigned long flags;
	bool waits;
	u64 dyn[8];

	xsu_add(&a, 0x1, false, 0);
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_settled(xc, 0);
	a.mask[0] = 0x2;
	a.counter[0] = 1;
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_add(&b, 0x1, true, 0);
	xsu_txn(xc, 1, &b, false, dyn);
	local_irq_save(flags);
	xsu_begin(xc, 1, false);
	waits = xsu_wait_settle(xc, 1, false);
	xsu_end(xc, 1);
	local_irq_restore(flags);
	KUNIT_ASSERT_TRUE(test, waits);
	KUNIT_EXPECT_TRUE(test, xsu_settled(xc, 0));

	/* HT0 moves back and settles: HT1 is not waiting any more. */
	a.mask[0] = 0x1;
	a.counter[0] = 0;
	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_FALSE(test, xsu_settled(xc, 0));
}

/* A transaction that commits nothing leaves the thread's states alone. */
static void failed_pass_leaves_no_state(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { };
	unsigned long flags;
	u64 dyn[8];

	xsu_add(&a, 0x3, true, 0);
	xsu_add(&a, 0x3, false, 1);
	xsu_txn(xc, 0, &a, false, dyn);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl | xc->thread[0].shared, 0);

	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl, 0x1);
	KUNIT_EXPECT_EQ(test, xc->thread[0].shared, 0x2);

	/*
	 * Inside a pass, release does nothing: put-back events hold none.
	 * The placement keeps the counter through the next settle.
	 */
	local_irq_save(flags);
	xsu_begin(xc, 0, false);
	xsu_release(xc, 0, 0);
	xsu_end(xc, 0);
	xsu_settle(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl, 0x1);
	KUNIT_EXPECT_EQ(test, xc->thread[0].place_excl, 0x1);
	xsu_add(&a, 0x3, false, -1);
	xsu_txn(xc, 0, &a, false, dyn);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl, 0x1);
	KUNIT_EXPECT_EQ(test, xc->thread[0].shared, 0x2);
}

static void switch_off_clears_states(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	u64 dyn[8];

	xsu_add(&a, 0xf, true, 0);
	xsu_add(&b, 0x1, false, 0);
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_txn(xc, 1, &b, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0);

	xsu_disable(xc);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl | xc->thread[0].shared, 0);
	KUNIT_EXPECT_EQ(test, xc->thread[1].excl | xc->thread[1].shared, 0);
	KUNIT_EXPECT_FALSE(test, xc->thread[0].tracked);
	xsu_txn(xc, 1, &b, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x1);
	/* Off: passes record nothing. */
	KUNIT_EXPECT_EQ(test, xc->thread[1].shared, 0);
}

/*
 * Switching on, between the two steps: a thread already tracked records
 * its passes although masks do not apply yet, so that the states are
 * exact when they do.
 */
static void tracked_pass_before_enable(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	u64 dyn[8];

	xsu_disable(xc);
	xsu_track(xc, 0, BIT_ULL(0), 0, 0);
	/* HT0 moves its corrupting event to c1 before masks apply. */
	xsu_add(&a, 0x3, true, 1);
	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x3);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 1), XSU_EXCLUSIVE);

	xsu_track(xc, 1, 0, 0, 0);
	xsu_enable(xc);
	xsu_add(&b, 0x3, false, 0);
	xsu_txn(xc, 1, &b, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x1);
}

/*
 * A pinned event of a reclaim pass sees only the sibling's pinned states;
 * outside a reclaim pass, or for a flexible event, every state counts.
 */
static void reclaim_sees_pinned_states_only(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window sib = { }, a = { };
	u64 dyn[8];

	xsu_add(&sib, 0x1, true, 0);		/* flexible, corrupting, c0 */
	xsu_add_pinned(&sib, 0x2, true, 1);	/* pinned, corrupting, c1 */
	xsu_add(&sib, 0x4, false, 2);		/* flexible, c2 */
	xsu_txn(xc, 1, &sib, true, dyn);
	xsu_settled(xc, 1);

	xsu_add_pinned(&a, 0xf, false, -1);
	xsu_add_pinned(&a, 0xf, true, -1);
	xsu_add(&a, 0xf, false, -1);
	xsu_txn(xc, 0, &a, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0xc);
	KUNIT_EXPECT_EQ(test, dyn[1], 0x8);
	KUNIT_EXPECT_EQ(test, dyn[2], 0xc);

	a.reclaim = true;
	xsu_txn(xc, 0, &a, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0xd);
	KUNIT_EXPECT_EQ(test, dyn[1], 0xd);
	KUNIT_EXPECT_EQ(test, dyn[2], 0xc);
}

/*
 * A counter taken back stays disabled (held) until the sibling has left
 * it: its settle tells the holder to look again, and then it is free.
 */
static void reclaimed_counter_held_until_left(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window sib = { }, a = { };
	u64 dyn[8];

	xsu_add(&sib, 0x3, true, 0);
	xsu_txn(xc, 1, &sib, true, dyn);
	xsu_settled(xc, 1);

	/* HT0's pinned event takes c0 in a reclaim pass */
	xsu_add_pinned(&a, 0x1, false, 0);
	a.reclaim = true;
	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x1);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0x1);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0x1);

	/* HT1 reschedules: its event must leave c0 */
	xsu_txn(xc, 1, &sib, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x2);
	sib.counter[0] = 1;
	xsu_txn(xc, 1, &sib, true, dyn);
	/* not settled yet: HT1's hardware may still run c0 */
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0x1);
	KUNIT_EXPECT_TRUE(test, xsu_settled(xc, 1));
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0);
	/* nothing held: nothing to report any more */
	xsu_txn(xc, 1, &sib, true, dyn);
	KUNIT_EXPECT_FALSE(test, xsu_settled(xc, 1));
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_SHARED);
}

/* A reclaim pass never takes a counter from the sibling's pinned events. */
static void reclaim_leaves_pinned_alone(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window sib = { }, a = { };
	u64 dyn[8];

	xsu_add_pinned(&sib, 0xf, true, 0);
	xsu_add_pinned(&sib, 0xf, true, 1);
	xsu_add_pinned(&sib, 0xf, false, 2);
	xsu_add_pinned(&sib, 0xf, false, 3);
	xsu_txn(xc, 1, &sib, true, dyn);
	xsu_settled(xc, 1);

	xsu_add_pinned(&a, 0xf, false, -1);
	a.reclaim = true;
	xsu_txn(xc, 0, &a, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0xc);
	a.corrupting[0] = true;
	xsu_txn(xc, 0, &a, false, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0);
}

/* Switching off or going offline frees what was held. */
static void held_cleared_when_off(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window sib = { }, a = { };
	u64 dyn[8];

	xsu_add(&sib, 0x1, true, 0);
	xsu_txn(xc, 1, &sib, true, dyn);
	xsu_settled(xc, 1);
	xsu_add_pinned(&a, 0x1, false, 0);
	a.reclaim = true;
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0x1);
	xsu_disable(xc);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0);

	xsu_thread_online(xc, 0, true);
	xsu_thread_online(xc, 1, true);
	xsu_txn(xc, 1, &sib, true, dyn);
	xsu_settled(xc, 1);
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0x1);
	xsu_thread_offline(xc, 1);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0);
}

/*
 * A thread that goes offline holding counters it took back forgets them:
 * its sibling, leaving those counters, has nobody to tell, and the thread
 * comes back online holding none.
 */
static void held_forgotten_offline(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window sib = { }, a = { };
	u64 dyn[8];

	xsu_add(&sib, 0x3, true, 0);
	xsu_txn(xc, 1, &sib, true, dyn);
	xsu_settled(xc, 1);
	xsu_add_pinned(&a, 0x1, false, 0);
	a.reclaim = true;
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_held_now(xc, 0), 0x1);

	xsu_thread_offline(xc, 0);
	sib.counter[0] = 1;
	xsu_txn(xc, 1, &sib, true, dyn);
	KUNIT_EXPECT_FALSE(test, xsu_settled(xc, 1));
	xsu_thread_online(xc, 0, true);
	KUNIT_EXPECT_EQ(test, xc->thread[0].held, 0);
}

/*
 * A counter index out of range is not a counter: releasing it changes
 * nothing of the placement (bit 0 included, where a shift by 64 lands on
 * x86).
 */
static void release_out_of_range(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { };
	unsigned long flags;
	u64 dyn[8];

	xsu_add(&a, 0x1, true, 0);
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_settled(xc, 0);

	local_irq_save(flags);
	xsu_release(xc, 0, 64);
	xsu_release(xc, 0, -1);
	local_irq_restore(flags);
	xsu_settled(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_held(xc, 0), 0x1);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_EXCLUSIVE);
}

static void switch_on_from_counters(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	u64 dyn[8];

	xsu_disable(xc);
	xsu_add(&a, 0x1, true, 0);	/* HT0: corrupting on c0 */
	xsu_add(&b, 0xf, false, 0);	/* HT1: on c0 too */
	xsu_txn(xc, 0, &a, true, dyn);
	xsu_txn(xc, 1, &b, true, dyn);

	/* Each thread records what is on its counters, then masks apply. */
	xsu_track(xc, 0, BIT_ULL(a.counter[0]), 0, 0);
	xsu_track(xc, 1, 0, BIT_ULL(b.counter[0]), 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_SHARED);
	xsu_enable(xc);

	/* The reschedule moves HT1's event off the corrupted counter. */
	b.counter[0] = 1;
	xsu_txn(xc, 1, &b, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0xe);
	xsu_settled(xc, 1);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 1), XSU_SHARED);
}

static void offline_releases_counters(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { };
	u64 dyn[8];

	xsu_add(&a, 0xf, true, 0);
	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_EXCLUSIVE);
	xsu_thread_offline(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_UNUSED);
	KUNIT_EXPECT_FALSE(test, xc->thread[0].tracked);
	xsu_thread_online(xc, 0, true);
	KUNIT_EXPECT_TRUE(test, xc->thread[0].tracked);
}

static void corrupting_present_follows_account(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	bool present[3];
	unsigned long flags;

	local_irq_save(flags);
	xsu_account(xc, 1, 1);
	xsu_begin(xc, 0, false);
	present[0] = xsu_corrupting_present(xc, 0);
	xsu_end(xc, 0);
	xsu_account(xc, 1, -1);
	xsu_begin(xc, 0, false);
	present[1] = xsu_corrupting_present(xc, 0);
	xsu_end(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, present[0]);
	KUNIT_EXPECT_FALSE(test, present[1]);

	xsu_disable(xc);
	local_irq_save(flags);
	xsu_account(xc, 1, 1);
	xsu_begin(xc, 0, false);
	present[2] = xsu_corrupting_present(xc, 0);
	xsu_end(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, present[2]);
	KUNIT_EXPECT_FALSE(test, xsu_corrupting_present(NULL, 0));
}

struct xsu_irq_pass {
	struct irq_work work;
	struct completion done;
	struct xsu_core *xc;
	u64 dyn;
};

static void xsu_irq_pass_fn(struct irq_work *work)
{
	struct xsu_irq_pass *p = container_of(work, struct xsu_irq_pass, work);
	struct xsu_window w = { };
	u64 dyn[8];

	xsu_add(&w, 0xf, true, 0);
	xsu_txn(p->xc, 1, &w, true, dyn);
	p->dyn = dyn[0];
	complete(&p->done);
}

/*
 * The scheduler runs passes from hard interrupt context (hrtimer, IPI);
 * switching and hotplug take the lock from process context. With lockdep
 * on, any inconsistent use would splat and turn debug_locks off.
 */
static void lock_usage_from_hardirq(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_irq_pass *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct xsu_window a = { };
	u64 dyn[8];

	/*
	 * Lockdep turns debug_locks off when it sees the lock taken in hard
	 * interrupt context and elsewhere with interrupts on: that is what
	 * fails this test, so it needs lockdep, and lockdep still on.
	 */
	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "needs CONFIG_PROVE_LOCKING");
	KUNIT_ASSERT_TRUE_MSG(test, debug_locks, "lockdep was already off");
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->xc = xc;
	init_completion(&p->done);
	init_irq_work(&p->work, xsu_irq_pass_fn);
	irq_work_queue(&p->work);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, HZ), 0);
	irq_work_sync(&p->work);
	KUNIT_EXPECT_EQ(test, p->dyn, 0xf);

	xsu_add(&a, 0xf, false, 1);
	xsu_txn(xc, 0, &a, true, dyn);
	KUNIT_EXPECT_EQ(test, dyn[0], 0xe);
	xsu_disable(xc);
	xsu_track(xc, 0, 0, BIT_ULL(a.counter[0]), 0);
	xsu_enable(xc);
	xsu_thread_offline(xc, 1);

	KUNIT_EXPECT_TRUE(test, debug_locks);
}

static struct kunit_case x86_intel_xsu_cases[] = {
	KUNIT_CASE(allowed_mask_table),
	KUNIT_CASE(static_without_corrupting),
	KUNIT_CASE(release_returns_unused),
	KUNIT_CASE(move_keeps_old_counter_until_settled),
	KUNIT_CASE(settle_reports_once),
	KUNIT_CASE(failed_pass_leaves_no_state),
	KUNIT_CASE(switch_off_clears_states),
	KUNIT_CASE(switch_on_from_counters),
	KUNIT_CASE(tracked_pass_before_enable),
	KUNIT_CASE(reclaim_sees_pinned_states_only),
	KUNIT_CASE(reclaimed_counter_held_until_left),
	KUNIT_CASE(reclaim_leaves_pinned_alone),
	KUNIT_CASE(held_cleared_when_off),
	KUNIT_CASE(held_forgotten_offline),
	KUNIT_CASE(release_out_of_range),
	KUNIT_CASE(offline_releases_counters),
	KUNIT_CASE(corrupting_present_follows_account),
	KUNIT_CASE(lock_usage_from_hardirq),
	{}
};

static struct kunit_suite x86_intel_xsu_suite = {
	.name = "x86_intel_xsu",
	.test_cases = x86_intel_xsu_cases,
};

/* ---- xsu_arb.c: the fair arbitration ---- */

static void arb_budget_table(struct kunit *test)
{
	static const int four[] = { 4, 3, 2, 2, 2, 2 };
	int d;

	for (d = 0; d < ARRAY_SIZE(four); d++)
		KUNIT_EXPECT_EQ(test, xsu_arb_budget(4, d), four[d]);
	KUNIT_EXPECT_EQ(test, xsu_arb_budget(8, 1), 7);
	KUNIT_EXPECT_EQ(test, xsu_arb_budget(8, 4), 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_budget(8, 7), 4);
}

/*
 * The arbitration state holds the matcher's state for both threads, too
 * big for a test's frame: each test gets one from KUnit, freed after it.
 */
static struct xsu_arb *arb_new(struct kunit *test)
{
	struct xsu_arb *arb = kunit_kzalloc(test, sizeof(*arb), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, arb);
	return arb;
}

/*
 * Thread @tid fails a pass over @n events with @masks that adds the group
 * of the events from @first on, on the last one, and ends it as the glue
 * does (intel_stop_scheduling()).
 */
static bool arb_fail_group(struct xsu_arb *arb, int tid, const u64 *masks,
			   u64 corrupting, int n, int first, u64 held,
			   u64 sib_held, unsigned long now)
{
	int i;

	xsu_arb_begin(arb, tid);
	xsu_arb_adds(arb, tid, first);
	for (i = 0; i < n; i++)
		xsu_arb_note(arb, tid, i, masks[i], corrupting & BIT_ULL(i));
	return xsu_arb_end(arb, tid, xsu_arb_unplaced(arb, tid, BIT_ULL(n - 1)),
			   held, sib_held, now, 5);
}

/* The same for a pass that adds one event, the last. */
static bool arb_fail(struct xsu_arb *arb, int tid, const u64 *masks,
		     u64 corrupting, int n, u64 held, u64 sib_held,
		     unsigned long now)
{
	return arb_fail_group(arb, tid, masks, corrupting, n, n - 1, held,
			      sib_held, now);
}

static void arb_demand_and_lapse(struct kunit *test)
{
	const u64 masks[] = { 0xf, 0xf };
	unsigned long t0 = ULONG_MAX - 2;	/* the deadline wraps */
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, t0), 4);

	/* HT1 fails on two corrupting events: HT0 (holding 4) must give 2. */
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, masks, 0x3, 2, 0, 0xf, t0));
	KUNIT_EXPECT_EQ(test, arb->demand[1], 2);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, t0), 2);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, t0 + 4), 2);
	/* Past its deadline, it stands until HT0 has rescheduled as asked. */
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, t0 + 5), 2);
	xsu_arb_rescheduled(arb, 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, t0 + 5), 4);
	/* HT1 itself is not held back by its own demand. */
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, t0), 4);
	/* A pass with no event needing a GP counter publishes nothing. */
	xsu_arb_begin(arb, 0);
	KUNIT_EXPECT_FALSE(test, xsu_arb_end(arb, 0, 0, 0, 0, t0, 5));
	KUNIT_EXPECT_EQ(test, arb->demand[0], 0);
	KUNIT_EXPECT_FALSE(test, xsu_arb_waits(arb, 0));
	KUNIT_EXPECT_TRUE(test, xsu_arb_waits(arb, 1));
}

/*
 * A committed pass renews a standing demand, and asks nothing of the
 * sibling: a thread whose task runs in short slices keeps its share
 * across them, instead of failing at every switch-in after the sibling
 * took the counters back. Without a standing demand it publishes none.
 * The demand lapses once passes stop.
 */
static void arb_committed_pass_renews(struct kunit *test)
{
	const u64 two[] = { 0xf, 0xf }, four[] = { 0xf, 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);
	int i;

	xsu_arb_init(arb, 4);
	xsu_arb_begin(arb, 1);
	xsu_arb_note(arb, 1, 0, two[0], false);
	xsu_arb_note(arb, 1, 1, two[1], false);
	KUNIT_EXPECT_FALSE(test, xsu_arb_end(arb, 1, 0, 0x3, 0xc, 90, 5));
	KUNIT_EXPECT_EQ(test, arb->demand[1], 0);

	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, two, 0, 2, 0, 0xf, 100));
	xsu_arb_rescheduled(arb, 0);
	/* HT1's task runs again every 3 ticks: its passes place both */
	for (i = 1; i <= 10; i++) {
		xsu_arb_begin(arb, 1);
		xsu_arb_note(arb, 1, 0, two[0], false);
		xsu_arb_note(arb, 1, 1, two[1], false);
		KUNIT_EXPECT_FALSE(test, xsu_arb_end(arb, 1, 0, 0x3, 0xc,
						     100 + 3 * i, 5));
		KUNIT_EXPECT_FALSE(test, xsu_arb_waits(arb, 1));
		KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 100 + 3 * i + 2),
				2);
	}
	KUNIT_EXPECT_FALSE(test, arb->kicked[0]);
	/* HT1 waits for nothing: HT0 within its budget asks it to retry nothing */
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 0, four, 0xf, 4, 0x3, 0x3, 131));
	/* no pass for longer than the hold: the sibling gets all back */
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 100 + 30 + 5), 4);
}

/*
 * The event a thread waits for is the first one its pass left out, not
 * the last one noted: with scheduling past failures, later events of the
 * pass may be noted after it.
 */
static void arb_want_from_the_failed_event(struct kunit *test)
{
	const u64 masks[] = { 0xf, 0x2, 0x4 };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	xsu_arb_begin(arb, 1);
	xsu_arb_note(arb, 1, 0, masks[0], false);
	xsu_arb_note(arb, 1, 1, masks[1], false);
	xsu_arb_note(arb, 1, 2, masks[2], false);
	/* HT0 holds c1: the event tied to it is left out, c2's is placed */
	KUNIT_EXPECT_TRUE(test, xsu_arb_end(arb, 1, BIT_ULL(1), 0, 0x2, 40, 5));
	KUNIT_EXPECT_EQ(test, arb->want[1], 0x2);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 40), 0x2);
	/* every GP event of the window counts, placed or not */
	KUNIT_EXPECT_EQ(test, arb->demand[1], 3);
}

/*
 * An event that may take any GP counter is tied to none: its sibling has
 * no counter to leave it, only a budget to keep.
 */
static void arb_untied_avoids_nothing(struct kunit *test)
{
	const u64 masks[] = { 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, masks, 0x3, 2, 0, 0xf, 40));
	KUNIT_EXPECT_EQ(test, arb->want[1], 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 40), 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 40), 2);
}

/*
 * Both threads wait for an event tied to the same counter (perf's
 * MemoryBound group has two events that only count on counter 2): neither
 * leaves that counter to the other, or neither would ever get it.
 */
static void arb_both_tied_to_one_counter(struct kunit *test)
{
	const u64 tied[] = { 0xf, 0x4 };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, tied, 0, 2, 0, 0x4, 30));
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 30), 0x4);
	arb_fail(arb, 0, tied, 0, 2, 0, 0x4, 30);
	KUNIT_EXPECT_EQ(test, arb->want[0], 0x4);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 30), 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 1, 30), 0);
}

/* A thread going offline holds its sibling back no longer. */
static void arb_offline_forgets(struct kunit *test)
{
	const u64 masks[] = { 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, masks, 0x3, 2, 0, 0xf, 50));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 50), 2);
	KUNIT_EXPECT_TRUE(test, arb->kicked[0]);
	xsu_arb_thread_reset(arb, 1);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 50), 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 50), 0);
	xsu_arb_thread_reset(arb, 0);
	KUNIT_EXPECT_FALSE(test, arb->kicked[0]);
}

/*
 * A demand stands while its thread holds GP counters, however long it
 * makes no pass, and for the hold after it let the last one go.
 */
static void arb_demand_stands_while_holding(struct kunit *test)
{
	const u64 two[] = { 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, two, 0, 2, 0, 0xf, 200));
	xsu_arb_rescheduled(arb, 0);
	/* HT1's group is placed on c0-c1 and stays, without a pass */
	xsu_arb_round(arb, 1, false, 0x3, true, 201, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 201 + 1000), 2);
	/* a fixed counter alone holds nothing the sibling wants */
	xsu_arb_round(arb, 1, false, BIT_ULL(32), true, 1300, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 1304), 2);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 1305), 4);
	/* held again: stands again */
	xsu_arb_round(arb, 1, false, 0x1, true, 1306, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 5000), 2);
	xsu_arb_thread_reset(arb, 1);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 5000), 4);
}

/*
 * A demand held up by the GP counters its thread holds outlives its
 * corrupting events by a hold at most: once the rounds have found no
 * corrupting event on the core for a hold, it lapses, and it does not
 * come back with the next corrupting event. Left standing, a demand from
 * corrupting events gone would cap the sibling for as long as the thread
 * counts anything. A shorter gap keeps it, and a corrupting event that
 * perf rotated out renews it when tried again.
 */
static void arb_demand_lapses_without_corrupting_events(struct kunit *test)
{
	const u64 two[] = { 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, two, 0, 2, 0, 0xf, 200));
	xsu_arb_rescheduled(arb, 0);
	xsu_arb_round(arb, 1, false, 0x3, true, 201, 5);

	/* A gap shorter than a hold: it still stands */
	xsu_arb_round(arb, 0, false, 0xc, false, 300, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 304), 2);
	xsu_arb_round(arb, 0, false, 0xc, true, 304, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 1000), 2);

	/* No corrupting event on the core for a hold: it lapses */
	xsu_arb_round(arb, 0, false, 0xc, false, 1000, 5);
	xsu_arb_round(arb, 1, false, 0x3, false, 1002, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 1004), 2);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 1005), 4);
	/* and stays gone when corrupting events come back */
	xsu_arb_round(arb, 0, false, 0xc, true, 1100, 5);
	KUNIT_EXPECT_EQ(test, arb->demand[1], 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 1100), 4);

	/* A corrupting event rotated out and back renews the demand. */
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, two, 0x1, 2, 0x1, 0xf, 2000));
	xsu_arb_rescheduled(arb, 0);
	xsu_arb_round(arb, 1, true, 0x1, false, 2001, 5);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 2004), 3);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, two, 0x1, 2, 0x1, 0xf, 2004));
	xsu_arb_rescheduled(arb, 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 2008), 3);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 2009), 4);
}

/*
 * A thread that went offline and came back waits afresh: within the same
 * tick, it is asked to retry as soon as its sibling stops within its
 * budget, although it was asked before it went.
 */
static void arb_offline_forgets_retries(struct kunit *test)
{
	const u64 one[] = { 0xf }, four[] = { 0xf, 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, one, 0x1, 1, 0, 0xf, 30));
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, four, 0xf, 4, 0x7, 0, 30));
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 0, four, 0xf, 4, 0x7, 0, 30));
	xsu_arb_thread_reset(arb, 1);
	arb_fail(arb, 1, one, 0x1, 1, 0, 0x7, 30);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, four, 0xf, 4, 0x7, 0, 30));
}

static void arb_demand_only_when_static_fits(struct kunit *test)
{
	const u64 five[] = { 0xf, 0xf, 0xf, 0xf, 0xf };
	const u64 mix[] = { 0xf | BIT_ULL(32), 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	/* Five events on four counters: multiplexing, not the sibling. */
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 0, five, 0, 5, 0, 0xf, 10));
	KUNIT_EXPECT_EQ(test, arb->demand[0], 0);
	KUNIT_EXPECT_FALSE(test, xsu_arb_waits(arb, 0));
	KUNIT_EXPECT_FALSE(test, arb->kicked[1]);

	/* No corrupting event: the events that need a GP counter count. */
	arb_fail(arb, 0, mix, 0, 3, 0, 0xf, 10);
	KUNIT_EXPECT_EQ(test, arb->demand[0], 2);
	/* With corrupting events, only they count. */
	arb_fail(arb, 0, mix, 0x4, 3, 0, 0xf, 10);
	KUNIT_EXPECT_EQ(test, arb->demand[0], 1);
}

/*
 * cycles may use fixed counter 1 or any GP counter. Beside the NMI
 * watchdog's cycles, pinned on fixed counter 1, a user's cycles needs a
 * GP counter: a sibling holding all four with corrupting events must give
 * one back, or the user's event never runs.
 */
static void arb_fixed_counter_taken_needs_gp(struct kunit *test)
{
	const u64 cycles = 0xf | BIT_ULL(33);
	const u64 two[] = { cycles, cycles }, one[] = { cycles };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, two, 0, 2, 0, 0xf, 10));
	KUNIT_EXPECT_EQ(test, arb->demand[0], 1);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, 10), 3);
	KUNIT_EXPECT_EQ(test, arb->want[0], 0);

	/* Alone, it has fixed counter 1: it waits for no GP counter. */
	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 0, one, 0, 1, 0, 0xf, 10));
	KUNIT_EXPECT_EQ(test, arb->demand[0], 0);
}

static void arb_kick_once_and_tied_counters(struct kunit *test)
{
	const u64 tied[] = { 0xf, 0x2 };	/* e.g. a PEBS event on c1 */
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	/* HT0 holds c1 only: within its budget of 3, but HT1 is tied to it. */
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, tied, 0, 2, 0, 0x2, 20));
	KUNIT_EXPECT_EQ(test, arb->want[1], 0x2);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 20), 0x2);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 1, 20), 0);
	/* Kicked once: not again until HT0 has rescheduled. */
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 1, tied, 0, 2, 0, 0x2, 20));
	xsu_arb_begin(arb, 0);
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 1, tied, 0, 2, 0, 0x2, 20));
	xsu_arb_rescheduled(arb, 0);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, tied, 0, 2, 0, 0x2, 21));
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 26), 0x2);
	xsu_arb_rescheduled(arb, 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 26), 0);
}

static void arb_retry_bounded(struct kunit *test)
{
	const u64 one[] = { 0xf }, four[] = { 0xf, 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	/* HT1 waits (demand 1); HT0, kicked, stops at its budget of 3. */
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, one, 0x1, 1, 0, 0xf, 30));
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, four, 0xf, 4, 0x7, 0, 30));
	/* Same tick, nothing more given up: no second retry. */
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 0, four, 0xf, 4, 0x7, 0, 30));
	/* Gave up another counter: one more retry. */
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, four, 0xf, 4, 0x3, 0, 30));
	/* Next tick: again. */
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, four, 0xf, 4, 0x3, 0, 31));
}

/*
 * A thread whose last round left a flexible group out rotates within a
 * multiplexing interval on its own: its sibling publishes its demand but
 * asks it for nothing, neither to give counters back nor to retry. Once a
 * round of it fits again, it is asked as before.
 */
static void arb_no_kick_for_a_rotating_sibling(struct kunit *test)
{
	const u64 two[] = { 0xf, 0xf }, one[] = { 0xf };
	const u64 four[] = { 0xf, 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	/* HT0 holds all four counters but rotates: HT1 only publishes. */
	xsu_arb_round(arb, 0, true, 0, true, 0, 5);
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 1, two, 0x3, 2, 0, 0xf, 10));
	KUNIT_EXPECT_EQ(test, arb->demand[1], 2);
	KUNIT_EXPECT_FALSE(test, arb->kicked[0]);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 10), 2);
	/* Unasked, the demand lapses at its deadline. */
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 15), 4);

	/* A round of HT0 that fits: it is asked again. */
	xsu_arb_round(arb, 0, false, 0, true, 0, 5);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, two, 0x3, 2, 0, 0xf, 20));
	KUNIT_EXPECT_TRUE(test, arb->kicked[0]);
	xsu_arb_rescheduled(arb, 0);

	/* No retry for a waiting HT1 that rotates either. */
	xsu_arb_round(arb, 1, true, 0, true, 0, 5);
	KUNIT_EXPECT_FALSE(test, arb_fail(arb, 0, four, 0xf, 4, 0x3, 0, 20));
	xsu_arb_round(arb, 1, false, 0, true, 0, 5);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 0, four, 0xf, 4, 0x3, 0, 21));

	/* Going offline forgets that a thread rotated: asked when back. */
	xsu_arb_round(arb, 0, true, 0, true, 0, 5);
	xsu_arb_thread_reset(arb, 0);
	KUNIT_EXPECT_TRUE(test, arb_fail(arb, 1, one, 0, 1, 0, 0xf, 30));
}

/*
 * perf places a group whole or not at all: two threads each waiting for a
 * group of four GP events on a four-counter core would both be capped at
 * two and neither group would ever run. They take turns instead: the
 * holder of the turn may use every counter, the other what leaves the
 * holder's window room, and the turn passes once the holder has been
 * served for the hold time, to a sibling that waits.
 */
static void arb_place(struct xsu_arb *arb, int tid, const u64 *masks,
		      u64 corrupting, int n, u64 placed, unsigned long now)
{
	int i;

	xsu_arb_begin(arb, tid);
	for (i = 0; i < n; i++)
		xsu_arb_note(arb, tid, i, masks[i], corrupting & BIT_ULL(i));
	xsu_arb_end(arb, tid, 0, 0, 0, now, 5);
	xsu_arb_round(arb, tid, false, placed, true, now, 5);
}

static void arb_turns_for_a_group_over_budget(struct kunit *test)
{
	const u64 four[] = { 0xf, 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	/* HT1 waits for a group of four, HT0 holding the core: halving. */
	KUNIT_EXPECT_TRUE(test, arb_fail_group(arb, 1, four, 0x3, 4, 0, 0, 0xf,
					       100));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 100), 2);
	xsu_arb_rescheduled(arb, 0);

	/* HT0 waits for one too: turns, HT0's first, HT1 left nothing. */
	KUNIT_EXPECT_FALSE(test, arb_fail_group(arb, 0, four, 0x3, 4, 0, 0x3,
						0, 101));
	KUNIT_EXPECT_TRUE(test, xsu_arb_turns(arb, 101));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 101), 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, 101), 0);

	/* HT0's group goes live at 102; HT1's failures keep the turn. */
	arb_place(arb, 0, four, 0x3, 4, 0xf, 102);
	KUNIT_EXPECT_FALSE(test, arb_fail_group(arb, 1, four, 0x3, 4, 0, 0,
						0xf, 106));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, 106), 0);

	/* Served for the hold: the turn passes, HT0 must give all back. */
	KUNIT_EXPECT_TRUE(test, arb_fail_group(arb, 1, four, 0x3, 4, 0, 0, 0xf,
					       107));
	KUNIT_EXPECT_EQ(test, arb->turn, 1);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, 107), 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 107), 0);
	xsu_arb_rescheduled(arb, 0);

	/* HT0, rescheduled within its budget, lets HT1 retry at once. */
	KUNIT_EXPECT_TRUE(test, arb_fail_group(arb, 0, four, 0x3, 4, 0, 0, 0,
					       108));
	xsu_arb_round(arb, 0, false, 0, true, 108, 5);
	/* HT1's group goes live at 109, and serves the turn from then. */
	arb_place(arb, 1, four, 0x3, 4, 0xf, 109);
	KUNIT_EXPECT_FALSE(test, arb_fail_group(arb, 0, four, 0x3, 4, 0, 0,
						0xf, 110));
	KUNIT_EXPECT_FALSE(test, arb_fail_group(arb, 0, four, 0x3, 4, 0, 0,
						0xf, 113));
	KUNIT_EXPECT_EQ(test, arb->turn, 1);
	KUNIT_EXPECT_TRUE(test, arb_fail_group(arb, 0, four, 0x3, 4, 0, 0, 0xf,
					       114));
	KUNIT_EXPECT_EQ(test, arb->turn, 0);

	/* HT1 goes offline: no turns, HT0 gets every counter. */
	xsu_arb_thread_reset(arb, 1);
	KUNIT_EXPECT_FALSE(test, xsu_arb_turns(arb, 114));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 114), 4);
}

/*
 * Groups within the budget never make turns, however many events a
 * window holds: a thread asking for half keeps half at every moment
 * beside a sibling whose single events multiplex (half.sh's case). The
 * same window as one group of three would.
 */
static void arb_no_turns_within_the_budget(struct kunit *test)
{
	const u64 two[] = { 0xf, 0xf }, three[] = { 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail_group(arb, 0, two, 0x3, 2, 0, 0, 0xf,
					       10));
	xsu_arb_rescheduled(arb, 1);
	/* HT1's third single event fails: its window of three, group of 1. */
	arb_fail(arb, 1, three, 0x7, 3, 0x3, 0x3, 11);
	KUNIT_EXPECT_EQ(test, arb->need[1], 1);
	KUNIT_EXPECT_FALSE(test, xsu_arb_turns(arb, 11));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 11), 2);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, 11), 2);

	/* The three as one group: over HT1's budget of two, turns. */
	arb_fail_group(arb, 1, three, 0x7, 3, 0, 0, 0x3, 12);
	KUNIT_EXPECT_EQ(test, arb->need[1], 3);
	KUNIT_EXPECT_TRUE(test, xsu_arb_turns(arb, 12));
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 0, 4, 12), 4);
	KUNIT_EXPECT_EQ(test, xsu_arb_gpmax(arb, 1, 4, 12), 2);
}

/*
 * The counters a waiting sibling's event is tied to are left to it while
 * its demand lasts, but not by the holder of the turn: the sibling waits
 * for its own turn, and a group of the holder tied to them as well would
 * never run.
 */
static void arb_turn_holder_avoids_nothing(struct kunit *test)
{
	const u64 tied[] = { 0xf, 0xf, 0xf, 0x4 }, four[] = { 0xf, 0xf, 0xf, 0xf };
	struct xsu_arb *arb = arb_new(test);

	xsu_arb_init(arb, 4);
	KUNIT_EXPECT_TRUE(test, arb_fail_group(arb, 1, tied, 0x3, 4, 0, 0, 0xf,
					       10));
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 10), 0x4);
	xsu_arb_rescheduled(arb, 0);
	arb_fail_group(arb, 0, four, 0x3, 4, 0, 0x3, 0, 11);
	KUNIT_EXPECT_TRUE(test, xsu_arb_turns(arb, 11));
	KUNIT_EXPECT_EQ(test, arb->turn, 0);
	KUNIT_EXPECT_EQ(test, xsu_arb_avoid(arb, 0, 11), 0);
}

static struct kunit_case x86_intel_xsu_arb_cases[] = {
	KUNIT_CASE(arb_budget_table),
	KUNIT_CASE(arb_demand_and_lapse),
	KUNIT_CASE(arb_demand_only_when_static_fits),
	KUNIT_CASE(arb_fixed_counter_taken_needs_gp),
	KUNIT_CASE(arb_committed_pass_renews),
	KUNIT_CASE(arb_demand_stands_while_holding),
	KUNIT_CASE(arb_demand_lapses_without_corrupting_events),
	KUNIT_CASE(arb_kick_once_and_tied_counters),
	KUNIT_CASE(arb_retry_bounded),
	KUNIT_CASE(arb_want_from_the_failed_event),
	KUNIT_CASE(arb_untied_avoids_nothing),
	KUNIT_CASE(arb_both_tied_to_one_counter),
	KUNIT_CASE(arb_offline_forgets),
	KUNIT_CASE(arb_offline_forgets_retries),
	KUNIT_CASE(arb_no_kick_for_a_rotating_sibling),
	KUNIT_CASE(arb_turns_for_a_group_over_budget),
	KUNIT_CASE(arb_no_turns_within_the_budget),
	KUNIT_CASE(arb_turn_holder_avoids_nothing),
	{}
};

static struct kunit_suite x86_intel_xsu_arb_suite = {
	.name = "x86_intel_xsu_arb",
	.test_cases = x86_intel_xsu_arb_cases,
};

kunit_test_suites(&x86_intel_xsu_suite, &x86_intel_xsu_arb_suite);

MODULE_DESCRIPTION("KUnit tests for the Intel HT counter exclusion (XSU) and its arbitration");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
