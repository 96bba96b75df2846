// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the scheduling simulator: its greedy model against upstream's
 * own code (extracted from the base tree), the regression scenarios of
 * the simulator issue with expectations derived by hand (see each test),
 * and the XSU guarantee (no exposure) over random two-thread runs.
 *
 * usage: sim_test [KERNEL_TREE]
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "greedy.h"
#include "oracle.h"
#include "sim_scenarios.h"
#include "tap.h"

static const char *tree = "../../../build/linux";

/* ---- the greedy model is upstream's walk ---- */

static bool same_greedy(const u64 *masks, int n, u64 paired, int gpmax)
{
	int a[64], b[64], i;

	if (sim_greedy_match(masks, n, paired, gpmax, a) !=
	    greedy_assign(masks, n, paired, gpmax, b))
		return false;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static void test_greedy_model(void)
{
	u64 masks[16], rng = 5;
	int t, g, r, bad = 0, runs = 0;

	for (t = 0; t < 15 * 15 * 15 * 15; t++) {
		int v = t, i;

		for (i = 0; i < 4; i++, v /= 15)
			masks[i] = 1 + v % 15;
		for (g = 0; g <= 4; g++, runs++)
			bad += !same_greedy(masks, 4, 0, g);
	}
	for (r = 0; r < 50000; r++, runs++) {
		int n = 1 + rng_next(&rng) % 12, i;
		u64 gp = (1ULL << (1 + rng_next(&rng) % 8)) - 1, paired = 0;
		u64 fixed = ((1ULL << (rng_next(&rng) % 4)) - 1) << 32;

		for (i = 0; i < n; i++) {
			do {
				masks[i] = rng_next(&rng) & (gp | fixed);
			} while (!masks[i]);
			if (rng_next(&rng) % 8 == 0) {
				masks[i] &= 0x55;
				masks[i] = masks[i] ? masks[i] : 1;
				paired |= 1ULL << i;
			}
		}
		bad += !same_greedy(masks, n, paired,
				    rng_next(&rng) % (__builtin_popcountll(gp) + 1));
	}
	tap_diag("%d instances (all 4x4 tuples x gpmax 0-4, 50000 random with fixed counters and pairs)",
		 runs);
	tap_result(!bad, "greedy model = upstream 6.12's perf_assign_events() (count and every counter)");
}

/* ---- scenarios ---- */

static struct sim_config cfg;

static void setup(const char *model, bool ht, int counters, int ticks)
{
	char err[256];

	memset(&cfg, 0, sizeof(cfg));
	cfg.ticks = ticks;
	cfg.th[0].dur = -1;
	cfg.th[1].dur = -1;
	if (sim_pmu_lookup(model, ht, counters, &cfg.pmu, err, sizeof(err))) {
		tap_diag("%s", err);
		exit(1);
	}
}

static void events(int tid, const char *list, int start)
{
	char err[256];
	int n = sim_events_parse(&cfg.pmu, tree, list, cfg.th[tid].ev,
				 SIM_MAX_EVENTS, err, sizeof(err));

	if (n < 0) {
		tap_diag("%s", err);
		exit(1);
	}
	cfg.th[tid].n = n;
	cfg.th[tid].start = start;
}

static struct sim_result res;

static void run(enum sim_matcher m, enum sim_xsu x)
{
	struct sim_policy pol = { .matcher = m, .xsu = x };

	sim_run(&cfg, &pol, &res, false);
}

/* Scheduled fraction of an event, and a check against @want. */
static double frac(int tid, int e)
{
	const struct sim_event_stats *st = &res.ev[tid][e];

	return st->enabled ? (double)st->running / st->enabled : 0;
}

static bool fracs_are(int tid, const double *want)
{
	bool ok = true;
	int e;

	for (e = 0; e < cfg.th[tid].n; e++) {
		if (fabs(frac(tid, e) - want[e]) > 1e-9) {
			tap_diag("  HT%d %s: scheduled %.4f, expected %.4f", tid,
				 cfg.th[tid].ev[e].name, frac(tid, e), want[e]);
			ok = false;
		}
	}
	return ok;
}

static long exposure(int tid)
{
	long sum = 0;
	int e;

	for (e = 0; e < cfg.th[tid].n; e++)
		sum += res.ev[tid][e].exposure;
	return sum;
}

static const char *const s1_ht0 = "r81d0:u,r08d1:u,r20cc:u";
static const char *const s1_ht1 = "r20cc:u,r81d0:u,r08d1:u";

/*
 * Scenario 1: HSW, HT on (4 GP counters), HT0 runs C1 C2 N from tick 0,
 * HT1 runs N' C1' C2' from tick 30; 90 ticks. All masks are 0xf.
 *
 * XSU research (no limit): HT0 alone fits all three (c0 X, c1 X, c2 S).
 * HT1 then sees U only on c3 and S on c2: N' -> c2, C1' -> c3, C2' has
 * nothing: 2 of 3, rotate. HT0 keeps everything every tick (its Cs need
 * HT1's U: c0, c1; its N may share HT1's S). HT1's rotations cycle over
 * [N' C1' C2'] -> N', C1'; [C1' C2' N'] -> C1' only (C2' finds c3 taken);
 * [C2' N' C1'] -> C2', N'. Over 60 ticks: N' 40, C1' 40, C2' 20.
 *
 * XSU series (fair budgets): HT0 alone has no waiting sibling and keeps
 * all three counters: 100% for 30 ticks. At tick 30 HT1 places N' on c2
 * (S beside HT0's N) and C1' on c3 (the only U), fails on C2' with two
 * corrupting events in its window: demand 2, HT0's budget is 2 and it
 * holds 3, so HT0 is kicked, keeps C1 and C2 and fails on N (demand 2).
 * From then on both threads are capped at 2 of 3 events and rotate:
 * HT1 2/3 each; HT0 30 + 40 of 90 ticks = 7/9 each.
 *
 * 6.12 (modelled), HT0 alone, 30 ticks: a corrupting event is always
 * collected first or second, gpmax is halved to 2, the window of three
 * fails every tick and rotates: each event 2 ticks of 3.
 */
static void test_scenario1(void)
{
	static const double one[3] = { 1, 1, 1 }, ht1[3] = { 2. / 3, 2. / 3, 1. / 3 };
	static const double third[3] = { 2. / 3, 2. / 3, 2. / 3 };
	static const double seven_ninths[3] = { 7. / 9, 7. / 9, 7. / 9 };
	bool ok;

	setup("hsw", true, 0, 90);
	events(0, s1_ht0, 0);
	events(1, s1_ht1, 30);
	run(SIM_HK, SIM_XSU_RESEARCH);
	ok = fracs_are(0, one) && fracs_are(1, ht1);
	tap_result(ok && !exposure(0) && !exposure(1),
		   "scenario 1, XSU research: HT0 100% each, HT1 2/3, 2/3, 1/3, no exposure");

	run(SIM_HK, SIM_XSU_SERIES);
	ok = fracs_are(0, seven_ninths) && fracs_are(1, third);
	tap_result(ok && !exposure(0) && !exposure(1),
		   "scenario 1, XSU series: HT0 7/9 each, HT1 2/3 each, no exposure");

	cfg.ticks = 30;
	run(SIM_HK, SIM_XSU_SERIES);
	ok = fracs_are(0, one);
	run(SIM_HK, SIM_XSU_UPSTREAM);
	ok &= fracs_are(0, third);
	tap_result(ok, "scenario 1, HT0 alone: all counters with fair budgets, 2/3 each under 6.12's halving");
}

/*
 * Scenario 2: the same lists with XSU off. Nothing constrains anything:
 * both threads place their events on c0, c1, c2 in list order and keep
 * them. HT0's N (c2) sits beside HT1's C2' and HT1's N' (c0) beside HT0's
 * C1 for all 60 shared ticks; the Cs on c1 also meet (C2 and C1').
 */
static void test_scenario2(void)
{
	static const double one[3] = { 1, 1, 1 };
	static const long want[2][3] = { { 0, 60, 60 }, { 60, 60, 0 } };
	bool ok;
	int t, e;

	setup("hsw", true, 0, 90);
	events(0, s1_ht0, 0);
	events(1, s1_ht1, 30);
	run(SIM_HK, SIM_XSU_OFF);
	ok = fracs_are(0, one) && fracs_are(1, one);
	for (t = 0; t < 2; t++)
		for (e = 0; e < 3; e++)
			ok &= res.ev[t][e].exposure == want[t][e];
	tap_diag("  exposed ticks: HT0 r20cc %ld of 90, HT1 r20cc %ld of 60",
		 res.ev[0][2].exposure, res.ev[1][0].exposure);
	tap_result(ok, "scenario 2, XSU off: all fit; r20cc exposed on both threads whenever both run");
}

static const char *const s3 = "r81d0,r02c4,r20cc,r10c4,r08c4";

/*
 * Scenario 3: both threads run 1 C + 4 N, 100 ticks. XSU off: 4 of the 5
 * fit each tick (4 GP counters), the list rotates: every event 80%. Each
 * thread fills all four counters every tick, so every tick the sibling of
 * a running C has exactly one event beside it: the exposed ticks of a
 * thread add up to the running ticks of the other thread's C (80).
 */
static void test_scenario3(void)
{
	static const double four_fifths[5] = { .8, .8, .8, .8, .8 };
	bool ok;

	setup("hsw", true, 0, 100);
	events(0, s3, 0);
	events(1, s3, 0);
	run(SIM_HK, SIM_XSU_OFF);
	ok = fracs_are(0, four_fifths) && fracs_are(1, four_fifths);
	ok &= exposure(0) == 80 && exposure(1) == 80;
	tap_result(ok, "scenario 3, XSU off: 80% each, exposure = the sibling C's running time");

	run(SIM_HK, SIM_XSU_SERIES);
	ok = !exposure(0) && !exposure(1);
	tap_diag("  series: HT0 C %.2f N %.2f %.2f %.2f %.2f", frac(0, 0),
		 frac(0, 1), frac(0, 2), frac(0, 3), frac(0, 4));
	run(SIM_HK, SIM_XSU_RESEARCH);
	ok &= !exposure(0) && !exposure(1);
	tap_result(ok, "scenario 3, XSU series and research: no exposure");
}

/* Scenario 4: 10 events, 4 of them corrupting, on both threads. */
static void test_scenario4(void)
{
	static const double two_fifths[10] = {
		.4, .4, .4, .4, .4, .4, .4, .4, .4, .4 };
	static const char *const s4 =
		"r81d0,r08d1,r10d1,r01d1,r02c4,r20cc,r10c4,r08c4,r01c9,r04c8";
	bool ok;

	setup("hsw", true, 0, 100);
	events(0, s4, 0);
	events(1, s4, 0);
	/* XSU off: 4 of 10 per tick, rotating by one: 40% each. */
	run(SIM_HK, SIM_XSU_OFF);
	ok = fracs_are(0, two_fifths) && fracs_are(1, two_fifths);
	tap_result(ok && exposure(0) && exposure(1),
		   "scenario 4, XSU off: 40% each, with exposure");
	run(SIM_HK, SIM_XSU_SERIES);
	ok = !exposure(0) && !exposure(1);
	run(SIM_GREEDY, SIM_XSU_SERIES);
	ok &= !exposure(0) && !exposure(1);
	tap_result(ok, "scenario 4, XSU series: no exposure with either matcher");
}

/*
 * Scenario 5: HT0 runs four corrupting events from tick 0, HT1 only
 * "branches" from tick 1. research: HT0's four take c0-c3 eXclusive at
 * tick 0; they always fit, and a thread's round (all out, all back in)
 * is one step, so HT0 never gives a counter back whichever sibling acts
 * first: HT1 never runs. (Were HT1 first at tick 0, it would keep c0 and
 * HT0 would run 3 of 4: whoever comes first wins.)
 *
 * 6.12 (modelled): gpmax is halved, HT0 places 2 of 4 per tick (on
 * c0/c1), rotating: 50% each, and HT1 always finds c2: 100%.
 *
 * series (fair budgets), fixed order: at tick 1 HT1 fails with demand 1,
 * HT0 (budget 3, holding 4, its last round placed everything) is kicked,
 * keeps 3 and fails on the fourth. It would tell HT1 to retry, but HT1's
 * round left its event out: perf rotates HT1 at its next interval anyway,
 * so it is not asked (xsu_arb_round()), and branches gets c3 from tick 2
 * on: 98 of its 99 ticks. HT0 runs 3 of 4 from tick 1, the one left out
 * rotating from the last: out at ticks 1,5,..,97 (e3), 2,..,98 (e0),
 * 3,..,99 (e1), 4,..,96 (e2): 75, 75, 76, 75 of 100. In the other orders
 * HT1 misses at most its first tick and HT0 still has 4 + 99 x 3 = 301
 * event-ticks.
 */
static void test_scenario5(void)
{
	static const double one[4] = { 1, 1, 1, 1 }, half[4] = { .5, .5, .5, .5 };
	static const double fair[4] = { .75, .75, .76, .75 };
	static const double zero[1] = { 0 }, full[1] = { 1 };
	static const double unasked[1] = { 98.0 / 99 };
	bool ok = true;
	int o, e;

	setup("hsw", true, 0, 100);
	events(0, "r81d0,r08d1,r10d1,r01d1", 0);
	events(1, "branches", 1);
	for (o = SIM_ORDER_FIXED; o <= SIM_ORDER_RANDOM; o++) {
		cfg.order = o;
		cfg.seed = 7;
		run(SIM_HK, SIM_XSU_RESEARCH);
		ok &= fracs_are(0, one) && fracs_are(1, zero);
	}
	tap_result(ok, "scenario 5, XSU research: HT1 starves in every sibling order");

	ok = true;
	for (o = SIM_ORDER_FIXED; o <= SIM_ORDER_RANDOM; o++) {
		cfg.order = o;
		run(SIM_HK, SIM_XSU_UPSTREAM);
		ok &= fracs_are(0, half) && fracs_are(1, full);
	}
	tap_result(ok, "scenario 5, 6.12's halving: HT0 50% each, HT1 100%");

	cfg.order = SIM_ORDER_FIXED;
	run(SIM_HK, SIM_XSU_SERIES);
	ok = fracs_are(0, fair) && fracs_are(1, unasked);
	for (o = SIM_ORDER_ALTERNATE; o <= SIM_ORDER_RANDOM; o++) {
		long sum = 0;

		cfg.order = o;
		run(SIM_HK, SIM_XSU_SERIES);
		for (e = 0; e < 4; e++)
			sum += res.ev[0][e].running;
		if (frac(1, 0) < unasked[0] - 1e-9) {
			tap_diag("  order %d: HT1 branches %.4f", o, frac(1, 0));
			ok = false;
		}
		ok &= sum == 301;
	}
	tap_result(ok, "scenario 5, XSU series: HT0 75/75/76/75%, HT1 all but its first tick in every order");
}

/*
 * Scenario 6: -C 0x6,0x8,0x9,0xb on 4 counters. Greedy fails the full set
 * (0x8->c3, 0x6->c1, 0x9->c0, nothing for 0xb) but fits every three of
 * them, so each tick places exactly the first three of the rotated list:
 * 3 per pass, each event 3/4. hk places all four every tick.
 */
static void test_scenario6(void)
{
	static const double q[4] = { .75, .75, .75, .75 }, one[4] = { 1, 1, 1, 1 };
	char err[128];
	bool ok;
	int t;

	setup("generic", true, 4, 40);
	cfg.th[0].n = sim_masks_parse("0x6,0x8,0x9,0xb", cfg.th[0].ev,
				      SIM_MAX_EVENTS, err, sizeof(err));
	run(SIM_GREEDY, SIM_XSU_OFF);
	ok = fracs_are(0, q);
	for (t = 0, ok &= cfg.th[0].n == 4; t < 4; t++)
		ok &= res.ev[0][t].running == 30;
	run(SIM_HK, SIM_XSU_OFF);
	ok &= fracs_are(0, one);
	tap_result(ok, "scenario 6, -C 0x6,0x8,0x9,0xb: greedy places 3 per pass, hk 4");
}

/*
 * --continue (a PMU with PERF_PMU_CAP_SCHED_CONTINUE), -C 0x1,0x1,0x2,0x4,
 * 0x8 on 4 counters, 100 ticks: the list never fits (two events want c0),
 * so it rotates every tick. Continuing, each pass places c1, c2, c3 and
 * whichever of a, b comes first: a in 4 rotations of 5, b in 1 -- 80%
 * and 20%, and a skipped event keeps running < enabled. Stopping at the
 * first failure leaves counters idle: rotation [a b c d e] places a only.
 */
static void test_continue(void)
{
	static const double want[5] = { .8, .2, 1, 1, 1 };
	char err[128];
	long stop = 0, cont = 0;
	bool ok;
	int e;

	setup("generic", true, 4, 100);
	cfg.th[0].n = sim_masks_parse("0x1,0x1,0x2,0x4,0x8", cfg.th[0].ev,
				      SIM_MAX_EVENTS, err, sizeof(err));
	run(SIM_HK, SIM_XSU_OFF);
	for (e = 0; e < 5; e++)
		stop += res.ev[0][e].running;
	cfg.cont = true;
	run(SIM_HK, SIM_XSU_OFF);
	for (e = 0; e < 5; e++)
		cont += res.ev[0][e].running;
	ok = fracs_are(0, want) && cont == 400 && stop < cont;
	ok &= res.ev[0][1].running < res.ev[0][1].enabled;
	tap_diag("event-ticks in 100 ticks: stopping %ld, continuing %ld", stop,
		 cont);
	tap_result(ok, "--continue: 4 events per pass, skipped events run < enabled");
}

/*
 * The early exit (pmu->sched_full(), x86_pmu_sched_full()): once the events
 * placed hold every counter, the groups after a failure are not tried.
 * Nine events on four counters: the first four fill c0-c3, so in every
 * round the fifth fails and the four after it are not tried (without the
 * exit: 4 passes after the failure per round). [a b c d e] of
 * test_continue() fails a or b on c0 with counters still free, or last:
 * the exit changes nothing there. Stopping early never changes what
 * runs: 300 random two-thread lists on Haswell (4 GP + 3 fixed), XSU off
 * and series, give every event the same running ticks either way.
 */
static void test_early_exit(void)
{
	static const char *nine = "0xf,0xf,0xf,0xf,0xf,0xf,0xf,0xf,0xf";
	struct sim_result *runs = calloc(2, sizeof(*runs));
	long rounds_early = 0, differ = 0, saved = 0, past = 0;
	char err[256];
	bool ok;
	int i, x, e, tid;

	setup("generic", true, 4, 10);
	cfg.th[0].n = sim_masks_parse(nine, cfg.th[0].ev, SIM_MAX_EVENTS, err,
				      sizeof(err));
	cfg.cont = true;
	run(SIM_HK, SIM_XSU_OFF);
	ok = res.past_failure == 0;
	cfg.no_full = true;
	run(SIM_HK, SIM_XSU_OFF);
	ok &= res.past_failure == 4 * res.rounds;

	setup("generic", true, 4, 10);
	cfg.th[0].n = sim_masks_parse("0x1,0x1,0x2,0x4,0x8", cfg.th[0].ev,
				      SIM_MAX_EVENTS, err, sizeof(err));
	cfg.cont = true;
	run(SIM_HK, SIM_XSU_OFF);
	past = res.past_failure;
	cfg.no_full = true;
	run(SIM_HK, SIM_XSU_OFF);
	ok &= past > 0 && past == res.past_failure;
	tap_diag("nine events on four counters: 0 passes after a failure per round, 4 without the exit; [a b c d e]: %.2f either way",
		 (double)past / res.rounds);
	past = 0;

	for (i = 0; i < 300 && runs; i++) {
		for (x = 0; x < 2; x++) {
			struct sim_policy pol = {
				.matcher = SIM_HK,
				.xsu = x ? SIM_XSU_SERIES : SIM_XSU_OFF,
			};
			int k;

			for (k = 0; k < 2; k++) {
				if (sim_random_config(tree, 1, i, &cfg, err,
						      sizeof(err))) {
					tap_diag("%s", err);
					ok = false;
					break;
				}
				cfg.cont = true;
				cfg.no_full = k;
				sim_run(&cfg, &pol, &runs[k], false);
			}
			for (tid = 0; tid < 2; tid++)
				for (e = 0; e < cfg.th[tid].n; e++)
					differ += runs[0].ev[tid][e].running !=
						  runs[1].ev[tid][e].running;
			saved += runs[1].past_failure - runs[0].past_failure;
			past += runs[1].past_failure;
			rounds_early += runs[0].past_failure < runs[1].past_failure;
		}
	}
	tap_diag("300 random lists x XSU off/series: %ld events ran differently; %ld of %ld passes after a failure saved, in %ld runs",
		 differ, saved, past, rounds_early);
	tap_result(ok && runs && !differ,
		   "early exit: no pass once every counter is taken, and the same events run");
	free(runs);
}

/*
 * A corrupting event at the head of a list one event over the counters,
 * beside an overcommitted sibling, with the PMU continuing past failures:
 * every pass fails it for the sibling's counters and adds the rest, and
 * perf rotates the first group on the PMU, so it stays at the head. Its
 * demand must be published although x86_schedule_events() has put it by
 * the end of the pass (the glue in pass.c, as intel/core.c): without
 * that it ran 1% of the ticks here, and 0.3-2.8% on the emulated host.
 */
static void test_head_corrupting(void)
{
	double f;

	setup("hsw", true, 0, 300);
	events(0, "r81d0,r01c4,r00c5,r20cc,r010e", 0);
	events(1, "r01c4,r00c5,r20cc,r010e,r0214", 0);
	cfg.cont = true;
	run(SIM_HK, SIM_XSU_SERIES);
	f = frac(0, 0);
	tap_diag("r81d0 at the head, sibling overcommitted: scheduled %.2f", f);
	tap_result(f >= 0.3 && res.ev[0][0].exposure == 0,
		   "a corrupting event failed at the head still gets counters");
}

/*
 * --rotate1: HT1's list starts that many rotations ahead of HT0's, modulo
 * its groups. Five events on four counters, one tick, XSU off: HT0 runs
 * its first four; HT1, one rotation ahead, its last four; five rotations
 * ahead is no rotation at all.
 */
static void test_rotate1(void)
{
	static const char *list = "0xf,0xf,0xf,0xf,0xf";
	char err[128];
	bool ok;
	int tid;

	setup("generic", true, 4, 1);
	for (tid = 0; tid < 2; tid++)
		cfg.th[tid].n = sim_masks_parse(list, cfg.th[tid].ev,
						SIM_MAX_EVENTS, err, sizeof(err));
	cfg.rotate1 = 1;
	run(SIM_HK, SIM_XSU_OFF);
	ok = sim_groups(&cfg.th[1]) == 5 &&
	     res.ev[0][0].running == 1 && res.ev[0][4].running == 0 &&
	     res.ev[1][0].running == 0 && res.ev[1][4].running == 1;
	cfg.rotate1 = 5;
	run(SIM_HK, SIM_XSU_OFF);
	ok &= res.ev[1][0].running == 1 && res.ev[1][4].running == 0;
	cfg.rotate1 = 0;
	tap_result(ok, "--rotate1: HT1's list starts that many groups on, modulo its groups");
}

/*
 * --rotations0: a tick without an expiry leaves the list as it was, two
 * rotate it twice. Five events on four counters, XSU off, 4 ticks: "1021"
 * runs the lists 0-3, 0-3, 2-4+0, 3-4+0-1, where one turn per tick runs
 * 0-3, 1-4, 2-4+0, 3-4+0-1.
 */
static void test_rotations(void)
{
	char err[128];
	bool ok;

	setup("generic", true, 4, 4);
	cfg.th[0].n = sim_masks_parse("0xf,0xf,0xf,0xf,0xf", cfg.th[0].ev,
				      SIM_MAX_EVENTS, err, sizeof(err));
	run(SIM_HK, SIM_XSU_OFF);
	ok = res.ev[0][0].running == 3 && res.ev[0][4].running == 3;
	cfg.rotations[0] = "1021";
	run(SIM_HK, SIM_XSU_OFF);
	ok &= res.ev[0][0].running == 4 && res.ev[0][4].running == 2 &&
	      res.ev[0][1].running == 3;
	cfg.rotations[0] = NULL;
	tap_result(ok, "--rotations0: no expiry keeps the list, two rotate it twice");
}

/* Every event's running ticks of the last run(), both threads. */
static void running_of(long out[2][SIM_MAX_EVENTS])
{
	int tid, e;

	for (tid = 0; tid < 2; tid++)
		for (e = 0; e < SIM_MAX_EVENTS; e++)
			out[tid][e] = res.ev[tid][e].running;
}

/*
 * --first: the thread that acts first in each tick, as a host recorded
 * it. Both siblings run four corrupting events and four others, XSU
 * series: who schedules first in a tick changes what each places, so
 * --order fixed and alternate give different fractions. A record of all
 * 0s must run as fixed, 0101... as alternate, and a record shorter than
 * the run falls back to --order for the ticks past its end.
 */
static void test_first(void)
{
	static const char *const list = "r81d0,r08d1,r10d1,r01d1,cycles,instructions,branches,r20cc";
	static char zeros[61], alt[61];
	long fixed[2][SIM_MAX_EVENTS], alternate[2][SIM_MAX_EVENTS];
	long got[2][SIM_MAX_EVENTS];
	bool ok;
	int t;

	for (t = 0; t < 60; t++) {
		zeros[t] = '0';
		alt[t] = '0' + (t & 1);
	}
	setup("hsw", true, 0, 60);
	events(0, list, 0);
	events(1, list, 3);
	cfg.order = SIM_ORDER_FIXED;
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(fixed);
	cfg.order = SIM_ORDER_ALTERNATE;
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(alternate);
	ok = memcmp(fixed, alternate, sizeof(fixed));
	if (!ok)
		tap_diag("  the two orders ran alike: the test would prove nothing");

	cfg.order = SIM_ORDER_ALTERNATE;
	cfg.first = zeros;
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(got);
	ok &= !memcmp(got, fixed, sizeof(got));
	cfg.order = SIM_ORDER_FIXED;
	cfg.first = alt;
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(got);
	ok &= !memcmp(got, alternate, sizeof(got));
	cfg.order = SIM_ORDER_ALTERNATE;
	cfg.first = "01";
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(got);
	ok &= !memcmp(got, alternate, sizeof(got));
	cfg.first = NULL;
	tap_result(ok, "--first: 0s run as --order fixed, 0101 as alternate, --order past the end");
}

/*
 * A replay in bins finer than a tick (the host's record, 1/K tick a bin):
 * both threads rotating in the first bin of every tick, their starts and
 * the demand's life (--hold, 25 ticks by default) K times as many bins,
 * run as the same lists one tick a bin, every event K times the running
 * bins. The demand's life matters here: with less than a tick's bins, a
 * demand lapses before its thread's next pass renews it and the
 * fractions change.
 */
static void test_hold_bins(void)
{
	static const char *const list = "r81d0,r08d1,r10d1,r01d1,cycles,instructions,branches,r20cc";
	enum { K = 5, TICKS = 60, HOLD = 25 };
	static char rot[TICKS * K + 1];
	long ticks[2][SIM_MAX_EVENTS], bins[2][SIM_MAX_EVENTS];
	bool ok = true;
	int t, tid, e;

	for (t = 0; t < TICKS * K; t++)
		rot[t] = t % K ? '0' : '1';
	setup("hsw", true, 0, TICKS);
	events(0, list, 0);
	events(1, list, 3);
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(ticks);

	setup("hsw", true, 0, TICKS * K);
	events(0, list, 0);
	events(1, list, 3 * K);
	cfg.rotations[0] = rot;
	cfg.rotations[1] = rot;
	cfg.hold = HOLD * K;
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(bins);
	for (tid = 0; tid < 2; tid++)
		for (e = 0; e < cfg.th[tid].n; e++)
			if (bins[tid][e] != K * ticks[tid][e]) {
				tap_diag("  HT%d %s: %ld bins, %ld ticks", tid,
					 cfg.th[tid].ev[e].name, bins[tid][e],
					 ticks[tid][e]);
				ok = false;
			}
	cfg.hold = K - 1;
	run(SIM_HK, SIM_XSU_SERIES);
	running_of(bins);
	for (tid = 0, t = 0; tid < 2; tid++)
		for (e = 0; e < cfg.th[tid].n; e++)
			t |= bins[tid][e] != K * ticks[tid][e];
	if (!t) {
		tap_diag("  a demand of K - 1 bins ran as one of 25 ticks: --hold unproven");
		ok = false;
	}
	tap_result(ok, "--hold: a replay in 1/5-tick bins, the demand 125 bins, runs as the same lists a tick a bin");
}

/*
 * The XSU guarantee over random two-thread runs: with the series' XSU (and
 * without its limit) no event ever runs beside a corrupting event on the
 * sibling's same counter. The model of 6.12 is only reported: it clears
 * the state of a stale hw.idx when an add fails.
 */
static void test_random_exposure(void)
{
	static const char *const pool[] = {
		"r81d0", "r08d1", "r10d1", "r01d1", "r02d2", "r04d3",
		"r02c4", "r20cc", "r10c4", "r08c4", "r01c9", "r04c8",
		"r0148", "r01a3", "cycles", "instructions", "branches",
		"branch-misses", "ref-cycles", "r0151",
	};
	long up_exposed = 0, bad = 0;
	u64 rng = 99;
	int r, k, tid;

	for (r = 0; r < 300; r++) {
		char list[2][512];
		int x, m;

		setup("hsw", rng_next(&rng) % 4 != 0, 0, 60);
		cfg.order = rng_next(&rng) % 3;
		cfg.seed = r + 1;
		for (tid = 0; tid < 2; tid++) {
			int n = 1 + rng_next(&rng) % 10;

			list[tid][0] = 0;
			for (k = 0; k < n; k++) {
				strcat(list[tid], k ? "," : "");
				strcat(list[tid], pool[rng_next(&rng) %
						       (sizeof(pool) / sizeof(pool[0]))]);
			}
			events(tid, list[tid], rng_next(&rng) % 20);
			cfg.th[tid].dur = rng_next(&rng) % 2 ? -1 : 10 + rng_next(&rng) % 40;
		}
		for (m = SIM_GREEDY; m <= SIM_HK; m++) {
			for (x = SIM_XSU_UPSTREAM; x <= SIM_XSU_RESEARCH; x++) {
				run(m, x);
				if (x == SIM_XSU_UPSTREAM)
					up_exposed += exposure(0) + exposure(1);
				else
					bad += exposure(0) + exposure(1);
			}
		}
	}
	tap_diag("300 random runs x 2 matchers: exposed event-ticks: series/research %ld, 6.12 model %ld",
		 bad, up_exposed);
	tap_result(!bad, "random runs: XSU series and research never expose an event");
}

/*
 * The fair arbitration's promises, measured side by side with 6.12's
 * halving and with no limit, on scenarios 1-5 and 1000 seeded random runs
 * (sim_fairness_run(), what make sim-fairness prints).
 */
static void test_fairness(void)
{
	static struct sim_fairness f;
	enum { UP, RESEARCH, SERIES };
	bool starve = false, below = false;
	char err[256];
	int sc;

	if (sim_fairness_run(tree, 1000, 1, &f, err, sizeof(err))) {
		tap_diag("%s", err);
		tap_result(false, "fairness comparison runs");
		return;
	}
	for (sc = 0; sc < 5; sc++) {
		const struct sim_metrics *m = f.scenario[sc];

		tap_diag("scenario %d: min fraction 6.12 %.3f, research %.3f, series %.3f; util %.2f %.2f %.2f",
			 sc + 1, m[UP].min_frac, m[RESEARCH].min_frac,
			 m[SERIES].min_frac, m[UP].util, m[RESEARCH].util,
			 m[SERIES].util);
		starve |= m[SERIES].min_frac == 0;
		/*
		 * A thread that rotates on its own is not kicked: it gives
		 * counters back, or retries, up to one interval later, which
		 * is a tick of the scenarios' 100.
		 */
		below |= m[SERIES].min_frac < m[UP].min_frac - 0.01 - 1e-9;
	}
	tap_diag("random mix: util 6.12 %.3f, research %.3f, series %.3f; starved runs %d %d %d; Jain %.3f %.3f %.3f",
		 f.mix_util[UP], f.mix_util[RESEARCH], f.mix_util[SERIES],
		 f.starved[UP], f.starved[RESEARCH], f.starved[SERIES],
		 f.mix[UP].jain, f.mix[RESEARCH].jain, f.mix[SERIES].jain);
	tap_result(!starve && !f.starved[SERIES],
		   "fair budgets: no starved event in scenarios 1-5 nor in 1000 random runs");
	tap_result(!below && f.mix[SERIES].min_frac >= f.mix[UP].min_frac,
		   "fair budgets: smallest fraction >= 6.12's (less one tick in scenarios 1-5) and on the mix");
	tap_result(f.mix_util[SERIES] > f.mix_util[UP],
		   "fair budgets: more GP counters in use than 6.12 on the random mix");
	tap_result(!f.exposed[SERIES] && !f.exposed[RESEARCH],
		   "fair budgets and research: no exposure in any run");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		tree = argv[1];

	test_greedy_model();
	test_scenario1();
	test_scenario2();
	test_scenario3();
	test_scenario4();
	test_scenario5();
	test_scenario6();
	test_continue();
	test_early_exit();
	test_head_corrupting();
	test_rotate1();
	test_rotations();
	test_first();
	test_hold_bins();
	test_random_exposure();
	test_fairness();
	return tap_finish();
}
