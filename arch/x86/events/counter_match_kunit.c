// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the assignment of perf events to x86 PMU counters:
 * x86_counter_match() and perf_assign_events(), which is built on it.
 * Pure computations on constraint masks, some of them from the kernel's
 * own constraint tables; no PMU hardware is touched.
 */
#include <kunit/test.h>
#include <linux/bitops.h>

#include "counter_match.h"
#include "perf_event.h"

#define GP(n)		GENMASK_ULL((n) - 1, 0)
#define FIXED(i)	BIT_ULL(INTEL_PMC_IDX_FIXED + (i))
#define METRIC(i)	BIT_ULL(INTEL_PMC_IDX_METRIC_BASE + (i))

/* @assign places n - @left events, each legally, within @gpmax. */
static void expect_legal(struct kunit *test, const u64 *masks, int n,
			 u64 paired, int gpmax, const int *assign, int left)
{
	int i, placed = 0, nr_gp = 0;
	u64 used = 0;

	for (i = 0; i < n; i++) {
		int c = assign[i];
		u64 m;

		if (c == -1)
			continue;
		KUNIT_ASSERT_TRUE_MSG(test, c >= 0 && c < X86_PMC_IDX_MAX,
				      "event %d on counter %d", i, c);
		KUNIT_EXPECT_TRUE_MSG(test, masks[i] & BIT_ULL(c),
				      "event %d on counter %d outside %#llx",
				      i, c, masks[i]);
		m = paired & BIT_ULL(i) ? 3ULL << c : BIT_ULL(c);
		KUNIT_EXPECT_FALSE_MSG(test, used & m,
				       "event %d: counter %d taken twice", i, c);
		used |= m;
		placed++;
		nr_gp += c < INTEL_PMC_IDX_FIXED;
	}
	KUNIT_EXPECT_EQ(test, placed, n - left);
	KUNIT_EXPECT_LE(test, nr_gp, gpmax);
}

/*
 * Run the matcher from the history in @assign (NULL: none) and check the
 * result; validation (no assign array) must agree. Returns events left out.
 */
static int match(struct kunit *test, const u64 *masks, int n, u64 paired,
		 int gpmax, int *assign)
{
	int local[X86_MATCH_MAX_EVENTS];
	int left, i;

	if (!assign) {
		for (i = 0; i < n; i++)
			local[i] = -1;
		assign = local;
	}
	left = x86_counter_match(masks, n, paired, gpmax, assign);
	KUNIT_EXPECT_EQ(test, left,
			x86_counter_match(masks, n, paired, gpmax, NULL));
	expect_legal(test, masks, n, paired, gpmax, assign, left);
	return left;
}

/* A greedy first fit in order of weight places three of these; four fit. */
static void greedy_counterexample(struct kunit *test)
{
	const u64 masks[] = { 0x6, 0x8, 0x9, 0xb };
	int assign[4] = { -1, -1, -1, -1 };

	KUNIT_EXPECT_EQ(test, match(test, masks, 4, 0, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[1], 3);
}

/* Intel with HT on: 4 GP and 3 fixed counters. */
static void fixed_and_gp_mix(struct kunit *test)
{
	const u64 masks[] = {
		GP(4) | FIXED(0),	/* instructions */
		GP(4) | FIXED(1),	/* cycles */
		FIXED(2),		/* ref-cycles */
		GP(4), GP(4), 0x4, 0x3,
		GP(4),
	};
	int assign[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

	KUNIT_EXPECT_EQ(test, match(test, masks, 7, 0, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], INTEL_PMC_IDX_FIXED + 0);
	KUNIT_EXPECT_EQ(test, assign[1], INTEL_PMC_IDX_FIXED + 1);
	KUNIT_EXPECT_EQ(test, assign[2], INTEL_PMC_IDX_FIXED + 2);
	KUNIT_EXPECT_EQ(test, assign[5], 2);

	/* One GP event too many. */
	KUNIT_EXPECT_EQ(test, match(test, masks, 8, 0, 4, NULL), 1);
}

static void gpmax_caps_gp_counters(struct kunit *test)
{
	const u64 four[] = { GP(4), GP(4), GP(4), GP(4) };
	const u64 mixed[] = { 0x1, 0x1 | FIXED(0), 0x2 };

	KUNIT_EXPECT_EQ(test, match(test, four, 4, 0, 4, NULL), 0);
	KUNIT_EXPECT_EQ(test, match(test, four, 4, 0, 2, NULL), 2);
	KUNIT_EXPECT_EQ(test, match(test, four, 4, 0, 0, NULL), 4);

	/* The event that can go fixed must, so one more fits. */
	KUNIT_EXPECT_EQ(test, match(test, mixed, 3, 0, 1, NULL), 1);
	KUNIT_EXPECT_EQ(test, match(test, mixed, 3, 0, 2, NULL), 0);
	KUNIT_EXPECT_EQ(test, match(test, mixed, 3, 0, 0, NULL), 2);

	/* The same where the slow path must keep the GP counter blocked. */
	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ 0x1, 0x1 | FIXED(0) |
						   FIXED(1) }, 2, 0, 0, NULL), 1);
}

