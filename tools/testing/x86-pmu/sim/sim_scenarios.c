// SPDX-License-Identifier: GPL-2.0
/*
 * Named scenarios of the simulator and the side-by-side fairness
 * comparison of the cross-thread exclusion policies: 6.12's gpmax halving
 * (modelled), xsu.c without a limit ("research"), and the series' fair
 * budgets (xsu.c with xsu_arb.c).
 */
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "sim_scenarios.h"

#define S1_HT0	"r81d0:u,r08d1:u,r20cc:u"
#define S1_HT1	"r20cc:u,r81d0:u,r08d1:u"
#define S3	"r81d0,r02c4,r20cc,r10c4,r08c4"
#define S4	"r81d0,r08d1,r10d1,r01d1,r02c4,r20cc,r10c4,r08c4,r01c9,r04c8"

const struct sim_scenario sim_scenarios[] = {
	{ "1. HSW, XSU on: HT0 from tick 0, HT1 from tick 30", "hsw", 0,
	  S1_HT0, S1_HT1, NULL, 30, 90, "hk", "upstream,series,research" },
	{ "2. the same lists with XSU off: which events are exposed", "hsw", 0,
	  S1_HT0, S1_HT1, NULL, 30, 90, "hk", "off" },
	{ "3. 1 corrupting + 4 other events on both threads, XSU off vs on",
	  "hsw", 0, S3, S3, NULL, 0, 100, "hk", "off,upstream,series,research" },
	{ "4. 10 events, 4 corrupting, on both threads", "hsw", 0, S4, S4,
	  NULL, 0, 100, "all", "off,upstream,series" },
	{ "5. four corrupting events on HT0, branches on HT1: starvation",
	  "hsw", 0, "r81d0,r08d1,r10d1,r01d1", "branches", NULL, 1, 100, "hk",
	  "upstream,series,research" },
	{ "6. -C 0x6,0x8,0x9,0xb: greedy places 3 per pass, hk 4", "generic",
	  4, NULL, NULL, "0x6,0x8,0x9,0xb", 0, 40, "all", "off" },
};

const int sim_nr_scenarios = sizeof(sim_scenarios) / sizeof(sim_scenarios[0]);

const struct sim_policy sim_fair_policies[SIM_FAIR_POLICIES] = {
	{ SIM_HK, SIM_XSU_UPSTREAM },
	{ SIM_HK, SIM_XSU_RESEARCH },
	{ SIM_HK, SIM_XSU_SERIES },
};

int sim_scenario_config(const struct sim_scenario *sc, const char *tree,
			struct sim_config *cfg, char *err, size_t errlen)
{
	int n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->ticks = sc->ticks;
	cfg->th[0].dur = -1;
	cfg->th[1].dur = -1;
	cfg->th[1].start = sc->start1;
	if (sim_pmu_lookup(sc->model, true, sc->counters, &cfg->pmu, err,
			   errlen))
		return -1;
	if (sc->masks0)
		n = sim_masks_parse(sc->masks0, cfg->th[0].ev, SIM_MAX_EVENTS,
				    err, errlen);
	else
		n = sim_events_parse(&cfg->pmu, tree, sc->ht0, cfg->th[0].ev,
				     SIM_MAX_EVENTS, err, errlen);
	if (n < 0)
		return -1;
	cfg->th[0].n = n;
	if (sc->ht1) {
		n = sim_events_parse(&cfg->pmu, tree, sc->ht1, cfg->th[1].ev,
				     SIM_MAX_EVENTS, err, errlen);
		if (n < 0)
			return -1;
		cfg->th[1].n = n;
	}
	return 0;
}

