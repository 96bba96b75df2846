// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the simulator's metric expansion (sim_metrics.c), in TAP.
 *
 * The expected expansions are not derived from sim_metrics.c: they are
 * what perf 6.12 itself parses for `perf stat -C 0 -M NAME` on an
 * affected host (sim_metrics_perf.ref, written by sim_metrics_perf.sh
 * from perf's own debug output; harness.sh checks the file against a
 * fresh perf run when the static perf is built). Every metric group and
 * every metric perf lists for snb, ivb and hsw is compared, in perf's
 * order. Then: unknown names, names of another model, the events the
 * simulator runs (weak groups that cannot fit fall apart, corrupting
 * events), and groups scheduled as one by the engine.
 *
 * usage: sim_metrics_test KERNEL_TREE REFERENCE
 */
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"
#include "sim_metrics.h"
#include "sim_metrics_table.h"
#include "tap.h"

#define MAX_NAMES	1024

/* One "# MODEL NAME" block of the reference: perf's lists for NAME. */
struct ref_block {
	char model[8];
	char *name;
	char *lists;	/* the lines, each ending in '\n' */
};

static struct ref_block blocks[MAX_NAMES];
static int nr_blocks;

static int read_ref(const char *path)
{
	char *line = NULL;
	size_t cap = 0, len;
	FILE *f = fopen(path, "r");
	struct ref_block *b = NULL;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#') {
			char model[8], name[256];

			if (sscanf(line, "# %7s %255s", model, name) != 2 ||
			    nr_blocks == MAX_NAMES)
				continue;
			b = &blocks[nr_blocks++];
			snprintf(b->model, sizeof(b->model), "%s", model);
			b->name = strdup(name);
			b->lists = strdup("");
			continue;
		}
		if (!b)
			continue;
		len = strlen(b->lists);
		b->lists = realloc(b->lists, len + strlen(line) + 1);
		memcpy(b->lists + len, line, strlen(line) + 1);
	}
	free(line);
	fclose(f);
	return 0;
}

/* The expansion of @name on @model as sim_metrics_print() writes it. */
static char *expand(const char *tree, const char *model, const char *name,
		    char *err, size_t errlen)
{
	struct sim_metric_expansion x;
	struct sim_pmu pmu;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (sim_pmu_lookup(model, true, 0, &pmu, err, errlen) ||
	    sim_metrics_expand(&pmu, tree, name, &x, err, errlen))
		return NULL;
	f = open_memstream(&buf, &len);
	sim_metrics_print(f, &x);
	fclose(f);
	sim_metrics_free(&x);
	return buf;
}

/* Every reference block of @model against the simulator's expansion. */
static void test_against_perf(const char *tree, const char *model)
{
	int i, n = 0, bad = 0;
	char err[256], msg[160];

	for (i = 0; i < nr_blocks; i++) {
		char *got;

		if (strcmp(blocks[i].model, model))
			continue;
		n++;
		got = expand(tree, model, blocks[i].name, err, sizeof(err));
		if (!got || strcmp(got, blocks[i].lists)) {
			if (bad++ < 5)
				tap_diag("%s %s: perf opens\n%s# the simulator: %s",
					 model, blocks[i].name, blocks[i].lists,
					 got ? got : err);
		}
		free(got);
	}
	snprintf(msg, sizeof(msg),
		 "%s: %d metric and group names expand to perf's event lists (%d differ)",
		 model, n, bad);
	tap_result(n > 0 && !bad, msg);
}

/* The reference covers every metric group of the model's tables. */
static void test_all_groups(const char *tree, const char *model)
{
	int nr, i, j, missing = 0;
	struct sim_pmu pmu;
	char err[256], msg[160], **names;

	sim_pmu_lookup(model, true, 0, &pmu, err, sizeof(err));
	nr = sim_metric_group_names(&pmu, tree, &names, err, sizeof(err));
	for (i = 0; i < nr; i++) {
		for (j = 0; j < nr_blocks; j++)
			if (!strcmp(blocks[j].model, model) &&
			    !strcmp(blocks[j].name, names[i]))
				break;
		if (j == nr_blocks) {
			tap_diag("%s: group %s is not in perf's list", model,
				 names[i]);
			missing++;
		}
		free(names[i]);
	}
	free(names);
	snprintf(msg, sizeof(msg),
		 "%s: all %d metric groups of the tables are compared with perf",
		 model, nr);
	tap_result(nr > 10 && !missing, msg);
}

