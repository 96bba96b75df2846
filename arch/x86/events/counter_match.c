// SPDX-License-Identifier: GPL-2.0
/*
 * Optimal assignment of perf events to x86 PMU counters.
 *
 * Every event may only run on the counters set in its constraint mask. The
 * assignment that places the most events is a maximum matching in the
 * bipartite graph events x counters; it is found here with Hopcroft-Karp:
 * a breadth-first search layers the graph from all unplaced events, then a
 * depth-first search from each unplaced event follows the layers to a free
 * counter and flips the alternating path it walked. Phases repeat until no
 * free counter can be reached.
 *
 * The depth-first search is iterative with an explicit stack that lives in
 * the caller's frame together with the rest of the state: no recursion and
 * no allocation, so the matcher can run in the context-switch and hrtimer
 * paths with interrupts disabled.
 *
 * Upstream constraints beyond a plain matching are reduced to one:
 *
 *  - gpmax, the cap on events placed on general-purpose counters, becomes
 *    "blocker" vertices: with U the general-purpose counters any event can
 *    use, |U| - gpmax blockers that may take any counter of U are placed
 *    first. Augmenting paths never unplace a vertex, so they stay placed and
 *    the events are left exactly gpmax counters of U.
 *
 *  - A paired event (AMD large increment, PERF_X86_EVENT_PAIR) occupies an
 *    even counter and the odd one above it. For a given set S of such blocks
 *    reserved for paired events, the problem is again a plain matching: a
 *    block is one vertex that only paired events (and blockers) may take,
 *    and single events lose both of its counters. Every subset S of the
 *    blocks the paired events could use is tried, the one that is in use
 *    already first; x86 PMUs with paired events have three blocks.
 *
 * A warm start keeps events on the counters they had when that is still
 * legal, so that a reschedule moves as few events as possible.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "counter_match.h"

#define GP_MASK		GENMASK_ULL(X86_MATCH_NR_GP - 1, 0)
#define EVEN_GP_MASK	(GP_MASK & 0x5555555555555555ULL)

/* Left vertices: the events, then at most one blocker per GP counter. */
#define MAX_LEFT	(X86_MATCH_MAX_EVENTS + X86_MATCH_NR_GP)

#define FREE		(-1)
#define DIST_INF	U8_MAX

/* Rotating a mask by this visits fixed and metric counters before GP ones. */
#define FIXED_FIRST	(X86_MATCH_NR_COUNTERS - X86_MATCH_NR_GP)

struct match_state {
	const u64	*masks;
	u64		paired;
	u64		single_ok;	/* counters single events may take */
	u64		pair_ok;	/* first counters of reserved blocks */
	u64		blocker_ok;	/* GP vertices a blocker may take */
	u64		singles;	/* union of the single events' masks */
	int		n;		/* events: left vertices 0..n-1 */
	int		nl;		/* events and blockers */
	s8		ml[MAX_LEFT];	/* counter of a left vertex or FREE */
	s8		mr[X86_MATCH_NR_COUNTERS]; /* left vertex or FREE */
	u8		dist[MAX_LEFT];	/* BFS layer of a left vertex */
	u8		stack_v[MAX_LEFT]; /* DFS stack, also the BFS queue */
	u8		stack_p[MAX_LEFT]; /* next rotated bit to try */
};

static u64 match_adj(const struct match_state *st, int u)
{
	if (u >= st->n)
		return st->blocker_ok;
	if (st->paired & BIT_ULL(u))
		return st->masks[u] & st->pair_ok;
	return st->masks[u] & st->single_ok;
}

static void match_place(struct match_state *st, int u, int c)
{
	st->ml[u] = c;
	st->mr[c] = u;
}

/*
 * Layer the graph from every unplaced left vertex. Returns true when a free
 * counter is reachable, i.e. when an augmenting path exists.
 */
static bool match_bfs(struct match_state *st)
{
	u8 *queue = st->stack_v;
	int head = 0, tail = 0;
	bool found = false;
	int u;

	for (u = 0; u < st->nl; u++) {
		if (st->ml[u] == FREE) {
			st->dist[u] = 0;
			queue[tail++] = u;
		} else {
			st->dist[u] = DIST_INF;
		}
	}

	while (head < tail) {
		u64 adj;

		u = queue[head++];
		for (adj = match_adj(st, u); adj; adj &= adj - 1) {
			int w = st->mr[__ffs64(adj)];

			if (w == FREE) {
				found = true;
			} else if (st->dist[w] == DIST_INF) {
				st->dist[w] = st->dist[u] + 1;
				queue[tail++] = w;
			}
		}
	}

	return found;
}