void sim_metrics_of(const struct sim_config *cfg,
		    const struct sim_result *res, struct sim_metrics *m)
{
	double sum = 0, sq = 0;
	int tid, e, k = 0;

	m->min_frac = 1;
	for (tid = 0; tid < 2; tid++) {
		for (e = 0; e < cfg->th[tid].n; e++) {
			const struct sim_event_stats *st = &res->ev[tid][e];
			double f;

			if (!st->enabled)
				continue;
			f = (double)st->running / st->enabled;
			m->min_frac = f < m->min_frac ? f : m->min_frac;
			sum += f;
			sq += f * f;
			k++;
		}
	}
	m->jain = sq > 0 ? sum * sum / (k * sq) : 1;
	m->util = res->thread_ticks ? (double)res->gp_used / res->thread_ticks : 0;
	m->reprog = cfg->ticks ? (double)res->reprogrammings / cfg->ticks : 0;
	m->kicks = cfg->ticks ? (double)res->kicks / cfg->ticks : 0;
}

/* The model's table events, split into corrupting and other ones. */
static struct sim_event pool[2][1024];
static int pool_n[2];

static int load_pool(const struct sim_pmu *pmu, const char *tree, char *err,
		     size_t errlen)
{
	static struct sim_event all[2048];
	int n, i;

	if (pool_n[0] + pool_n[1])
		return 0;
	n = sim_events_all(pmu, tree, all, 2048, err, errlen);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int c = all[i].corrupting;

		if (pool_n[c] < 1024)
			pool[c][pool_n[c]++] = all[i];
	}
	if (!pool_n[0] || !pool_n[1]) {
		sim_err(err, errlen, "the %s tables lack corrupting or other events",
			pmu->name);
		return -1;
	}
	return 0;
}

int sim_random_config(const char *tree, u64 seed, int i,
		      struct sim_config *cfg, char *err, size_t errlen)
{
	u64 rng = seed * 0x9e3779b97f4a7c15ULL + i + 1;
	int tid, k;

	memset(cfg, 0, sizeof(*cfg));
	if (sim_pmu_lookup("hsw", true, 0, &cfg->pmu, err, errlen) ||
	    load_pool(&cfg->pmu, tree, err, errlen))
		return -1;
	cfg->ticks = 100;
	cfg->order = rng_next(&rng) % 3;
	cfg->seed = rng_next(&rng);

	for (tid = 0; tid < 2; tid++) {
		struct sim_thread_cfg *th = &cfg->th[tid];
		int n = 1 + rng_next(&rng) % 10;
		int c = rng_next(&rng) % 5;

		c = c > n ? n : c;
		th->n = n;
		th->dur = -1;
		th->start = rng_next(&rng) % 10;
		for (k = 0; k < n; k++) {
			int corr = k < c;

			th->ev[k] = pool[corr][rng_next(&rng) % pool_n[corr]];
		}
		/* shuffle the corrupting ones into place */
		for (k = n - 1; k > 0; k--) {
			int j = rng_next(&rng) % (k + 1);
			struct sim_event tmp = th->ev[k];

			th->ev[k] = th->ev[j];
			th->ev[j] = tmp;
		}
	}
	return 0;
}

static long exposed(const struct sim_config *cfg, const struct sim_result *res)
{
	long sum = 0;
	int tid, e;

	for (tid = 0; tid < 2; tid++)
		for (e = 0; e < cfg->th[tid].n; e++)
			sum += res->ev[tid][e].exposure;
	return sum;
}

int sim_fairness_run(const char *tree, int nr_random, u64 seed,
		     struct sim_fairness *f, char *err, size_t errlen)
{
	static struct sim_config cfg;
	static struct sim_result res;
	long gp[SIM_FAIR_POLICIES] = { 0 }, tt[SIM_FAIR_POLICIES] = { 0 };
	int s, p, i;

	memset(f, 0, sizeof(*f));
	f->nr_random = nr_random;
	for (s = 0; s < 5; s++) {
		if (sim_scenario_config(&sim_scenarios[s], tree, &cfg, err,
					errlen))
			return -1;
		for (p = 0; p < SIM_FAIR_POLICIES; p++) {
			if (sim_run(&cfg, &sim_fair_policies[p], &res, false))
				return -1;
			sim_metrics_of(&cfg, &res, &f->scenario[s][p]);
			f->exposed[p] += exposed(&cfg, &res);
		}
	}

