// SPDX-License-Identifier: GPL-2.0
/*
 * XSU: exclusive/shared/unused counter states shared by the two threads of
 * a core, for the SandyBridge/IvyBridge/Haswell erratum in which an event
 * with code 0xd0-0xd3 counting on counter i of one hyper-thread leaks
 * counts into counter i of the sibling (errata BJ122, BV98, HSD29).
 *
 * The dynamic mask of an event is its static mask minus the counters the
 * sibling cannot share with it:
 *
 *   sibling counter   corrupting event   other event
 *   eXclusive         no                 no
 *   Shared            no                 yes
 *   Unused            yes                yes
 *
 * A scheduling pass on one thread is a transaction on the core's state:
 * xsu_begin() takes the core lock, xsu_constrain() gives each event its
 * dynamic mask from the sibling's states, the caller runs the matcher, then
 * xsu_commit() records every placed event and xsu_end() makes them the
 * thread's placement and drops the lock. A pass that fails commits nothing,
 * so the thread keeps the placement of the events still on its counters;
 * xsu_release() takes the counter of an event that leaves out of it.
 *
 * The hardware follows a placement only later: the caller moves events and
 * stops those that left when it re-enables the PMU. Until then the states
 * the sibling sees keep the old counters as well as the new ones (a move
 * marks both), and xsu_settle(), called once the hardware runs the
 * placement, narrows them to it. Neither a move nor a release can show the
 * sibling a counter Unused while an event still counts on it.
 *
 * Pinned events take counters back from the sibling's flexible events:
 * perf puts a pinned group that does not fit into error for good, while a
 * flexible event that loses its counter is multiplexed. A pass that failed
 * for a pinned group is run once more as a reclaim pass (xsu_begin()), in
 * which pinned events only see the sibling's pinned states. The counters
 * it then takes may still be in use by the sibling's hardware: xsu_hold()
 * tells the caller to keep them disabled until the sibling has rescheduled
 * off them and settled, and the sibling's xsu_settle() says when to look
 * again. Until then the pinned event does not count.
 *
 * Switching the workaround (ht_bug_workaround):
 *
 *  - off: xsu_disable() clears every state of the core and stops tracking,
 *    under the lock, so that no pass sees half of it;
 *  - on: every thread first records what it has on its counters
 *    (xsu_track(), on its own CPU, so the picture is exact), then each core
 *    starts applying dynamic masks (xsu_enable()).
 *
 * A pass decides under the lock whether it tracks and whether it applies
 * masks, and keeps that for its whole duration. When a thread neither
 * tracks nor applies masks it skips the lock entirely: its own "tracked"
 * flag only becomes true on its own CPU, and "enabled" only after every
 * thread is tracked, so a pass that reads both as false is outside any
 * switch.
 *
 * Locking: &xsu_core.lock is a raw spinlock taken with interrupts disabled
 * (the scheduling paths run with them off; the switching and hotplug
 * helpers disable them). The scheduling paths take it inside perf's
 * context lock (perf_ctx_lock()); nothing nests inside it.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "xsu.h"

#define XSU_NR_COUNTERS	64

/**
 * xsu_allowed_mask() - dynamic mask of an event, per the XSU table
 * @static_mask:    counters the event may use at all
 * @corrupting:     the event is one of 0xd0-0xd3
 * @sibling_excl:   the sibling's eXclusive counters
 * @sibling_shared: the sibling's Shared counters
 *
 * Return: @static_mask without the counters the sibling's states forbid.
 * With no eXclusive counter on the sibling, a non-corrupting event keeps
 * its static mask.
 */
u64 xsu_allowed_mask(u64 static_mask, bool corrupting, u64 sibling_excl,
		     u64 sibling_shared)
{
	u64 busy = sibling_excl;

	if (corrupting)
		busy |= sibling_shared;
	return static_mask & ~busy;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_allowed_mask);

