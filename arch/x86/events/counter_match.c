// SPDX-License-Identifier: GPL-2.0
/*
 * Maximum assignment of perf events to x86 PMU counters.
 *
 * Each event may only use the counters of its constraint mask. The
 * assignment that places the most events is a maximum matching of the
 * bipartite graph events x counters, found here by Hopcroft-Karp: a
 * breadth-first search layers the graph from every unplaced event up to the
 * first layer holding a free counter, then a depth-first search from each
 * unplaced event follows the layers to such a counter and shifts every
 * vertex of the path one step. Phases repeat until no free counter is
 * reachable.
 *
 * Most calls end before that: a first fit that keeps each event on the
 * counter it had (when still legal) and gives the others the first free
 * counter of their mask, fixed ones first, places every event of the usual
 * mixes. When it leaves events out while every counter they could reach is
 * taken, nothing can place more either.
 *
 * The limit of @gpmax events on general-purpose counters becomes blockers:
 * with U the GP counters any event may use, |U| - gpmax interchangeable
 * vertices that may take any counter of U. Augmenting paths move vertices
 * but never unplace one, so the events keep at most gpmax counters of U.
 *
 * A paired event (AMD large increment) takes an even counter and the odd
 * one above it. For a set R of such blocks reserved for paired events the
 * problem is a matching again: a block is one vertex (its even counter)
 * only paired events may take. Choosing R is not a matching problem, so
 * rounds try reservations: every subset of the blocks paired events can
 * use when there are at most MATCH_ALL_SUBSETS, otherwise the k highest
 * blocks and the lowest with the k - 1 highest, for every k: exact for
 * AMD's masks (paired events on every even counter or on counter 0 only,
 * singles on every counter or on counter 0 only), a bounded best effort
 * for others. The rounds do not depend on previous counters, so neither
 * does the number of events placed.
 *
 * Every event that changes counters is reprogrammed, so the search avoids
 * moving events off the counter they had: stepping through a counter whose
 * event is still where it was costs one, other steps nothing. The layers
 * are grouped by that cost (a 0-1 breadth-first search on sets of
 * counters), and a phase only takes paths of the least cost, so that each
 * growth moves as few of those events as one path can.
 *
 * No recursion, no allocation, every loop bounded by the number of
 * counters or rounds: the state (struct x86_match_state) is lent by the
 * caller or on the stack, and the matcher runs with interrupts disabled in
 * the context-switch path.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include "counter_match.h"

#define GP_MASK		GENMASK_ULL(X86_MATCH_NR_GP - 1, 0)
#define EVEN_GP_MASK	(GP_MASK & 0x5555555555555555ULL)

/* What a counter holds when it holds no event. */
#define FREE		(-1)
#define BLOCKER		(-2)

/* Blocks of paired events up to which every reservation is tried. */
#define MATCH_ALL_SUBSETS	6

/* The counter of @mask tried first: fixed and metric ones, then low GP. */
static __always_inline int match_first(u64 mask)
{
	return __ffs64(ror64(mask, X86_MATCH_NR_GP)) ^ X86_MATCH_NR_GP;
}

/* The counters vertex @w (an event or a blocker) may take in this round. */
static __always_inline u64 match_adj(const struct x86_match_state *st, int w)
{
	if (w == BLOCKER)
		return st->blocker_ok;
	if (st->paired & BIT_ULL(w))
		return st->masks[w] & st->pair_ok;
	return st->masks[w] & st->single_ok;
}

static noinline void match_put(struct x86_match_state *st, int w, int c)
{
	st->on[c] = w;
	st->used |= BIT_ULL(c);
	st->stay &= ~BIT_ULL(c);
	if (w < 0)
		return;
	st->placed |= BIT_ULL(w);
	if ((st->keep & BIT_ULL(w)) && st->prev[w] == c)
		st->stay |= BIT_ULL(c);
}

/*
 * The start of a round, which moves no event: events on the counter they
 * had, then the others on the first free counter of their mask, within
 * gpmax. The blockers may take the GP counters any event may take (U).
 */
static void match_start(struct x86_match_state *st)
{
	u64 gp_all = 0, m;
	int i, c, pass, gp = 0;

	st->used = 0;
	st->placed = 0;
	st->stay = 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < st->n; i++) {
			m = match_adj(st, i);
			gp_all |= m & GP_MASK;
			if (!pass)
				m &= st->keep & BIT_ULL(i) ?
				     BIT_ULL(st->prev[i]) : 0;
			m &= ~st->used;
			if (gp >= st->gpmax)
				m &= ~GP_MASK;
			if (!m || (st->placed & BIT_ULL(i)))
				continue;
			c = match_first(m);
			gp += c < X86_MATCH_NR_GP;
			match_put(st, i, c);
		}
	}
	st->blocker_ok = gp_all;
}

