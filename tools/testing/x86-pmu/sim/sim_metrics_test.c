// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the simulator's metric expansion (sim_metrics.c), in TAP.
 *
 * The expected expansions are not derived from sim_metrics.c: they are
 * what perf 7.3 itself parses for `perf stat -C 0 -M NAME` on an
 * affected host (sim_metrics_perf.ref, written by sim_metrics_perf.sh
 * from perf's own debug output; harness.sh checks the file against a
 * fresh perf run when the static perf is built). Every metric group and
 * every metric perf lists for snb, ivb and hsw is compared, lists and the
 * events inside each list in perf's evlist order (the order of perf's
 * hash maps of ids): a list with the right events in another order
 * fails. Then: unknown names, names of another model, the events the
 * simulator runs (weak groups that cannot fit fall apart, their events
 * opened last as perf stat's second pass does, corrupting events), and
 * groups scheduled as one by the engine.
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
	char *opened;	/* the "opened" line: the kernel's order */
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
		if (!strncmp(line, "opened", 6)) {
			free(b->opened);
			b->opened = strdup(line);
			continue;
		}
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

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * @lists with the words of each line after the first sorted: the events
 * of each list regardless of their order. malloc()ed.
 */
static char *sorted_lists(const char *lists)
{
	char *copy = strdup(lists), *line, *save = NULL, *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *w[1024], *ws = NULL, *t;
		int n = 0, k;

		for (t = strtok_r(line, " ", &ws); t && n < 1024;
		     t = strtok_r(NULL, " ", &ws))
			w[n++] = t;
		if (n > 1)
			qsort(w + 1, n - 1, sizeof(*w), cmp_strp);
		for (k = 0; k < n; k++)
			fprintf(f, "%s%s", k ? " " : "", w[k]);
		fputc('\n', f);
	}
	fclose(f);
	free(copy);
	return buf;
}

/*
 * Does the simulator's expansion @got match perf's @want? Lists and the
 * events inside each compare in order; @what says how they differ.
 */
static bool same_expansion(const char *got, const char *want,
			   const char **what)
{
	char *a, *b;
	bool same_sets;

	if (!strcmp(got, want))
		return true;
	a = sorted_lists(got);
	b = sorted_lists(want);
	same_sets = !strcmp(a, b);
	free(a);
	free(b);
	*what = same_sets ? "the same events in another order" :
			    "other events";
	return false;
}

/* Every reference block of @model against the simulator's expansion. */
static int test_against_perf(const char *tree, const char *model)
{
	int i, n = 0, bad = 0, reordered = 0;
	char err[256], msg[200];

	for (i = 0; i < nr_blocks; i++) {
		const char *what = "no expansion";
		char *got;

		if (strcmp(blocks[i].model, model))
			continue;
		n++;
		got = expand(tree, model, blocks[i].name, err, sizeof(err));
		if (!got || !same_expansion(got, blocks[i].lists, &what)) {
			reordered += got && !strcmp(what,
					"the same events in another order");
			if (bad++ < 5)
				tap_diag("%s %s (%s): perf opens\n%s# the simulator: %s",
					 model, blocks[i].name, what,
					 blocks[i].lists, got ? got : err);
		}
		free(got);
	}
	snprintf(msg, sizeof(msg),
		 "%s: %d metric and group names expand to perf's event lists in perf's order (%d differ, %d of them only in order)",
		 model, n, bad, reordered);
	tap_result(n > 0 && !bad, msg);
	return n;
}

/*
 * The comparison sees order: a reference block whose first list of
 * several events is rotated by one must not match the simulator.
 */
