// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the XSU unit (xsu.c): the exclusion table, the protocol
 * walkthrough on two simulated sibling threads, release, failed passes,
 * switching the workaround off and on, hotplug, and the lock used from
 * hard interrupt context as the scheduler does (run with lockdep).
 * Pure computations on a private struct xsu_core: no PMU hardware needed.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/debug_locks.h>
#include <linux/irq_work.h>
#include <linux/completion.h>

#include "../counter_match.h"
#include "xsu.h"

struct xsu_window {
	int n;
	u64 mask[8];
	bool corrupting[8];
	int counter[8];
};

/*
 * One scheduling pass of thread @tid over @w, as x86_schedule_events()
 * runs it: begin, dynamic masks, matcher (previous counters as hints),
 * commit if everything fits, end. Returns the number of events left out;
 * @dyn receives the dynamic masks.
 */
static int xsu_pass(struct xsu_core *xc, int tid, struct xsu_window *w,
		    u64 *dyn)
{
	int assign[8], i, left;
	unsigned long flags;

	local_irq_save(flags);
	xsu_begin(xc, tid);
	for (i = 0; i < w->n; i++) {
		dyn[i] = xsu_constrain(xc, tid, w->mask[i], w->corrupting[i]);
		assign[i] = w->counter[i];
	}
	left = x86_counter_match(dyn, w->n, 0, 4, assign);
	for (i = 0; !left && i < w->n; i++) {
		xsu_commit(xc, tid, assign[i], w->corrupting[i]);
		w->counter[i] = assign[i];
	}
	xsu_end(xc, tid);
	local_irq_restore(flags);
	return left;
}

static void xsu_add(struct xsu_window *w, u64 mask, bool corrupting)
{
	w->mask[w->n] = mask;
	w->corrupting[w->n] = corrupting;
	w->counter[w->n] = -1;
	w->n++;
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
 * Sibling states number @st (base 3, one digit per counter) as masks, and
 * the dynamic mask the table gives @m: eXclusive takes the counter from
 * every event, Shared from corrupting ones.
 */
static u64 table_mask(u64 m, bool corrupting, int st, u64 *ex, u64 *sh)
{
	int c;

	*ex = 0;
	*sh = 0;
	for (c = 0; c < 4; c++, st /= 3) {
		if (st % 3 == XSU_EXCLUSIVE)
			*ex |= BIT_ULL(c);
		else if (st % 3 == XSU_SHARED)
			*sh |= BIT_ULL(c);
	}
	return m & ~*ex & ~(corrupting ? *sh : 0);
}

/* Every static mask on 4 counters against every sibling state. */
static void allowed_mask_table(struct kunit *test)
{
	int m, corr, st;
	u64 ex, sh, want;

	for (m = 0; m < 16; m++) {
		for (corr = 0; corr < 2; corr++) {
			for (st = 0; st < 81; st++) {
				want = table_mask(m, corr, st, &ex, &sh);
				KUNIT_EXPECT_EQ(test,
						xsu_allowed_mask(m, corr, ex, sh),
						want);
			}
		}
	}
}

/*
 * The brief's walkthrough: 4 GP counters, static masks 0xf; HT0 adds C,
 * NC, NC and HT1 adds NC, C, C, alternating; each add reschedules that
 * thread's whole window.
 */
static void protocol_walkthrough(struct kunit *test)
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
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window w[2] = { };
	int s;

	for (s = 0; s < ARRAY_SIZE(step); s++) {
		struct xsu_window *win = &w[step[s].tid];
		u64 dyn[8], ex = xc->thread[step[s].tid].excl;
		u64 sh = xc->thread[step[s].tid].shared;
		int last = win->n, left;

		xsu_add(win, 0xf, step[s].corrupting);
		left = xsu_pass(xc, step[s].tid, win, dyn);
		KUNIT_EXPECT_EQ_MSG(test, dyn[last], step[s].mask, "step %d", s + 1);
		if (step[s].counter < 0) {
			KUNIT_EXPECT_EQ_MSG(test, left, 1, "step %d", s + 1);
			KUNIT_EXPECT_EQ(test, xc->thread[step[s].tid].excl, ex);
			KUNIT_EXPECT_EQ(test, xc->thread[step[s].tid].shared, sh);
			win->n--;
		} else {
			KUNIT_EXPECT_EQ_MSG(test, left, 0, "step %d", s + 1);
			KUNIT_EXPECT_EQ_MSG(test, win->counter[last],
					    step[s].counter, "step %d", s + 1);
		}
	}
	/* HT0: X S U S, HT1: U S X U */
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 1), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 2), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 3), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 1), XSU_SHARED);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 2), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 3), XSU_UNUSED);
}

