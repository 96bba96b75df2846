// SPDX-License-Identifier: GPL-2.0
/*
 * Fair arbitration of counters between hyper-threads under XSU.
 *
 * With XSU, a thread that holds counters eXclusive or Shared can keep its
 * sibling from placing events, for as long as its own events fit: it then
 * never multiplexes and never gives a counter back. The former workaround
 * (intel_excl_cntrs) prevented that by halving both threads'
 * general-purpose counters whenever either had a corrupting event, which
 * also costs half the counters to a thread whose sibling measures nothing.
 *
 * Here a thread is only held back while its sibling waits:
 *
 *  - A scheduling pass that fails publishes a demand when the window it
 *    failed on would have fitted on the static masks: what stood in the
 *    way was the sibling's states (or the thread's own budget), not the
 *    number of counters. The demand counts the window's corrupting events
 *    that need a GP counter: they need counters the sibling leaves
 *    Unused, while its other events may share the sibling's Shared ones.
 *    A window without corrupting events was stopped by eXclusive
 *    counters: then all its events that need a GP counter count (those
 *    that may use a fixed counter too, once the fixed counters they may
 *    use are taken by the events before them). Events
 *    of the window that are already placed count too: they sit on
 *    counters the sibling does not hold, and a budget of nr_gp - d only
 *    leaves d such counters, so a demand of the missing events alone
 *    would let the sibling keep exactly the counters the window already
 *    has.
 *
 *  - A demand stands while its thread holds GP counters (a CPU-wide group
 *    that fits makes no pass for as long as it runs), and lapses @hold
 *    after the thread let its last one go, or after its last pass; and
 *    one held up only by the counters its thread holds lapses once the
 *    core has had no corrupting event for @hold (xsu_arb_round()).
 *    Every pass extends a standing demand, the ones that place everything
 *    included:
 *    a thread whose task runs in short slices keeps its share across them,
 *    where a demand renewed by failures only would lapse while the task is
 *    switched out, let the sibling take the counters back, and fail the
 *    task again at each switch-in. A thread that stops scheduling (its
 *    events gone, or switched out for longer than @hold) holds its
 *    sibling back no longer.
 *
 *  - While the sibling has a demand d, a thread may use at most
 *    nr_gp - min(d, nr_gp / 2) GP counters (xsu_arb_gpmax()): the
 *    sibling then finds at least min(d, nr_gp / 2) counters that the
 *    thread holds in neither state, so any event may go there. With no
 *    demand, a thread uses every counter.
 *
 *  - An event tied to particular counters (a PEBS event on counter 1,
 *    say) gains nothing from a budget if the sibling keeps those very
 *    counters: when the first event a pass could not place is such an
 *    event, its counters are published with the demand, and the sibling's
 *    flexible events leave them alone while the demand lasts
 *    (xsu_arb_avoid()), unless the sibling waits for an event tied to
 *    the same counters: leaving them to each other, both would starve.
 *
 *  - Pinned events are outside the arbitration: the caller applies neither
 *    the budget nor the avoided counters to a pass that places a pinned
 *    group, so a sibling's demand never keeps a pinned event off a counter
 *    (perf would put it into error), and the counters that pinned events
 *    already hold are not charged to the thread's budget. A pinned group
 *    that fails on the sibling's states takes counters back from the
 *    sibling's flexible events instead (a reclaim pass, xsu.c); its
 *    demand is published like any other.
 *
 *  - The thread holding more than its budget, or a counter its waiting
 *    sibling is tied to, may not reschedule on its own (nothing
 *    multiplexes if its events fit; a thread whose last round left a
 *    flexible group out does, at its next multiplexing interval, and is
 *    never asked, see xsu_arb_round()): xsu_arb_end() tells the caller to
 *    make it reschedule, once until it has (xsu_arb_rescheduled()). The
 *    demand stands until then even past its deadline: making another CPU
 *    reschedule takes an interrupt there, which may come late (a virtual
 *    CPU that is not running), and a demand lapsed by then would let the
 *    thread keep every counter. When that thread then stops
 *    at its budget while the sibling still waits, the sibling is told to
 *    retry at once rather than a multiplexing interval later (once per
 *    clock tick, or again only after this thread gave up more counters,
 *    so two waiting threads cannot bounce for long).
 *
 * When both threads want more than half, both are capped at half and
 * both multiplex: each gets half of the counters at every moment, and
 * perf's rotation shares them among its events over time. That holds for
 * events perf can split, not for a group: perf places a group whole or not
 * at all, and a group of more GP events than half the counters (a
 * cycle-accounting tool's four events on a four-counter core) would never
 * run while its sibling waits. When a thread waits for such a group, the
 * threads take turns at the whole core instead (xsu_arb_turns()):
 *
 *  - a failed pass records the GP events of the group it was adding (the
 *    events from xsu_arb_adds() on) and of its whole window, with its
 *    demand;
 *
 *  - the thread whose turn it is may use every counter, the other only
 *    what leaves the holder's whole window room, so the holder's group
 *    fits whatever the sibling's events are;
 *
 *  - the turn passes to the waiting sibling @hold after the holder was
 *    first seen served (a pass of it placed everything, or its placement
 *    held GP counters while the sibling failed): many multiplexing
 *    intervals, so that perf's rotation gives every group of the holder
 *    its share within one turn, and the cost of a handover (one
 *    reschedule of the holder, asked as above) is paid rarely.
 *
 * A thread alone, or beside a sibling that waits for nothing, keeps every
 * counter.
 */
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "xsu_arb.h"

