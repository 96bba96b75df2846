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
 * Most calls never get there: one pass over the events, in registers and
 * before any state is set up, keeps each event on the counter it had (the
 * warm start, see below) or else gives it the first free counter of its
 * mask, and that places every event of the usual mixes. When it leaves
 * events out, it is a maximum already if it filled every counter the
 * events can reach; otherwise the phases take over from it.
 *
 * The state is indexed by counter and kept small (320 bytes); the
 * depth-first search is iterative with an explicit stack that is part of
 * it. No recursion and no allocation, and every loop ends within a bound
 * that holds whatever the input (see match_cheapest() for the one that
 * needs an explicit one), so the matcher can run in the context-switch and
 * hrtimer paths with interrupts disabled.
 *
 * The x86 constraints beyond a plain matching are reduced to one:
 *
 *  - gpmax, the cap on events placed on general-purpose counters, becomes
 *    "blocker" vertices: with U the general-purpose counters any event can
 *    use, |U| - gpmax blockers that may take any counter of U are placed
 *    before the phases (the first fit counts its GP counters instead).
 *    Augmenting paths never unplace a vertex, so they stay placed and the
 *    events are left exactly gpmax counters of U.
 *
 *  - A paired event (AMD large increment, PERF_X86_EVENT_PAIR) occupies an
 *    even counter and the odd one above it. For a given set S of such blocks
 *    reserved for paired events, the problem is again a plain matching: a
 *    block is one vertex that only paired events (and blockers) may take,
 *    and single events lose both of its counters. Choosing S is not a
 *    bipartite matching: it contains maximum matching in general graphs
 *    (edge uv a block, one counter of it u's and one v's; a vertex of
 *    degree d, d - 1 single events on its counters; k paired events that
 *    may take any block: all fit when the graph has k disjoint edges).
 *    So rounds try reservations, the blocks paired events are on first,
 *    but not every subset: match_classes() sorts the blocks into classes
 *    and a round takes the first k blocks of each, for every k. Blocks are
 *    twins when swapping them maps every event's mask onto itself; twins
 *    no event was on are interchangeable. A class of twins is uniform when
 *    the single events that can use it have one mask, the paired ones
 *    too, and none of its blocks held both kinds: then taking blocks in
 *    the order "a paired event was there, nothing was, one single was,
 *    two were" is as good as any choice (swap two blocks' contents, then
 *    events of one mask, and no event kept is lost). Other blocks that
 *    events were on are classes of their own. The rounds are the product
 *    of (class size + 1): AMD's masks (paired events on every even counter
 *    or on counter 0 only, singles on every counter or on counter 0 only)
 *    make at most two classes, 2 * 16 rounds on 16 blocks where every
 *    subset was 65536; arbitrary masks can still need every subset, and
 *    get the best of the first MATCH_MAX_ROUNDS (match_pairs()).
 *
 * Every event that changes counters is reprogrammed, so among the maximum
 * assignments the one returned moves the fewest events off the counters
 * they had. A warm start keeps every event it can where it was and gives
 * the others a first fit; it moves no event, so it moves the fewest of any
 * assignment its size. From there the round grows one cheapest augmenting
 * path at a time (successive shortest paths, with a move costing one),
 * which is exact. The cheapest path is found on sets of counters, level
 * by level, in the usual case where every event with a legal counter is
 * on it (match_cheapest_levels()); otherwise with costs of -1, 0 and +1
 * (match_cheapest()). A round with no event to keep needs no costs and
 * grows by Hopcroft-Karp phases. Rounds with paired events compare their
 * moves too.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "counter_match.h"

#define GP_MASK		GENMASK_ULL(X86_MATCH_NR_GP - 1, 0)
#define EVEN_GP_MASK	(GP_MASK & 0x5555555555555555ULL)

/* What a counter holds: an event's index, or one of these. */
#define FREE		(-1)
#define BLOCKER		(-2)

/* A round's score in match_pairs(): events placed, then events kept. */
#define PAIRS_SCORE	(2 * X86_MATCH_MAX_EVENTS)
/* st->kept_on when an event is off the legal counter it had. */
#define OFF_PREV	(~0ULL)

/* No block reservation: match_rounds_next() has none left. */
#define NO_ROUND	(~0ULL)
/*
 * The rounds match_pairs() tries at most. AMD's masks need 2 * 16 on 16
 * blocks (see the top of the file); arbitrary masks can need every subset
 * of the blocks, and get the best of the first MATCH_MAX_ROUNDS instead.
 */
#define MATCH_MAX_ROUNDS	64

/* Rotating a mask by this visits fixed and metric counters before GP ones. */
#define FIXED_FIRST	(X86_MATCH_NR_COUNTERS - X86_MATCH_NR_GP)

/* The counters event @u may take in this round. */
static u64 match_event_adj(const struct x86_match_state *st, int u)
{
	if (st->paired & BIT_ULL(u))
		return st->masks[u] & st->pair_ok;
	return st->masks[u] & st->single_ok;
}