/* No corrupting event: all 15 masks stay static against S/U siblings. */
static void static_without_corrupting(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	unsigned long flags;
	int m, sh;

	for (sh = 0; sh < 16; sh++) {
		xsu_track(xc, 1, 0, sh);
		for (m = 1; m < 16; m++) {
			local_irq_save(flags);
			xsu_begin(xc, 0);
			KUNIT_EXPECT_EQ(test, xsu_constrain(xc, 0, m, false),
					(u64)m);
			xsu_end(xc, 0);
			local_irq_restore(flags);
		}
	}
}

static void release_returns_unused(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	unsigned long flags;
	u64 dyn[8];

	xsu_add(&a, 0x1, false);
	KUNIT_ASSERT_EQ(test, xsu_pass(xc, 0, &a, dyn), 0);
	xsu_add(&b, 0x1, true);
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 1, &b, dyn), 1);

	local_irq_save(flags);
	xsu_release(xc, 0, a.counter[0]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_UNUSED);
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 1, &b, dyn), 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_EXCLUSIVE);
}

static void failed_pass_leaves_no_state(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { };
	unsigned long flags;
	u64 dyn[8];

	xsu_add(&a, 0x3, true);
	xsu_add(&a, 0x3, false);
	xsu_add(&a, 0x3, false);
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 0, &a, dyn), 1);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl | xc->thread[0].shared, 0);

	a.n = 2;
	KUNIT_ASSERT_EQ(test, xsu_pass(xc, 0, &a, dyn), 0);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl, BIT_ULL(a.counter[0]));
	KUNIT_EXPECT_EQ(test, xc->thread[0].shared, BIT_ULL(a.counter[1]));

	/* Inside a pass, release does nothing: put-back events hold none. */
	local_irq_save(flags);
	xsu_begin(xc, 0);
	xsu_release(xc, 0, a.counter[0]);
	xsu_end(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl, BIT_ULL(a.counter[0]));
	a.n = 3;
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 0, &a, dyn), 1);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl, BIT_ULL(a.counter[0]));
	KUNIT_EXPECT_EQ(test, xc->thread[0].shared, BIT_ULL(a.counter[1]));
}

static void switch_off_clears_states(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	u64 dyn[8];

	xsu_add(&a, 0xf, true);
	xsu_add(&b, 0x1, false);
	KUNIT_ASSERT_EQ(test, xsu_pass(xc, 0, &a, dyn), 0);
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 1, &b, dyn), 1);

	xsu_disable(xc);
	KUNIT_EXPECT_EQ(test, xc->thread[0].excl | xc->thread[0].shared, 0);
	KUNIT_EXPECT_EQ(test, xc->thread[1].excl | xc->thread[1].shared, 0);
	KUNIT_EXPECT_FALSE(test, xc->thread[0].tracked);
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 1, &b, dyn), 0);
	KUNIT_EXPECT_EQ(test, dyn[0], 0x1);
	/* Off: passes record nothing. */
	KUNIT_EXPECT_EQ(test, xc->thread[1].shared, 0);
}

static void switch_on_from_counters(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { }, b = { };
	u64 dyn[8];

	xsu_disable(xc);
	xsu_add(&a, 0x1, true);		/* HT0: corrupting on c0 */
	xsu_add(&b, 0xf, false);	/* HT1: lands on c0 too */
	KUNIT_ASSERT_EQ(test, xsu_pass(xc, 0, &a, dyn), 0);
	KUNIT_ASSERT_EQ(test, xsu_pass(xc, 1, &b, dyn), 0);
	KUNIT_ASSERT_EQ(test, b.counter[0], 0);

	/* Each thread records what is on its counters, then masks apply. */
	xsu_track(xc, 0, BIT_ULL(a.counter[0]), 0);
	xsu_track(xc, 1, 0, BIT_ULL(b.counter[0]));
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, 0), XSU_EXCLUSIVE);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_SHARED);
	xsu_enable(xc);

	/* The reschedule moves HT1's event off the corrupted counter. */
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 1, &b, dyn), 0);
	KUNIT_EXPECT_EQ(test, dyn[0], 0xe);
	KUNIT_EXPECT_NE(test, b.counter[0], 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 1, 0), XSU_UNUSED);
}