/* Ice Lake topdown: slots on fixed counter 3, metrics from bit 48. */
static void metric_counters(struct kunit *test)
{
	const u64 masks[] = {
		FIXED(3), METRIC(0), METRIC(1), METRIC(2), METRIC(3),
		GP(8), GP(8) | FIXED(1),
	};
	int assign[7] = { -1, -1, -1, -1, -1, -1, -1 };
	int i;

	KUNIT_EXPECT_EQ(test, match(test, masks, 7, 0, 8, assign), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, assign[1 + i],
				INTEL_PMC_IDX_METRIC_BASE + i);

	/* Two events for one metric counter: one is left out. */
	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ METRIC(0), METRIC(0) }, 2,
				    0, 8, NULL), 1);
}

/* AMD large increment events take an even counter and the next one. */
static void paired_events(struct kunit *test)
{
	const u64 even = 0x15;		/* 6 counters: pairs start at 0, 2, 4 */
	const u64 masks[] = { even, even, even, GP(6), 0x1, 0x2 };
	int assign[6] = { -1, -1, -1, -1, -1, -1 };

	KUNIT_EXPECT_EQ(test, match(test, masks, 3, 0x7, 6, NULL), 0);
	KUNIT_EXPECT_EQ(test, match(test, masks, 4, 0x7, 6, NULL), 1);
	/* One pair, three singles: the singles need block 0. */
	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ even, 0x1, 0x2, GP(6) }, 4,
				    0x1, 6, assign), 0);
	KUNIT_EXPECT_NE(test, assign[0], 0);
	/* Two pairs and two singles fill six counters; a pair counts once. */
	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ even, even, GP(6), GP(6) },
				    4, 0x3, 4, NULL), 0);
	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ even, even, GP(6), GP(6) },
				    4, 0x3, 3, NULL), 1);
	/* A pair may not start on an odd counter. */
	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ 0x2 }, 1, 0x1, 6, NULL), 1);
}

/*
 * An event that may use a fixed counter gets it while it is free, leaving
 * the general-purpose counters to the events that need them; within a
 * kind, the lowest counter. The same when the first fit leaves an event
 * out and the slow path takes over from it.
 */
static void fixed_counters_preferred(struct kunit *test)
{
	const u64 two[] = { GP(4) | FIXED(1), 0xc };
	const u64 five[] = { 0x6, 0x8, 0x9, 0xb, GP(8) | FIXED(0) };
	int assign[5] = { -1, -1, -1, -1, -1 };

	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ GP(4) | FIXED(0) }, 1, 0, 4,
				    assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], INTEL_PMC_IDX_FIXED + 0);

	assign[0] = -1;
	KUNIT_EXPECT_EQ(test, match(test, two, 2, 0, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], INTEL_PMC_IDX_FIXED + 1);
	KUNIT_EXPECT_EQ(test, assign[1], 2);

	/* The first fit leaves 0xb out: the slow path goes on from it. */
	assign[0] = -1;
	assign[1] = -1;
	KUNIT_EXPECT_EQ(test, match(test, five, 5, 0, 8, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[4], INTEL_PMC_IDX_FIXED + 0);
}

