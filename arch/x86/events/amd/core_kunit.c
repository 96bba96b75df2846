// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the counter assignment of AMD family 15h events: the
 * constraints come from amd_get_event_constraints_f15h(), the table the
 * kernel uses on Bulldozer to Excavator, and the counters from
 * perf_assign_events(). Part of amd/core.c (built in only), since the
 * table is static there. No PMU hardware is touched.
 */
#include <kunit/test.h>

#define F15H_NR_COUNTERS	6
#define F15H_MAX_EVENTS		6

/*
 * Event sets that fit the six counters of family 15h, each in a slot
 * order: 0x02E has counters 0 and 3 (the table's overlap constraint),
 * 0x023, 0x043 and 0x045 counters 0-2, 0x0DB and 0x0DC (LS/DC) counters
 * 0-5, 0x000 with one unit-mask bit (FP) counters 3-5.
 */
static const u16 f15h_sets[][F15H_MAX_EVENTS] = {
	{ 0x02E, 0x023, 0x043, 0x045, 0x0DB, 0x0DC },
	{ 0x02E, 0x023, 0x043, 0x045, 0x000, 0x0DB },
	{ 0x02E, 0x023, 0x043, 0x045, 0x000, 0x000 },
};

/* The raw configuration of @code, with one unit-mask bit for FP events. */
static u64 f15h_config(u16 code)
{
	return ((u64)(code & 0xf00) << 24) | (code & 0xff) | 0x100;
}

static struct event_constraint *f15h_constraint(struct perf_event *event,
						u16 code)
{
	memset(event, 0, sizeof(*event));
	event->hw.config = f15h_config(code);
	return amd_get_event_constraints_f15h(NULL, 0, event);
}

/* The next permutation of @p[0..n) in lexicographic order; false at the end. */
static bool f15h_next_order(int *p, int n)
{
	int i = n - 2, j = n - 1;

	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return false;
	while (p[j] <= p[i])
		j--;
	swap(p[i], p[j]);
	for (j = n - 1, i++; i < j; i++, j--)
		swap(p[i], p[j]);
	return true;
}

/*
 * Every set fits, in every order the kernel can present its events: each
 * event gets a counter of its constraint, no counter twice.
 */
static void f15h_fitting_sets_get_counters(struct kunit *test)
{
	struct event_constraint *c[F15H_MAX_EVENTS];
	struct perf_event *events;
	int s, i, order[F15H_MAX_EVENTS], assign[F15H_MAX_EVENTS];
	int orders, failed;

	events = kunit_kcalloc(test, F15H_MAX_EVENTS, sizeof(*events),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, events);

	for (s = 0; s < ARRAY_SIZE(f15h_sets); s++) {
		for (i = 0; i < F15H_MAX_EVENTS; i++)
			order[i] = i;
		orders = 0;
		failed = 0;
		do {
			int wmin = X86_PMC_IDX_MAX, wmax = 0;
			u64 used = 0;

			for (i = 0; i < F15H_MAX_EVENTS; i++) {
				c[i] = f15h_constraint(&events[i],
						       f15h_sets[s][order[i]]);
				wmin = min(wmin, c[i]->weight);
				wmax = max(wmax, c[i]->weight);
				assign[i] = -1;
			}
			orders++;
			if (perf_assign_events(c, F15H_MAX_EVENTS, wmin, wmax,
					       F15H_NR_COUNTERS, assign)) {
				failed++;
				continue;
			}
			for (i = 0; i < F15H_MAX_EVENTS; i++) {
				u64 mask = c[i]->idxmsk64;
				u64 bit = BIT_ULL(assign[i]);

				KUNIT_EXPECT_TRUE_MSG(test, mask & bit,
						      "set %d: event %#x on counter %d",
						      s, f15h_sets[s][order[i]],
						      assign[i]);
				KUNIT_EXPECT_FALSE(test, used & bit);
				used |= bit;
			}
		} while (f15h_next_order(order, F15H_MAX_EVENTS));
		KUNIT_EXPECT_EQ_MSG(test, failed, 0,
				    "set %d refused in %d of %d orders", s,
				    failed, orders);
	}
}

/* Validation (no assign array) agrees: the sets fit. */
static void f15h_fitting_sets_validate(struct kunit *test)
{
	struct event_constraint *c[F15H_MAX_EVENTS];
	struct perf_event *events;
	int s, i;

	events = kunit_kcalloc(test, F15H_MAX_EVENTS, sizeof(*events),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, events);

	for (s = 0; s < ARRAY_SIZE(f15h_sets); s++) {
		int wmin = X86_PMC_IDX_MAX, wmax = 0, left;

		for (i = 0; i < F15H_MAX_EVENTS; i++) {
			c[i] = f15h_constraint(&events[i], f15h_sets[s][i]);
			wmin = min(wmin, c[i]->weight);
			wmax = max(wmax, c[i]->weight);
		}
		left = perf_assign_events(c, F15H_MAX_EVENTS, wmin, wmax,
					  F15H_NR_COUNTERS, NULL);
		KUNIT_EXPECT_EQ_MSG(test, left, 0, "set %d", s);
	}
}

/*
 * Seven events where six counters are: one is always left out, and the
 * events placed stay within the counters (the overlap retry may not
 * count past gpmax either way).
 */
static void f15h_one_too_many(struct kunit *test)
{
	static const u16 codes[] = { 0x02E, 0x023, 0x043, 0x045, 0x0DB,
				     0x0DC, 0x0DD };
	struct event_constraint *c[ARRAY_SIZE(codes)];
	int i, wmin = X86_PMC_IDX_MAX, wmax = 0, assign[ARRAY_SIZE(codes)];
	struct perf_event *events;

	events = kunit_kcalloc(test, ARRAY_SIZE(codes), sizeof(*events),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, events);
	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		c[i] = f15h_constraint(&events[i], codes[i]);
		wmin = min(wmin, c[i]->weight);
		wmax = max(wmax, c[i]->weight);
	}
	KUNIT_EXPECT_NE(test, perf_assign_events(c, ARRAY_SIZE(codes), wmin,
						 wmax, F15H_NR_COUNTERS,
						 assign), 0);
}

static struct kunit_case amd_f15h_assign_cases[] = {
	KUNIT_CASE(f15h_fitting_sets_get_counters),
	KUNIT_CASE(f15h_fitting_sets_validate),
	KUNIT_CASE(f15h_one_too_many),
	{}
};

static struct kunit_suite amd_f15h_assign_suite = {
	.name = "x86_amd_f15h_assign",
	.test_cases = amd_f15h_assign_cases,
};

kunit_test_suite(amd_f15h_assign_suite);