/**
 * xsu_counter_state() - state of one counter of one thread
 * @xc:   the core's state
 * @tid:  thread, 0 or 1
 * @cntr: counter index
 *
 * Context: for reporting and tests; hold &xsu_core.lock for a stable value.
 * Return: %XSU_EXCLUSIVE, %XSU_SHARED or %XSU_UNUSED.
 */
enum xsu_state xsu_counter_state(const struct xsu_core *xc, int tid,
				 int cntr)
{
	const struct xsu_thread *t = &xc->thread[tid];

	if (t->excl & BIT_ULL(cntr))
		return XSU_EXCLUSIVE;
	if (t->shared & BIT_ULL(cntr))
		return XSU_SHARED;
	return XSU_UNUSED;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_counter_state);

/**
 * xsu_init() - initialise a core's state: every counter Unused
 * @xc:      the state, allocated once per physical core
 * @enabled: whether the workaround is on
 */
void xsu_init(struct xsu_core *xc, bool enabled)
{
	memset(xc, 0, sizeof(*xc));
	raw_spin_lock_init(&xc->lock);
	xc->enabled = enabled;
	xc->core_id = -1;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_init);

/**
 * xsu_begin() - start a scheduling pass on a thread
 * @xc:  the core's state
 * @tid: the scheduling thread
 *
 * @reclaim: pinned events of this pass may take counters from the
 *           sibling's flexible events
 *
 * Takes the core lock unless the workaround is off for this thread, and
 * fixes for the whole pass whether dynamic masks apply. Every xsu_begin()
 * is paired with xsu_end() on the same CPU.
 *
 * Context: interrupts disabled, on the thread's own CPU.
 */
void xsu_begin(struct xsu_core *xc, int tid, bool reclaim)
{
	struct xsu_thread *t = &xc->thread[tid];

	lockdep_assert_irqs_disabled();
	WARN_ON_ONCE(t->in_pass);

	t->in_pass = true;
	t->pass_commit = false;
	t->pass_excl = 0;
	t->pass_shared = 0;
	t->pass_pin = 0;
	t->pass_reclaim = reclaim;
	t->pass_locked = false;
	t->pass_enabled = false;

	if (!READ_ONCE(t->tracked) && !READ_ONCE(xc->enabled))
		return;

	raw_spin_lock(&xc->lock);
	t->pass_locked = true;
	t->pass_enabled = xc->enabled;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_begin);

/**
 * xsu_constrain() - dynamic mask of an event for the running pass
 * @xc:          the core's state
 * @tid:         the scheduling thread
 * @static_mask: the event's static counter mask
 * @corrupting:  the event is one of 0xd0-0xd3
 * @pinned:      the event belongs to a pinned group
 *
 * Context: between xsu_begin() and xsu_end().
 * Return: the mask the matcher may use: the static one when the workaround
 * is off, else xsu_allowed_mask() against the sibling's current states, or
 * against its pinned states only for a pinned event of a reclaim pass.
 */
u64 xsu_constrain(struct xsu_core *xc, int tid, u64 static_mask,
		  bool corrupting, bool pinned)
{
	const struct xsu_thread *t = &xc->thread[tid];
	const struct xsu_thread *sib = &xc->thread[tid ^ 1];
	u64 keep = ~0ULL;

	if (!t->pass_enabled)
		return static_mask;

	lockdep_assert_held(&xc->lock);
	if (pinned && t->pass_reclaim)
		keep = sib->pin;
	return xsu_allowed_mask(static_mask, corrupting, sib->excl & keep,
				sib->shared & keep);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_constrain);

/**
 * xsu_commit() - record one event of a pass that placed every event
 * @xc:         the core's state
 * @tid:        the scheduling thread
 * @cntr:       the counter the event got
 * @corrupting: the event is one of 0xd0-0xd3
 * @pinned:     the event belongs to a pinned group
 *
 * The thread's states are replaced by the recorded ones in xsu_end().
 *
 * Context: between xsu_begin() and xsu_end(), once per placed event.
 */
