// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmark: the new matcher against upstream 6.12's greedy
 * perf_assign_events() (extracted from the base tree) on the same instances,
 * in one run. Both are called the way x86_schedule_events() calls them:
 * from an array of constraint pointers; the matcher's time includes turning
 * those into masks, as the kernel's perf_assign_events() does.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../arch/x86/events/counter_match.h"
#include "oracle.h"
#include "tap.h"
#include "upstream_greedy.h"

#define VARIANTS	64
#define CALLS		200000

#define GP(n)		((1ULL << (n)) - 1)
#define FIXED(i)	(1ULL << (32 + (i)))

struct bench_set {
	const char *name;
	int n, gpmax;
	struct event_constraint cons[VARIANTS][X86_PMC_IDX_MAX];
	struct event_constraint *c[VARIANTS][X86_PMC_IDX_MAX];
	int wmin[VARIANTS], wmax[VARIANTS];
};

static u64 rng = 2026;

static u64 pick(u64 of)
{
	u64 m;

	do {
		m = rng_next(&rng) & of;
	} while (!m);
	return m;
}

/* Shapes of the four instance mixes; @i is the event's index. */
static u64 mask_unconstrained(int i)
{
	return GP(8);
}

static u64 mask_realistic(int i)
{
	/* cycles, instructions, ref-cycles, then constrained Intel events */
	static const u64 shape[] = {
		GP(4) | FIXED(1), GP(4) | FIXED(0), FIXED(2), GP(4), GP(4),
		0x4, 0x3, 0xf,
	};
	u64 m = shape[i % 8];

	return i >= 5 && rng_next(&rng) % 2 ? pick(GP(4)) : m;
}

static u64 mask_constrained(int i)
{
	u64 m = pick(GP(4));

	/* at most two counters per event */
	while (__builtin_popcountll(m) > 2)
		m &= m - 1;
	return m;
}

static u64 mask_worst16(int i)
{
	return pick(GP(8) | FIXED(0) | FIXED(1) | FIXED(2));
}

static void build(struct bench_set *s, const char *name, int n, int gpmax,
		  u64 (*shape)(int))
{
	int v, i;

	s->name = name;
	s->n = n;
	s->gpmax = gpmax;
	for (v = 0; v < VARIANTS; v++) {
		s->wmin[v] = X86_PMC_IDX_MAX;
		s->wmax[v] = 0;
		for (i = 0; i < n; i++) {
			struct event_constraint *c = &s->cons[v][i];

			memset(c, 0, sizeof(*c));
			c->idxmsk64 = shape(i);
			c->weight = __builtin_popcountll(c->idxmsk64);
			s->c[v][i] = c;
			if (c->weight < s->wmin[v])
				s->wmin[v] = c->weight;
			if (c->weight > s->wmax[v])
				s->wmax[v] = c->weight;
		}
	}
}

/* What the kernel's perf_assign_events() does around the matcher. */
static int hk_assign(struct event_constraint **c, int n, int gpmax,
		     int *assign)
{
	u64 masks[X86_PMC_IDX_MAX], paired = 0;
	int i;

	for (i = 0; i < n; i++) {
		masks[i] = c[i]->idxmsk64;
		if (c[i]->flags & PERF_X86_EVENT_PAIR)
			paired |= 1ULL << i;
	}
	return x86_counter_match(masks, n, paired, gpmax, assign);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile int sink;

static double time_calls(struct bench_set *s, bool hk)
{
	int assign[X86_PMC_IDX_MAX];
	double best = 1e30;
	int rep, k;

	for (rep = 0; rep < 5; rep++) {
		double t0 = now_ns();

		for (k = 0; k < CALLS; k++) {
			int v = k % VARIANTS, i;

			for (i = 0; i < s->n; i++)
				assign[i] = -1;
			sink += hk ? hk_assign(s->c[v], s->n, s->gpmax, assign) :
				     upstream_perf_assign_events(s->c[v], s->n,
					     s->wmin[v], s->wmax[v], s->gpmax,
					     assign);
		}
		t0 = (now_ns() - t0) / CALLS;
		if (t0 < best)
			best = t0;
	}
	return best;
}

static struct bench_set sets[4];

int main(void)
{
	bool ok = true;
	int k;

	build(&sets[0], "all-unconstrained (8 events, 8 GP)", 8, 8,
	      mask_unconstrained);
	build(&sets[1], "mixed realistic (7 events, 4 GP + 3 fixed)", 7, 4,
	      mask_realistic);
	build(&sets[2], "heavily constrained (6 events, 1-2 of 4 GP)", 6, 4,
	      mask_constrained);
	build(&sets[3], "worst case (16 events, 8 GP + 3 fixed)", 16, 8,
	      mask_worst16);

	printf("# %-45s %10s %10s %7s %12s\n", "instance mix", "greedy ns",
	       "matcher ns", "ratio", "all fit g/m");
	for (k = 0; k < 4; k++) {
		struct bench_set *s = &sets[k];
		int v, assign[X86_PMC_IDX_MAX], fit_g = 0, fit_m = 0;
		double g, m;

		/* The matcher never places fewer events than greedy. */
		for (v = 0; v < VARIANTS; v++) {
			int pg = s->n - upstream_perf_assign_events(s->c[v],
					s->n, s->wmin[v], s->wmax[v],
					s->gpmax, assign);
			int pm = s->n - hk_assign(s->c[v], s->n, s->gpmax,
						  assign);

			ok &= pm >= pg;
			fit_g += pg == s->n;
			fit_m += pm == s->n;
		}
		g = time_calls(s, false);
		m = time_calls(s, true);
		printf("# %-45s %10.1f %10.1f %6.2fx %5d/%-5d\n", s->name, g,
		       m, m / g, fit_g, fit_m);
	}
	printf("# ratio = matcher time / greedy time, same machine, same run;\n");
	printf("# all fit = of %d instances per mix, how many each places whole\n",
	       VARIANTS);
	tap_result(ok, "benchmark: matcher places at least as many as greedy");
	return tap_finish();
}
