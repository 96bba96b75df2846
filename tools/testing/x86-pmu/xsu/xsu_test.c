// SPDX-License-Identifier: GPL-2.0
/*
 * The protocol walkthrough of the brief on arch/x86/events/intel/xsu.c,
 * compiled from the very file the kernel builds, with the matcher choosing
 * the counters (pass.c). The unit's own behaviour (the table, release,
 * moves, failed passes, switching, hotplug, reclaim) is tested by its KUnit
 * suite, x86_intel_xsu, which the harness also runs (xsu_kunit).
 */
#include "intel/xsu.h"
#include "pass.h"
#include "tap.h"

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

int main(void)
{
	test_walkthrough();
	return tap_finish();
}
