// SPDX-License-Identifier: GPL-2.0
/*
 * x86-pmu-sim --metric-table: every metric group of perf's SandyBridge,
 * IvyBridge and Haswell tables on both siblings (and a few mixed pairs,
 * top-down on one thread and memory on the other), under each policy:
 * the smallest and the mean scheduled fraction of the events, whether an
 * event never runs, and the exposure with XSU off.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"
#include "sim_metrics.h"
#include "sim_metrics_table.h"

/* Top-down on HT0, memory on HT1. */
static const char *const mixed[][2] = {
	{ "TopdownL1", "MemoryBound" },
	{ "TopdownL2", "MemoryLat" },
	{ "TopdownL3", "CacheMisses" },
};

/* The columns: the three XSU policies, each matcher; XSU off last. */
static const struct sim_policy table_pols[] = {
	{ SIM_GREEDY, SIM_XSU_UPSTREAM }, { SIM_HK, SIM_XSU_UPSTREAM },
	{ SIM_GREEDY, SIM_XSU_RESEARCH }, { SIM_HK, SIM_XSU_RESEARCH },
	{ SIM_GREEDY, SIM_XSU_SERIES }, { SIM_HK, SIM_XSU_SERIES },
	{ SIM_GREEDY, SIM_XSU_OFF }, { SIM_HK, SIM_XSU_OFF },
};

#define NR_POLS	(ARRAY_SIZE(table_pols))

/**
 * sim_metrics_thread() - a thread runs what perf stat -M @names opens
 * @cfg: the run; its PMU model must be set
 * @tid: the thread, 0 or 1
 * @tree: kernel tree of perf's tables
 * @names: metric and metric group names, comma-separated
 * @err: where a message goes
 * @errlen: its size
 *
 * Return: 0, or -1 with @err set (nothing is changed in @cfg then but the
 * thread's events).
 */
int sim_metrics_thread(struct sim_config *cfg, int tid, const char *tree,
		       const char *names, char *err, size_t errlen)
{
	struct sim_thread_cfg *th = &cfg->th[tid];
	struct sim_metric_expansion x;
	int n;

	if (sim_metrics_expand(&cfg->pmu, tree, names, &x, err, errlen))
		return -1;
	n = sim_metrics_events(&cfg->pmu, tree, &x, th->ev, th->leader,
			       SIM_MAX_EVENTS, err, errlen);
	sim_metrics_free(&x);
	if (n < 0)
		return -1;
	if (!n) {
		sim_err(err, errlen, "'%s' opens no core PMU event on %s",
			names, cfg->pmu.name);
		return -1;
	}
	th->n = n;
	th->grouped = true;
	return 0;
}

struct row_stats {
	double min, mean;
	bool starved;
	double exposure;	/* largest share of an event's running time */
};

static void row_stats(const struct sim_config *cfg,
		      const struct sim_result *res, struct row_stats *rs)
{
	int tid, e, n = 0;

	rs->min = 1;
	rs->mean = 0;
	rs->starved = false;
	rs->exposure = 0;
	for (tid = 0; tid < 2; tid++)
		for (e = 0; e < cfg->th[tid].n; e++) {
			const struct sim_event_stats *st = &res->ev[tid][e];
			double f = st->enabled ?
				   (double)st->running / st->enabled : 0;

			rs->min = f < rs->min ? f : rs->min;
			rs->mean += f;
			rs->starved |= !st->running;
			if (st->running &&
			    (double)st->exposure / st->running > rs->exposure)
				rs->exposure = (double)st->exposure / st->running;
			n++;
		}
	rs->mean = n ? rs->mean / n : 0;
}

static int corrupting(const struct sim_thread_cfg *th)
{
	int e, c = 0;

	for (e = 0; e < th->n; e++)
		c += th->ev[e].corrupting;
	return c;
}

