/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How far perf's flexible scheduling goes past a group that did not fit.
 *
 * Flexible groups are added to a PMU one at a time, in rotation order, and
 * traditionally the first group that does not fit ends the pass: every
 * later hardware group stays off even where it would fit, until rotation
 * brings it to the front. A PMU with PERF_PMU_CAP_SCHED_CONTINUE asks to
 * keep trying: after the first failure it may attempt pmu->sched_continue
 * more hardware groups, which bounds the cost of a pass. Software groups
 * always go on and never count. Pinned groups keep the old rule (a budget
 * of 0), as does every PMU without the capability. Past a failure, a
 * group that the PMU says has no room (pmu->sched_no_room()) is not tried
 * and uses no try, as an exclusive group that may not go on.
 *
 * The state lives in struct merge_sched_data, on the stack of one
 * scheduling pass. The helpers see nothing but that state, no perf types,
 * so that the decisions can be tested and simulated in user space.
 */
#ifndef _KERNEL_EVENTS_SCHED_BUDGET_H
#define _KERNEL_EVENTS_SCHED_BUDGET_H

#include <linux/types.h>

/**
 * struct perf_sched_budget - one scheduling pass over a PMU's groups
 * @left:   attempts still allowed once a group has failed
 * @failed: a hardware group of this pass could not go on
 */
struct perf_sched_budget {
	unsigned int	left;
	bool		failed;
};

/**
 * perf_sched_budget_init() - start a pass
 * @b:     the pass's budget
 * @tries: hardware groups that may still be attempted after the first one
 *         that fails; 0 keeps perf's rule of stopping there
 */
static inline void perf_sched_budget_init(struct perf_sched_budget *b,
					  unsigned int tries)
{
	b->left = tries;
	b->failed = false;
}

/**
 * perf_sched_budget_can_add() - may the next hardware group be attempted?
 * @b: the pass's budget
 *
 * Return: true until a group has failed and the budget is spent.
 */
static inline bool perf_sched_budget_can_add(const struct perf_sched_budget *b)
{
	return !b->failed || b->left;
}

/**
 * perf_sched_budget_tried() - a hardware group was attempted
 * @b:  the pass's budget
 * @ok: it went on
 *
 * An attempt after the first failure uses up one try, whatever its result.
 */
static inline void perf_sched_budget_tried(struct perf_sched_budget *b,
					   bool ok)
{
	if (b->failed) {
		if (b->left)
			b->left--;
	} else if (!ok) {
		b->failed = true;
	}
}

/**
 * perf_sched_budget_skipped() - a group stays off without an attempt
 * @b: the pass's budget
 *
 * A group that may not go on (an exclusive group beside others, or no
 * budget left) counts as a failure but uses no try.
 */
static inline void perf_sched_budget_skipped(struct perf_sched_budget *b)
{
	b->failed = true;
}

#endif /* _KERNEL_EVENTS_SCHED_BUDGET_H */
