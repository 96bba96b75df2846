// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of arch/x86/events/intel/xsu.c, compiled from the very file the
 * kernel builds: the XSU table exhaustively, the protocol walkthrough of
 * the brief, release, failed passes, switching off and on, hotplug.
 */
#include <string.h>

#include "../../../arch/x86/events/intel/xsu.h"
#include "pass.h"
#include "tap.h"

/* The brief's table: may an event go where the sibling's counter is...? */
static const bool table[3][2] = {
	/*                corrupting: no    yes */
	[XSU_UNUSED]    = { true,  true  },
	[XSU_SHARED]    = { true,  false },
	[XSU_EXCLUSIVE] = { false, false },
};

static void test_table(void)
{
	int m, corr, st, bad = 0, checked = 0;

	for (m = 0; m < 16; m++)
		for (corr = 0; corr < 2; corr++)
			for (st = 0; st < 81; st++) {
				u64 ex = 0, sh = 0, want = 0;
				int c, v = st;

				for (c = 0; c < 4; c++, v /= 3) {
					if (v % 3 == XSU_EXCLUSIVE)
						ex |= 1ULL << c;
					if (v % 3 == XSU_SHARED)
						sh |= 1ULL << c;
					if ((m >> c & 1) && table[v % 3][corr])
						want |= 1ULL << c;
				}
				bad += xsu_allowed_mask(m, corr, ex, sh) != want;
				checked++;
			}
	tap_diag("%d (mask, corrupting, sibling states) combinations", checked);
	tap_result(!bad, "dynamic mask = table for every mask and sibling state");
}

static void add(struct pass_events *ev, u64 mask, bool corrupting)
{
	ev->mask[ev->n] = mask;
	ev->corrupting[ev->n] = corrupting;
	ev->counter[ev->n] = -1;
	ev->n++;
}

static struct xsu_core xc;

static void reset_core(void)
{
	xsu_init(&xc, true);
	xsu_thread_online(&xc, 0, true);
	xsu_thread_online(&xc, 1, true);
}

/*
 * The brief's walkthrough: 4 GP counters, static masks 0xf; HT0 adds C,
 * NC, NC and HT1 adds NC, C, C, alternating, each add rescheduling that
 * thread's whole window. Upstream's gpmax halving is not part of it.
 */
static void test_walkthrough(void)
{
	static const struct {
		int tid;
		bool corr;
		u64 mask;	/* dynamic mask of the added event */
		int counter;	/* -1: the pass fails */
	} step[] = {
		{ 0, true,  0xf, 0 },
		{ 1, false, 0xe, 1 },
		{ 0, false, 0xf, 1 },
		{ 1, true,  0xc, 2 },
		{ 0, false, 0xb, 3 },
		{ 1, true,  0x4, -1 },
	};
	struct pass_events ev[2] = { 0 };
	bool ok = true;
	unsigned int s;

	reset_core();
	for (s = 0; s < sizeof(step) / sizeof(step[0]); s++) {
		struct pass_events *e = &ev[step[s].tid];
		u64 dyn[64], ex = xc.thread[step[s].tid].excl;
		u64 sh = xc.thread[step[s].tid].shared;
		int left, last;

		add(e, 0xf, step[s].corr);
		last = e->n - 1;
		left = pass_schedule(&xc, step[s].tid, e, 4, dyn);
		if (left)
			tap_diag("step %u: HT%d %s gets mask %#llx -> the pass fails",
				 s + 1, step[s].tid, step[s].corr ? "C " : "NC",
				 (unsigned long long)dyn[last]);
		else
			tap_diag("step %u: HT%d %s gets mask %#llx -> c%d", s + 1,
				 step[s].tid, step[s].corr ? "C " : "NC",
				 (unsigned long long)dyn[last], e->counter[last]);
		ok &= dyn[last] == step[s].mask;
		if (step[s].counter < 0) {
			ok &= left == 1;
			/* a failed pass commits nothing */
			ok &= xc.thread[step[s].tid].excl == ex &&
			      xc.thread[step[s].tid].shared == sh;
			e->n--;
		} else {
			ok &= !left && e->counter[last] == step[s].counter;
		}
	}
	/* HT0: X S U S, HT1: U S X U */
	ok &= xc.thread[0].excl == 0x1 && xc.thread[0].shared == 0xa;
	ok &= xc.thread[1].excl == 0x4 && xc.thread[1].shared == 0x2;
	tap_result(ok, "protocol walkthrough: every dynamic mask, placement and the final failure");
}

/* Only non-corrupting events on both threads: masks stay static. */
static void test_static_without_corrupting(void)
{
	bool ok = true;
	int m, st;

	for (m = 1; m < 16; m++)
		for (st = 0; st < 16; st++) {
			reset_core();
			shim_irqs_off = true;
			xsu_track(&xc, 1, 0, st, 0);
			xsu_begin(&xc, 0, false);
			ok &= xsu_constrain(&xc, 0, m, false, false) == (u64)m;
			xsu_end(&xc, 0);
			shim_irqs_off = false;
		}
	tap_result(ok, "no corrupting event: all 15 masks static against any S/U sibling");
}

