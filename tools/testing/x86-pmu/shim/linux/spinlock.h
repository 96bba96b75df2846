/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/spinlock.h>: a raw spinlock is a pthread
 * mutex that remembers its owner, so that lockdep_assert_held() can be
 * checked for real. Each pthread plays a CPU; "interrupts disabled" is a
 * per-thread flag (shim_irqs_off) that the *_irqsave variants set.
 *
 * One rule of lockdep is checked: a lock class (the locks initialised at
 * one raw_spin_lock_init() call site, as lockdep keys them) that is taken
 * in hard interrupt context (an irq_work, see irq_work.h) and also with
 * interrupts enabled could deadlock against itself; the first time both
 * are seen, a warning is printed, counted in shim_warnings and
 * debug_locks goes to 0, as lockdep's "inconsistent lock state" report
 * does. A thread taking a lock it holds already would deadlock: that is
 * reported the same way, and the program aborts rather than hang. Nothing
 * else of lockdep is modelled (see kconfig.h).
 */
#ifndef _SHIM_LINUX_SPINLOCK_H
#define _SHIM_LINUX_SPINLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/bug.h>
#include <linux/irqflags.h>

/* What lockdep would keep per lock class: the contexts it was taken in. */
struct shim_lock_class {
	const char *name;
	unsigned int usage;
};

#define SHIM_LOCK_IN_HARDIRQ	1u	/* taken in hard interrupt context */
#define SHIM_LOCK_HARDIRQ_ON	2u	/* taken with interrupts enabled */

typedef struct {
	pthread_mutex_t mutex;
	pthread_t owner;
	int held;
	struct shim_lock_class *class;
} raw_spinlock_t;

void shim_lock_usage(struct shim_lock_class *class, unsigned int usage);
void shim_lock_recursion(struct shim_lock_class *class)
	__attribute__((noreturn));

static inline void shim_raw_spin_lock_init(raw_spinlock_t *l,
					   struct shim_lock_class *class)
{
	pthread_mutex_init(&l->mutex, NULL);
	l->held = 0;
	l->class = class;
}

#define raw_spin_lock_init(l) do {					\
	static struct shim_lock_class __key = { .name = #l };		\
									\
	shim_raw_spin_lock_init((l), &__key);				\
} while (0)

/* Only this thread writes the owner it compares with: no race. */
static inline bool shim_lock_held(raw_spinlock_t *l)
{
	return __atomic_load_n(&l->held, __ATOMIC_RELAXED) &&
	       pthread_equal(__atomic_load_n(&l->owner, __ATOMIC_RELAXED),
			     pthread_self());
}

static inline void raw_spin_lock(raw_spinlock_t *l)
{
	if (shim_lock_held(l))
		shim_lock_recursion(l->class);
	pthread_mutex_lock(&l->mutex);
	__atomic_store_n(&l->owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&l->held, 1, __ATOMIC_RELAXED);
	if (l->class)
		shim_lock_usage(l->class,
				(shim_in_hardirq ? SHIM_LOCK_IN_HARDIRQ : 0) |
				(shim_irqs_off ? 0 : SHIM_LOCK_HARDIRQ_ON));
}

static inline void raw_spin_unlock(raw_spinlock_t *l)
{
	WARN_ON(!shim_lock_held(l));
	__atomic_store_n(&l->held, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l->mutex);
}

#define raw_spin_lock_irqsave(l, flags) do {				\
	(flags) = shim_irqs_off;					\
	shim_irqs_off = true;						\
	raw_spin_lock(l);						\
} while (0)

#define raw_spin_unlock_irqrestore(l, flags) do {			\
	raw_spin_unlock(l);						\
	shim_irq_restore(flags);					\
} while (0)

#endif
