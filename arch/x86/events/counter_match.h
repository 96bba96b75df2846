/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Optimal assignment of perf events to x86 PMU counters.
 *
 * The matcher is pure: it sees counter masks, never struct perf_event or
 * struct event_constraint, so that the same file also builds in user space
 * (tools/testing/x86-pmu).
 */
#ifndef _ARCH_X86_EVENTS_COUNTER_MATCH_H
#define _ARCH_X86_EVENTS_COUNTER_MATCH_H

#include <linux/bitops.h>
#include <linux/types.h>

/* Bits 0..31 of a mask are general-purpose counters, 32..63 are not. */
#define X86_MATCH_NR_GP		32
/* One bit per counter index: X86_PMC_IDX_MAX. */
#define X86_MATCH_NR_COUNTERS	64
/* At most one event per counter index can be placed. */
#define X86_MATCH_MAX_EVENTS	X86_MATCH_NR_COUNTERS

/*
 * The matcher's state, indexed by counter: the vertex on each counter (an
 * event, or a blocker standing for the gpmax limit), its breadth-first
 * level and the counter taken at each depth of a depth-first walk. The
 * fields are private to counter_match.c; the type is public so that a
 * caller can lend the memory (x86_counter_match_in()).
 */
struct x86_match_state {
	const u64	*masks;
	const int	*prev;		/* the counters events had */
	u64		keep;		/* events whose prev[] entry is legal */
	u64		paired;
	u64		single_ok;	/* counters single events may take */
	u64		pair_ok;	/* even counters of reserved blocks */
	u64		blocker_ok;	/* GP counters a blocker may take */
	u64		events;		/* one bit per event */
	u64		placed;		/* events on a counter */
	u64		used;		/* counters holding an event or blocker */
	u64		stay;		/* counters whose event is where it was */
	u64		layered;	/* counters the walk may enter */
	u64		seeds;		/* levels that start a higher cost */
	int		n;
	int		gpmax;
	int		goal;		/* the level of the free counters */
	int		best_score;	/* of the rounds of paired events */
	u64		best_blocks;	/* the blocks of the best round */
	s8		on[X86_MATCH_NR_COUNTERS];
	u8		dist[X86_MATCH_NR_COUNTERS];
	u8		path[X86_MATCH_NR_COUNTERS];
};

int x86_counter_match(const u64 *masks, int n, u64 paired, int gpmax,
		      int *assign);
int x86_counter_match_in(struct x86_match_state *st, const u64 *masks, int n,
			 u64 paired, int gpmax, int *assign);
int x86_counter_match_count(struct x86_match_state *st, const u64 *masks,
			    int n, int gpmax);

/**
 * x86_counter_gp_held() - no general-purpose counter can be freed
 * @masks:  for each event on the PMU, the counters it may use
 * @assign: for each event, the counter it holds (-1: none)
 * @n:      number of events
 * @gp:     the PMU's general-purpose counters
 * @all:    all its counters, @gp included
 *
 * For a scheduling pass that already failed a group: can a group with an
 * event that needs a general-purpose counter still fit? Not when every GP
 * counter is held and none of the events holding one can move off it: an
 * event can leave a counter for a free one outside @gp, or for one held by
 * an event that can leave in turn (an alternating path, found here by
 * growing the set of non-GP counters that can be freed). A necessary
 * condition only: true means such a group cannot fit; false means it
 * might.
 *
 * Return: true when every GP counter is held for good.
 */
static inline bool x86_counter_gp_held(const u64 *masks, const int *assign,
				       int n, u64 gp, u64 all)
{
	u64 used = 0, freeable;
	bool grew;
	int i;

	for (i = 0; i < n; i++)
		if (assign[i] >= 0 && assign[i] < X86_MATCH_NR_COUNTERS)
			used |= BIT_ULL(assign[i]);
	if (gp & ~used)
		return false;

	freeable = all & ~gp & ~used;
	do {
		grew = false;
		for (i = 0; i < n; i++) {
			u64 c;

			if (assign[i] < 0 || assign[i] >= X86_MATCH_NR_COUNTERS)
				continue;
			c = BIT_ULL(assign[i]);
			if ((c & gp) || (c & freeable) || !(masks[i] & freeable))
				continue;
			freeable |= c;
			grew = true;
		}
	} while (grew);

	for (i = 0; i < n; i++)
		if (assign[i] >= 0 && assign[i] < X86_MATCH_NR_COUNTERS &&
		    (BIT_ULL(assign[i]) & gp) && (masks[i] & freeable))
			return false;
	return true;
}

#endif /* _ARCH_X86_EVENTS_COUNTER_MATCH_H */