void xsu_commit(struct xsu_core *xc, int tid, int cntr, bool corrupting,
		bool pinned)
{
	struct xsu_thread *t = &xc->thread[tid];

	if (WARN_ON_ONCE(!t->in_pass || cntr < 0 || cntr >= XSU_NR_COUNTERS))
		return;

	t->pass_commit = true;
	if (corrupting)
		t->pass_excl |= BIT_ULL(cntr);
	else
		t->pass_shared |= BIT_ULL(cntr);
	if (pinned)
		t->pass_pin |= BIT_ULL(cntr);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_commit);

/**
 * xsu_end() - finish a scheduling pass
 * @xc:  the core's state
 * @tid: the scheduling thread
 *
 * If events were committed and the thread is tracked, they become its
 * placement, and its states cover the new counters as well as the old ones
 * until xsu_settle(); a failed pass changes nothing. Drops the lock taken
 * by xsu_begin().
 *
 * Context: interrupts disabled, on the CPU that called xsu_begin().
 */
void xsu_end(struct xsu_core *xc, int tid)
{
	struct xsu_thread *t = &xc->thread[tid];

	if (WARN_ON_ONCE(!t->in_pass))
		return;

	if (t->pass_locked) {
		if (t->pass_commit && t->tracked) {
			t->place_excl = t->pass_excl;
			t->place_shared = t->pass_shared & ~t->pass_excl;
			t->place_pin = t->pass_pin;
			t->excl |= t->place_excl;
			t->shared = (t->shared | t->place_shared) & ~t->excl;
			t->pin |= t->place_pin;
			t->settle = true;
			/* What it took back is checked at the next enable. */
			if (t->pass_reclaim)
				t->held = t->place_excl | t->place_shared;
		}
		raw_spin_unlock(&xc->lock);
	}

	t->in_pass = false;
	t->pass_locked = false;
	t->pass_enabled = false;
	t->pass_reclaim = false;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_end);

/**
 * xsu_release() - an event leaves its counter
 * @xc:   the core's state
 * @tid:  the thread the event ran on
 * @cntr: the counter it was given by the last committed pass
 *
 * The counter leaves the thread's placement; it becomes Unused for the
 * sibling at the next xsu_settle(), once the event has stopped. Inside a
 * pass this does nothing: the events a failing pass puts back never held a
 * counter, and a successful pass commits the whole placement.
 *
 * Context: interrupts disabled, on the thread's own CPU.
 */
void xsu_release(struct xsu_core *xc, int tid, int cntr)
{
	struct xsu_thread *t = &xc->thread[tid];

	lockdep_assert_irqs_disabled();
	if (t->in_pass || cntr < 0 || cntr >= XSU_NR_COUNTERS ||
	    !READ_ONCE(t->tracked))
		return;

	raw_spin_lock(&xc->lock);
	t->place_excl &= ~BIT_ULL(cntr);
	t->place_shared &= ~BIT_ULL(cntr);
	t->place_pin &= ~BIT_ULL(cntr);
	t->held &= ~BIT_ULL(cntr);
	t->settle = true;
	raw_spin_unlock(&xc->lock);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_release);

/**
 * xsu_settle() - the hardware runs the thread's placement
 * @xc:  the core's state
 * @tid: the thread
 *
 * The thread's states become exactly its placement: counters it moved away
 * from or released become Unused for the sibling. Does nothing when the
 * placement has not changed since the last call.
 *
 * Context: interrupts disabled, on the thread's own CPU, outside a pass,
 * after the hardware was reprogrammed (every moved event stopped on its old
 * counter, every event that left stopped).
 * Return: true when the sibling failed a pass on counters this call freed
 * (xsu_wait_settle()), or keeps counters disabled until this thread leaves
 * them (xsu_hold()): the caller should make it reschedule.
 */
