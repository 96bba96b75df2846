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

#include <linux/types.h>

/* Bits 0..31 of a mask are general-purpose counters, 32..63 are not. */
#define X86_MATCH_NR_GP		32
/* One bit per counter index: X86_PMC_IDX_MAX. */
#define X86_MATCH_NR_COUNTERS	64
/* At most one event per counter index can be placed. */
#define X86_MATCH_MAX_EVENTS	X86_MATCH_NR_COUNTERS

/*
 * The state is indexed by counter, not by event: a counter knows the vertex
 * on it (an event or a blocker), the breadth-first layer of that vertex and,
 * during a depth-first walk, the counter taken at each depth. Blockers have
 * no identity of their own; they are interchangeable, so "the blocker on
 * counter c" is all the walk needs. Unplaced events are all in layer 0.
 * The fields are private to counter_match.c; the type is public so that a
 * caller can lend the memory (x86_counter_match_in()).
 */
struct x86_match_state {
	const u64	*masks;
	int		*prev;		/* counters the events had, or NULL */
	u64		has_prev;	/* events whose prev[] entry is theirs */
	u64		paired;
	u64		single_ok;	/* counters single events may take */
	u64		pair_ok;	/* first counters of reserved blocks */
	u64		blocker_ok;	/* GP counters a blocker may take */
	u64		singles;	/* union of the single events' masks */
	u64		pairs;		/* union of the paired events' masks */
	u64		events;		/* one bit per event */
	u64		placed;		/* events on a counter */
	u64		used;		/* counters holding an event or blocker */
	u64		layered;	/* counters whose vertex has a layer */
	int		n;
	int		gpmax;
	int		nr_kept;	/* events the round started where they were */
	int		kept;		/* events the round ends where they were */
	/* The event on each counter, or none or a blocker (< 0). */
	s8		on[X86_MATCH_NR_COUNTERS];
	/* The BFS layer or the path cost of the vertex on each counter. */
	s8		dist[X86_MATCH_NR_COUNTERS];
	/* The counter taken at each depth, or where a path came from. */
	u8		path[X86_MATCH_NR_COUNTERS];
};

int x86_counter_match(const u64 *masks, int n, u64 paired, int gpmax,
		      int *assign);
int x86_counter_match_in(struct x86_match_state *st, const u64 *masks, int n,
			 u64 paired, int gpmax, int *assign);
int x86_counter_match_count(struct x86_match_state *st, const u64 *masks,
			    int n, int gpmax);

#endif /* _ARCH_X86_EVENTS_COUNTER_MATCH_H */
