// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of kernel/events/sched_budget.h, compiled from the very header
 * kernel/events/core.c includes: a model of merge_sched_in() and
 * group_can_go_on() over a list of groups on a 4-counter PMU, each group
 * added all-or-nothing through x86_counter_match() as the x86 PMU
 * transaction does. Covers the bound, all-or-nothing groups, software
 * groups, exclusive groups, pinned groups and a PMU without the
 * capability; and x86_counter_gp_held(), the x86 PMU's test of whether a
 * group has room past a failure, exhaustively against Hall's formula.
 */
#include <string.h>

#include "counter_match.h"
#include "../../../../kernel/events/sched_budget.h"
#include "oracle.h"
#include "tap.h"

struct group {
	int n;
	u64 mask[4];
	bool software;
	bool exclusive;
};

struct pass_result {
	bool on[16];
	int attempts;	/* hardware groups handed to the PMU */
};

/* pmu_groups_sched_in() over @g with a budget of @tries. */
static void sched_in(const struct group *g, int ng, unsigned int tries,
		     struct pass_result *r)
{
	struct perf_sched_budget b;
	u64 masks[64];
	bool exclusive_on = false;
	int i, k, n = 0, on = 0;

	memset(r, 0, sizeof(*r));
	perf_sched_budget_init(&b, tries);
	for (i = 0; i < ng; i++) {
		bool can;

		/* group_can_go_on() */
		if (g[i].software)
			can = true;
		else if (exclusive_on || (g[i].exclusive && on))
			can = false;
		else
			can = perf_sched_budget_can_add(&b);

		if (can) {
			bool ok = true;

			if (!g[i].software) {
				/* the PMU transaction: all or nothing */
				for (k = 0; k < g[i].n; k++)
					masks[n + k] = g[i].mask[k];
				ok = !x86_counter_match(masks, n + g[i].n, 0, 4,
							NULL);
				if (ok)
					n += g[i].n;
				r->attempts++;
				perf_sched_budget_tried(&b, ok);
			}
			r->on[i] = ok;
			on += ok;
			exclusive_on |= ok && g[i].exclusive;
		}
		if (!r->on[i])
			perf_sched_budget_skipped(&b);
	}
}

static bool on_are(const struct pass_result *r, const char *want)
{
	int i;

	for (i = 0; want[i]; i++)
		if (r->on[i] != (want[i] == '1'))
			return false;
	return true;
}

#define ONE(m)	{ .n = 1, .mask = { m } }

/*
 * x86_counter_gp_held(), the x86 PMU's "no room" test past a failure,
 * against Hall's formula (oracle.c, no matching code): on a PMU with two
 * GP counters (0, 1) and two fixed ones (32, 33), for every list of 1-4
 * events with non-empty masks and every legal placement of them, it must
 * say "held" exactly when one more event that may use any GP counter
 * cannot be added (the events and it do not all fit), so it never keeps
 * a group off that could fit, and it misses no case of that shape.
 */
static void gp_held_exhaustive(void)
{
	static const u64 ctr[4] = { 0x1, 0x2, 1ULL << 32, 1ULL << 33 };
	const u64 gp = 0x3, all = 0x3 | 3ULL << 32;
	long states = 0, held = 0, wrong = 0;
	int n, i;

	for (n = 1; n <= 4; n++) {
		int code, total = 1;

		for (i = 0; i < n; i++)
			total *= 15;
		for (code = 0; code < total; code++) {
			u64 masks[5];
			int c = code, a, nas = 1;

			for (i = 0; i < n; i++, c /= 15) {
				int bits = c % 15 + 1, b;

				masks[i] = 0;
				for (b = 0; b < 4; b++)
					if (bits >> b & 1)
						masks[i] |= ctr[b];
			}
			for (i = 0; i < n; i++)
				nas *= 4;
			/* every placement: event i on counter (a >> 2i) & 3 */
			for (a = 0; a < nas; a++) {
				int assign[4], used = 0, k;
				bool ok = true, h, fits;

				for (i = 0; i < n && ok; i++) {
					k = a >> (2 * i) & 3;
					ok = (masks[i] & ctr[k]) && !(used >> k & 1);
					used |= 1 << k;
					assign[i] = __builtin_ctzll(ctr[k]);
				}
				if (!ok)
					continue;
				states++;
				h = x86_counter_gp_held(masks, assign, n, gp, all);
				masks[n] = gp;
				fits = oracle_hall(masks, n + 1) == n + 1;
				held += h;
				wrong += h == fits;
			}
		}
	}
	tap_diag("%ld placements of 1-4 events on 2 GP + 2 fixed counters: %ld held, %ld disagree with Hall's formula",
		 states, held, wrong);
	tap_result(states && held && !wrong,
		   "x86_counter_gp_held(): held exactly when no event can join on a GP counter");
}