#define XSU_ARB_GP_MASK	0xffffffffULL

/**
 * xsu_arb_init() - nobody waits
 * @arb:   the core's arbitration state
 * @nr_gp: general-purpose counters of each thread
 */
void xsu_arb_init(struct xsu_arb *arb, int nr_gp)
{
	memset(arb, 0, sizeof(*arb));
	arb->nr_gp = nr_gp;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_arb_init);

/**
 * xsu_arb_begin() - a scheduling pass starts on @tid
 * @arb: the core's arbitration state
 * @tid: the scheduling thread
 */
void xsu_arb_begin(struct xsu_arb *arb, int tid)
{
	arb->n[tid] = 0;
	arb->first[tid] = 0;
	arb->corrupting[tid] = 0;
	arb->waits[tid] = false;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_arb_begin);

/**
 * xsu_arb_adds() - the running pass adds the events from @first on
 * @arb:   the core's arbitration state
 * @tid:   the scheduling thread
 * @first: index of the first event of the group the pass adds; the events
 *         before it were placed by earlier passes
 *
 * Without it, a pass adds its whole window (@first 0).
 */
void xsu_arb_adds(struct xsu_arb *arb, int tid, int first)
{
	arb->first[tid] = max(first, 0);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_arb_adds);

/*
 * The turn passes from its holder, served for @hold, to a sibling that
 * waits; a holder that holds GP counters is served from the moment the
 * other thread sees it so, which it does at every pass it fails.
 */
static void xsu_arb_pass_turn(struct xsu_arb *arb, unsigned long now,
			      unsigned long hold)
{
	int holder = arb->turn;

	if (!xsu_arb_turns(arb, now))
		return;
	if (!arb->served && arb->holds[holder]) {
		arb->served = true;
		arb->served_at = now;
	}
	if (arb->served && (long)(now - arb->served_at) >= (long)hold &&
	    arb->waits[holder ^ 1]) {
		arb->turn = holder ^ 1;
		arb->served = false;
	}
}

/**
 * xsu_arb_note() - the static mask of event @idx of the running pass
 * @arb:         the core's arbitration state
 * @tid:         the scheduling thread
 * @idx:         the event's index in the pass
 * @static_mask: its counter mask before XSU
 * @corrupting:  it is one of 0xd0-0xd3
 */
void xsu_arb_note(struct xsu_arb *arb, int tid, int idx, u64 static_mask,
		  bool corrupting)
{
	if (idx < 0 || idx >= X86_MATCH_MAX_EVENTS)
		return;
	arb->mask[tid][idx] = static_mask;
	if (corrupting)
		arb->corrupting[tid] |= BIT_ULL(idx);
	else
		arb->corrupting[tid] &= ~BIT_ULL(idx);
	arb->n[tid] = max(arb->n[tid], idx + 1);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_arb_note);

/**
 * xsu_arb_end() - a scheduling pass ends on @tid
 * @arb:          the core's arbitration state
 * @tid:          the scheduling thread
 * @unplaced:     the events of the pass that XSU kept out (bit per event
 *                index), as xsu_arb_unplaced() gives them: 0 when the pass
 *                placed every event or its events do not fit even on their
 *                static masks
 * @held:         counters the thread holds (X or S), before this pass
 * @sibling_held: counters the sibling holds (X or S)
 * @now:          the current time
 * @hold:         how long a demand stays without renewal (many
 *                multiplexing intervals)
 *
 * A failed pass whose window fits on the static masks publishes the
 * thread's demand and the event it waits for, and may ask the sibling to
 * give counters back; any other pass renews a standing demand (see the
 * top of this file).
 *
 * Return: true when the sibling must be made to reschedule: it holds
 * more than its budget or a counter the waiting event is tied to (once,
 * until its next pass), or it waits itself while this thread has stopped
 * within its budget (once per clock tick, or again after giving up more);
 * never while the sibling rotates its events on its own (xsu_arb_round()).
 */