/*
 * Walk the layered graph depth-first from the unplaced vertex @root. On
 * reaching a free counter, flip the path held on the stack. Each stack entry
 * is one layer deeper than the one below it, so the depth is bounded by the
 * number of left vertices. A vertex with no way forward is taken out of the
 * layering for the rest of the phase.
 */
static bool match_augment(struct match_state *st, int root)
{
	int sp = 0;

	st->stack_v[0] = root;
	st->stack_p[0] = 0;

	for (;;) {
		int u = st->stack_v[sp];
		int p = st->stack_p[sp];
		u64 cand = 0;
		int c, w;

		if (p < X86_MATCH_NR_COUNTERS)
			cand = ror64(match_adj(st, u), FIXED_FIRST) & (~0ULL << p);

		if (!cand) {
			st->dist[u] = DIST_INF;
			if (!sp)
				return false;
			sp--;
			continue;
		}

		p = __ffs64(cand);
		st->stack_p[sp] = p + 1;
		c = (p + FIXED_FIRST) % X86_MATCH_NR_COUNTERS;
		w = st->mr[c];

		if (w == FREE) {
			for (; sp >= 0; sp--) {
				p = st->stack_p[sp] - 1;
				match_place(st, st->stack_v[sp],
					    (p + FIXED_FIRST) % X86_MATCH_NR_COUNTERS);
			}
			return true;
		}

		if (st->dist[w] == st->dist[u] + 1) {
			sp++;
			st->stack_v[sp] = w;
			st->stack_p[sp] = 0;
		}
	}
}

/* The counter in @mask tried first: fixed and metric ones, then low GP. */
static int match_first(u64 mask)
{
	return (__ffs64(ror64(mask, FIXED_FIRST)) + FIXED_FIRST) %
	       X86_MATCH_NR_COUNTERS;
}

/*
 * Give each unplaced event whose mask has at most @max_weight counters the
 * first free one. Returns the number of events placed.
 */
static int match_fill(struct match_state *st, u64 *used,
		      unsigned int max_weight)
{
	int placed = 0, u, c;

	for (u = 0; u < st->n; u++) {
		u64 adj;

		if (st->ml[u] != FREE)
			continue;
		adj = match_adj(st, u);
		if (hweight64(adj) > max_weight || !(adj & ~*used))
			continue;
		c = match_first(adj & ~*used);
		match_place(st, u, c);
		*used |= BIT_ULL(c);
		placed++;
	}
	return placed;
}

/*
 * One maximum matching for the block reservation already set in @st.
 * Returns the number of events placed.
 */
static int match_round(struct match_state *st, const int *prev, int gpmax)
{
	int placed = 0, nr_gp = 0, nr_blockers, u, c;
	u64 used = 0, free;

	memset(st->ml, FREE, st->n);
	memset(st->mr, FREE, sizeof(st->mr));

	/* Warm start: keep the previous counters that are still legal. */
	for (u = 0; prev && u < st->n; u++) {
		c = prev[u];
		if (c < 0 || c >= X86_MATCH_NR_COUNTERS ||
		    !(match_adj(st, u) & ~used & BIT_ULL(c)))
			continue;
		if (c < X86_MATCH_NR_GP) {
			if (nr_gp >= gpmax)
				continue;
			nr_gp++;
		}
		match_place(st, u, c);
		used |= BIT_ULL(c);
		placed++;
	}

	/*
	 * The events placed so far respect gpmax, so at least |U| - gpmax
	 * counters of U are free: every blocker finds one. Take the highest
	 * ones and leave the low counters to the events.
	 */
	nr_blockers = (int)hweight64(st->blocker_ok) - gpmax;
	if (nr_blockers < 0)
		nr_blockers = 0;
	st->nl = st->n + nr_blockers;
	for (u = st->n; u < st->nl; u++) {
		free = st->blocker_ok & ~used;
		if (WARN_ON_ONCE(!free))
			return placed;
		c = fls64(free) - 1;
		match_place(st, u, c);
		used |= BIT_ULL(c);
	}

	/*
	 * First fit for the others, the most constrained ones first: cheap,
	 * and usually enough when everything fits. The blockers keep it
	 * within gpmax; the phases below repair whatever it gets wrong.
	 */
	placed += match_fill(st, &used, 2);
	placed += match_fill(st, &used, X86_MATCH_NR_COUNTERS);

	while (placed < st->n && match_bfs(st)) {
		int progress = 0;

		for (u = 0; u < st->n; u++) {
			if (st->ml[u] == FREE && match_augment(st, u))
				progress++;
		}
		if (WARN_ON_ONCE(!progress))
			break;
		placed += progress;
	}

	return placed;
}

