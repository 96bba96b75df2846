/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/irqflags.h>. Each pthread plays a CPU;
 * "interrupts disabled" is its flag shim_irqs_off, and "hard interrupt
 * context" its flag shim_in_hardirq, set while an irq_work runs
 * (irq_work.h). Re-enabling interrupts runs the irq_work queued on the
 * thread meanwhile, as the self-IPI would arrive then.
 */
#ifndef _SHIM_LINUX_IRQFLAGS_H
#define _SHIM_LINUX_IRQFLAGS_H

#include <stdbool.h>

extern __thread bool shim_irqs_off;
extern __thread bool shim_in_hardirq;

/* Sets the flag; when interrupts come on, runs the pending irq_work. */
void shim_irq_restore(bool off);

#define local_irq_save(flags) do {					\
	(flags) = shim_irqs_off;					\
	shim_irqs_off = true;						\
} while (0)

#define local_irq_restore(flags)	shim_irq_restore(flags)
#define local_irq_disable()		(shim_irqs_off = true)
#define local_irq_enable()		shim_irq_restore(false)
#define irqs_disabled()			(shim_irqs_off)
#define in_hardirq()			(shim_in_hardirq)

#endif
