/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XSU: cross-hyper-thread counter exclusion for the Intel SandyBridge,
 * IvyBridge and Haswell erratum (BJ122, BV98, HSD29): an event with code
 * 0xd0-0xd3 on counter i of one thread corrupts counter i of its sibling.
 *
 * Each counter index of a core has a state per thread: eXclusive (runs a
 * corrupting event), Shared (runs another event) or Unused. A corrupting
 * event may only go where the sibling's counter is Unused, any other event
 * where it is not eXclusive.
 *
 * The unit is pure: it knows counter masks and thread ids, not perf_event,
 * so that it also builds in user space (tools/testing/x86-pmu).
 */
#ifndef _ARCH_X86_EVENTS_INTEL_XSU_H
#define _ARCH_X86_EVENTS_INTEL_XSU_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/spinlock.h>
#include <linux/types.h>

enum xsu_state {
	XSU_UNUSED = 0,
	XSU_SHARED,
	XSU_EXCLUSIVE,
};

/**
 * struct xsu_thread - one hyper-thread's side of a core's XSU state
 * @excl:          counters the sibling must treat as running a corrupting
 *                 event (eXclusive)
 * @shared:        counters it must treat as running another event (Shared)
 * @place_excl:    the counters of corrupting events in the thread's
 *                 placement: its last committed pass, less the events that
 *                 left since
 * @place_shared:  the counters of its other events in that placement
 * @pin:           counters of @excl and @shared that pinned events hold
 *                 (or held until the last xsu_settle())
 * @place_pin:     the counters of pinned events in the placement
 * @held:          counters of the placement that the hardware must keep
 *                 disabled: the sibling's states still conflict with them
 *                 (a pinned event took them back, xsu_hold())
 * @tracked:       the states follow this thread's placements
 * @settle:        the placement changed since the last xsu_settle()
 * @notify:        the sibling failed a pass while this thread's states still
 *                 covered counters it is leaving: tell it once settled
 * @pass_excl:     eXclusive counters of the pass being committed
 * @pass_shared:   Shared counters of the pass being committed
 * @pass_pin:      counters of pinned events in the pass being committed
 * @pass_reclaim:  the pass places pinned events over the sibling's
 *                 flexible ones (xsu_constrain())
 * @in_pass:       a scheduling pass is running on this thread
 * @pass_locked:   that pass holds &xsu_core.lock
 * @pass_enabled:  that pass applies dynamic masks
 * @pass_commit:   that pass placed every event and commits them
 * @nr_corrupting: corrupting events collected on this thread
 *
 * Until the hardware runs a new placement, the states cover both the old
 * and the new one (xsu_end(), xsu_release()); xsu_settle() then narrows
 * them to the placement. The sibling thus never sees a counter Unused while
 * an event is still enabled on it, nor before one is.
 *
 * A pinned event may take a counter from the sibling's flexible events
 * (perf would otherwise put it into error for good): its pass ignores
 * those (@pass_reclaim), and until the sibling has rescheduled and
 * settled, the counter stays disabled in hardware (@held).
 *
 * @excl, @shared, @pin, the place_* fields, @held, @notify and @tracked are
 * protected by &xsu_core.lock; the pass_* fields, @in_pass, @settle and
 * @nr_corrupting belong to the thread's own CPU.
 */
struct xsu_thread {
	u64		excl;
	u64		shared;
	u64		place_excl;
	u64		place_shared;
	u64		pin;
	u64		place_pin;
	u64		held;
	bool		tracked;
	bool		settle;
	bool		notify;
	u64		pass_excl;
	u64		pass_shared;
	u64		pass_pin;
	bool		pass_reclaim;
	bool		in_pass;
	bool		pass_locked;
	bool		pass_enabled;
	bool		pass_commit;
	unsigned int	nr_corrupting;
};

/**
 * struct xsu_core - XSU state shared by the two threads of a core
 * @lock:       serialises scheduling passes of the two threads
 * @enabled:    dynamic masks are applied (ht_bug_workaround is 1)
 * @corrupting: thread t has corrupting events collected
 * @thread:     per-thread states
 * @refcnt:     threads attached (CPU hotplug)
 * @core_id:    core the state belongs to, -1 before the first attach
 */
