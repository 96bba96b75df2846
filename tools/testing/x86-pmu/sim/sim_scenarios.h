/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator's named scenarios (the regression scenarios of the
 * simulator issue) and the fairness comparison of the XSU policies.
 */
#ifndef _X86_PMU_SIM_SCENARIOS_H
#define _X86_PMU_SIM_SCENARIOS_H

#include "sim_engine.h"

struct sim_scenario {
	const char *title;
	const char *model;	/* "hsw", "generic", ... */
	int counters;		/* GP counters of "generic" */
	const char *ht0, *ht1;	/* event lists (NULL: none) */
	const char *masks0;	/* HT0 as -C masks instead */
	int start1;		/* first tick of HT1 */
	int ticks;
	const char *matchers;	/* policies shown by default */
	const char *xsus;
};

extern const struct sim_scenario sim_scenarios[];
extern const int sim_nr_scenarios;

/* Fill @cfg for scenario @sc. Returns 0, or -1 with @err set. */
int sim_scenario_config(const struct sim_scenario *sc, const char *tree,
			struct sim_config *cfg, char *err, size_t errlen);

/* What the fairness comparison reports of one run. */
struct sim_metrics {
	double util;		/* GP counters in use per thread-tick */
	double min_frac;	/* smallest scheduled fraction of any event */
	double jain;		/* Jain's index over all events' fractions */
	double reprog;		/* reprogrammings per tick */
	double kicks;		/* reschedules asked of the sibling, per tick */
};

void sim_metrics_of(const struct sim_config *cfg,
		    const struct sim_result *res, struct sim_metrics *m);

/*
 * Random two-thread scenario number @i of a mix seeded with @seed: each
 * thread 1-10 events from the model's tables, 0-4 of them corrupting, a
 * start tick 0-9, a random sibling order, 100 ticks.
 */
int sim_random_config(const char *tree, u64 seed, int i,
		      struct sim_config *cfg, char *err, size_t errlen);

#define SIM_FAIR_POLICIES	3	/* XSU upstream, research, series (hk) */

struct sim_fairness {
	int nr_random;
	struct sim_metrics scenario[5][SIM_FAIR_POLICIES];	/* scenarios 1-5 */
	struct sim_metrics mix[SIM_FAIR_POLICIES];		/* averages */
	double mix_util[SIM_FAIR_POLICIES];	/* sum GP in use / thread-ticks */
	int starved[SIM_FAIR_POLICIES];		/* random runs with a 0% event */
	int below_upstream[SIM_FAIR_POLICIES];	/* runs whose minimum < 6.12's */
	long exposed[SIM_FAIR_POLICIES];	/* exposed event-ticks, all runs */
};

extern const struct sim_policy sim_fair_policies[SIM_FAIR_POLICIES];

/* Scenarios 1-5 and @nr_random random runs under each policy. */
int sim_fairness_run(const char *tree, int nr_random, u64 seed,
		     struct sim_fairness *f, char *err, size_t errlen);
void sim_fairness_print(const struct sim_fairness *f);

#endif
