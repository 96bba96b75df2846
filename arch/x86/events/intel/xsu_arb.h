/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fair arbitration of counters between the two threads of a core under the
 * XSU protocol (xsu.c): instead of halving both threads' general-purpose
 * counters whenever a corrupting event is present, a thread is only held
 * back while its sibling is actually waiting for counters.
 *
 * Pure like xsu.c: it sees counter masks, counts and a clock, not
 * perf_event, so that it also builds in user space.
 */
#ifndef _ARCH_X86_EVENTS_INTEL_XSU_ARB_H
#define _ARCH_X86_EVENTS_INTEL_XSU_ARB_H

#include <linux/minmax.h>
#include <linux/types.h>

#include "../counter_match.h"

/**
 * struct xsu_arb - who is waiting for counters on a core
 * @demand:  counters thread t last failed to get, 0 if none
 * @want:    the GP counters the event it waits for may use (the first one
 *           its pass could not place), when they are not all of them (an
 *           event tied to particular counters)
 * @until:   when that demand lapses unless renewed (same clock as @now
 *           arguments, e.g. jiffies)
 * @kicked:  thread t has been asked to reschedule and has not yet: until
 *           it has (xsu_arb_rescheduled()), the sibling's demand stands
 * @retried: the tick after thread t was last asked to retry, 0: never
 * @retry_held: GP counters this thread held when it last asked thread t to
 *           retry (see xsu_arb_end())
 * @rotates: thread t's last round of passes left a flexible group out:
 *           perf rotates its events at its next multiplexing interval,
 *           which reschedules it without being asked (xsu_arb_round())
 * @holds:   thread t's placement holds general-purpose counters: its
 *           demand stands while it does, unless the core is quiet
 *           (xsu_arb_round())
 * @waits:   thread t's running pass failed for its sibling's states or its
 *           own budget, not for the number of counters: it published a
 *           demand, and its sibling will be made to reschedule or to let it
 *           retry once counters are free
 * @need:    GP events of the group thread t's failed pass was adding,
 *           when it published its demand: perf places a group whole or
 *           not at all, so a group needing more than the thread's budget
 *           never runs under it
 * @window:  GP events of that pass's whole window (its placed events and
 *           the group)
 * @first:   the first event the running pass of thread t adds (its
 *           group); the events before it were placed by earlier passes
 * @turn:    the thread whose turn it is, while both wait and one of them
 *           for a group its budget cannot hold (xsu_arb_turns())
 * @served:  the thread holding the turn has had its counters: its
 *           placement went live, or held GP counters, at @served_at
 * @served_at: when the turn's holder was first seen served
 * @n:       events of thread t's running pass noted so far
 * @mask:    their static counter masks
 * @corrupting: which of them are corrupting events (bit per event)
 * @quiet:   the last round of a thread found no corrupting event on the
 *           core, and no round has found one since
 * @quiet_until: from when a quiet core lets a demand lapse although its
 *           thread holds GP counters (xsu_arb_quiet())
 * @nr_gp:   general-purpose counters of each thread
 * @match:   the matcher's state for thread t's check in
 *           xsu_arb_unplaced(), kept here rather than on the stack of the
 *           scheduling path; only thread t's CPU uses it, with interrupts
 *           disabled
 *
 * Protected by the XSU core lock: used between xsu_begin() and xsu_end().
 */
struct xsu_arb {
	u8		demand[2];
	u64		want[2];
	unsigned long	until[2];
	bool		kicked[2];
	unsigned long	retried[2];
	u8		retry_held[2];
	bool		rotates[2];
	bool		holds[2];
	bool		waits[2];
	u8		need[2];
	u8		window[2];
	int		first[2];
	int		turn;
	bool		served;
	unsigned long	served_at;
	int		n[2];
	u64		mask[2][X86_MATCH_MAX_EVENTS];
	u64		corrupting[2];
	bool		quiet;
	unsigned long	quiet_until;
	int		nr_gp;
	struct x86_match_state match[2];
};

/**
 * xsu_arb_budget() - GP counters a thread may use
 * @nr_gp:          general-purpose counters per thread
 * @sibling_demand: counters the sibling is waiting for, 0 if none
 *
 * All of them while the sibling waits for nothing; otherwise what leaves
 * the sibling its demand, but never less than half.
 *
 * Return: the cap on the thread's GP counters.
 */
static inline int xsu_arb_budget(int nr_gp, int sibling_demand)
{
	if (sibling_demand <= 0)
		return nr_gp;
	return nr_gp - min(sibling_demand, nr_gp / 2);
}

/*
 * The core has had no corrupting event for a hold (xsu_arb_round()): a
 * demand no longer stands because its thread holds GP counters.
 */
static inline bool xsu_arb_quiet(const struct xsu_arb *arb, unsigned long now)
{
	return arb->quiet && (long)(now - arb->quiet_until) >= 0;
}

/*
 * A demand stands while its thread holds GP counters, unless the core has
 * been quiet for a hold, and otherwise until its deadline (wrap-safe like
 * time_before()), and beyond it while the sibling it asked to make room
 * has not rescheduled yet: the deadline must not pass while the kick is on
 * its way.
 */