/* The counters the vertex on the used counter @c may move to. */
static u64 match_counter_adj(const struct x86_match_state *st, int c)
{
	int w = st->on[c];

	return w == BLOCKER ? st->blocker_ok : match_event_adj(st, w);
}

/* Whether vertex @w on counter @c is where it was: moving it is a move. */
static bool match_kept(const struct x86_match_state *st, int w, int c)
{
	return w >= 0 && (st->has_prev & BIT_ULL(w)) && st->prev[w] == c;
}

static void match_place(struct x86_match_state *st, int u, int c)
{
	st->on[c] = u;
	st->used |= BIT_ULL(c);
	if (u >= 0)
		st->placed |= BIT_ULL(u);
}

/*
 * The counter in @mask tried first: fixed and metric ones, then low GP.
 * Rotating by half the counters and back is flipping that bit.
 */
static __always_inline int match_first(u64 mask)
{
	BUILD_BUG_ON(FIXED_FIRST * 2 != X86_MATCH_NR_COUNTERS);
	return __ffs64(ror64(mask, FIXED_FIRST)) ^ FIXED_FIRST;
}

/*
 * Layer the graph from every unplaced event, one layer per step, as sets of
 * counters: the counters a layer reaches for the first time hold the
 * vertices of the next layer. Stops at the first layer that reaches a free
 * counter, so that only shortest augmenting paths are layered. Returns true
 * when such a counter exists.
 */
static noinline bool match_bfs(struct x86_match_state *st)
{
	u64 frontier = 0, visited = 0, todo, reach;
	int layer = 0, u;

	for (todo = st->events & ~st->placed; todo; todo &= todo - 1) {
		u = __ffs64(todo);
		frontier |= match_event_adj(st, u);
	}
	st->layered = 0;

	for (;;) {
		reach = frontier & ~visited;
		if (!reach)
			return false;
		if (reach & ~st->used)
			return true;
		visited |= reach;
		layer++;
		frontier = 0;
		for (; reach; reach &= reach - 1) {
			int c = __ffs64(reach);

			st->dist[c] = layer;
			frontier |= match_counter_adj(st, c);
		}
		st->layered |= visited;
	}
}

/*
 * Walk the layered graph depth-first from the unplaced event @root, taking
 * fixed and low counters first. The walk keeps the counter it took at each
 * depth; the vertex at depth d + 1 is the one on the counter taken at depth
 * d. On reaching a free counter every vertex on the path moves one step,
 * and the path's counters leave the layering so that the paths of a phase
 * stay vertex-disjoint. A vertex with no way forward leaves the layering
 * too. The depth never exceeds the number of layers.
 */
static noinline bool match_augment(struct x86_match_state *st, int root)
{
	int depth = 0;

	for (;;) {
		int c = depth ? st->path[depth - 1] : -1;
		u64 adj = c < 0 ? match_event_adj(st, root) :
				  match_counter_adj(st, c);
		u64 next;

		if (adj & ~st->used) {
			int last = match_first(adj & ~st->used);
			int d, w = root;

			st->path[depth] = last;
			for (d = 0; d <= depth; d++) {
				int to = st->path[d];
				int was = st->on[to];

				st->kept += match_kept(st, w, to) -
					    match_kept(st, was, to);
				match_place(st, w, to);
				st->layered &= ~BIT_ULL(to);
				w = was;
			}
			return true;
		}

		for (next = ror64(adj & st->layered, FIXED_FIRST); next;
		     next &= next - 1) {
			int t = (__ffs64(next) + FIXED_FIRST) %
				X86_MATCH_NR_COUNTERS;

			if (st->dist[t] == depth + 1)
				break;
		}
		if (next) {
			st->path[depth++] = (__ffs64(next) + FIXED_FIRST) %
					    X86_MATCH_NR_COUNTERS;
			continue;
		}

		/* A dead end: forget it for this phase and step back. */
		if (!depth)
			return false;
		st->layered &= ~BIT_ULL(c);
		depth--;
	}
}

/*
 * Take counter @c out of @avail, the counters still open to events; the
 * general-purpose ones all go once @gp_left, the budget, is used up.
 */
static __always_inline void match_take(u64 *avail, int *gp_left, int c)
{
	*avail &= ~BIT_ULL(c);
	if (c < X86_MATCH_NR_GP && !--*gp_left)
		*avail &= ~GP_MASK;
}

/*
 * Start a round: keep the counters events had that are still legal (the
 * most of them gpmax allows), then give every other event, in order, the
 * first free counter of its mask, never more than st->gpmax events on
 * general-purpose counters. match_fast() in the state, for any block
 * reservation. Returns the number of events placed; st->nr_kept gets the
 * number kept, the most any assignment can keep.
 */