int main(void)
{
	/* c0-c2 taken, then a group needing c0, then one that fits on c3 */
	static const struct group basic[] = {
		{ .n = 3, .mask = { 0x7, 0x7, 0x7 } }, ONE(0x1), ONE(0x8),
	};
	static const struct group bound[] = {
		{ .n = 2, .mask = { 0x3, 0x3 } }, ONE(0x1), ONE(0x2),
		ONE(0x4), ONE(0x8),
	};
	static const struct group pair[] = {
		{ .n = 2, .mask = { 0x3, 0x3 } },
		{ .n = 2, .mask = { 0x4, 0x1 } }, ONE(0x4),
	};
	static const struct group sw[] = {
		{ .n = 4, .mask = { 0xf, 0xf, 0xf, 0xf } }, ONE(0xf),
		{ .software = true }, { .software = true }, ONE(0xf),
	};
	static const struct group excl[] = {
		ONE(0x1), { .n = 1, .mask = { 0x2 }, .exclusive = true },
		ONE(0x4),
	};
	static const struct group excl_first[] = {
		{ .n = 1, .mask = { 0x2 }, .exclusive = true }, ONE(0x4),
		{ .software = true },
	};
	struct pass_result r;

	sched_in(basic, 3, 0, &r);
	tap_result(on_are(&r, "100") && r.attempts == 2,
		   "no capability (or pinned): the first failure ends the pass");
	sched_in(basic, 3, 8, &r);
	tap_result(on_are(&r, "101") && r.attempts == 3,
		   "with the capability a later group that fits goes on");

	/* after the failure of c0, two tries: c1 (fails), c2 (fits); not c3 */
	sched_in(bound, 5, 2, &r);
	tap_result(on_are(&r, "10010") && r.attempts == 4,
		   "the bound: exactly 2 attempts after the first failure");
	sched_in(bound, 5, 3, &r);
	tap_result(on_are(&r, "10011") && r.attempts == 5,
		   "one more try places one more group");

	/* the second group fits only in part: none of it goes on */
	sched_in(pair, 3, 8, &r);
	tap_result(on_are(&r, "101"),
		   "groups are all or nothing; the next group still gets c2");

	/* software groups go on without using tries */
	sched_in(sw, 5, 1, &r);
	tap_result(on_are(&r, "10110") && r.attempts == 3,
		   "software groups always go on and use no try");
	sched_in(sw, 5, 0, &r);
	tap_result(on_are(&r, "10110") && r.attempts == 2,
		   "software groups go on after a failure without the capability too");

	/* an exclusive group beside others is skipped without an attempt */
	sched_in(excl, 3, 8, &r);
	tap_result(on_are(&r, "101") && r.attempts == 2,
		   "an exclusive group beside others stays off, using no try");
	sched_in(excl, 3, 0, &r);
	tap_result(on_are(&r, "100"),
		   "without the capability that ends the pass, as before");
	sched_in(excl_first, 3, 8, &r);
	tap_result(on_are(&r, "101"),
		   "an exclusive group on: no other hardware group, software ones still");
	gp_held_exhaustive();
	return tap_finish();
}