/* Events keep their counters; the one that must move is the only one. */
static void warm_start_moves_least(struct kunit *test)
{
	const u64 masks[] = { GP(4), GP(4), GP(4), 0x2 };
	int assign[4] = { 3, 1, 2, -1 };

	KUNIT_EXPECT_EQ(test, match(test, masks, 3, 0, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 3);
	KUNIT_EXPECT_EQ(test, assign[1], 1);
	KUNIT_EXPECT_EQ(test, assign[2], 2);

	assign[3] = -1;
	KUNIT_EXPECT_EQ(test, match(test, masks, 4, 0, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 3);
	KUNIT_EXPECT_EQ(test, assign[1], 0);
	KUNIT_EXPECT_EQ(test, assign[2], 2);
	KUNIT_EXPECT_EQ(test, assign[3], 1);
}

/*
 * Among the assignments that place every event, one that moves nothing:
 * event 2 stays on counter 0 although the first path found for event 1
 * goes through it; with pairs, event 0 stays on counter 4 and the paired
 * event takes another block.
 */
static void nothing_moves_when_all_can_stay(struct kunit *test)
{
	int assign[3] = { -1, -1, 0 }, pairs[2] = { 4, -1 };

	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ 0xc, 0x5, 0xb }, 3, 0, 4,
				    assign), 0);
	KUNIT_EXPECT_EQ(test, assign[2], 0);

	KUNIT_EXPECT_EQ(test, match(test, (u64[]){ 0x11, 0x15 }, 2, 0x2, 6,
				    pairs), 0);
	KUNIT_EXPECT_EQ(test, pairs[0], 4);
}

/*
 * A history in which two events claim one counter (junk, or stale): one
 * of them keeps it, and no more events move than must: here the other
 * one alone. Only the cheapest augmenting paths get there.
 */
static void conflicting_history_moves_least(struct kunit *test)
{
	const u64 masks[] = { 0x6, 0xd, 0xd, 0x3 };
	const int prev[] = { 2, 3, 2, 0 };
	int assign[4], i, moved = 0;

	memcpy(assign, prev, sizeof(assign));
	KUNIT_EXPECT_EQ(test, match(test, masks, 4, 0, 4, assign), 0);
	for (i = 0; i < 4; i++)
		moved += assign[i] != prev[i];
	KUNIT_EXPECT_EQ(test, moved, 1);
}

/* History that is out of range or illegal is ignored. */
static void junk_history_ignored(struct kunit *test)
{
	const u64 masks[] = { 0x1, 0x2, 0x4 };
	int assign[3] = { 64, -7, 0 };

	KUNIT_EXPECT_EQ(test, match(test, masks, 3, 0, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[2], 2);
	KUNIT_EXPECT_EQ(test, x86_counter_match(masks, 0, 0, 4, NULL), 0);
}

/* The memory perf_assign_events() borrows, as a fake cpu_hw_events has. */
static struct x86_sched_scratch *scratch(struct kunit *test)
{
	struct x86_sched_scratch *s = kunit_kzalloc(test, sizeof(*s),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	return s;
}

/* perf_assign_events() on struct event_constraint, NULL for validation. */
static void perf_assign_events_constraints(struct kunit *test)
{
	struct x86_sched_scratch *s = scratch(test);
	struct event_constraint cons[] = {
		EVENT_CONSTRAINT(0, 0x6, 0),
		EVENT_CONSTRAINT(0, 0x8, 0),
		EVENT_CONSTRAINT(0, 0x9, 0),
		EVENT_CONSTRAINT(0, 0xb, 0),
		EVENT_CONSTRAINT(0, 0x5, 0),
	};
	struct event_constraint *c[5];
	int assign[5] = { -1, -1, -1, -1, -1 };
	int i;

	for (i = 0; i < 5; i++)
		c[i] = &cons[i];

	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 4, 4, NULL), 0);
	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 4, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 5, 4, NULL), 1);
	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 4, 3, NULL), 1);

	/* NULL: this CPU's memory, used with interrupts off as pmu::add() is. */
	local_irq_disable();
	i = perf_assign_events(NULL, c, 5, 4, assign);
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, i, 1);

	/* PERF_X86_EVENT_PAIR in the constraint makes the event paired. */
	cons[0] = (struct event_constraint)EVENT_CONSTRAINT(0, 0x5, 0);
	cons[0].flags = PERF_X86_EVENT_PAIR;
	cons[1] = (struct event_constraint)EVENT_CONSTRAINT(0, 0x3, 0);
	cons[2] = (struct event_constraint)EVENT_CONSTRAINT(0, 0x3, 0);
	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 3, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 2);
	cons[2] = (struct event_constraint)EVENT_CONSTRAINT(0, 0x4, 0);
	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 3, 4, NULL), 1);
}