static int match_start(struct x86_match_state *st)
{
	int placed = 0, gp_left = st->gpmax, u, c;
	u64 avail = gp_left ? ~0ULL : ~GP_MASK, free, todo;

	memset(st->on, FREE, sizeof(st->on));
	st->placed = 0;
	st->used = 0;

	st->kept_on = 0;
	for (todo = st->has_prev; todo; todo &= todo - 1) {
		u = __ffs64(todo);
		c = st->prev[u];
		if (c < 0 || c >= X86_MATCH_NR_COUNTERS ||
		    !(match_event_adj(st, u) & BIT_ULL(c)))
			continue;
		if (!(avail & BIT_ULL(c))) {
			st->kept_on = OFF_PREV;
			continue;
		}
		match_place(st, u, c);
		match_take(&avail, &gp_left, c);
		placed++;
		st->kept_on |= BIT_ULL(c);
	}
	st->nr_kept = placed;

	for (todo = st->events & ~st->placed; todo; todo &= todo - 1) {
		u = __ffs64(todo);
		free = match_event_adj(st, u) & avail;
		if (!free)
			continue;
		c = match_first(free);
		match_place(st, u, c);
		match_take(&avail, &gp_left, c);
		placed++;
	}
	return placed;
}

/* What match_cheapest() did. */
enum match_path {
	MATCH_NO_PATH,		/* no free counter can be reached */
	MATCH_FLIPPED,		/* the cheapest path is flipped */
	MATCH_GAVE_UP,		/* the costs never settled: a bug */
	MATCH_OFF_PREV,		/* an event is off its legal counter */
};

/* Every vertex on the path st->path[] leads to @t moves one step along it. */
static enum match_path match_flip(struct x86_match_state *st, int t)
{
	int c, steps;

	for (steps = 0; steps < X86_MATCH_NR_COUNTERS; steps++, t = c) {
		c = st->path[t];
		if (c >= X86_MATCH_NR_COUNTERS) {
			match_place(st, c - X86_MATCH_NR_COUNTERS, t);
			return MATCH_FLIPPED;
		}
		match_place(st, st->on[c], t);
	}
	WARN_ON_ONCE(1);
	return MATCH_GAVE_UP;
}

/*
 * Reach the counters in @todo's vertices' reach that are not in *@reached
 * yet, each remembering where it was reached from; they join *@reached and
 * *@open.
 */
static __always_inline void match_expand(struct x86_match_state *st,
					 u64 todo, u64 *reached, u64 *open)
{
	u64 adj;
	int c;

	for (; todo; todo &= todo - 1) {
		c = __ffs64(todo);
		adj = match_counter_adj(st, c) & ~*reached;
		*reached |= adj;
		*open |= adj;
		for (; adj; adj &= adj - 1)
			st->path[__ffs64(adj)] = c;
	}
}

/*
 * The cheapest augmenting path, the usual way: when every event that has a
 * legal previous counter is on it, no path moves an event back, and a
 * path costs the number of kept events it moves. Then the costs need no
 * arithmetic: level k is the counters a path reaches moving k kept events,
 * found on sets of counters as match_bfs() does. Each level is closed
 * under the vertices that were not kept (free to move), then the kept
 * ones it reached lead to the next level; the first level that holds a
 * free counter has the cheapest paths. Each counter records where it was
 * first reached from, as in match_cheapest(), and every counter is
 * expanded once. Returns MATCH_OFF_PREV, having changed nothing, when an
 * event is off its legal previous counter: match_cheapest() handles that.
 */
static noinline enum match_path match_cheapest_levels(struct x86_match_state *st)
{
	u64 kept_on = st->kept_on, reached = 0, open, todo, adj, free;
	int u, level = 0;

	if (kept_on == OFF_PREV)
		return MATCH_OFF_PREV;

	for (todo = st->events & ~st->placed; todo; todo &= todo - 1) {
		u = __ffs64(todo);
		adj = match_event_adj(st, u) & ~reached;
		reached |= adj;
		for (; adj; adj &= adj - 1)
			st->path[__ffs64(adj)] = X86_MATCH_NR_COUNTERS + u;
	}
	open = reached;

	for (;;) {
		/* Close the level under the vertices free to move. */
		while ((todo = open & st->used & ~kept_on)) {
			open &= ~todo;
			match_expand(st, todo, &reached, &open);
		}
		free = reached & ~st->used;
		if (free) {
			/* Moved kept events are off their counters now. */
			if (level)
				st->kept_on = OFF_PREV;
			st->kept -= level;
			return match_flip(st, match_first(free));
		}
		/* The next level: move one kept event more. */
		todo = open & kept_on;
		if (!todo)
			return MATCH_NO_PATH;
		open &= ~todo;
		level++;
		match_expand(st, todo, &reached, &open);
	}
}

/*
 * The cheapest augmenting path, where a path's cost is the events it moves
 * off the counters they had minus those it moves back: shortest paths from
 * every unplaced event with costs -1, 0 and +1 (Bellman-Ford). There is no
 * negative cycle as long as the matching moves as few events as any of its
 * size, and flipping the cheapest path keeps it so (successive shortest
 * paths). Each counter records where its best path came from: another
 * counter, or X86_MATCH_NR_COUNTERS + the event the path starts at.
 *
 * The relaxation goes in rounds: a round relaxes the edges out of every
 * counter whose cost dropped in the round before. After round k, every
 * counter costs at most its cheapest path of k steps between counters or
 * fewer. Without a negative cycle the cheapest paths are simple, of at most
 * X86_MATCH_NR_COUNTERS - 1 such steps, so no cost drops any more in round
 * X86_MATCH_NR_COUNTERS: more rounds than that mean the costs are wrong,
 * and the walk back along a path, which visits each counter once on a
 * simple path, is bounded the same way. Either way the search gives up
 * with a warning rather than loop with interrupts off.
 */