/* One pair: run every policy and print the row. */
static int table_row(struct sim_config *cfg, const char *tree,
		     const char *g0, const char *g1, bool only_corrupting,
		     int *rows)
{
	static struct sim_result res;
	struct row_stats rs[NR_POLS];
	char err[256], label[80];
	size_t p;

	if (strcmp(g0, g1))
		snprintf(label, sizeof(label), "%s / %s", g0, g1);
	else
		snprintf(label, sizeof(label), "%s", g0);
	cfg->th[0].n = cfg->th[1].n = 0;
	if (sim_metrics_thread(cfg, 0, tree, g0, err, sizeof(err)) ||
	    sim_metrics_thread(cfg, 1, tree, g1, err, sizeof(err))) {
		if (!only_corrupting)
			printf("| %s | %s | - | - | %s |\n", cfg->pmu.name,
			       label, err);
		return 0;
	}
	if (only_corrupting && !corrupting(&cfg->th[0]) &&
	    !corrupting(&cfg->th[1]))
		return 0;
	for (p = 0; p < NR_POLS; p++) {
		/*
		 * The series' PMU keeps scheduling past a failure
		 * (PERF_PMU_CAP_SCHED_CONTINUE), knob on or off; 6.12 and the
		 * research protocol stop at the first group that fails.
		 */
		cfg->cont = table_pols[p].xsu == SIM_XSU_SERIES ||
			    table_pols[p].xsu == SIM_XSU_OFF;
		if (sim_run(cfg, &table_pols[p], &res, false))
			return -1;
		row_stats(cfg, &res, &rs[p]);
	}
	printf("| %s | %s | %d/%d | %d/%d |", cfg->pmu.name, label,
	       cfg->th[0].n, cfg->th[1].n, corrupting(&cfg->th[0]),
	       corrupting(&cfg->th[1]));
	for (p = 0; p < 6; p++)
		printf(" %.2f / %.2f%s |", rs[p].min, rs[p].mean,
		       rs[p].starved ? " **0**" : "");
	printf(" %.2f / %.2f | %.0f%% |\n", rs[7].min, rs[7].mean,
	       100 * rs[7].exposure);
	(*rows)++;
	return 0;
}

/**
 * sim_metric_table() - print the metric-group table
 * @tree: kernel tree of perf's tables
 * @ticks: ticks per run
 * @only_corrupting: only the rows where an event is 0xd0-0xd3
 *
 * Every metric group of snb, ivb and hsw on both siblings, then the mixed
 * pairs, each under every policy of table_pols.
 *
 * Return: 0, or non-zero on an error that stops the table (a model's
 * tables missing, out of memory).
 */
int sim_metric_table(const char *tree, int ticks, bool only_corrupting)
{
	static const char *const models[] = { "snb", "ivb", "hsw" };
	static struct sim_config cfg;
	char err[256], **names;
	int m, i, nr, rows = 0;
	size_t k;

	printf("x86-pmu-sim --metric-table: perf stat -M GROUP -C on each sibling, HT on, %d ticks, order fixed; the series and XSU off keep scheduling past a failure\n",
	       ticks);
	printf("columns: events HT0/HT1, corrupting HT0/HT1, then per policy the smallest / mean scheduled fraction of all events of both threads (**0**: an event never ran), XSU off (hk), and the largest exposure with XSU off (hk)\n\n");
	printf("| model | metric group(s) | events | corr. | 6.12 greedy | 6.12 hk | research greedy | research hk | series greedy | series hk | XSU off hk | exposure off |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (m = 0; m < 3; m++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.ticks = ticks;
		cfg.th[0].dur = cfg.th[1].dur = -1;
		if (sim_pmu_lookup(models[m], true, 0, &cfg.pmu, err,
				   sizeof(err))) {
			fprintf(stderr, "x86-pmu-sim: %s\n", err);
			return 1;
		}
		nr = sim_metric_group_names(&cfg.pmu, tree, &names, err,
					    sizeof(err));
		if (nr < 0) {
			fprintf(stderr, "x86-pmu-sim: %s\n", err);
			return 1;
		}
		for (i = 0; i < nr; i++)
			if (table_row(&cfg, tree, names[i], names[i],
				      only_corrupting, &rows))
				return 1;
		for (k = 0; k < ARRAY_SIZE(mixed); k++)
			if (table_row(&cfg, tree, mixed[k][0], mixed[k][1],
				      only_corrupting, &rows))
				return 1;
		for (i = 0; i < nr; i++)
			free(names[i]);
		free(names);
	}
	printf("\n%d rows\n", rows);
	return 0;
}