struct xsu_core {
	raw_spinlock_t		lock;
	bool			enabled;
	u8			corrupting[2];
	struct xsu_thread	thread[2];
	int			refcnt;
	int			core_id;
};

u64 xsu_allowed_mask(u64 static_mask, bool corrupting, u64 sibling_excl,
		     u64 sibling_shared);
enum xsu_state xsu_counter_state(const struct xsu_core *xc, int tid,
				 int cntr);

void xsu_init(struct xsu_core *xc, bool enabled);
void xsu_begin(struct xsu_core *xc, int tid, bool reclaim);
u64 xsu_constrain(struct xsu_core *xc, int tid, u64 static_mask,
		  bool corrupting, bool pinned);
void xsu_commit(struct xsu_core *xc, int tid, int cntr, bool corrupting,
		bool pinned);
void xsu_end(struct xsu_core *xc, int tid);
void xsu_release(struct xsu_core *xc, int tid, int cntr);
bool xsu_settle(struct xsu_core *xc, int tid);
bool xsu_wait_settle(struct xsu_core *xc, int tid, bool asked);
u64 xsu_hold(struct xsu_core *xc, int tid);
void xsu_account(struct xsu_core *xc, int tid, int delta);

void xsu_track(struct xsu_core *xc, int tid, u64 excl, u64 shared, u64 pin);
void xsu_enable(struct xsu_core *xc);
void xsu_disable(struct xsu_core *xc);
void xsu_thread_online(struct xsu_core *xc, int tid, bool enabled);
void xsu_thread_offline(struct xsu_core *xc, int tid);

/**
 * xsu_pass_enabled() - whether the running pass applies dynamic masks
 * @xc:  the core's state
 * @tid: the scheduling thread
 *
 * Context: between xsu_begin() and xsu_end().
 * Return: true when the pass applies dynamic masks.
 */
static inline bool xsu_pass_enabled(const struct xsu_core *xc, int tid)
{
	return xc->thread[tid].pass_enabled;
}

/**
 * xsu_corrupting_on_core() - either thread has a corrupting event collected
 * @xc: the core's state
 *
 * Return: true when a corrupting event is collected on the core, whether
 * or not it is placed and whether or not the workaround is on.
 */
static inline bool xsu_corrupting_on_core(const struct xsu_core *xc)
{
	return READ_ONCE(xc->corrupting[0]) || READ_ONCE(xc->corrupting[1]);
}

/**
 * xsu_corrupting_present() - a corrupting event is collected on the core
 * @xc:  the core's state, or NULL where the erratum does not apply
 * @tid: the scheduling thread
 *
 * Only then can the two threads of the core compete for counters: without
 * an eXclusive state, every event keeps its static mask.
 *
 * Context: between xsu_begin() and xsu_end().
 * Return: true when the running pass applies dynamic masks and either
 * thread has a corrupting event.
 */
static inline bool xsu_corrupting_present(const struct xsu_core *xc, int tid)
{
	return xc && xsu_pass_enabled(xc, tid) && xsu_corrupting_on_core(xc);
}

/**
 * xsu_pass_committed() - the running pass placed every event
 * @xc:  the core's state
 * @tid: the scheduling thread
 *
 * Context: between xsu_begin() and xsu_end().
 * Return: true once xsu_commit() has recorded the pass's placement.
 */
static inline bool xsu_pass_committed(const struct xsu_core *xc, int tid)
{
	return xc->thread[tid].pass_commit;
}

/**
 * xsu_held() - counters a thread holds
 * @xc:  the core's state
 * @tid: the thread
 *
 * Context: with &xsu_core.lock held (between xsu_begin() and xsu_end()).
 * Return: the counters of @tid's placement (its last committed pass, less
 * the events that left since), which its states cover.
 */
static inline u64 xsu_held(const struct xsu_core *xc, int tid)
{
	return xc->thread[tid].place_excl | xc->thread[tid].place_shared;
}

#endif /* _ARCH_X86_EVENTS_INTEL_XSU_H */