/*
 * The uncore driver hands perf_assign_events() an assign array it did not
 * fill in: what it holds is not taken for the counters the events had.
 */
static void perf_assign_events_ignores_assign_on_entry(struct kunit *test)
{
	struct event_constraint cons[] = {
		EVENT_CONSTRAINT(0, 0x3, 0),
		EVENT_CONSTRAINT(0, 0x3, 0),
		EVENT_CONSTRAINT(0, 0x4, 0),
	};
	struct event_constraint *c[3] = { &cons[0], &cons[1], &cons[2] };
	struct x86_sched_scratch *s = scratch(test);
	int assign[3] = { 1, 0, 0x5a5a5a5a };

	KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 3, 4, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 0);
	KUNIT_EXPECT_EQ(test, assign[1], 1);
	KUNIT_EXPECT_EQ(test, assign[2], 2);
}

/*
 * Hall's formula: with no gpmax, pairs or history, a maximum assignment of
 * @n (at most 8) events leaves out max over event sets S of |S| - |N(S)|,
 * N(S) the counters that the events of S may use.
 */
static int hall_left_out(const u64 *masks, int n)
{
	int s, i, worst = 0;

	for (s = 1; s < BIT(n); s++) {
		u64 nb = 0;

		for (i = 0; i < n; i++)
			if (s & BIT(i))
				nb |= masks[i];
		worst = max(worst, (int)hweight8(s) - (int)hweight64(nb));
	}
	return worst;
}

/*
 * The constraint that Gracemont (the E-core of Alder Lake) gives a PEBS
 * event of raw configuration @config: intel_pebs_constraints() looks the
 * event up in the PMU's table, intel_grt_pebs_event_constraints, the same
 * way. NULL when the table has no constraint for it.
 */
static struct event_constraint *grt_pebs_constraint(u64 config)
{
	struct event_constraint *c;

	for_each_event_constraint(c, intel_grt_pebs_event_constraints)
		if (constraint_match(c, config))
			return c;
	return NULL;
}

/* MEM_UOPS_RETIRED.LOAD_LATENCY (0x5d0), counting in user and kernel mode. */
#define GRT_LOAD_LATENCY	(0x05d0 | ARCH_PERFMON_EVENTSEL_USR | \
				 ARCH_PERFMON_EVENTSEL_OS)

/*
 * The three events of the Gracemont cases: the load latency event with its
 * constraint from the PEBS table, then two instructions:ppp with the
 * constraint tnt_get_event_constraints() gives them on Gracemont,
 * fixed0_counter0_constraint of intel/core.c (fixed counter 0 or GP
 * counter 0).
 */
static void grt_constraints(struct kunit *test, struct event_constraint *cons)
{
	struct event_constraint *ldlat;

	if (!IS_ENABLED(CONFIG_CPU_SUP_INTEL))
		kunit_skip(test, "Intel PMU support is not built in");
	ldlat = grt_pebs_constraint(GRT_LOAD_LATENCY);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ldlat,
				  "no PEBS constraint for event 0x5d0");
	cons[0] = *ldlat;
	cons[1] = fixed0_counter0_constraint;
	cons[2] = cons[1];
}

/*
 * Gracemont's load latency event (GP counters 0-1 in the table) beside two
 * instructions:ppp: all three fit (counter 1, fixed 0, counter 0), in every
 * order. A greedy walk that gives the load latency event counter 0 before
 * the second instructions:ppp looks for one leaves that event out.
 */