bool xsu_settle(struct xsu_core *xc, int tid)
{
	struct xsu_thread *t = &xc->thread[tid];
	bool notify;

	lockdep_assert_irqs_disabled();
	if (!t->settle || WARN_ON_ONCE(t->in_pass))
		return false;

	t->settle = false;
	raw_spin_lock(&xc->lock);
	if (t->tracked) {
		t->excl = t->place_excl;
		t->shared = t->place_shared;
		t->pin = t->place_pin;
	}
	notify = t->notify || xc->thread[tid ^ 1].held;
	t->notify = false;
	raw_spin_unlock(&xc->lock);
	return notify;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_settle);

/**
 * xsu_wait_settle() - a failed pass may have met counters being left
 * @xc:    the core's state
 * @tid:   the scheduling thread, whose pass failed
 * @asked: the sibling is being asked to reschedule and give counters back
 *
 * When the sibling's states still cover counters outside its placement
 * (it is between a reschedule and xsu_settle()), or when it is being asked
 * to leave counters, the pass may have failed on counters about to become
 * Unused: the sibling's next xsu_settle() then reports it, so that this
 * thread can be made to retry at once rather than at its next pass.
 *
 * Context: between xsu_begin() and xsu_end() of a pass that applies masks.
 * Return: true when the sibling will report its settling.
 */
bool xsu_wait_settle(struct xsu_core *xc, int tid, bool asked)
{
	struct xsu_thread *sib = &xc->thread[tid ^ 1];

	if (!xc->thread[tid].pass_enabled)
		return false;
	lockdep_assert_held(&xc->lock);
	if (!asked && sib->excl == sib->place_excl &&
	    sib->shared == sib->place_shared)
		return false;
	sib->notify = true;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_wait_settle);

/**
 * xsu_hold() - counters the hardware must keep disabled for now
 * @xc:  the core's state
 * @tid: the thread
 *
 * A reclaim pass may give a pinned event a counter on which the sibling's
 * hardware still runs a flexible event: until the sibling has rescheduled
 * off it and settled, that counter must not count, or the corrupting one
 * of the two leaks into the other. Only a thread whose last pass reclaimed
 * counters, or that still holds some, takes the lock here.
 *
 * Context: interrupts disabled, on the thread's own CPU, outside a pass,
 * when the PMU is about to be enabled (after xsu_settle()).
 * Return: the counters of the thread's placement still in conflict with the
 * sibling's states, 0 when none is.
 */
