// SPDX-License-Identifier: GPL-2.0
/*
 * Two pthreads play the sibling hyper-threads of one core and share one
 * struct xsu_core from arch/x86/events/intel/xsu.c and one struct xsu_arb
 * from xsu_arb.c. Each adds and removes random events (4 GP + 3 fixed
 * counters, some of them corrupting) and reschedules its window through
 * pass.c with the arbitration driven as the kernel glue drives it, as
 * x86_pmu_add() and x86_pmu_del() do; a kick makes the sibling reschedule
 * its whole list. A third thread advances the clock and flips the
 * workaround off and on with the kernel's protocol (disable; each thread
 * records its own placement; enable).
 *
 * Checked at every commit, with the core lock held: no counter index runs
 * a corrupting event on one thread while the sibling's same counter is in
 * use, and each thread's states are exactly its own placement. Built with
 * ThreadSanitizer in make check.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intel/xsu.h"
#include "intel/xsu_arb.h"
#include "oracle.h"
#include "pass.h"
#include "tap.h"

#define GP4		0xfULL
#define FIXED(i)	(1ULL << (32 + (i)))

static struct xsu_core xc;
static struct xsu_arb arb;
static unsigned long clock_ticks;	/* advanced by the switcher */
static long kicks;
static int iterations = 200000;
static int stop_switching;
static int want_track[2];	/* the switcher's IPIs to each thread: */
static int want_resched[2];	/* record placement; reschedule */
static long conflicts, mismatches, commits, passes, switches;

struct worker {
	int tid;
	u64 rng;
	struct pass_events ev;
	struct pass_xsu_arb glue;
};

/* One pass with the arbitration; a kick asks the sibling to resched. */
static int pass(struct worker *w, struct pass_events *ev)
{
	int left;

	w->glue.now = __atomic_load_n(&clock_ticks, __ATOMIC_RELAXED);
	left = pass_run(&pass_xsu_arb_hooks, &w->glue, w->tid, ev, 4, NULL,
			NULL, NULL);
	if (w->glue.kick[w->tid ^ 1]) {
		w->glue.kick[w->tid ^ 1] = false;
		__atomic_fetch_add(&kicks, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&want_resched[w->tid ^ 1], 1, __ATOMIC_RELEASE);
	}
	return left;
}

static void account(struct worker *w, bool corrupting, int delta)
{
	if (corrupting)
		xsu_account(&xc, w->tid, delta);
}

static void placement(const struct pass_events *ev, u64 *ex, u64 *sh)
{
	int i;

	*ex = 0;
	*sh = 0;
	for (i = 0; i < ev->n; i++) {
		if (ev->counter[i] < 0)
			continue;
		if (ev->corrupting[i])
			*ex |= 1ULL << ev->counter[i];
		else
			*sh |= 1ULL << ev->counter[i];
	}
}

/*
 * At every commit of a pass that applied dynamic masks, with the lock
 * held: the new placement against the sibling's states.
 */
static void check_commit(struct xsu_core *core, int tid,
			 const struct pass_events *ev)
{
	const struct xsu_thread *s = &core->thread[tid ^ 1];
	u64 ex, sh;

	if (!core->thread[tid].pass_enabled)
		return;
	if (!shim_lock_held(&core->lock))
		__atomic_fetch_add(&mismatches, 1, __ATOMIC_RELAXED);
	placement(ev, &ex, &sh);
	if ((ex & (s->excl | s->shared)) || (s->excl & sh))
		__atomic_fetch_add(&conflicts, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&commits, 1, __ATOMIC_RELAXED);
}

/* With the lock held: a tracked thread's states are its placement. */
static void check_exact(const struct worker *w)
{
	const struct xsu_thread *t = &xc.thread[w->tid];
	u64 ex, sh;

	placement(&w->ev, &ex, &sh);
	if (t->tracked && (t->excl != ex || t->shared != sh))
		__atomic_fetch_add(&mismatches, 1, __ATOMIC_RELAXED);
}

static void remove_event(struct worker *w, int i)
{
	shim_irqs_off = true;
	xsu_release(&xc, w->tid, w->ev.counter[i]);
	shim_irqs_off = false;
	account(w, w->ev.corrupting[i], -1);
	memmove(&w->ev.mask[i], &w->ev.mask[i + 1],
		(w->ev.n - i - 1) * sizeof(u64));
	memmove(&w->ev.corrupting[i], &w->ev.corrupting[i + 1],
		(w->ev.n - i - 1) * sizeof(bool));
	memmove(&w->ev.counter[i], &w->ev.counter[i + 1],
		(w->ev.n - i - 1) * sizeof(int));
	w->ev.n--;
}

/*
 * perf_pmu_resched(): every event leaves its counter, then the list is
 * added back one event at a time; what no longer fits stays out (here:
 * is dropped).
 */
