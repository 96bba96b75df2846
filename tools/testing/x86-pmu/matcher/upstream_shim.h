/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What upstream's greedy scheduler (extracted by upstream-greedy.sh) needs
 * to compile in user space. It is renamed so that it can sit next to the
 * new matcher in one program.
 */
#ifndef _X86_PMU_UPSTREAM_SHIM_H
#define _X86_PMU_UPSTREAM_SHIM_H

#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/types.h>

#define INTEL_PMC_IDX_FIXED	32
#define X86_PMC_IDX_MAX		64

#define PERF_ARCH(name, val)	PERF_X86_EVENT_##name = val,
enum {
#include "perf_event_flags.h"
};
#undef PERF_ARCH

#define perf_assign_events	upstream_perf_assign_events

struct event_constraint;
int upstream_perf_assign_events(struct event_constraint **constraints, int n,
				int wmin, int wmax, int gpmax, int *assign);

#endif