static inline int xsu_arb_demand(const struct xsu_arb *arb, int tid,
				 unsigned long now)
{
	if (!arb->demand[tid])
		return 0;
	if (arb->holds[tid] && !xsu_arb_quiet(arb, now))
		return arb->demand[tid];
	if ((long)(now - arb->until[tid]) >= 0 && !arb->kicked[tid ^ 1])
		return 0;
	return arb->demand[tid];
}

/**
 * xsu_arb_turns() - the threads take turns at the whole core
 * @arb: the core's arbitration state
 * @now: the current time
 *
 * Both threads wait, and one of them for a group that its budget cannot
 * hold: capped at half while the sibling waits, a group of four GP events
 * on a four-counter core would never run, however long perf rotates it.
 * The threads then take turns (xsu_arb_budget_of()). Groups within the
 * budget (a thread asking for half the counters) never make turns: both
 * threads keep their share at every moment.
 *
 * Return: true while turns are taken.
 */
static inline bool xsu_arb_turns(const struct xsu_arb *arb,
				 unsigned long now)
{
	int d0 = xsu_arb_demand(arb, 0, now), d1 = xsu_arb_demand(arb, 1, now);

	if (!d0 || !d1)
		return false;
	return arb->need[0] > xsu_arb_budget(arb->nr_gp, d1) ||
	       arb->need[1] > xsu_arb_budget(arb->nr_gp, d0);
}

/**
 * xsu_arb_budget_of() - GP counters thread @tid may use now
 * @arb: the core's arbitration state
 * @tid: the thread
 * @now: the current time
 *
 * xsu_arb_budget() of the sibling's demand; while turns are taken
 * (xsu_arb_turns()), every counter for the thread whose turn it is, and
 * for the other what leaves the whole window of the holder's last failed
 * pass room.
 *
 * Return: the cap on the thread's GP counters.
 */
static inline int xsu_arb_budget_of(const struct xsu_arb *arb, int tid,
				    unsigned long now)
{
	int d = xsu_arb_demand(arb, tid ^ 1, now);

	if (!d || !xsu_arb_turns(arb, now))
		return xsu_arb_budget(arb->nr_gp, d);
	if (arb->turn == tid)
		return arb->nr_gp;
	return arb->nr_gp - min_t(int, arb->window[tid ^ 1], arb->nr_gp);
}

/**
 * xsu_arb_gpmax() - gpmax of a scheduling pass under arbitration
 * @arb:   the core's arbitration state
 * @tid:   the scheduling thread
 * @gpmax: gpmax the pass would use otherwise
 * @now:   the current time
 *
 * Return: @gpmax capped by the thread's budget.
 */
static inline int xsu_arb_gpmax(const struct xsu_arb *arb, int tid,
				int gpmax, unsigned long now)
{
	return min(gpmax, xsu_arb_budget_of(arb, tid, now));
}

/**
 * xsu_arb_avoid() - counters a thread should leave to its waiting sibling
 * @arb: the core's arbitration state
 * @tid: the scheduling thread
 * @now: the current time
 *
 * Return: the counters the sibling's waiting event is tied to while its
 * demand lasts, else 0. A budget alone cannot make room for such an event.
 * Counters that this thread's own waiting event is tied to as well are not
 * among them: were each thread to leave them to the other, neither would
 * ever use them. The thread whose turn it is (xsu_arb_turns()) leaves
 * none: its sibling waits for its own turn.
 */
static inline u64 xsu_arb_avoid(const struct xsu_arb *arb, int tid,
				unsigned long now)
{
	u64 avoid;

	if (!xsu_arb_demand(arb, tid ^ 1, now))
		return 0;
	if (arb->turn == tid && xsu_arb_turns(arb, now))
		return 0;
	avoid = arb->want[tid ^ 1];
	if (xsu_arb_demand(arb, tid, now))
		avoid &= ~arb->want[tid];
	return avoid;
}

/**
 * xsu_arb_waits() - the pass that just ended waits for the sibling
 * @arb: the core's arbitration state
 * @tid: the thread
 *
 * Context: after xsu_arb_end() and before the thread's next xsu_arb_begin().
 * Return: true when the pass failed only because of the sibling (its
 * states or the budget its demand imposes), so that it may succeed once the
 * sibling gives counters back.
 */
static inline bool xsu_arb_waits(const struct xsu_arb *arb, int tid)
{
	return arb->waits[tid];
}

/**
 * xsu_arb_pass_corrupting() - the pass that ends tried a corrupting event
 * @arb: the core's arbitration state
 * @tid: the scheduling thread
 *
 * x86_schedule_events() puts the events a failed pass could not add before
 * the pass ends, and with them their count among the thread's corrupting
 * events (xsu_account()). A corrupting event that failed for the sibling's
 * counters, when it is the thread's only one, is then missing from
 * xsu_corrupting_present(), and its demand must still be published: the
 * pass's notes still show it.
 *
 * Context: between xsu_arb_begin() and xsu_arb_end() on @tid.
 * Return: true when an event noted in the pass is a corrupting one.
 */