static void resched(struct worker *w)
{
	struct pass_events all = w->ev;
	int i;

	while (w->ev.n)
		remove_event(w, w->ev.n - 1);
	for (i = 0; i < all.n; i++) {
		struct pass_events next = w->ev;
		int k = next.n++;

		next.mask[k] = all.mask[i];
		next.corrupting[k] = all.corrupting[i];
		next.counter[k] = all.counter[i];
		account(w, next.corrupting[k], 1);
		if (!pass(w, &next))
			w->ev = next;
		else
			account(w, next.corrupting[k], -1);
	}
}

static u64 random_mask(u64 *rng, bool *corrupting)
{
	u64 r = rng_next(rng) % 8;

	*corrupting = r < 3;
	if (r < 3)
		return GP4;			/* 0xd0-0xd3: GP only */
	if (r == 3)
		return GP4 | FIXED(r % 3);
	if (r == 4)
		return 1ULL << (rng_next(rng) % 4);
	return GP4;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	int it;

	for (it = 0; it < iterations; it++) {
		u64 r = rng_next(&w->rng);

		/* The switcher's IPI: record what is on our counters. */
		if (__atomic_load_n(&want_track[w->tid], __ATOMIC_ACQUIRE)) {
			u64 ex, sh;

			placement(&w->ev, &ex, &sh);
			xsu_track(&xc, w->tid, ex, sh, 0);
			__atomic_store_n(&want_track[w->tid], 0, __ATOMIC_RELEASE);
		}
		if (__atomic_load_n(&want_resched[w->tid], __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&want_resched[w->tid], 0, __ATOMIC_RELEASE);
			resched(w);
			/* intel_xsu_kick_fn(): rescheduled as asked */
			shim_irqs_off = true;
			raw_spin_lock(&xc.lock);
			xsu_arb_rescheduled(&arb, w->tid);
			raw_spin_unlock(&xc.lock);
			shim_irqs_off = false;
		}

		if (w->ev.n < 10 && r % 3) {
			struct pass_events next = w->ev;
			bool corr;
			int i = next.n++;

			next.mask[i] = random_mask(&w->rng, &corr);
			next.corrupting[i] = corr;
			next.counter[i] = -1;
			account(w, corr, 1);
			if (!pass(w, &next))
				w->ev = next;
			else
				account(w, corr, -1);
		} else if (w->ev.n) {
			remove_event(w, rng_next(&w->rng) % w->ev.n);
		}

		/* Reschedule the window as it is, then check book-keeping. */
		if (w->ev.n)
			pass(w, &w->ev);
		shim_irqs_off = true;
		xsu_settle(&xc, w->tid);	/* x86_pmu_enable() */
		xsu_begin(&xc, w->tid, false);
		if (xc.thread[w->tid].pass_locked)
			check_exact(w);
		xsu_end(&xc, w->tid);
		shim_irqs_off = false;
		__atomic_fetch_add(&passes, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *switcher_run(void *arg)
{
	while (!__atomic_load_n(&stop_switching, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&clock_ticks, 1, __ATOMIC_RELAXED);
		usleep(200);
		xsu_disable(&xc);
		usleep(200);
		__atomic_store_n(&want_track[0], 1, __ATOMIC_RELEASE);
		__atomic_store_n(&want_track[1], 1, __ATOMIC_RELEASE);
		while ((__atomic_load_n(&want_track[0], __ATOMIC_ACQUIRE) ||
			__atomic_load_n(&want_track[1], __ATOMIC_ACQUIRE)) &&
		       !__atomic_load_n(&stop_switching, __ATOMIC_ACQUIRE))
			usleep(10);
		xsu_enable(&xc);
		__atomic_store_n(&want_resched[0], 1, __ATOMIC_RELEASE);
		__atomic_store_n(&want_resched[1], 1, __ATOMIC_RELEASE);
		switches++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[2] = { { .tid = 0, .rng = 11 }, { .tid = 1, .rng = 22 } };
	pthread_t th[2], sw;
	int i;

	if (argc > 1)
		iterations = atoi(argv[1]);

	pass_commit_hook = check_commit;
	xsu_init(&xc, true);
	xsu_arb_init(&arb, 4);
	for (i = 0; i < 2; i++) {
		w[i].glue.xc = &xc;
		w[i].glue.arb = &arb;
		w[i].glue.hold = 2;
	}
	xsu_thread_online(&xc, 0, true);
	xsu_thread_online(&xc, 1, true);

	pthread_create(&sw, NULL, switcher_run, NULL);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker_run, &w[i]);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&stop_switching, 1, __ATOMIC_RELEASE);
	pthread_join(sw, NULL);

	tap_diag("%ld passes, %ld commits with masks applied, %ld off/on switches, %ld kicks",
		 passes, commits, switches, kicks);
	tap_diag("conflicts %ld, book-keeping mismatches %ld", conflicts,
		 mismatches);
	tap_result(passes == 2L * iterations && commits > 0 && switches > 0 &&
		   kicks > 0,
		   "stress: both siblings scheduled, kicked each other, the workaround switched");
	tap_result(!conflicts,
		   "stress: no corrupting event beside a used sibling counter at any commit");
	tap_result(!mismatches,
		   "stress: each thread's states are exactly its placement");
	return tap_finish();
}