static void test_order_is_compared(const char *tree)
{
	char err[256], *got, *want, *sp, *nl;
	int i;

	for (i = 0; i < nr_blocks; i++)
		if (!strcmp(blocks[i].model, "hsw") &&
		    !strcmp(blocks[i].name, "CacheHits"))
			break;
	if (i == nr_blocks) {
		tap_result(false, "hsw CacheHits is in the reference");
		return;
	}
	got = expand(tree, "hsw", "CacheHits", err, sizeof(err));
	want = strdup(blocks[i].lists);
	/* "nogroup A B C ...\n" -> "nogroup B C ... A\n" */
	sp = strchr(want, ' ');
	nl = strchr(want, '\n');
	if (got && sp && nl && strchr(sp + 1, ' ') < nl) {
		char *first = strndup(sp + 1, strcspn(sp + 1, " "));
		size_t fl = strlen(first);

		memmove(sp + 1, sp + 2 + fl, nl - (sp + 2 + fl));
		memcpy(nl - fl - 1, " ", 1);
		memcpy(nl - fl, first, fl);
		free(first);
	}
	{
		const char *what = "";
		bool same = got && same_expansion(got, want, &what);

		tap_diag("hsw CacheHits, first list rotated: %s", what);
		tap_result(got && strcmp(want, blocks[i].lists) && !same &&
			   !strcmp(what, "the same events in another order"),
			   "a list with perf's events in another order does not match perf");
	}
	free(want);
	free(got);
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
	 * refuses it and perf opens its 6 events singly (last, below); four
	 * groups of 2 and three of 1. The MEM_LOAD_UOPS_RETIRED.* events (HIT_LFB, L1_MISS
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

static const struct ref_block *find_block(const char *model,
					  const char *name)
{
	int i;

	for (i = 0; i < nr_blocks; i++)
		if (!strcmp(blocks[i].model, model) &&
		    !strcmp(blocks[i].name, name))
			return &blocks[i];
	return NULL;
}

/*
 * A weak group the kernel refuses is split by perf stat: its events stay
 * in place in the evlist (and in perf's printout), but they are skipped
 * for the rest of the first pass and opened as single events in a second
 * pass, after all other events, which is the order the kernel schedules
 * and rotates them in (seen on the static perf with its perf_event_open()
 * calls traced: "reopening weak ..." after the later groups). The events
 * of @name are expected in that order, from perf's lists in the
 * reference: lists but the refused one (@refused, a line index) in order,
 * each a group or singles, then the refused list's events singly.
 */
static void test_split_opened_last(const char *tree, const char *name,
				   int refused, int nr_lines)
{
	static struct sim_config cfg;
	const struct ref_block *b = find_block("hsw", name);
	char want[SIM_MAX_EVENTS][64], msg[200];
	bool want_leader[SIM_MAX_EVENTS];
	int pass, line, n = 0, got, e;
	bool ok;

	got = b ? events(tree, "hsw", name, &cfg) : -1;
	if (got < 0) {
		tap_result(false, "hsw weak group split: the reference has the name");
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		char *copy = strdup(b->lists), *l, *save = NULL;

		for (line = 0, l = strtok_r(copy, "\n", &save); l;
		     line++, l = strtok_r(NULL, "\n", &save)) {
			bool grouped = !strncmp(l, "group ", 6), first = true;
			char *w, *ws = NULL;

			if ((line == refused) != (pass == 1))
				continue;
			strtok_r(l, " ", &ws);
			while ((w = strtok_r(NULL, " ", &ws)) &&
			       n < SIM_MAX_EVENTS) {
				if (strstr(w, "_time"))	/* tool events */
					continue;
				snprintf(want[n], sizeof(want[n]), "%s", w);
				want_leader[n++] = pass == 1 || !grouped || first;
				first = false;
			}
		}
		if (pass == 0)
			ok = line == nr_lines;
		free(copy);
	}
	ok &= got == n;
	for (e = 0; ok && e < n; e++) {
		ok = !strcmp(cfg.th[0].ev[e].name, want[e]) &&
		     cfg.th[0].leader[e] == want_leader[e];
		if (!ok)
			tap_diag("event %d: %s%s, perf opens %s%s", e,
				 cfg.th[0].ev[e].name,
				 cfg.th[0].leader[e] ? " (leader)" : "",
				 want[e], want_leader[e] ? " (leader)" : "");
	}
	snprintf(msg, sizeof(msg),
		 "hsw %s: %d events; the refused weak group (list %d of %d) opened singly after all others, the rest in perf's order",
		 name, n, refused + 1, nr_lines);
	tap_result(ok, msg);
}

/*
 * Is the simulator's "opened" line @got the reference's @want? Word by
 * word; a word of @want may list names of events perf's attributes do
 * not tell apart ("A|B"), @got must name one of them.
 */
static bool same_opened(const char *got, const char *want)
{
	char *g = strdup(got), *w = strdup(want), *gs = NULL, *wsv = NULL;
	char *a = strtok_r(g, "\n ", &gs), *b = strtok_r(w, "\n ", &wsv);
	bool ok = true;

	for (; ok && a && b; a = strtok_r(NULL, "\n ", &gs),
			      b = strtok_r(NULL, "\n ", &wsv)) {
		char *alt, *as = NULL;

		if ((*a == '+') != (*b == '+')) {
			ok = false;
			break;
		}
		a += *a == '+';
		b += *b == '+';
		for (alt = strtok_r(b, "|", &as); alt;
		     alt = strtok_r(NULL, "|", &as))
			if (!strcmp(alt, a))
				break;
		ok = alt != NULL;
	}
	ok &= !a && !b;
	free(g);
	free(w);
	return ok;
}

/*
 * The events the simulator runs for every name of @model, in the order
 * the kernel got them from perf stat (the reference's "opened" line:
 * perf run with its perf_event_open() calls traced, "+" marking an event
 * that joined the group of the one before): the lists in perf's order,
 * the events of refused weak groups as singles after all others.
 */
static void test_opened_order(const char *tree, const char *model)
{
	static struct sim_config cfg;
	int i, n = 0, bad = 0;
	char err[256], msg[200];

	for (i = 0; i < nr_blocks; i++) {
		char *got = NULL, *p;
		size_t len = 0;
		FILE *f;
		int e;

		if (strcmp(blocks[i].model, model))
			continue;
		n++;
		memset(&cfg, 0, sizeof(cfg));
		sim_pmu_lookup(model, true, 0, &cfg.pmu, err, sizeof(err));
		f = open_memstream(&got, &len);
		fputs("opened", f);
		if (!sim_metrics_thread(&cfg, 0, tree, blocks[i].name, err,
					sizeof(err)))
			for (e = 0; e < cfg.th[0].n; e++)
				fprintf(f, " %s%s", cfg.th[0].leader[e] ? "" : "+",
					cfg.th[0].ev[e].name);
		fputc('\n', f);
		fclose(f);
		p = blocks[i].opened;
		if (!p || !same_opened(got, p)) {
			if (bad++ < 3)
				tap_diag("%s %s: the kernel gets\n# %s# the simulator runs\n# %s",
					 model, blocks[i].name, p ? p : "?\n",
					 got);
		}
		free(got);
	}
	snprintf(msg, sizeof(msg),
		 "%s: the simulator runs the events of all %d names in the order perf stat opens them (%d differ)",
		 model, n, bad);
	tap_result(n > 0 && !bad, msg);
}

/*
 * Every metric group of the three models gives the simulator events, but
 * those that open no core event: MemOffcore and SoC (uncore, msr, RAPL)
 * of each model, and since perf 7.3's generated metrics lpm_cpu_power
 * (RAPL only) of each and hsw's transaction (TSX: has_event() finds no
 * cycles-t on the host, so its metrics need no event).
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
					tap_diag("%s %s: no core event", models[m],
						 names[i]);
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
	tap_result(total == 373 && !bad && uncore == 10, msg);
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
	int i, names = 0;

	if (read_ref(ref)) {
		tap_result(false, "the reference of perf's expansions is readable");
		return tap_finish();
	}
	for (i = 0; i < 3; i++) {
		names += test_against_perf(tree, models[i]);
		test_all_groups(tree, models[i]);
	}
	tap_diag("%d names compared with perf, %d in the reference", names,
		 nr_blocks);
	tap_result(names == nr_blocks && names == 968,
		   "every name of the reference (968) is compared in order");
	test_order_is_compared(tree);
	test_unknown(tree);
	test_events(tree);
	/* 18 events (15 GP) in 4 GP + 3 fixed counters; 5 GP events in 4 */
	test_split_opened_last(tree, "CacheHits", 1, 4);
	test_split_opened_last(tree, "Mem", 1, 9);
	for (i = 0; i < 3; i++)
		test_opened_order(tree, models[i]);
	test_all_groups_run(tree);
	test_groups_run_together(tree);
	test_tied_on_both_siblings(tree);
	for (i = 0; i < nr_blocks; i++) {
		free(blocks[i].name);
		free(blocks[i].lists);
		free(blocks[i].opened);
	}
	return tap_finish();
}