/* One round with the blocks in @blocks reserved for paired events. */
static int match_try(struct match_state *st, u64 blocks, const int *prev,
		     int gpmax)
{
	st->pair_ok = blocks;
	st->single_ok = ~(blocks | blocks << 1);
	st->blocker_ok = ((st->singles & st->single_ok) | blocks) & GP_MASK;

	return match_round(st, prev, gpmax);
}

/**
 * x86_counter_match() - place as many events on counters as possible
 * @masks:  for each event, the counters it may use (bit i: counter index i)
 * @n:      number of events, at most %X86_MATCH_MAX_EVENTS
 * @paired: bit i set when event i occupies a counter and the one above it
 *          (PERF_X86_EVENT_PAIR); it may only start on an even
 *          general-purpose counter of its mask
 * @gpmax:  most events that may be placed on general-purpose counters
 *          (indexes below %X86_MATCH_NR_GP); a paired event counts once
 * @assign: NULL to only count the events that fit. Otherwise, on entry,
 *          assign[i] is the counter event i had before, or -1; those still
 *          legal are kept where the maximum allows. On return, assign[i] is
 *          the counter given to event i, or -1 when it was left out.
 *
 * The number of events placed is the maximum over all assignments that
 * respect every mask, use no counter twice and place at most @gpmax events
 * on general-purpose counters. Fixed and metric counters are tried before
 * general-purpose ones, and lower counters before higher ones.
 *
 * Context: Any context. Takes no locks, allocates nothing, does not recurse;
 * its state (well under 1 KiB) lives on the stack.
 *
 * Return: the number of events that could not be placed, 0 when all fit.
 */
int x86_counter_match(const u64 *masks, int n, u64 paired, int gpmax,
		      int *assign)
{
	u64 blocks = 0, in_use = 0, best_blocks, last, s;
	struct match_state st;
	int best, nr_pairs, i;

	if (n <= 0)
		return 0;
	if (WARN_ON_ONCE(n > X86_MATCH_MAX_EVENTS))
		return n;

	if (n < X86_MATCH_MAX_EVENTS)
		paired &= BIT_ULL(n) - 1;
	nr_pairs = hweight64(paired);
	gpmax = clamp(gpmax, 0, X86_MATCH_NR_GP);

	st.masks = masks;
	st.paired = paired;
	st.singles = 0;
	st.n = n;

	for (i = 0; i < n; i++) {
		int c = assign ? assign[i] : FREE;

		if (!(paired & BIT_ULL(i))) {
			st.singles |= masks[i];
			continue;
		}
		blocks |= masks[i] & EVEN_GP_MASK;
		if (c >= 0 && c < X86_MATCH_NR_GP)
			in_use |= masks[i] & EVEN_GP_MASK & BIT_ULL(c);
	}

	/*
	 * The blocks the paired events sit on now first, then every other
	 * subset of blocks that they could fill; stop once everything fits.
	 * Without paired events there is a single round.
	 */
	best = match_try(&st, in_use, assign, gpmax);
	best_blocks = in_use;
	last = in_use;
	for (s = blocks; best < n; s = (s - 1) & blocks) {
		if (s != in_use && hweight64(s) <= nr_pairs) {
			int placed = match_try(&st, s, assign, gpmax);

			last = s;
			if (placed > best) {
				best = placed;
				best_blocks = s;
			}
		}
		if (!s)
			break;
	}

	if (assign) {
		/* Rounds are deterministic: redo the best one if need be. */
		if (last != best_blocks)
			match_try(&st, best_blocks, assign, gpmax);
		for (i = 0; i < n; i++)
			assign[i] = st.ml[i];
	}

	return n - best;
}
EXPORT_SYMBOL_IF_KUNIT(x86_counter_match);