static noinline enum match_path match_cheapest(struct x86_match_state *st)
{
	u64 reached = 0, todo = 0, round, adj, free;
	int u, c, t, w, cost, best, nr_rounds = 0;

	for (free = st->events & ~st->placed; free; free &= free - 1) {
		u = __ffs64(free);
		for (adj = match_event_adj(st, u); adj; adj &= adj - 1) {
			t = __ffs64(adj);
			cost = -match_kept(st, u, t);
			if ((reached & BIT_ULL(t)) && cost >= st->dist[t])
				continue;
			st->dist[t] = cost;
			st->path[t] = X86_MATCH_NR_COUNTERS + u;
			reached |= BIT_ULL(t);
			todo |= BIT_ULL(t) & st->used;
		}
	}

	for (; todo; nr_rounds++) {
		if (WARN_ON_ONCE(nr_rounds == X86_MATCH_NR_COUNTERS))
			return MATCH_GAVE_UP;
		for (round = todo, todo = 0; round; round &= round - 1) {
			c = __ffs64(round);
			w = st->on[c];
			cost = st->dist[c] + match_kept(st, w, c);
			for (adj = match_counter_adj(st, c) & ~BIT_ULL(c); adj;
			     adj &= adj - 1) {
				t = __ffs64(adj);
				if ((reached & BIT_ULL(t)) &&
				    cost - match_kept(st, w, t) >= st->dist[t])
					continue;
				st->dist[t] = cost - match_kept(st, w, t);
				st->path[t] = c;
				reached |= BIT_ULL(t);
				todo |= BIT_ULL(t) & st->used;
			}
		}
	}

	free = reached & ~st->used;
	if (!free)
		return MATCH_NO_PATH;
	best = S8_MAX;
	for (adj = free; adj; adj &= adj - 1)
		best = min_t(int, best, st->dist[__ffs64(adj)]);
	for (adj = free; adj; adj &= adj - 1) {
		if (st->dist[__ffs64(adj)] != best)
			free &= ~BIT_ULL(__ffs64(adj));
	}
	return match_flip(st, match_first(free));
}

/* The events of the round on the counters they had. */
static int match_count_kept(const struct x86_match_state *st)
{
	int kept = 0, c;
	u64 used;

	for (used = st->used; used; used &= used - 1) {
		c = __ffs64(used);
		kept += match_kept(st, st->on[c], c);
	}
	return kept;
}

/* Place the blockers; see the top of the file. */
static __always_inline bool match_blockers(struct x86_match_state *st)
{
	int nr = (int)hweight64(st->blocker_ok) - st->gpmax;
	u64 free;

	/*
	 * The events placed respect gpmax, so at least |U| - gpmax counters
	 * of U are free: every blocker finds one. Take the highest ones and
	 * leave the low counters to the events.
	 */
	for (; nr > 0; nr--) {
		free = st->blocker_ok & ~st->used;
		if (WARN_ON_ONCE(!free))
			return false;
		match_place(st, BLOCKER, fls64(free) - 1);
	}
	return true;
}

/*
 * Hopcroft-Karp from a round with @placed events placed and the blockers
 * on, until @bound events are placed or no augmenting path is left.
 * Returns the number of events placed.
 */
static noinline int match_phases(struct x86_match_state *st, int placed,
				 int bound)
{
	u64 todo;

	while (placed < bound && match_bfs(st)) {
		int progress = 0;

		for (todo = st->events & ~st->placed; todo; todo &= todo - 1) {
			if (match_augment(st, __ffs64(todo)))
				progress++;
		}
		if (WARN_ON_ONCE(!progress))
			break;
		placed += progress;
	}
	return placed;
}

/*
 * Grow a round that keeps every event it can (st->nr_kept) one cheapest
 * augmenting path at a time, from @placed events to @bound or until no
 * free counter can be reached. Returns the number of events placed;
 * st->kept gets the number kept.
 */
static noinline int match_grow(struct x86_match_state *st, int placed,
			       int bound)
{
	enum match_path ret = MATCH_FLIPPED;

	while (placed < bound) {
		ret = match_cheapest_levels(st);
		if (ret == MATCH_OFF_PREV) {
			/* The levels count the kept events as they go, not this. */
			ret = match_cheapest(st);
			st->kept = -1;
		}
		if (ret != MATCH_FLIPPED)
			break;
		placed++;
	}
	if (unlikely(ret == MATCH_GAVE_UP)) {
		/* Settle for the most events, moved or not. */
		placed = match_start(st);
		if (match_blockers(st))
			placed = match_phases(st, placed, bound);
	}
	if (st->kept < 0)
		st->kept = match_count_kept(st);
	return placed;
}