static void test_unknown(const char *tree)
{
	char err[256];
	char *got;

	got = expand(tree, "hsw", "TopdownL1,NoSuchGroup", err, sizeof(err));
	tap_diag("%s", got ? got : err);
	tap_result(!got && strstr(err, "'NoSuchGroup'") && strstr(err, "hsw"),
		   "an unknown metric group is an error naming it and the model");
	free(got);

	/* a Haswell metric SandyBridge's tables do not have */
	got = expand(tree, "hsw", "tma_info_inst_mix_bptkbranch", err,
		     sizeof(err));
	tap_result(got != NULL, "tma_info_inst_mix_bptkbranch expands on hsw");
	free(got);
	got = expand(tree, "snb", "tma_info_inst_mix_bptkbranch", err,
		     sizeof(err));
	tap_diag("%s", got ? got : err);
	tap_result(!got && strstr(err, "'tma_info_inst_mix_bptkbranch'") &&
		   strstr(err, "snb"),
		   "a metric the model lacks is an error naming it and the model");
	free(got);

	{
		struct sim_metric_expansion x;
		struct sim_pmu pmu;

		sim_pmu_lookup("generic", true, 4, &pmu, err, sizeof(err));
		tap_result(sim_metrics_expand(&pmu, tree, "TopdownL1", &x, err,
					      sizeof(err)) &&
			   strstr(err, "no metric tables"),
			   "the generic model has no metrics");
	}
}

/* The events the simulator runs for a name, and where groups start. */
static int events(const char *tree, const char *model, const char *name,
		  struct sim_config *cfg)
{
	char err[256];

	memset(cfg, 0, sizeof(*cfg));
	cfg->ticks = 120;
	cfg->th[0].dur = cfg->th[1].dur = -1;
	if (sim_pmu_lookup(model, true, 0, &cfg->pmu, err, sizeof(err)) ||
	    sim_metrics_thread(cfg, 0, tree, name, err, sizeof(err))) {
		tap_diag("%s", err);
		return -1;
	}
	return cfg->th[0].n;
}

static void test_events(const char *tree)
{
	static struct sim_config cfg;
	int n, e, leaders, corr;
	bool ok;

	/* TopdownL1 is ungrouped on hsw (MetricgroupNoGroup): 8 singles */
	n = events(tree, "hsw", "TopdownL1", &cfg);
	for (e = 0, leaders = 0; e < n; e++)
		leaders += cfg.th[0].leader[e];
	tap_result(n == 8 && leaders == 8,
		   "hsw TopdownL1: 8 events, each its own group (MetricgroupNoGroup)");

	/*
	 * Mem on hsw (sim_metrics_perf.ref): 4 ungrouped events; a group of
	 * 6 with 5 GP events that 4 GP counters cannot hold, so the kernel
	 * refuses it and perf opens its 6 events singly; four groups of 2
	 * and three of 1. The MEM_LOAD_UOPS_RETIRED.* events (HIT_LFB, L1_MISS
	 * twice, L2_MISS, L3_MISS) are corrupting.
	 */
	n = events(tree, "hsw", "Mem", &cfg);
	for (e = 0, leaders = 0, corr = 0; e < n; e++) {
		leaders += cfg.th[0].leader[e];
		corr += cfg.th[0].ev[e].corrupting;
	}
	ok = n == 4 + 6 + 4 * 2 + 3 && leaders == 4 + 6 + 4 + 3;
	tap_diag("hsw Mem: %d events, %d groups, %d corrupting", n, leaders,
		 corr);
	tap_result(ok && corr == 5,
		   "hsw Mem: perf's weak groups, the one too big opened singly, MEM_LOAD_UOPS_RETIRED.* corrupting");

	/*
	 * TopdownL3 on hsw: the first list is ungrouped (19 singles), the
	 * next are groups of 15 or more events that cannot fit on 4 GP + 3
	 * fixed counters: perf_event_open() refuses them and perf opens
	 * their events singly. Every event is a group of its own.
	 */
	n = events(tree, "hsw", "TopdownL3", &cfg);
	for (e = 0, ok = n > 19 + 15; e < n; e++)
		ok &= cfg.th[0].leader[e];
	tap_diag("hsw TopdownL3: %d events", n);
	tap_result(ok, "hsw TopdownL3: weak groups too big for the PMU fall apart");
}

/*
 * Every metric group of the three models gives the simulator events, but
 * those that open only uncore events (MemOffcore, SoC).
 */