/* The counter unplaced event @u had, when it may take it back, or 0. */
static u64 match_own(const struct x86_match_state *st, int u)
{
	if (!(st->keep & BIT_ULL(u)))
		return 0;
	return match_adj(st, u) & BIT_ULL(st->prev[u]);
}

/*
 * Layer the counters from the unplaced events, by cost first: a step that
 * moves an event off the counter it had costs one, an unplaced event that
 * takes its own back gains one, every other step is free. The counters of
 * a cost are reached level by level; a counter whose event is where it was
 * opens the first level of the next cost instead (st->seeds: the levels
 * that start a cost). Stops at the first level with a free counter
 * (st->goal); false when there is none.
 */
static noinline bool match_bfs(struct x86_match_state *st)
{
	u64 todo = st->events & ~st->placed, frontier = 0, later = 0;
	u64 seen = 0, reach;
	int level;

	for (; todo; todo &= todo - 1) {
		frontier |= match_own(st, __ffs64(todo));
		later |= match_adj(st, __ffs64(todo));
	}
	st->seeds = 0;
	for (level = 0;; level++) {
		reach = frontier & ~seen;
		if (!reach) {
			reach = later & ~seen;
			if (!reach)
				return false;
			later = 0;
			st->seeds |= BIT_ULL(level);
		}
		if (reach & ~st->used) {
			st->goal = level;
			st->layered = seen;
			return true;
		}
		seen |= reach;
		frontier = 0;
		for (; reach; reach &= reach - 1) {
			int c = __ffs64(reach);

			st->dist[c] = level;
			if (st->stay & BIT_ULL(c))
				later |= match_adj(st, st->on[c]);
			else
				frontier |= match_adj(st, st->on[c]);
		}
	}
}

/*
 * The level the steps of the vertex on layered counter @c lead to: the next
 * one, or the first of the next cost when the vertex is an event still
 * where it was; -1: none. From an unplaced event (@c < 0), the first level
 * of cost zero.
 */
static int match_next(const struct x86_match_state *st, int c)
{
	u64 after = st->seeds;

	if (c >= 0 && !(st->stay & BIT_ULL(c)))
		return st->dist[c] + 1;
	if (c >= 0)
		after &= ~GENMASK_ULL(st->dist[c], 0);
	return after ? __ffs64(after) : -1;
}

/*
 * Follow the layers depth-first from the unplaced event @root to a free
 * counter of the goal level, keeping the counter taken at each depth in
 * st->path; the vertex at depth d + 1 is the one on the counter taken at
 * depth d. Fixed and metric counters are tried first. No counter of the
 * goal level is layered, so a step either ends the path or goes deeper.
 * The path's counters and the dead ends leave the layering, so that each
 * counter is entered once per phase.
 */
/* Shift every vertex of the path st->path[0..depth] one step. */
static noinline bool match_flip(struct x86_match_state *st, int w, int depth)
{
	int d, to, was;

	for (d = 0; d <= depth; d++) {
		to = st->path[d];
		was = st->on[to];
		match_put(st, w, to);
		st->layered &= ~BIT_ULL(to);
		w = was;
	}
	return true;
}

static noinline bool match_dfs(struct x86_match_state *st, int root)
{
	u64 adj, own = match_own(st, root);
	int depth = 0, c, to, want, level;

	for (;;) {
		c = depth ? st->path[depth - 1] : -1;
		adj = match_adj(st, c < 0 ? root : st->on[c]);
		level = match_next(st, c);
		for (adj = ror64(adj, X86_MATCH_NR_GP); adj; adj &= adj - 1) {
			to = __ffs64(adj) ^ X86_MATCH_NR_GP;
			want = c < 0 && (own & BIT_ULL(to)) ? 0 : level;
			if (st->used & BIT_ULL(to) ?
			    (st->layered & BIT_ULL(to)) && st->dist[to] == want :
			    want == st->goal)
				break;
		}
		if (adj) {
			st->path[depth] = to;
			if (!(st->used & BIT_ULL(to)))
				return match_flip(st, root, depth);
			depth++;
			continue;
		}
		if (!depth)
			return false;
		st->layered &= ~BIT_ULL(c);
		depth--;
	}
}