/*
 * Complete a round that match_start() (or match_entry()) placed @placed
 * events in, keeping st->nr_kept of them where they were, to a maximum
 * matching that moves the fewest events: one cheapest path at a time when
 * it kept events, by Hopcroft-Karp phases when there are none to keep.
 * Returns the number of events placed; st->kept gets the number kept.
 */
static int match_finish(struct x86_match_state *st, int placed)
{
	int bound;
	u64 reach;

	st->kept = st->nr_kept;
	if (placed == st->n)
		return placed;

	/*
	 * No assignment places more events than the counters they can
	 * reach, at most gpmax of them general-purpose: when the first fit
	 * got there, it is a maximum already.
	 */
	reach = (st->singles & st->single_ok) | (st->pairs & st->pair_ok);
	bound = hweight64(reach & ~GP_MASK) +
		min_t(int, hweight64(reach & GP_MASK), st->gpmax);
	if (placed >= bound || !match_blockers(st))
		return placed;

	if (!st->nr_kept)
		return match_phases(st, placed, bound);
	return match_grow(st, placed, bound);
}

/* One round with the blocks in @blocks reserved for paired events. */
static int match_try(struct x86_match_state *st, u64 blocks)
{
	st->pair_ok = blocks;
	st->single_ok = ~(blocks | blocks << 1);
	st->blocker_ok = ((st->singles & st->single_ok) | blocks) & GP_MASK;

	return match_finish(st, match_start(st));
}

/* Write the round in @st to st->prev, if there is one. */
static void match_output(const struct x86_match_state *st)
{
	const s8 *on = st->on;
	int *assign = st->prev, c;
	u64 used, left;

	if (!assign)
		return;
	for (left = st->events & ~st->placed; left; left &= left - 1)
		assign[__ffs64(left)] = FREE;
	for (used = st->used; used; used &= used - 1) {
		c = __ffs64(used);
		if (on[c] >= 0)
			assign[on[c]] = c;
	}
}

/*
 * Where match_pairs() is in its rounds, in 16 bytes: the classes of
 * blocks, as match_classes() ordered them (@ord), and the first position
 * of each (@head); the number of positions (@nr_pos); the positions taken
 * in the next round (@sel, a first few of every class), or @done; the
 * number of paired events; the best score a round can have (@target:
 * every event placed, every one with a legal counter kept).
 */
struct match_rounds {
	u64	ord;
	u64	head:16, sel:16, nr_pos:5, nr_pairs:7, target:14, done:1;
};

/*
 * The blocks (their even counters) that are twins of the one at counter
 * @b: swapping the two maps the mask of every event onto itself (a paired
 * event only ever looks at the even counter). All blocks at once, a bit
 * per block: for each event, the blocks whose even counter, and for a
 * single event whose odd counter, is in the mask as @b's is.
 */
static u64 match_twins(const struct x86_match_state *st, int b)
{
	u64 twins = EVEN_GP_MASK, m;
	int i;

	for (i = 0; i < st->n; i++) {
		m = st->masks[i];
		twins &= m & BIT_ULL(b) ? m : ~m;
		if (st->paired & BIT_ULL(i))
			continue;
		m >>= 1;
		twins &= m & BIT_ULL(b) ? m : ~m;
	}
	return twins;
}

/*
 * Whether the class of twin blocks @cls (their even counters) is uniform:
 * the single events that can use a counter of it all have one mask, the
 * paired events that can use one of its blocks all have one mask, and no
 * block of it is both where a paired event was and where a single was
 * (@pair_prev, @single_prev: the counters events were on, legally).
 */
static bool match_uniform(const struct x86_match_state *st, u64 cls,
			  u64 pair_prev, u64 single_prev)
{
	u64 m, sm = 0, pm = 0;
	int i;

	if (pair_prev & cls & (single_prev | single_prev >> 1))
		return false;
	for (i = 0; i < st->n; i++) {
		m = st->masks[i];
		if (st->paired & BIT_ULL(i)) {
			if (!(m & cls))
				continue;
			if (pm && m != pm)
				return false;
			pm = m;
		} else {
			if (!(m & (cls | cls << 1)))
				continue;
			if (sm && m != sm)
				return false;
			sm = m;
		}
	}
	return true;
}

/* Where in a uniform class the block at counter @c goes; see above. */
static int match_rank(int c, u64 pair_prev, u64 single_prev)
{
	if (pair_prev & BIT_ULL(c))
		return 0;
	return 1 + hweight64(single_prev & (3ULL << c));
}

/*
 * Sort the blocks in @blocks (their even counters) into classes whose
 * blocks may stand in for one another in a reservation, and order each
 * class so that reserving its first k blocks is as good as reserving any
 * k of them; see the top of the file. Position p of r->ord is block
 * (counter / 2) in bits 4p..4p+3, the classes one after the other,
 * starting at the positions set in r->head.
 */
