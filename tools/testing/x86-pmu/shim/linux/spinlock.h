/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/spinlock.h>: a raw spinlock is a pthread
 * mutex that remembers its owner, so that lockdep_assert_held() can be
 * checked for real. Each pthread plays a CPU; "interrupts disabled" is a
 * per-thread flag (shim_irqs_off) that the *_irqsave variants set.
 */
#ifndef _SHIM_LINUX_SPINLOCK_H
#define _SHIM_LINUX_SPINLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/bug.h>

typedef struct {
	pthread_mutex_t mutex;
	pthread_t owner;
	int held;
} raw_spinlock_t;

extern __thread bool shim_irqs_off;

static inline void raw_spin_lock_init(raw_spinlock_t *l)
{
	pthread_mutex_init(&l->mutex, NULL);
	l->held = 0;
}

static inline void raw_spin_lock(raw_spinlock_t *l)
{
	pthread_mutex_lock(&l->mutex);
	l->owner = pthread_self();
	l->held = 1;
}

static inline void raw_spin_unlock(raw_spinlock_t *l)
{
	WARN_ON(!l->held || !pthread_equal(l->owner, pthread_self()));
	l->held = 0;
	pthread_mutex_unlock(&l->mutex);
}

#define raw_spin_lock_irqsave(l, flags) do {				\
	(flags) = shim_irqs_off;					\
	shim_irqs_off = true;						\
	raw_spin_lock(l);						\
} while (0)

#define raw_spin_unlock_irqrestore(l, flags) do {			\
	raw_spin_unlock(l);						\
	shim_irqs_off = (flags);					\
} while (0)

/* Called with the lock held by this thread: owner is stable then. */
static inline bool shim_lock_held(raw_spinlock_t *l)
{
	return l->held && pthread_equal(l->owner, pthread_self());
}

#endif