/*
 * Grow the matching to a maximum, the blockers placed first: the events
 * placed, then the events left where they were.
 */
static int match_grow(struct x86_match_state *st)
{
	u64 todo;
	int nr = (int)hweight64(st->blocker_ok) - st->gpmax;

	for (todo = st->blocker_ok & ~st->used; nr > 0 && todo;
	     nr--, todo &= todo - 1)
		match_put(st, BLOCKER, __ffs64(todo));
	while (match_bfs(st)) {
		bool grew = false;

		for (todo = st->events & ~st->placed; todo; todo &= todo - 1)
			grew |= match_dfs(st, __ffs64(todo));
		if (WARN_ON_ONCE(!grew))
			break;
	}
	return hweight64(st->placed) * (X86_MATCH_MAX_EVENTS + 1) +
	       hweight64(st->stay);
}

/* One round with the blocks @blocks reserved for paired events. */
static int match_round(struct x86_match_state *st, u64 blocks)
{
	st->pair_ok = blocks;
	st->single_ok = ~(blocks | blocks << 1);
	match_start(st);
	return match_grow(st);
}

/* Grow from the first fit, which @assign holds. */
static noinline void match_resume(struct x86_match_state *st,
				  const int *assign)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (assign[i] >= 0)
			st->on[assign[i]] = i;
	match_grow(st);
}

/* One round, kept when it beats the best so far (st->best_score). */
static void match_try(struct x86_match_state *st, u64 blocks)
{
	int score = match_round(st, blocks);

	if (score > st->best_score) {
		st->best_score = score;
		st->best_blocks = blocks;
	}
}

/* The rounds of the block reservations (see the top of the file). */
static noinline void match_pairs(struct x86_match_state *st)
{
	u64 blocks = 0, r = 0;
	int i;

	for (i = 0; i < st->n; i++)
		if (st->paired & BIT_ULL(i))
			blocks |= st->masks[i] & EVEN_GP_MASK;
	st->best_score = -1;
	if (hweight64(blocks) <= MATCH_ALL_SUBSETS) {
		do {
			match_try(st, r);
			r = (r - blocks) & blocks;
		} while (r);
	} else {
		/* The highest blocks, and the lowest with one fewer of them. */
		for (;; r |= BIT_ULL(fls64(blocks & ~r) - 1)) {
			match_try(st, r);
			if (r == blocks)
				break;
			if (hweight64(blocks & ~r) > 1)
				match_try(st, (blocks & -blocks) | r);
		}
	}
	match_round(st, st->best_blocks);
}

/*
 * The first fit, when no event is paired: the events whose previous
 * counter is legal keep it, then the others, in order, take the first free
 * counter of their mask; the limit of GP counters is checked once, at the
 * end. Returns the number of events left out when no assignment places
 * more; else -1 when the matching can grow from there, -2 when it must
 * start again (two events claim a counter, or too many GP counters).
 */
/*
 * The others, in order, on the first free counter of their mask (with
 * @assign NULL or not: two copies of the loop, in the hot path).
 */
static __always_inline u64 match_fit(const u64 *masks, int n, u64 keep,
				     u64 used, u64 *missed, int *assign)
{
	u64 m;
	int i, c;

	for (i = 0; i < n; i++) {
		if (keep & BIT_ULL(i))
			continue;
		m = masks[i] & ~used;
		if (unlikely(!m)) {
			*missed |= BIT_ULL(i);
			continue;
		}
		c = match_first(m);
		used |= BIT_ULL(c);
		if (assign)
			assign[i] = c;
	}
	return used;
}

static __always_inline int match_fast(struct x86_match_state *st,
				      const u64 *masks, int n, u64 paired,
				      int gpmax, int *assign)
{
	u64 used = 0, clash = 0, keep = 0, missed = 0, reach = 0;
	int i, c;

	for (i = 0; assign && i < n; i++) {
		c = assign[i];
		if ((unsigned int)c >= X86_MATCH_NR_COUNTERS ||
		    !(masks[i] & BIT_ULL(c)))
			continue;
		keep |= BIT_ULL(i);
		clash |= used & BIT_ULL(c);
		used |= BIT_ULL(c);
	}
	st->keep = keep;
	if (clash || paired)
		return -2;
	st->stay = used;
	if (assign)
		used = match_fit(masks, n, keep, used, &missed, assign);
	else
		used = match_fit(masks, n, keep, used, &missed, NULL);
	if ((int)hweight64(used & GP_MASK) > gpmax)
		return -2;
	if (likely(!missed))
		return 0;

	for (i = 0; i < n; i++) {
		reach |= masks[i];
		if (assign && (missed & BIT_ULL(i)))
			assign[i] = -1;
	}
	st->used = used;
	st->placed = GENMASK_ULL(n - 1, 0) & ~missed;
	st->blocker_ok = reach & GP_MASK;
	reach &= ~used;
	if ((reach & ~GP_MASK) ||
	    ((reach & GP_MASK) && hweight64(used & GP_MASK) < gpmax))
		return assign ? -1 : -2;
	return hweight64(missed);
}