static inline bool xsu_arb_pass_corrupting(const struct xsu_arb *arb, int tid)
{
	return arb->corrupting[tid] != 0;
}

/**
 * xsu_arb_unplaced() - the events of a failed pass that XSU kept out
 * @arb:      the core's arbitration state
 * @tid:      the scheduling thread
 * @unplaced: the events of the pass it could not place (bit per event
 *            index), 0 when it placed every event
 *
 * When the pass's events do not all fit even on their static masks, there
 * are too many of them for the counters: they multiplex whatever the
 * sibling does, and a demand would only hold the sibling back. The check
 * runs the matcher in the caller's frame rather than under xsu_arb_end(),
 * and without paired events, to keep it off the scheduling path's deepest
 * stack.
 *
 * Context: between xsu_arb_begin() and xsu_arb_end() on @tid.
 * Return: @unplaced for xsu_arb_end(), or 0 when the events do not fit.
 */
static inline u64 xsu_arb_unplaced(struct xsu_arb *arb, int tid,
				   u64 unplaced)
{
	if (unplaced &&
	    x86_counter_match_count(&arb->match[tid], arb->mask[tid],
				    arb->n[tid], arb->nr_gp))
		return 0;
	return unplaced;
}

/**
 * xsu_arb_round() - a thread's round of scheduling passes went live
 * @arb:        the core's arbitration state
 * @tid:        the thread
 * @rotates:    a flexible group of the round found no counters
 * @held:       the counters of the thread's placement now
 * @corrupting: a corrupting event is collected on the core, on either
 *              thread (xsu_corrupting_on_core())
 * @now:        the current time
 * @hold:       how long a demand stays once it is no longer held up
 *
 * perf rotates a context whose flexible group found no counters at the
 * next multiplexing interval, and the rotation reschedules every event of
 * the thread: the thread then applies its sibling's demand within an
 * interval on its own, and retries its own waiting groups. xsu_arb_end()
 * asks such a thread for nothing: an interrupt on its CPU would only
 * advance what its rotation does anyway.
 *
 * A thread's demand stands while its events hold GP counters, however
 * long they run without a pass (a CPU-wide group that fits), and for
 * @hold once they have let the last one go: a group that follows another,
 * or a task switched back in, finds its share where it left it.
 *
 * Only xsu_arb_end() replaces a demand, and the caller makes it end a pass
 * only while a corrupting event is on the core: a demand held up by GP
 * counters after the corrupting events went would cap the sibling for as
 * long as its thread counts anything. So once the rounds have found no
 * corrupting event on the core for @hold, a demand stands no longer for
 * the counters its thread holds (xsu_arb_quiet()), and one that lapsed
 * then does not come back with the next corrupting event. A shorter gap
 * changes nothing: the sibling's next list of corrupting events, or a
 * corrupting event of the thread's own that perf rotated out and tries
 * again, still finds the demand.
 *
 * Context: under the XSU core lock, when the round's placement is enabled.
 */
static inline void xsu_arb_round(struct xsu_arb *arb, int tid, bool rotates,
				 u64 held, bool corrupting, unsigned long now,
				 unsigned long hold)
{
	bool holds = held & GENMASK_ULL(arb->nr_gp - 1, 0);
	int t;

	arb->rotates[tid] = rotates;
	if (arb->holds[tid] && !holds && arb->demand[tid])
		arb->until[tid] = now + hold;
	arb->holds[tid] = holds;

	if (!corrupting) {
		if (!arb->quiet) {
			arb->quiet = true;
			arb->quiet_until = now + hold;
		}
		return;
	}
	if (xsu_arb_quiet(arb, now))
		for (t = 0; t < 2; t++)
			if (!xsu_arb_demand(arb, t, now))
				arb->demand[t] = 0;
	arb->quiet = false;
}

/**
 * xsu_arb_rescheduled() - a thread has rescheduled as it was asked to
 * @arb: the core's arbitration state
 * @tid: the thread, at the end of the reschedule xsu_arb_end() asked for
 *
 * From now on its sibling's demand lapses at its deadline, and the thread
 * may be asked again.
 */
static inline void xsu_arb_rescheduled(struct xsu_arb *arb, int tid)
{
	arb->kicked[tid] = false;
}

void xsu_arb_init(struct xsu_arb *arb, int nr_gp);
void xsu_arb_begin(struct xsu_arb *arb, int tid);
void xsu_arb_adds(struct xsu_arb *arb, int tid, int first);
void xsu_arb_note(struct xsu_arb *arb, int tid, int idx, u64 static_mask,
		  bool corrupting);
bool xsu_arb_end(struct xsu_arb *arb, int tid, u64 unplaced, u64 held,
		 u64 sibling_held, unsigned long now, unsigned long hold);
void xsu_arb_thread_reset(struct xsu_arb *arb, int tid);

#endif /* _ARCH_X86_EVENTS_INTEL_XSU_ARB_H */