static void test_all_groups_run(const char *tree)
{
	static const char *const models[] = { "snb", "ivb", "hsw" };
	static struct sim_config cfg;
	int m, i, nr, total = 0, bad = 0, uncore = 0;
	char err[256], msg[160], **names;

	for (m = 0; m < 3; m++) {
		memset(&cfg, 0, sizeof(cfg));
		sim_pmu_lookup(models[m], true, 0, &cfg.pmu, err, sizeof(err));
		nr = sim_metric_group_names(&cfg.pmu, tree, &names, err,
					    sizeof(err));
		for (i = 0; i < nr; i++) {
			total++;
			if (sim_metrics_thread(&cfg, 0, tree, names[i], err,
					       sizeof(err))) {
				if (strstr(err, "opens no core PMU event")) {
					uncore++;
				} else {
					tap_diag("%s %s: %s", models[m],
						 names[i], err);
					bad++;
				}
			}
			free(names[i]);
		}
		free(names);
	}
	snprintf(msg, sizeof(msg),
		 "all %d metric groups give events to run (%d open only uncore events)",
		 total, uncore);
	tap_result(total == 293 && !bad && uncore == 6, msg);
}

/* Every group runs as one: its events' running times are equal. */
static void test_groups_run_together(const char *tree)
{
	static const struct sim_policy pols[] = {
		{ SIM_GREEDY, SIM_XSU_UPSTREAM }, { SIM_HK, SIM_XSU_RESEARCH },
		{ SIM_HK, SIM_XSU_SERIES }, { SIM_HK, SIM_XSU_OFF },
	};
	static struct sim_config cfg;
	static struct sim_result res;
	char err[256];
	bool ok = true, some_partial = false;
	size_t p;
	int tid, e;

	if (events(tree, "hsw", "Mem", &cfg) < 0 ||
	    sim_metrics_thread(&cfg, 1, tree, "Mem", err, sizeof(err))) {
		tap_result(false, "hsw Mem on both siblings");
		return;
	}
	for (p = 0; p < ARRAY_SIZE(pols); p++) {
		sim_run(&cfg, &pols[p], &res, false);
		for (tid = 0; tid < 2; tid++)
			for (e = 0; e < cfg.th[tid].n; e++) {
				const struct sim_event_stats *st = &res.ev[tid][e];
				int l = e;

				while (!cfg.th[tid].leader[l])
					l--;
				ok &= st->running == res.ev[tid][l].running;
				some_partial |= st->running < st->enabled;
			}
	}
	tap_result(ok && some_partial,
		   "hsw Mem on both siblings: a group's events always run together, and groups multiplex");
}

/*
 * MemoryBound on both siblings of a Haswell core: two of its events count
 * only on counter 2, on both threads. With each thread leaving counter 2
 * to the other while both waited for it, none of the four ever ran under
 * the series (xsu_arb_avoid()); with the siblings' order varying as it
 * does on hardware, each must run.
 */
static void test_tied_on_both_siblings(const char *tree)
{
	static const struct sim_policy pol = { SIM_HK, SIM_XSU_SERIES };
	static struct sim_config cfg;
	static struct sim_result res;
	char err[256];
	int tid, e, tied = 0;
	bool ok = true;

	if (events(tree, "hsw", "MemoryBound", &cfg) < 0 ||
	    sim_metrics_thread(&cfg, 1, tree, "MemoryBound", err, sizeof(err))) {
		tap_result(false, "hsw MemoryBound on both siblings");
		return;
	}
	cfg.ticks = 1000;
	cfg.order = SIM_ORDER_ALTERNATE;
	sim_run(&cfg, &pol, &res, false);
	for (tid = 0; tid < 2; tid++)
		for (e = 0; e < cfg.th[tid].n; e++) {
			if ((cfg.th[tid].ev[e].mask & 0xffffffffULL) != 0x4)
				continue;
			tied++;
			ok &= res.ev[tid][e].running > 0;
			tap_diag("HT%d %s: ran %ld of %ld ticks", tid,
				 cfg.th[tid].ev[e].name, res.ev[tid][e].running,
				 res.ev[tid][e].enabled);
		}
	tap_diag("%d events tied to counter 2 on the two threads", tied);
	tap_result(ok && tied == 6,
		   "hsw MemoryBound on both siblings, hk, series: the events tied to counter 2 run on both threads");
}

int main(int argc, char **argv)
{
	static const char *const models[] = { "snb", "ivb", "hsw" };
	const char *tree = argc > 1 ? argv[1] : "../../../build/linux";
	const char *ref = argc > 2 ? argv[2] : "sim_metrics_perf.ref";
	int i;

	if (read_ref(ref)) {
		tap_result(false, "the reference of perf's expansions is readable");
		return tap_finish();
	}
	for (i = 0; i < 3; i++) {
		test_against_perf(tree, models[i]);
		test_all_groups(tree, models[i]);
	}
	test_unknown(tree);
	test_events(tree);
	test_all_groups_run(tree);
	test_groups_run_together(tree);
	test_tied_on_both_siblings(tree);
	for (i = 0; i < nr_blocks; i++) {
		free(blocks[i].name);
		free(blocks[i].lists);
	}
	return tap_finish();
}
