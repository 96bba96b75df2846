/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/completion.h>: a counter under a pthread
 * mutex and condition variable, with the kernel's return values. Waiting
 * sleeps, so doing it with interrupts disabled warns (might_sleep()).
 */
#ifndef _SHIM_LINUX_COMPLETION_H
#define _SHIM_LINUX_COMPLETION_H

#include <pthread.h>
#include <linux/jiffies.h>

struct completion {
	pthread_mutex_t lock;
	pthread_cond_t wait;
	unsigned int done;
};

void init_completion(struct completion *x);
void complete(struct completion *x);
void wait_for_completion(struct completion *x);
/* 0 on timeout, else the jiffies left (at least 1). */
unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout);

#endif
