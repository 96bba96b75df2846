/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Optimal assignment of perf events to x86 PMU counters.
 *
 * The matcher is pure: it sees counter masks, never struct perf_event or
 * struct event_constraint, so that the same file also builds in user space
 * (tools/testing/x86-pmu).
 */
#ifndef _ARCH_X86_EVENTS_COUNTER_MATCH_H
#define _ARCH_X86_EVENTS_COUNTER_MATCH_H

#include <linux/types.h>

/* Bits 0..31 of a mask are general-purpose counters, 32..63 are not. */
#define X86_MATCH_NR_GP		32
/* One bit per counter index: X86_PMC_IDX_MAX. */
#define X86_MATCH_NR_COUNTERS	64
/* At most one event per counter index can be placed. */
#define X86_MATCH_MAX_EVENTS	X86_MATCH_NR_COUNTERS

int x86_counter_match(const u64 *masks, int n, u64 paired, int gpmax,
		      int *assign);

#endif /* _ARCH_X86_EVENTS_COUNTER_MATCH_H */