bool xsu_arb_end(struct xsu_arb *arb, int tid, u64 unplaced, u64 held,
		 u64 sibling_held, unsigned long now, unsigned long hold)
{
	u64 gp_all = GENMASK_ULL(arb->nr_gp - 1, 0), fixed_used = 0, first;
	int n = arb->n[tid], sib = tid ^ 1, gp = 0, corrupting = 0, group = 0;
	int used, i;

	if (n < X86_MATCH_MAX_EVENTS)
		unplaced &= BIT_ULL(n) - 1;

	/*
	 * An event that may also use a fixed counter needs a GP counter
	 * only when the events before it took its fixed counters: a lone
	 * cycles event beside the NMI watchdog's, which holds fixed
	 * counter 1, waits for a GP counter like any other.
	 */
	for (i = 0; i < n; i++) {
		u64 fixed = arb->mask[tid][i] & ~XSU_ARB_GP_MASK & ~fixed_used;

		if (fixed) {
			fixed_used |= BIT_ULL(__ffs64(fixed));
			continue;
		}
		if (!(arb->mask[tid][i] & gp_all))
			continue;
		gp++;
		group += i >= arb->first[tid];
		corrupting += !!(arb->corrupting[tid] & BIT_ULL(i));
	}
	if (!gp)
		return false;
	if (!unplaced) {
		/*
		 * Placed, or too many events anyway: a standing demand lives
		 * on, as it was (a pass that the PMU skips, having no room,
		 * must not change it). A placed pass serves the turn's
		 * holder.
		 */
		if (xsu_arb_demand(arb, tid, now))
			arb->until[tid] = now + hold;
		if (tid == arb->turn && !arb->served &&
		    xsu_arb_turns(arb, now)) {
			arb->served = true;
			arb->served_at = now;
		}
		xsu_arb_pass_turn(arb, now, hold);
		return false;
	}
	arb->demand[tid] = clamp(corrupting ? corrupting : gp, 1, arb->nr_gp);
	arb->until[tid] = now + hold;
	arb->waits[tid] = true;
	arb->need[tid] = min(group, arb->nr_gp);
	arb->window[tid] = min(gp, arb->nr_gp);
	xsu_arb_pass_turn(arb, now, hold);

	/* The event it waits for: the first one it could not place. */
	first = arb->mask[tid][__ffs64(unplaced)] & gp_all;
	arb->want[tid] = first != gp_all ? first : 0;

	/* A rotating sibling reschedules within an interval, unasked. */
	if (arb->rotates[sib])
		return false;

	if (!arb->kicked[sib] &&
	    (hweight64(sibling_held & gp_all) >
	     xsu_arb_budget_of(arb, sib, now) ||
	     (sibling_held & arb->want[tid]))) {
		arb->kicked[sib] = true;
		return true;
	}

	/*
	 * Within one tick, ask again only after giving up more counters:
	 * the retries are bounded by the number of counters. Only a sibling
	 * whose last pass failed waits: a demand that its placed passes keep
	 * alive asks for no retry; nor does one whose group its budget
	 * cannot hold before its turn.
	 */
	used = hweight64(held & gp_all);
	if (arb->waits[sib] && xsu_arb_demand(arb, sib, now) &&
	    (arb->retried[sib] != now + 1 || used < arb->retry_held[sib]) &&
	    used <= xsu_arb_budget_of(arb, tid, now) &&
	    arb->need[sib] <= xsu_arb_budget_of(arb, sib, now)) {
		arb->retried[sib] = now + 1;
		arb->retry_held[sib] = used;
		return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_arb_end);

/**
 * xsu_arb_thread_reset() - a thread comes online or goes offline
 * @arb: the core's arbitration state
 * @tid: the thread
 *
 * It waits for nothing and has been asked for nothing: its demand, what
 * it was tied to, a pending kick and its retries are forgotten, so that a
 * thread gone offline holds its sibling back no longer.
 *
 * Context: CPU hotplug, on the thread's own CPU with interrupts disabled.
 */
void xsu_arb_thread_reset(struct xsu_arb *arb, int tid)
{
	arb->demand[tid] = 0;
	arb->want[tid] = 0;
	arb->until[tid] = 0;
	arb->kicked[tid] = false;
	arb->retried[tid] = 0;
	arb->retry_held[tid] = 0;
	arb->rotates[tid] = false;
	arb->holds[tid] = false;
	arb->waits[tid] = false;
	arb->need[tid] = 0;
	arb->window[tid] = 0;
	arb->first[tid] = 0;
	if (arb->turn == tid)
		arb->served = false;
	arb->n[tid] = 0;
	arb->corrupting[tid] = 0;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_arb_thread_reset);
