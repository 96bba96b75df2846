/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator's engine: the perf generic layer's add-and-rotate loop on
 * two sibling threads, one policy at a time. The matcher and the XSU
 * protocol of the series are the kernel's own files; "greedy" and "XSU as
 * upstream 6.12" are models of what the series replaces.
 */
#ifndef _X86_PMU_SIM_ENGINE_H
#define _X86_PMU_SIM_ENGINE_H

#include "sim_events.h"
#include "sim_svg.h"

enum sim_matcher {
	SIM_GREEDY,		/* upstream 6.12's weight-order first fit (model) */
	SIM_HK,			/* the series: x86_counter_match() */
};

enum sim_xsu {
	SIM_XSU_OFF,		/* no cross-thread exclusion */
	SIM_XSU_UPSTREAM,	/* Linux 6.12's intel_excl_cntrs (model), gpmax halving */
	SIM_XSU_SERIES,		/* the series: xsu.c with xsu_arb.c's fair budgets */
	SIM_XSU_RESEARCH,	/* xsu.c without any starvation limit */
};

enum sim_order {
	SIM_ORDER_FIXED,	/* HT0 then HT1 every tick */
	SIM_ORDER_ALTERNATE,	/* HT0 first on even ticks, HT1 on odd ones */
	SIM_ORDER_RANDOM,	/* seeded coin flip every tick */
};

struct sim_policy {
	enum sim_matcher matcher;
	enum sim_xsu xsu;
};

struct sim_thread_cfg {
	int n;
	struct sim_event ev[SIM_MAX_EVENTS];
	/*
	 * With @grouped, events come in groups (perf's {a,b}): @leader marks
	 * the first event of each, and a group is added, scheduled and
	 * rotated as one. Without, every event is a group of its own.
	 */
	bool grouped;
	bool leader[SIM_MAX_EVENTS];
	double rate[SIM_MAX_EVENTS];	/* events per tick, for estimated counts */
	int start;			/* first tick the list is enabled */
	int dur;			/* ticks it stays enabled, -1: to the end */
};

struct sim_config {
	struct sim_pmu pmu;
	struct sim_thread_cfg th[2];
	int ticks;
	enum sim_order order;
	u64 seed;
	bool cont;		/* keep adding past the first failing event */
	bool no_full;		/* with cont: also past a full PMU (no early exit) */
	/*
	 * HT1's list starts @rotate1 rotations ahead of HT0's (modulo its
	 * number of groups): where two siblings run the same list, which of
	 * its groups each has at the head at the same moment.
	 */
	int rotate1;
	/*
	 * Rotations each thread makes in each tick, a digit per tick (a
	 * host's timer expiries; NULL or past the end: one per tick). A tick
	 * without one leaves the thread's events where they were; two are two
	 * passes, each rotating.
	 */
	const char *rotations[2];
	/*
	 * The thread that acts first in each tick, a digit (0 or 1) per
	 * tick (a host's record of whose timer expired first); NULL or past
	 * the end: @order.
	 */
	const char *first;
	/*
	 * Ticks a thread's demand lasts without renewal (0: 2, the kernel's
	 * two multiplexing intervals); a replay whose ticks are a fraction
	 * of an interval scales it.
	 */
	int hold;
};

#define SIM_ROWS	64	/* counter indexes tracked per event */

struct sim_event_stats {
	long enabled;		/* ticks the event was enabled */
	long running;		/* ticks it was on a counter */
	long exposure;		/* running ticks beside a sibling's corrupting event */
	long on_counter[SIM_ROWS];
	double raw;		/* estimated raw count, leaks included */
	double leaked;		/* of which leaked in by the erratum */
};

struct sim_result {
	struct sim_event_stats ev[2][SIM_MAX_EVENTS];
	long reprogrammings;	/* events moved between counters, all ticks */
	long passes;		/* scheduling passes run */
	long rounds;		/* thread turns that scheduled groups */
	long past_failure;	/* passes run after a group of the round failed */
	long kicks;		/* reschedules one thread asked of the other */
	long gp_used;		/* sum over thread-ticks of GP counters in use */
	long thread_ticks;	/* thread-ticks with the thread enabled */
	struct sim_timeline *tl;	/* if asked for; free with sim_timeline_free() */
};

/* The number of groups of @c's list: what one rotation moves is one. */
int sim_groups(const struct sim_thread_cfg *c);

/* Run @cfg under @pol. With @timeline, res->tl records every tick. */
int sim_run(const struct sim_config *cfg, const struct sim_policy *pol,
	    struct sim_result *res, bool timeline);
void sim_timeline_free(struct sim_timeline *tl);

const char *sim_policy_name(const struct sim_policy *pol);

/* Upstream 6.12's greedy, modelled independently (x86_counter_match contract). */
int sim_greedy_match(const u64 *masks, int n, u64 paired, int gpmax,
		     int *assign);

/* Counter an event ran on most, -1 if never. */
int sim_top_counter(const struct sim_event_stats *st);

#endif