static void offline_releases_counters(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	struct xsu_window a = { };
	u64 dyn[8];

	xsu_add(&a, 0xf, true);
	KUNIT_ASSERT_EQ(test, xsu_pass(xc, 0, &a, dyn), 0);
	xsu_thread_offline(xc, 0);
	KUNIT_EXPECT_EQ(test, xsu_counter_state(xc, 0, a.counter[0]),
			XSU_UNUSED);
	KUNIT_EXPECT_FALSE(test, xc->thread[0].tracked);
	xsu_thread_online(xc, 0, true);
	KUNIT_EXPECT_TRUE(test, xc->thread[0].tracked);
}

static void gpmax_halving_parity(struct kunit *test)
{
	struct xsu_core *xc = xsu_new(test);
	unsigned long flags;

	local_irq_save(flags);
	xsu_account(xc, 1, 1);
	xsu_begin(xc, 0);
	KUNIT_EXPECT_TRUE(test, xsu_corrupting_present(xc, 0));
	xsu_end(xc, 0);
	xsu_account(xc, 1, -1);
	xsu_begin(xc, 0);
	KUNIT_EXPECT_FALSE(test, xsu_corrupting_present(xc, 0));
	xsu_end(xc, 0);
	local_irq_restore(flags);

	xsu_disable(xc);
	local_irq_save(flags);
	xsu_account(xc, 1, 1);
	xsu_begin(xc, 0);
	KUNIT_EXPECT_FALSE(test, xsu_corrupting_present(xc, 0));
	xsu_end(xc, 0);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, xsu_corrupting_present(NULL, 0));
}

struct xsu_irq_pass {
	struct irq_work work;
	struct completion done;
	struct xsu_core *xc;
	int left;
};

static void xsu_irq_pass_fn(struct irq_work *work)
{
	struct xsu_irq_pass *p = container_of(work, struct xsu_irq_pass, work);
	struct xsu_window w = { };
	u64 dyn[8];

	xsu_add(&w, 0xf, true);
	p->left = xsu_pass(p->xc, 1, &w, dyn);
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

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->xc = xc;
	init_completion(&p->done);
	init_irq_work(&p->work, xsu_irq_pass_fn);
	irq_work_queue(&p->work);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, HZ), 0);
	irq_work_sync(&p->work);
	KUNIT_EXPECT_EQ(test, p->left, 0);

	xsu_add(&a, 0xf, false);
	KUNIT_EXPECT_EQ(test, xsu_pass(xc, 0, &a, dyn), 0);
	xsu_disable(xc);
	xsu_track(xc, 0, 0, BIT_ULL(a.counter[0]));
	xsu_enable(xc);
	xsu_thread_offline(xc, 1);

	KUNIT_EXPECT_TRUE(test, debug_locks);
}

static struct kunit_case x86_intel_xsu_cases[] = {
	KUNIT_CASE(allowed_mask_table),
	KUNIT_CASE(protocol_walkthrough),
	KUNIT_CASE(static_without_corrupting),
	KUNIT_CASE(release_returns_unused),
	KUNIT_CASE(failed_pass_leaves_no_state),
	KUNIT_CASE(switch_off_clears_states),
	KUNIT_CASE(switch_on_from_counters),
	KUNIT_CASE(offline_releases_counters),
	KUNIT_CASE(gpmax_halving_parity),
	KUNIT_CASE(lock_usage_from_hardirq),
	{}
};

static struct kunit_suite x86_intel_xsu_suite = {
	.name = "x86_intel_xsu",
	.test_cases = x86_intel_xsu_cases,
};

kunit_test_suite(x86_intel_xsu_suite);

MODULE_DESCRIPTION("KUnit tests for the Intel HT counter exclusion (XSU)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
