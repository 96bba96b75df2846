// SPDX-License-Identifier: GPL-2.0
/* State and helpers behind the user-space shim headers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <linux/bug.h>
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/debug_locks.h>
#include <linux/irq_work.h>
#include <linux/spinlock.h>

unsigned long shim_warnings;
__thread bool shim_irqs_off;
__thread bool shim_in_hardirq;
int debug_locks = 1;

/* The irq_work queued on this thread ("CPU") while interrupts were off. */
static __thread struct irq_work *shim_irq_work_list;

static void shim_irq_work_run(void)
{
	struct irq_work *work;

	while ((work = shim_irq_work_list)) {
		bool hard = shim_in_hardirq;

		shim_irq_work_list = work->next;
		shim_irqs_off = true;
		shim_in_hardirq = true;
		work->pending = false;
		work->func(work);
		work->busy = false;
		shim_in_hardirq = hard;
		shim_irqs_off = false;
	}
}

void shim_irq_restore(bool off)
{
	shim_irqs_off = off;
	if (!off && shim_irq_work_list)
		shim_irq_work_run();
}

bool irq_work_queue(struct irq_work *work)
{
	if (work->pending)
		return false;
	work->pending = true;
	work->busy = true;
	work->next = shim_irq_work_list;
	shim_irq_work_list = work;
	if (!shim_irqs_off)
		shim_irq_work_run();
	return true;
}

void irq_work_sync(struct irq_work *work)
{
	/* The kernel's irq_work_sync() asserts this too. */
	WARN_ON(shim_irqs_off);
	if (work->busy && !shim_irqs_off)
		shim_irq_work_run();
	WARN_ON(work->busy);
}

void shim_lock_usage(struct shim_lock_class *class, unsigned int usage)
{
	const unsigned int both = SHIM_LOCK_IN_HARDIRQ | SHIM_LOCK_HARDIRQ_ON;
	unsigned int old;

	if (!usage || !READ_ONCE(debug_locks))
		return;
	old = __atomic_fetch_or(&class->usage, usage, __ATOMIC_RELAXED);
	if ((old & both) == both || ((old | usage) & both) != both)
		return;
	WRITE_ONCE(debug_locks, 0);
	__atomic_fetch_add(&shim_warnings, 1, __ATOMIC_RELAXED);
	fprintf(stderr,
		"WARNING: inconsistent lock state: %s taken in hard interrupt context and with interrupts enabled\n",
		class->name);
}

void shim_lock_recursion(struct shim_lock_class *class)
{
	WRITE_ONCE(debug_locks, 0);
	__atomic_fetch_add(&shim_warnings, 1, __ATOMIC_RELAXED);
	fprintf(stderr,
		"WARNING: possible recursive locking detected: %s taken by the thread that holds it; aborting rather than deadlock\n",
		class ? class->name : "a lock");
	fflush(NULL);
	abort();
}

void init_completion(struct completion *x)
{
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->wait, NULL);
	x->done = 0;
}

void complete(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	x->done++;
	pthread_cond_signal(&x->wait);
	pthread_mutex_unlock(&x->lock);
}

void wait_for_completion(struct completion *x)
{
	WARN_ON(shim_irqs_off);		/* might_sleep() */
	pthread_mutex_lock(&x->lock);
	while (!x->done)
		pthread_cond_wait(&x->wait, &x->lock);
	x->done--;
	pthread_mutex_unlock(&x->lock);
}

unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout)
{
	struct timespec now, end;
	unsigned long left = 0;
	long long ns;

	WARN_ON(shim_irqs_off);		/* might_sleep() */
	clock_gettime(CLOCK_REALTIME, &end);
	ns = end.tv_nsec + (long long)timeout * (1000000000 / HZ);
	end.tv_sec += ns / 1000000000;
	end.tv_nsec = ns % 1000000000;

	pthread_mutex_lock(&x->lock);
	while (!x->done)
		if (pthread_cond_timedwait(&x->wait, &x->lock, &end) == ETIMEDOUT)
			break;
	if (x->done) {
		x->done--;
		clock_gettime(CLOCK_REALTIME, &now);
		ns = (end.tv_sec - now.tv_sec) * 1000000000LL +
		     (end.tv_nsec - now.tv_nsec);
		left = ns > 0 ? ns / (1000000000 / HZ) : 0;
		if (!left)
			left = 1;
	}
	pthread_mutex_unlock(&x->lock);
	return left;
}