static void match_classes(const struct x86_match_state *st,
			  struct match_rounds *r, u64 blocks, u64 pair_prev,
			  u64 single_prev)
{
	u64 cls, left, touched;
	int p = 0, c, rank;

	touched = (pair_prev | single_prev | single_prev >> 1) & EVEN_GP_MASK;
	r->ord = 0;
	r->head = 0;
	while (blocks) {
		cls = blocks & match_twins(st, fls64(blocks) - 1);
		blocks &= ~cls;

		/*
		 * A uniform class is one: where paired events were, then
		 * the blocks no event was in, then those with one single's
		 * counter, then two; high blocks first.
		 */
		if (match_uniform(st, cls, pair_prev, single_prev)) {
			r->head |= BIT(p);
			for (rank = 0; rank < 4; rank++) {
				for (left = cls; left; left &= ~BIT_ULL(c)) {
					c = fls64(left) - 1;
					if (match_rank(c, pair_prev,
						       single_prev) != rank)
						continue;
					r->ord |= (u64)(c / 2) << (4 * p++);
				}
			}
			continue;
		}

		/* Otherwise the blocks no event was in are a class... */
		if (cls & ~touched)
			r->head |= BIT(p);
		for (left = cls & ~touched; left; left &= ~BIT_ULL(c)) {
			c = fls64(left) - 1;
			r->ord |= (u64)(c / 2) << (4 * p++);
		}
		/* ... and every other block one of its own. */
		for (left = cls & touched; left; left &= ~BIT_ULL(c)) {
			c = fls64(left) - 1;
			r->head |= BIT(p);
			r->ord |= (u64)(c / 2) << (4 * p++);
		}
	}
}

/*
 * Set the rounds of paired events up in @r: the unions of the masks in
 * @st, the classes of blocks. Returns the blocks of the first round, those
 * paired events are on now.
 */
static noinline u64 match_rounds_start(struct x86_match_state *st,
				       struct match_rounds *r)
{
	u64 blocks = 0, pair_prev = 0, single_prev = 0, m;
	int target = st->n * PAIRS_SCORE, i, c;

	for (i = 0; i < st->n; i++) {
		c = st->prev ? st->prev[i] : FREE;
		m = st->masks[i];
		if (c >= 0 && c < X86_MATCH_NR_COUNTERS && (m & BIT_ULL(c)))
			target++;
		else
			c = FREE;
		if (!(st->paired & BIT_ULL(i))) {
			st->singles |= m;
			if (c >= 0 && c < X86_MATCH_NR_GP)
				single_prev |= BIT_ULL(c);
			continue;
		}
		st->pairs |= m;
		if (c >= 0)
			pair_prev |= BIT_ULL(c) & EVEN_GP_MASK;
		blocks |= m & EVEN_GP_MASK;
	}

	BUILD_BUG_ON(X86_MATCH_NR_GP / 2 > 16 ||
		     X86_MATCH_MAX_EVENTS * (PAIRS_SCORE + 1) >= 1 << 14);
	r->target = target;
	r->nr_pairs = hweight64(st->paired);
	r->nr_pos = hweight64(blocks);
	r->sel = BIT(r->nr_pos) - 1;
	r->done = 0;
	match_classes(st, r, blocks, pair_prev, single_prev);
	return pair_prev;
}

/*
 * The blocks of the next round in @r: the first few blocks of every class,
 * as many as there are paired events at most, in turn from all of them
 * down to none, one block fewer from the last class that has one and every
 * class after it whole. Returns NO_ROUND when there is none left.
 */
static noinline u64 match_rounds_next(struct match_rounds *r)
{
	u32 sel, later, all = BIT(r->nr_pos) - 1;
	u64 s;
	int p;

	while (!r->done) {
		sel = r->sel;
		s = 0;
		for (later = sel; later; later &= later - 1) {
			p = __ffs64(later);
			s |= BIT_ULL(2 * (r->ord >> (4 * p) & 0xf));
		}
		if (!sel) {
			r->done = 1;
		} else {
			p = fls64(sel) - 1;
			sel &= ~BIT(p);
			later = r->head & ~(BIT(p + 1) - 1);
			if (later)
				sel |= all & ~((later & -later) - 1);
			r->sel = sel;
		}
		if (hweight64(s) <= r->nr_pairs)
			return s;
	}
	return NO_ROUND;
}

/**
 * match_pairs() - place paired events by trying block reservations
 * @st: the events, their masks and previous counters; gets the best round
 *
 * Tries the block reservations of match_rounds_next() (see the top of the
 * file), the blocks paired events are on now first, and leaves the best
 * round in @st. A round's score is the events it places, then those it
 * keeps. Rounds stop at one that places every event and keeps every one
 * that has a legal counter; the best places the most events and, of
 * those, moves the fewest.
 *
 * The work is bounded whatever the masks: at most %MATCH_MAX_ROUNDS
 * rounds, each a matching of at most %X86_MATCH_MAX_EVENTS events, and
 * match_rounds_next() walks at most 2^16 reservations (16 blocks) to find
 * them. That covers every round on AMD's masks, where the result is a
 * maximum assignment that moves the fewest events. Masks that need more
 * rounds (arbitrary even masks, which no PMU has) get the best of the
 * rounds tried: a legal assignment, whose every event is on a counter of
 * its mask, pairs on a block each and at most gpmax GP counters in use,
 * which may place fewer events than a maximum one.
 *
 * Return: the number of events placed.
 */
