/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/irq_work.h>.
 *
 * In the kernel, irq_work_queue() raises an interrupt on the local CPU and
 * the work runs in hard interrupt context as soon as that CPU has
 * interrupts enabled. Here it runs on the queuing thread (its "CPU"): at
 * once when interrupts are on, else when local_irq_restore() or
 * raw_spin_unlock_irqrestore() turns them back on; while it runs,
 * interrupts are off and in_hardirq() is true, so the shim's lock check
 * (spinlock.h) sees the locks it takes as taken in hard interrupt context.
 *
 * Not modelled: the work interrupting the queuing code at an arbitrary
 * instruction (it only ever runs where interrupts are re-enabled, which
 * is where the first such point would be), and a work queued for another
 * CPU (irq_work_queue_on()).
 */
#ifndef _SHIM_LINUX_IRQ_WORK_H
#define _SHIM_LINUX_IRQ_WORK_H

#include <stdbool.h>
#include <linux/irqflags.h>

struct irq_work {
	void (*func)(struct irq_work *work);
	struct irq_work *next;
	bool pending;		/* queued, not yet started */
	bool busy;		/* queued or running */
};

static inline void init_irq_work(struct irq_work *work,
				 void (*func)(struct irq_work *))
{
	work->func = func;
	work->next = NULL;
	work->pending = false;
	work->busy = false;
}

/* Returns false when @work was pending already. */
bool irq_work_queue(struct irq_work *work);
/* Waits for @work to finish; interrupts must be enabled, as in the kernel. */
void irq_work_sync(struct irq_work *work);

#endif