static void test_release(void)
{
	struct pass_events a = { 0 }, b = { 0 };
	bool ok;

	reset_core();
	add(&a, 0x1, false);
	ok = !pass_schedule(&xc, 0, &a, 4, NULL);
	ok &= xsu_counter_state(&xc, 0, 0) == XSU_SHARED;
	add(&b, 0x1, true);
	ok &= pass_schedule(&xc, 1, &b, 4, NULL) == 1;

	shim_irqs_off = true;
	xsu_release(&xc, 0, 0);
	shim_irqs_off = false;
	/* the event may still count until the hardware is reprogrammed */
	ok &= xsu_counter_state(&xc, 0, 0) == XSU_SHARED;
	ok &= pass_schedule(&xc, 1, &b, 4, NULL) == 1;
	shim_irqs_off = true;
	xsu_settle(&xc, 0);
	shim_irqs_off = false;
	ok &= xsu_counter_state(&xc, 0, 0) == XSU_UNUSED;
	ok &= !pass_schedule(&xc, 1, &b, 4, NULL);
	ok &= xsu_counter_state(&xc, 1, 0) == XSU_EXCLUSIVE;
	tap_result(ok, "release returns the counter to Unused for the sibling once settled");
}

static void test_failed_pass(void)
{
	struct pass_events a = { 0 };
	bool ok;

	reset_core();
	add(&a, 0x3, true);
	add(&a, 0x3, false);
	add(&a, 0x3, false);
	ok = pass_schedule(&xc, 0, &a, 4, NULL) == 1;
	ok &= !xc.thread[0].excl && !xc.thread[0].shared;
	a.n = 2;
	ok &= !pass_schedule(&xc, 0, &a, 4, NULL);
	ok &= xc.thread[0].excl | xc.thread[0].shared;
	a.n = 3;
	ok &= pass_schedule(&xc, 0, &a, 4, NULL) == 1;
	ok &= xc.thread[0].excl == 1ULL << a.counter[0] &&
	      xc.thread[0].shared == 1ULL << a.counter[1];
	tap_result(ok, "a failed pass leaves no state behind");
}

static void test_switching(void)
{
	struct pass_events a = { 0 }, b = { 0 };
	u64 dyn[64];
	bool ok;

	reset_core();
	add(&a, 0xf, true);		/* HT0: corrupting on c0 */
	add(&b, 0x1, false);		/* HT1: needs c0 */
	ok = !pass_schedule(&xc, 0, &a, 4, NULL);
	ok &= pass_schedule(&xc, 1, &b, 4, NULL) == 1;

	/* off: no state survives, masks are static, passes take no lock */
	xsu_disable(&xc);
	ok &= !xc.thread[0].excl && !xc.thread[0].shared &&
	      !xc.thread[1].excl && !xc.thread[1].shared;
	ok &= !pass_schedule(&xc, 1, &b, 4, dyn) && dyn[0] == 0x1;
	ok &= !xc.thread[1].shared && !xc.thread[1].tracked && !xc.enabled;
	tap_result(ok, "switching off clears every state and gives static masks");

	/*
	 * on: each thread records what is on its counters (X on HT0 c0 next
	 * to S on HT1 c0: what the hardware runs), then masks apply and the
	 * reschedule moves HT1's event away.
	 */
	xsu_track(&xc, 0, 1ULL << a.counter[0], 0, 0);
	xsu_track(&xc, 1, 0, 1ULL << b.counter[0], 0);
	ok = xsu_counter_state(&xc, 0, 0) == XSU_EXCLUSIVE &&
	     xsu_counter_state(&xc, 1, 0) == XSU_SHARED;
	xsu_enable(&xc);
	b.mask[0] = 0xf;
	ok &= !pass_schedule(&xc, 1, &b, 4, dyn);
	ok &= dyn[0] == 0xe && b.counter[0] != 0;
	/* the move keeps c0 marked until the hardware has left it */
	ok &= xsu_counter_state(&xc, 1, 0) == XSU_SHARED &&
	      xsu_counter_state(&xc, 1, b.counter[0]) == XSU_SHARED;
	shim_irqs_off = true;
	xsu_settle(&xc, 1);
	shim_irqs_off = false;
	ok &= xsu_counter_state(&xc, 1, 0) == XSU_UNUSED;
	tap_result(ok, "switching on starts from the placement on the counters");
}

static void test_hotplug_and_corrupting_present(void)
{
	struct pass_events a = { 0 };
	bool ok;

	reset_core();
	add(&a, 0xf, true);
	ok = !pass_schedule(&xc, 0, &a, 4, NULL);
	xsu_thread_offline(&xc, 0);
	ok &= !xc.thread[0].excl && !xc.thread[0].tracked;
	xsu_thread_online(&xc, 0, true);
	ok &= xc.thread[0].tracked && !xc.thread[0].excl;
	tap_result(ok, "a thread going offline releases its counters");

	reset_core();
	shim_irqs_off = true;
	xsu_account(&xc, 1, 1);
	xsu_begin(&xc, 0, false);
	ok = xsu_corrupting_present(&xc, 0);
	xsu_end(&xc, 0);
	xsu_account(&xc, 1, -1);
	xsu_begin(&xc, 0, false);
	ok &= !xsu_corrupting_present(&xc, 0);
	xsu_end(&xc, 0);
	xsu_disable(&xc);
	xsu_account(&xc, 1, 1);
	xsu_begin(&xc, 0, false);
	ok &= !xsu_corrupting_present(&xc, 0);
	xsu_end(&xc, 0);
	shim_irqs_off = false;
	tap_result(ok, "a corrupting event on the sibling is present while counted and the workaround is on");
}

int main(void)
{
	test_table();
	test_walkthrough();
	test_static_without_corrupting();
	test_release();
	test_failed_pass();
	test_switching();
	test_hotplug_and_corrupting_present();
	return tap_finish();
}