static noinline int match_pairs(struct x86_match_state *st)
{
	struct match_rounds r;
	u64 best_blocks, s;
	int best = -1, score, rounds = 0;

	s = match_rounds_start(st, &r);
	best_blocks = s;
	do {
		score = match_try(st, s) * PAIRS_SCORE + st->kept;
		if (score > best) {
			best = score;
			best_blocks = s;
		}
	} while (best < r.target && ++rounds < MATCH_MAX_ROUNDS &&
		 (s = match_rounds_next(&r)) != NO_ROUND);

	/* Rounds are deterministic: redo the best one if need be. */
	if (st->prev && score != best)
		match_try(st, best_blocks);
	return best / PAIRS_SCORE;
}

/*
 * What every slow path sets up first. Returns false, with a warning, for
 * more events than counters could ever hold.
 */
static __always_inline bool match_prepare(struct x86_match_state *st)
{
	int n = st->n;

	if (WARN_ON_ONCE(n > X86_MATCH_MAX_EVENTS))
		return false;
	st->events = n < X86_MATCH_MAX_EVENTS ? BIT_ULL(n) - 1 : ~0ULL;
	st->has_prev &= st->events;
	st->gpmax = clamp(st->gpmax, 0, X86_MATCH_NR_GP);
	st->singles = 0;
	st->pairs = 0;
	return true;
}

/*
 * Everything but the usual case without paired events, in @st, which
 * match_entry() filled in: a first fit that left events out, broke the GP
 * budget or met two events claiming one counter, or no assignment to
 * start from. st->placed is what the first fit placed (0: start over),
 * st->has_prev the events whose entry of st->prev is where they were.
 */
static noinline int match_slow(struct x86_match_state *st)
{
	const u64 *masks = st->masks;
	u64 fit, singles = 0, used = 0, kept_on = 0;
	int best, i, c, n = st->n;
	const int *prev = st->prev;
	s8 *on = st->on;

	if (!match_prepare(st))
		return n;

	st->pair_ok = 0;
	st->single_ok = ~0ULL;
	for (i = 0; i < n; i++)
		singles |= masks[i];
	st->singles = singles;
	st->blocker_ok = singles & GP_MASK;
	fit = st->placed & st->events;
	if (fit) {
		/* Go on from where the first fit got. */
		u64 has_prev = st->has_prev;

		memset(on, FREE, sizeof(st->on));
		st->placed = fit;
		for (; fit; fit &= fit - 1) {
			i = __ffs64(fit);
			c = prev[i];
			on[c] = i;
			used |= BIT_ULL(c);
			if (has_prev & BIT_ULL(i))
				kept_on |= BIT_ULL(c);
		}
		st->used = used;
		st->kept_on = kept_on;
		best = hweight64(st->placed);
		st->nr_kept = hweight64(kept_on);
	} else {
		best = match_start(st);
	}
	best = match_finish(st, best);
	match_output(st);
	return n - best;
}

/*
 * The slow path with paired events (st->paired, which match_entry() kept
 * to the events there are). Apart from match_slow(), so that a caller
 * that never pairs events (x86_counter_match_count()) does not carry the
 * block reservations' frame on its stack.
 */
static noinline int match_slow_paired(struct x86_match_state *st)
{
	int best, n = st->n;

	if (!match_prepare(st))
		return n;
	best = match_pairs(st);
	match_output(st);
	return n - best;
}

/*
 * One pass over the events, in registers: with @assign, each event keeps
 * the counter it had if that is still legal and free; otherwise it takes
 * the first free counter of its mask, written to @assign at once. The
 * counters taken go out of @avail, the events that found none into
 * @missed, those placed by first fit into @filled. Returns false, at once,
 * when an event's legal counter is taken already: by an event that had it
 * too, or by an earlier one's first fit. Without @assign, a first fit.
 */
static __always_inline bool match_pass(const u64 *masks, int n, int *assign,
				       u64 *avail, u64 *filled, u64 *missed)
{
	u64 m, bit = 1;
	int u, c;

	for (u = 0; u < n; u++, bit <<= 1) {
		m = masks[u];
		if (assign) {
			c = assign[u];
			if ((unsigned int)c < X86_MATCH_NR_COUNTERS &&
			    (m & BIT_ULL(c))) {
				if (unlikely(!(*avail & BIT_ULL(c))))
					return false;
				*avail ^= BIT_ULL(c);
				continue;
			}
		}
		m &= *avail;
		if (unlikely(!m)) {
			*missed |= bit;
			continue;
		}
		c = match_first(m);
		*avail ^= BIT_ULL(c);
		if (assign) {
			assign[u] = c;
			*filled |= bit;
		}
	}
	return true;
}