static void gracemont_ldlat_and_two_instructions_ppp(struct kunit *test)
{
	static const int orders[][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
		{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	struct x86_sched_scratch *s = scratch(test);
	struct event_constraint cons[3], *c[3];
	int o, i, assign[3];
	u64 masks[3];

	grt_constraints(test, cons);
	for (i = 0; i < 3; i++)
		masks[i] = cons[i].idxmsk64;
	KUNIT_ASSERT_EQ_MSG(test, hall_left_out(masks, 3), 0,
			    "the three events no longer fit: masks %#llx %#llx",
			    masks[0], masks[1]);

	for (o = 0; o < ARRAY_SIZE(orders); o++) {
		for (i = 0; i < 3; i++) {
			c[i] = &cons[orders[o][i]];
			masks[i] = c[i]->idxmsk64;
			assign[i] = -1;
		}
		KUNIT_EXPECT_EQ_MSG(test, perf_assign_events(s, c, 3, 8, assign), 0,
				    "order %d %d %d", orders[o][0],
				    orders[o][1], orders[o][2]);
		expect_legal(test, masks, 3, 0, 8, assign, 0);
		KUNIT_EXPECT_EQ(test, perf_assign_events(s, c, 3, 8, NULL), 0);
	}
}

/*
 * As x86_schedule_events() meets it: the load latency event runs on
 * counter 0, the first instructions:ppp on fixed counter 0, and the second
 * is added. Only the load latency event moves, to counter 1.
 */
static void gracemont_ldlat_moves_for_instructions_ppp(struct kunit *test)
{
	struct event_constraint cons[3];
	int assign[3] = { 0, INTEL_PMC_IDX_FIXED_INSTRUCTIONS, -1 };
	u64 masks[3];
	int i;

	grt_constraints(test, cons);
	for (i = 0; i < 3; i++)
		masks[i] = cons[i].idxmsk64;
	KUNIT_EXPECT_EQ(test, match(test, masks, 3, 0, 8, assign), 0);
	KUNIT_EXPECT_EQ(test, assign[0], 1);
	KUNIT_EXPECT_EQ(test, assign[1], INTEL_PMC_IDX_FIXED_INSTRUCTIONS);
	KUNIT_EXPECT_EQ(test, assign[2], 0);
}

/*
 * All 15^4 tuples of non-empty masks on 4 counters, against Hall's formula.
 */
static void exhaustive_four_counters(struct kunit *test)
{
	int t, bad = 0;

	for (t = 0; t < 15 * 15 * 15 * 15; t++) {
		u64 masks[4];
		int i, v = t;

		for (i = 0; i < 4; i++, v /= 15)
			masks[i] = 1 + v % 15;
		if (x86_counter_match(masks, 4, 0, 4, NULL) !=
		    hall_left_out(masks, 4) && bad++ < 5)
			KUNIT_FAIL(test, "masks %#llx %#llx %#llx %#llx",
				   masks[0], masks[1], masks[2], masks[3]);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static struct kunit_case x86_counter_match_cases[] = {
	KUNIT_CASE(greedy_counterexample),
	KUNIT_CASE(fixed_and_gp_mix),
	KUNIT_CASE(fixed_counters_preferred),
	KUNIT_CASE(gpmax_caps_gp_counters),
	KUNIT_CASE(metric_counters),
	KUNIT_CASE(paired_events),
	KUNIT_CASE(warm_start_moves_least),
	KUNIT_CASE(nothing_moves_when_all_can_stay),
	KUNIT_CASE(conflicting_history_moves_least),
	KUNIT_CASE(junk_history_ignored),
	KUNIT_CASE(perf_assign_events_constraints),
	KUNIT_CASE(perf_assign_events_ignores_assign_on_entry),
	KUNIT_CASE(gracemont_ldlat_and_two_instructions_ppp),
	KUNIT_CASE(gracemont_ldlat_moves_for_instructions_ppp),
	KUNIT_CASE(exhaustive_four_counters),
	{}
};

static struct kunit_suite x86_counter_match_suite = {
	.name = "x86_counter_match",
	.test_cases = x86_counter_match_cases,
};

kunit_test_suite(x86_counter_match_suite);

MODULE_DESCRIPTION("KUnit tests for x86 PMU counter assignment");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