static __always_inline int match_entry(struct x86_match_state *st,
				       const u64 *masks, int n, u64 paired,
				       int gpmax, int *assign)
{
	u64 used;
	int i, left;

	if (n <= 0)
		return 0;
	if (WARN_ON_ONCE(n > X86_MATCH_MAX_EVENTS))
		return n;
	paired &= GENMASK_ULL(n - 1, 0);
	left = match_fast(st, masks, n, paired, gpmax, assign);
	if (left >= 0)
		return left;

	st->masks = masks;
	st->prev = assign;
	st->paired = paired;
	st->events = GENMASK_ULL(n - 1, 0);
	st->n = n;
	st->gpmax = gpmax;
	st->single_ok = ~0ULL;
	st->pair_ok = 0;
	if (paired)
		match_pairs(st);
	else if (left == -1)
		match_resume(st, assign);
	else
		match_round(st, 0);

	for (i = 0; assign && i < n; i++)
		assign[i] = -1;
	for (used = st->used; assign && used; used &= used - 1) {
		i = st->on[__ffs64(used)];
		if (i >= 0)
			assign[i] = __ffs64(used);
	}
	return n - hweight64(st->placed);
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
 *          legal stay where the maximum allows. On return, assign[i] is
 *          the counter given to event i, or -1 when it was left out.
 *
 * The number of events placed is the maximum over all assignments that
 * respect every mask, use no counter twice and place at most @gpmax events
 * on general-purpose counters (for paired events: over the reservations
 * tried, see the top of the file). Fixed and metric counters are tried
 * before general-purpose ones, and lower counters before higher ones.
 *
 * Context: Any context. Takes no locks, allocates nothing, does not recurse;
 * its state (struct x86_match_state) is on the stack; see
 * x86_counter_match_in() to keep it elsewhere.
 *
 * Return: the number of events that could not be placed, 0 when all fit.
 */
int x86_counter_match(const u64 *masks, int n, u64 paired, int gpmax,
		      int *assign)
{
	struct x86_match_state st;

	return x86_counter_match_in(&st, masks, n, paired, gpmax, assign);
}
EXPORT_SYMBOL_IF_KUNIT(x86_counter_match);

/**
 * x86_counter_match_in() - x86_counter_match() with the state in @st
 * @st:     where the matcher keeps its state when the first fit is not
 *          enough; its contents do not matter before or after the call
 * @masks:  as for x86_counter_match()
 * @n:      as for x86_counter_match()
 * @paired: as for x86_counter_match()
 * @gpmax:  as for x86_counter_match()
 * @assign: as for x86_counter_match()
 *
 * For callers on a deep path that own memory no one else uses meanwhile:
 * the scheduling path lends the CPU's struct cpu_hw_events.
 *
 * Context: Any context; the caller serializes the users of @st.
 *
 * Return: the number of events that could not be placed, 0 when all fit.
 */
int x86_counter_match_in(struct x86_match_state *st, const u64 *masks, int n,
			 u64 paired, int gpmax, int *assign)
{
	return match_entry(st, masks, n, paired, gpmax, assign);
}
EXPORT_SYMBOL_IF_KUNIT(x86_counter_match_in);

/**
 * x86_counter_match_count() - how many events could not be placed
 * @st:     where the matcher keeps its state, as for x86_counter_match_in()
 * @masks:  as for x86_counter_match()
 * @n:      as for x86_counter_match()
 * @gpmax:  as for x86_counter_match()
 *
 * x86_counter_match_in() without paired events and without an assignment,
 * for a caller that only asks whether events fit.
 *
 * Context: Any context; the caller serializes the users of @st.
 *
 * Return: the number of events that could not be placed, 0 when all fit.
 */
int x86_counter_match_count(struct x86_match_state *st, const u64 *masks,
			    int n, int gpmax)
{
	return x86_counter_match_in(st, masks, n, 0, gpmax, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(x86_counter_match_count);