/*
 * Event @u, of mask @m, takes the first free counter of its mask, if any;
 * see match_pass().
 */
static __always_inline void match_fit(u64 m, int u, int *assign, u64 *avail,
				      u64 *filled, u64 *missed)
{
	int c;

	m &= *avail;
	if (unlikely(!m)) {
		*missed |= BIT_ULL(u);
		return;
	}
	c = match_first(m);
	*avail ^= BIT_ULL(c);
	assign[u] = c;
	*filled |= BIT_ULL(u);
}

/*
 * match_pass() with @assign, in two passes: every event whose counter is
 * still legal keeps it, then the others, in order, take the first free
 * counter of their mask. Returns false, before writing anything, when two
 * events had the same legal counter. A cold call (no legal counter at all)
 * costs a load and a compare per event more than match_pass().
 */
static __always_inline bool match_pass_kept_first(const u64 *masks, int n,
						  int *assign, u64 *avail,
						  u64 *filled, u64 *missed)
{
	u64 bit, rest = 0;
	int u, c;

	for (u = 0, bit = 1; u < n; u++, bit <<= 1) {
		c = assign[u];
		if ((unsigned int)c >= X86_MATCH_NR_COUNTERS ||
		    !(masks[u] & BIT_ULL(c))) {
			rest |= bit;
			continue;
		}
		if (unlikely(!(*avail & BIT_ULL(c))))
			return false;
		*avail ^= BIT_ULL(c);
	}
	if (!(~rest & (bit - 1))) {
		for (u = 0; u < n; u++)
			match_fit(masks[u], u, assign, avail, filled, missed);
		return true;
	}
	for (; rest; rest &= rest - 1) {
		u = __ffs64(rest);
		match_fit(masks[u], u, assign, avail, filled, missed);
	}
	return true;
}

/*
 * The usual case: nothing paired, and match_pass() places every event
 * within the GP budget, which is checked once at the end. As long as no
 * event took, by first fit, a counter that a later event had and may keep,
 * the pass is the same as keeping every legal counter first and filling in
 * after. When one did, the first fit's entries go back to -1 (they held no
 * legal counter before) and match_pass_kept_first() does that; when two
 * events claim the same counter, the slow path starts from a warm start of
 * its own (match_start(), which keeps one of them).
 *
 * Otherwise @st is filled in for match_slow(): what the pass placed (none
 * if it broke the budget) and which events' entries are still their own.
 */
static __always_inline int match_entry(struct x86_match_state *st,
				       const u64 *masks, int n, u64 paired,
				       int gpmax, int *assign)
{
	u64 avail = ~0ULL, filled = 0, missed = 0, placed = 0;
	bool ok;

	if (n <= 0)
		return 0;
	if (unlikely(n > X86_MATCH_MAX_EVENTS))
		goto slow;
	paired &= ~0ULL >> (X86_MATCH_MAX_EVENTS - n);
	if (paired)
		goto slow;

	if (assign)
		ok = match_pass_kept_first(masks, n, assign, &avail, &filled, &missed);
	else
		ok = match_pass(masks, n, NULL, &avail, &filled, &missed);
	if (unlikely(!ok))
		goto slow;

	if ((int)hweight64(~avail & GP_MASK) <= gpmax) {
		if (likely(!missed))
			return 0;
		if (assign)
			placed = ~missed;
	}
slow:
	st->masks = masks;
	st->prev = assign;
	st->has_prev = assign ? ~filled : 0;
	st->placed = placed;
	st->paired = paired;
	st->gpmax = gpmax;
	st->n = n;
	if (paired)
		return match_slow_paired(st);
	return match_slow(st);
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
 * its state (struct x86_match_state, 320 bytes) is on the stack; see
 * x86_counter_match_in() to keep it elsewhere.
 *
 * Return: the number of events that could not be placed, 0 when all fit.
 */
int x86_counter_match(const u64 *masks, int n, u64 paired, int gpmax,
		      int *assign)
{
	struct x86_match_state st;

	return match_entry(&st, masks, n, paired, gpmax, assign);
}
EXPORT_SYMBOL_IF_KUNIT(x86_counter_match);

/**
 * x86_counter_match_in() - x86_counter_match() with the state in @st
 * @st:     where the matcher keeps its state when the first fit is not
 *          enough, rather than on the stack (NULL: on the stack); its
 *          contents do not matter before or after the call
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
	if (!st)
		return x86_counter_match(masks, n, paired, gpmax, assign);
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
 * x86_counter_match_in() without paired events and without an assignment:
 * for a caller that only asks whether events fit, on a path whose stack
 * should not carry the paired events' slow path (see match_slow_paired()).
 *
 * Context: Any context; the caller serializes the users of @st.
 *
 * Return: the number of events that could not be placed, 0 when all fit.
 */
int x86_counter_match_count(struct x86_match_state *st, const u64 *masks,
			    int n, int gpmax)
{
	return match_entry(st, masks, n, 0, gpmax, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(x86_counter_match_count);