	for (i = 0; i < nr_random; i++) {
		struct sim_metrics m[SIM_FAIR_POLICIES];

		if (sim_random_config(tree, seed, i, &cfg, err, errlen))
			return -1;
		for (p = 0; p < SIM_FAIR_POLICIES; p++) {
			if (sim_run(&cfg, &sim_fair_policies[p], &res, false))
				return -1;
			sim_metrics_of(&cfg, &res, &m[p]);
			gp[p] += res.gp_used;
			tt[p] += res.thread_ticks;
			f->mix[p].util += m[p].util / nr_random;
			f->mix[p].min_frac += m[p].min_frac / nr_random;
			f->mix[p].jain += m[p].jain / nr_random;
			f->mix[p].reprog += m[p].reprog / nr_random;
			f->mix[p].kicks += m[p].kicks / nr_random;
			f->starved[p] += m[p].min_frac == 0;
			f->exposed[p] += exposed(&cfg, &res);
		}
		for (p = 0; p < SIM_FAIR_POLICIES; p++)
			f->below_upstream[p] += m[p].min_frac < m[0].min_frac;
	}
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		f->mix_util[p] = tt[p] ? (double)gp[p] / tt[p] : 0;
	return 0;
}

/* Multiplexing intervals in a second at HZ=250's 4 ms default. */
#define SIM_TICKS_PER_S	250

void sim_fairness_print(const struct sim_fairness *f)
{
	int s, p;

	printf("%-34s", "scenario");
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		printf(" | %-33s", sim_policy_name(&sim_fair_policies[p]));
	printf("\n%-34s", "");
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		printf(" | %6s %5s %6s %6s %6s", "util", "min", "Jain", "repr",
		       "kick/s");
	printf("\n");
	for (s = 0; s < 5; s++) {
		printf("%-34.34s", sim_scenarios[s].title);
		for (p = 0; p < SIM_FAIR_POLICIES; p++) {
			const struct sim_metrics *m = &f->scenario[s][p];

			printf(" | %6.2f %5.2f %6.3f %6.3f %6.1f", m->util,
			       m->min_frac, m->jain, m->reprog,
			       m->kicks * SIM_TICKS_PER_S);
		}
		printf("\n");
	}
	printf("%-34s", "random mix (averages)");
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		printf(" | %6.2f %5.2f %6.3f %6.3f %6.1f", f->mix_util[p],
		       f->mix[p].min_frac, f->mix[p].jain, f->mix[p].reprog,
		       f->mix[p].kicks * SIM_TICKS_PER_S);
	printf("\n%-34s", "random runs with a starved event");
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		printf(" | %33d", f->starved[p]);
	printf("\n%-34s", "random runs, minimum below 6.12's");
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		printf(" | %33d", f->below_upstream[p]);
	printf("\n%-34s", "exposed event-ticks, all runs");
	for (p = 0; p < SIM_FAIR_POLICIES; p++)
		printf(" | %33ld", f->exposed[p]);
	printf("\n\nutil: GP counters in use per thread-tick; min: smallest scheduled\n"
	       "fraction of any event (0: starvation); Jain: Jain's fairness index\n"
	       "over all events' scheduled fractions; repr: reprogrammings per tick;\n"
	       "kick/s: reschedules one thread made the other make (an irq_work on\n"
	       "its CPU) per second, a tick being one multiplexing interval at the\n"
	       "4 ms default of HZ=250 (at a 30 ms interval: 33/250 of that).\n"
	       "Random mix: %d seeded two-thread runs, 1-10 events per thread from\n"
	       "the HSW tables, 0-4 of them corrupting, 100 ticks; util is over all\n"
	       "thread-ticks of the mix, the others are averages of the runs.\n",
	       f->nr_random);
}