u64 xsu_hold(struct xsu_core *xc, int tid)
{
	struct xsu_thread *t = &xc->thread[tid];
	const struct xsu_thread *sib = &xc->thread[tid ^ 1];
	u64 held;

	lockdep_assert_irqs_disabled();
	if (!READ_ONCE(t->held))
		return 0;

	raw_spin_lock(&xc->lock);
	held = (t->place_excl & (sib->excl | sib->shared)) |
	       (t->place_shared & sib->excl);
	if (!xc->enabled || !t->tracked)
		held = 0;
	t->held = held;
	raw_spin_unlock(&xc->lock);
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(xsu_hold);

/**
 * xsu_account() - count corrupting events collected on a thread
 * @xc:    the core's state
 * @tid:   the thread
 * @delta: +1 when a corrupting event joins the thread, -1 when it leaves
 *
 * Feeds xsu_corrupting_present().
 *
 * Context: on the thread's own CPU.
 */
void xsu_account(struct xsu_core *xc, int tid, int delta)
{
	struct xsu_thread *t = &xc->thread[tid];

	if (WARN_ON_ONCE(delta < 0 && t->nr_corrupting < -delta))
		delta = -t->nr_corrupting;
	t->nr_corrupting += delta;
	WRITE_ONCE(xc->corrupting[tid], t->nr_corrupting > 0);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_account);

/**
 * xsu_track() - switching on, step one: record a thread's placement
 * @xc:     the core's state
 * @tid:    the thread
 * @excl:   counters it runs corrupting events on now
 * @shared: counters it runs other events on now
 * @pin:    those of them that pinned events hold
 *
 * From now on the thread's passes keep its states up to date. Masks are
 * applied only after xsu_enable(), once both threads are tracked.
 *
 * Context: on the thread's own CPU, with its events not changing (for
 * instance from an IPI).
 */
void xsu_track(struct xsu_core *xc, int tid, u64 excl, u64 shared, u64 pin)
{
	struct xsu_thread *t = &xc->thread[tid];
	unsigned long flags;

	raw_spin_lock_irqsave(&xc->lock, flags);
	t->excl = excl;
	t->shared = shared & ~excl;
	t->place_excl = t->excl;
	t->place_shared = t->shared;
	t->pin = pin & (t->excl | t->shared);
	t->place_pin = t->pin;
	t->held = 0;
	WRITE_ONCE(t->tracked, true);
	raw_spin_unlock_irqrestore(&xc->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_track);

/**
 * xsu_enable() - switching on, step two: apply dynamic masks on the core
 * @xc: the core's state, every online thread of which is tracked
 *
 * Context: process context; the caller then makes every thread reschedule.
 */
void xsu_enable(struct xsu_core *xc)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&xc->lock, flags);
	WRITE_ONCE(xc->enabled, true);
	raw_spin_unlock_irqrestore(&xc->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_enable);

/**
 * xsu_disable() - switching off: stop applying masks and clear all states
 * @xc: the core's state
 *
 * Every counter of both threads becomes Unused and neither thread is
 * tracked any more, in one step under the lock.
 *
 * Context: any; the caller then makes every thread reschedule.
 */
void xsu_disable(struct xsu_core *xc)
{
	unsigned long flags;
	int tid;

	raw_spin_lock_irqsave(&xc->lock, flags);
	WRITE_ONCE(xc->enabled, false);
	for (tid = 0; tid < 2; tid++) {
		xc->thread[tid].excl = 0;
		xc->thread[tid].shared = 0;
		xc->thread[tid].place_excl = 0;
		xc->thread[tid].place_shared = 0;
		xc->thread[tid].pin = 0;
		xc->thread[tid].place_pin = 0;
		WRITE_ONCE(xc->thread[tid].tracked, false);
	}
	raw_spin_unlock_irqrestore(&xc->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_disable);

/*
 * A thread with no event on its counters: coming online (tracked if the
 * workaround is on, which the core then follows) or going offline.
 */
static void xsu_thread_reset(struct xsu_core *xc, int tid, bool online,
			     bool enabled)
{
	struct xsu_thread *t = &xc->thread[tid];
	bool tracked = online && enabled;
	unsigned long flags;

	raw_spin_lock_irqsave(&xc->lock, flags);
	if (online)
		WRITE_ONCE(xc->enabled, enabled);
	t->excl = 0;
	t->shared = 0;
	t->place_excl = 0;
	t->place_shared = 0;
	t->pin = 0;
	t->place_pin = 0;
	t->held = 0;
	t->notify = false;
	WRITE_ONCE(t->tracked, tracked);
	raw_spin_unlock_irqrestore(&xc->lock, flags);

	t->settle = false;
	t->nr_corrupting = 0;
	WRITE_ONCE(xc->corrupting[tid], 0);
}

/**
 * xsu_thread_online() - a thread of the core comes online
 * @xc:      the core's state
 * @tid:     the thread
 * @enabled: whether the workaround is on
 *
 * A thread coming online runs no event: all its counters are Unused.
 *
 * Context: on the thread's own CPU (CPU hotplug "starting").
 */
void xsu_thread_online(struct xsu_core *xc, int tid, bool enabled)
{
	xsu_thread_reset(xc, tid, true, enabled);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_thread_online);

/**
 * xsu_thread_offline() - a thread of the core goes offline
 * @xc:  the core's state
 * @tid: the thread
 *
 * Its counters become Unused for the sibling, whatever was left on them.
 *
 * Context: on the thread's own CPU (CPU hotplug "dying").
 */
void xsu_thread_offline(struct xsu_core *xc, int tid)
{
	xsu_thread_reset(xc, tid, false, false);
}
EXPORT_SYMBOL_IF_KUNIT(xsu_thread_offline);
