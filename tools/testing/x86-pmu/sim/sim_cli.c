// SPDX-License-Identifier: GPL-2.0
/*
 * x86-pmu-sim: what a list of perf events does on two sibling
 * hyper-threads -- which events multiplex and how much, on which counter,
 * and how long they sit beside a corrupting event on the sibling's same
 * counter -- under the series' own matcher and XSU code, side by side with
 * what the series replaces. See --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter_match.h"
#include "../../../../kernel/events/sched_budget.h"
#include "oracle.h"
#include "sim_metrics.h"
#include "sim_metrics_table.h"
#include "sim_scenarios.h"

#define MAX_POLICIES	8

static void usage(FILE *f)
{
	fputs(
"usage: x86-pmu-sim [options]\n"
"\n"
"Replays perf's scheduling loop on two sibling hyper-threads: every tick\n"
"each thread takes its events off the counters, rotates its list by one if\n"
"the last round left events out, and adds them back one at a time, each add\n"
"rescheduling the whole window (fast path first), stopping at the first\n"
"event that does not fit. The matcher and XSU code are the kernel's files.\n"
"\n"
"PMU:\n"
"  --model snb|ivb|hsw|generic  PMU model (default hsw)\n"
"  --ht on|off                   Hyper-Threading: 4 or 8 GP counters (on)\n"
"  --counters N                  GP counters of the generic model\n"
"  --tree DIR                    kernel tree holding tools/perf/pmu-events\n"
"                                (default: the build/linux next to this tool)\n"
"Events (perf syntax: table names, generic names, raw rUUEE, modifiers):\n"
"  --ht0 LIST, --ht1 LIST        each thread's event list, in order; {a,b}\n"
"                                is a group, added and rotated as one\n"
"  -C MASKS                      HT0's events as explicit counter masks,\n"
"                                e.g. -C 0x6,0x8,0x9,0xb (\":c\": corrupting)\n"
"  --ht0-metrics NAMES, --ht1-metrics NAMES\n"
"                                each thread runs what perf stat -M NAMES\n"
"                                opens: metrics and metric groups of perf's\n"
"                                tables, one weak group per metric as perf 7.3\n"
"                                makes them (e.g. TopdownL1, Mem)\n"
"  --metric-expand NAMES         print the event lists perf stat -M NAMES\n"
"                                parses, in perf's order (--model), run nothing\n"
"  --metric-table                every metric group of snb, ivb, hsw on both\n"
"                                siblings, and mixed pairs, under each policy\n"
"  --corrupting-only             --metric-table: rows with a 0xd0-0xd3 event\n"
"  --start0 T, --start1 T        first tick of each list (0)\n"
"  --dur0 D, --dur1 D            ticks each list stays enabled (to the end)\n"
"  --rates0 R,.., --rates1 R,..  events per tick of each event: estimated\n"
"                                raw and scaled counts, leaks included\n"
"Run:\n"
"  --ticks N                     ticks to simulate (120)\n"
"  --matcher greedy|hk|all       counter assignment (all)\n"
"  --xsu off|upstream|series|research|all\n"
"                                cross-thread exclusion (off,upstream,series)\n"
"  --order fixed|alternate|random[:SEED]\n"
"                                which sibling acts first in a tick (fixed)\n"
"  --rotate1 K                   HT1's list starts K rotations ahead of HT0's\n"
"                                (modulo its number of groups, which is\n"
"                                printed): siblings running the same list,\n"
"                                each at its own group (0)\n"
"  --rotations0 DIGITS, --rotations1 DIGITS\n"
"                                rotations of each thread in each tick, a digit\n"
"                                per tick (a host's timer expiries): 0 leaves\n"
"                                its events as they were, 2 is two passes;\n"
"                                one per tick past the end\n"
"  --first DIGITS                the sibling that acts first in each tick, a\n"
"                                digit 0 or 1 per tick (a host's record);\n"
"                                --order past the end\n"
"  --hold T                      ticks a thread's demand lasts without\n"
"                                renewal (25 multiplexing intervals, as the\n"
"                                kernel; a replay at finer ticks scales it)\n"
"  --continue                    keep adding events past one that does not fit\n"
"                                (up to 2 x the counters more tries, as a PMU\n"
"                                with PERF_PMU_CAP_SCHED_CONTINUE), except\n"
"                                those the PMU has no room for (every counter\n"
"                                held, or every GP one for good and the group\n"
"                                needs one: sched_no_room())\n"
"  --no-early-exit               with --continue: try those too\n"
"  --svg FILE                    timeline of the first policy as SVG\n"
"  --exhaustive N                all tuples of non-empty masks of N events on\n"
"                                N GP counters: where one matcher places more\n"
"  --sampled N                   N seeded lists of 8 events on 4 counters:\n"
"                                the same comparison as --exhaustive\n"
"  --scenario N                  regression scenario N (1-6) of the simulator\n"
"                                issue; --matcher/--xsu override its policies\n"
"  --fairness N                  XSU policies side by side (upstream, research,\n"
"                                series) on scenarios 1-5 and N random runs:\n"
"                                utilization, fairness, reprogramming\n"
"  --random I                    run I of that random mix, each policy\n"
"  --seed S                      seed of the random runs (1)\n"
"  -h, --help                    this text\n"
"\n"
"Policies: greedy = upstream 6.12's weight-order first fit (a model checked\n"
"against upstream's code), hk = the series' Hopcroft-Karp matcher; XSU off,\n"
"upstream = Linux 6.12's intel_excl_cntrs (a model, with its gpmax halving),\n"
"series = arch/x86/events/intel/xsu.c (with the halving kept), research =\n"
"xsu.c with no starvation limit. The erratum applies on snb/ivb/hsw with HT\n"
"on; exposure is the share of an event's running time spent beside a\n"
"corrupting event on the sibling's same GP counter.\n", f);
}

static int die(const char *fmt, const char *arg)
{
	fprintf(stderr, "x86-pmu-sim: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

static bool parse_int(const char *s, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * Comma-separated non-negative numbers into @rate; returns how many, or -1
 * with the bad token copied into @bad.
 */
/*
 * perf's group syntax in an event list: "{a,b},c" is the group {a, b} and
 * c alone. Writes @list without its braces to @out (as long as @list),
 * and per event whether a group starts there to @leader (room for @max).
 * Returns true when the list has a group, false when it has none, and -1
 * with @err set for a brace out of place (nested, unbalanced, an empty
 * group, or anything but a comma after a closing one).
 */
static int split_groups(const char *list, char *out, bool *leader, int max,
			char *err, size_t errlen)
{
	bool in = false, start = true, any = false;
	int k = 0;
	const char *p;

	for (p = list; *p; p++) {
		if (*p == '{') {
			if (in || !start)
				goto bad;
			in = any = true;
			if (k < max)
				leader[k] = true;
			start = false;
			continue;
		}
		if (*p == '}') {
			if (!in || p[-1] == '{' || p[-1] == ',' ||
			    (p[1] && p[1] != ','))
				goto bad;
			in = false;
			continue;
		}
		if (*p == ',') {
			k++;
			start = true;
		} else if (start && *p != ' ') {
			if (k < max)
				leader[k] = !in;
			start = false;
		}
		*out++ = *p;
	}
	*out = '\0';
	if (in)
		goto bad;
	return any;
bad:
	snprintf(err, errlen, "bad group braces in '%s'", list);
	return -1;
}

static int parse_rates(const char *list, double *rate, int max, char *bad,
		       size_t len)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok && n >= 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;

		if (n < max)
			rate[n] = strtod(tok, &end);
		if (n >= max || end == tok || *end || rate[n] < 0) {
			snprintf(bad, len, "%s", tok);
			n = -1;
		} else {
			n++;
		}
	}
	free(copy);
	return n;
}

static void print_stats(const struct sim_config *cfg,
			const struct sim_result *res, bool rates)
{
	int tid, e;

	for (tid = 0; tid < 2; tid++) {
		const struct sim_thread_cfg *th = &cfg->th[tid];

		if (!th->n)
			continue;
		if (th->dur < 0)
			printf("HT%d (from tick %d):\n", tid, th->start);
		else
			printf("HT%d (ticks %d-%d):\n", tid, th->start,
			       th->start + th->dur - 1);
		printf("  %-28s %10s %8s %9s", "event", "scheduled", "counter",
		       "exposure");
		if (rates)
			printf(" %14s %14s %12s", "raw count", "scaled count",
			       "leaked");
		printf("\n");
		for (e = 0; e < th->n; e++) {
			const struct sim_event_stats *st = &res->ev[tid][e];
			int c = sim_top_counter(st);
			char cn[16] = "-";

			if (c >= SIM_FIXED_BASE)
				snprintf(cn, sizeof(cn), "f%d", c - SIM_FIXED_BASE);
			else if (c >= 0)
				snprintf(cn, sizeof(cn), "c%d", c);
			printf("  %-28s %9.2f%% %8s %8.2f%%%s", th->ev[e].name,
			       st->enabled ? 100.0 * st->running / st->enabled : 0,
			       cn,
			       st->running ? 100.0 * st->exposure / st->running : 0,
			       th->ev[e].corrupting ? " C" : "  ");
			if (rates)
				printf(" %14.0f %14.0f %12.0f", st->raw,
				       st->running ? st->raw * st->enabled /
						     st->running : 0,
				       st->leaked);
			printf("\n");
		}
	}
	printf("reprogrammings: %.3f per tick (%ld); GP counters in use: %.2f per thread-tick; %ld passes, %ld kicks\n",
	       cfg->ticks ? (double)res->reprogrammings / cfg->ticks : 0,
	       res->reprogrammings,
	       res->thread_ticks ? (double)res->gp_used / res->thread_ticks : 0,
	       res->passes, res->kicks);
	printf("passes after a failed group: %.2f per round (%ld in %ld rounds)\n",
	       res->rounds ? (double)res->past_failure / res->rounds : 0,
	       res->past_failure, res->rounds);
}

/*
 * One thread, @n events with @masks on @nr GP counters: how many events a
 * pass places growing the window until the first failure (mode 0), going
 * on past failures within kernel/events/sched_budget.h's budget (mode 1),
 * and in one pass over the whole list (mode 2), for greedy (m = 0) and hk.
 */
static void passes(const u64 *masks, int n, int nr, int placed[3][2])
{
	int m, mode, k;

	for (m = 0; m < 2; m++) {
		int (*match)(const u64 *, int, u64, int, int *) =
			m ? x86_counter_match : sim_greedy_match;

		for (mode = 0; mode < 2; mode++) {
			struct perf_sched_budget b;
			u64 win[16];
			int w = 0;

			perf_sched_budget_init(&b, mode ? 2 * nr : 0);
			for (k = 0; k < n && perf_sched_budget_can_add(&b); k++) {
				bool ok;

				win[w] = masks[k];
				ok = !match(win, w + 1, 0, nr, NULL);
				perf_sched_budget_tried(&b, ok);
				w += ok;
			}
			placed[mode][m] = w;
		}
		placed[2][m] = n - match(masks, n, 0, nr, NULL);
	}
}

struct tally {
	long total;
	long more[3][2];	/* mode: hk > greedy, greedy > hk */
	long cont_gains[2];	/* per matcher: continuing places more */
};

static void tally_add(struct tally *t, const int placed[3][2])
{
	int mode, m;

	t->total++;
	for (mode = 0; mode < 3; mode++) {
		t->more[mode][0] += placed[mode][1] > placed[mode][0];
		t->more[mode][1] += placed[mode][0] > placed[mode][1];
	}
	for (m = 0; m < 2; m++)
		t->cont_gains[m] += placed[1][m] > placed[0][m];
}

static void tally_print(const struct tally *t)
{
	static const char *const how[3] = {
		"grow until the first failure", "grow, continue past failures",
		"whole list in one pass",
	};
	int mode;

	printf("  %-32s %14s %14s\n", "events placed per pass", "hk > greedy",
	       "greedy > hk");
	for (mode = 0; mode < 3; mode++)
		printf("  %-32s %14ld %14ld\n", how[mode], t->more[mode][0],
		       t->more[mode][1]);
	printf("  continuing past failures places more than stopping: greedy %ld (%.1f%%), hk %ld (%.1f%%)\n",
	       t->cont_gains[0], 100.0 * t->cont_gains[0] / t->total,
	       t->cont_gains[1], 100.0 * t->cont_gains[1] / t->total);
}

/* --exhaustive N: every tuple of non-empty masks of N events on N counters. */
static int exhaustive(int n)
{
	struct tally t = { 0 };
	long total = 1, i;
	u64 masks[8];
	int k;

	for (k = 0; k < n; k++)
		total *= (1 << n) - 1;
	for (i = 0; i < total; i++) {
		int placed[3][2];
		long v = i;

		for (k = 0; k < n; k++, v /= (1 << n) - 1)
			masks[k] = 1 + v % ((1 << n) - 1);
		passes(masks, n, n, placed);
		tally_add(&t, placed);
	}
	printf("all %ld tuples of non-empty masks of %d events on %d GP counters\n",
	       total, n, n);
	tally_print(&t);
	return 0;
}

/* --sampled N: N seeded lists of 8 events with random masks on 4 counters. */
static int sampled(int runs, u64 seed)
{
	struct tally t = { 0 };
	u64 masks[8], rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	int i, k;

	for (i = 0; i < runs; i++) {
		int placed[3][2];

		for (k = 0; k < 8; k++)
			masks[k] = 1 + rng_next(&rng) % 15;
		passes(masks, 8, 4, placed);
		tally_add(&t, placed);
	}
	printf("%d seeded lists of 8 events with random non-empty masks on 4 GP counters (seed %llu)\n",
	       runs, (unsigned long long)seed);
	tally_print(&t);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "model", 1, NULL, 'm' }, { "ht", 1, NULL, 'H' },
		{ "counters", 1, NULL, 'n' }, { "tree", 1, NULL, 'T' },
		{ "ht0", 1, NULL, '0' }, { "ht1", 1, NULL, '1' },
		{ "start0", 1, NULL, 's' }, { "start1", 1, NULL, 'S' },
		{ "dur0", 1, NULL, 'd' }, { "dur1", 1, NULL, 'D' },
		{ "rates0", 1, NULL, 'r' }, { "rates1", 1, NULL, 'R' },
		{ "ticks", 1, NULL, 't' }, { "matcher", 1, NULL, 'M' },
		{ "xsu", 1, NULL, 'x' }, { "order", 1, NULL, 'o' },
		{ "continue", 0, NULL, 'c' }, { "svg", 1, NULL, 'g' },
		{ "no-early-exit", 0, NULL, 'N' },
		{ "exhaustive", 1, NULL, 'e' }, { "help", 0, NULL, 'h' },
		{ "scenario", 1, NULL, 'Z' }, { "fairness", 1, NULL, 'F' },
		{ "seed", 1, NULL, 'E' }, { "random", 1, NULL, 'I' },
		{ "sampled", 1, NULL, 'P' },
		{ "ht0-metrics", 1, NULL, 'a' }, { "ht1-metrics", 1, NULL, 'b' },
		{ "metric-expand", 1, NULL, 'X' },
		{ "metric-table", 0, NULL, 'L' },
		{ "corrupting-only", 0, NULL, 'O' },
		{ "rotate1", 1, NULL, 'J' },
		{ "rotations0", 1, NULL, 'q' }, { "rotations1", 1, NULL, 'Q' },
		{ "first", 1, NULL, 'W' }, { "hold", 1, NULL, 'Y' },
		{ NULL, 0, NULL, 0 },
	};
	const char *model = "hsw", *tree = NULL, *svg = NULL, *masks = NULL;
	const char *lists[2] = { NULL, NULL }, *rates[2] = { NULL, NULL };
	const char *matcher = NULL, *xsu = NULL, *expand = NULL;
	const char *metrics[2] = { NULL, NULL };
	bool metric_table = false, corrupting_only = false, rotate1 = false;
	int scenario = 0, fairness = 0, random_run = -1, samples = 0;
	u64 seed = 1;
	struct sim_policy pol[MAX_POLICIES];
	static struct sim_config cfg;
	static struct sim_result res[MAX_POLICIES];
	int counters = 0, exh = 0, npol = 0, opt, i, j;
	bool ht = true;
	char err[256];

	cfg.ticks = 120;
	cfg.th[0].dur = -1;
	cfg.th[1].dur = -1;

	while ((opt = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm': model = optarg; break;
		case 'H':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				return die("--ht takes on or off, not '%s'", optarg);
			ht = !strcmp(optarg, "on");
			break;
		case 'n':
			if (!parse_int(optarg, 1, 32, &counters))
				return die("--counters takes 1 to 32, not '%s'", optarg);
			break;
		case 'T': tree = optarg; break;
		case '0': lists[0] = optarg; break;
		case '1': lists[1] = optarg; break;
		case 'C': masks = optarg; break;
		case 's': case 'S': case 'd': case 'D': {
			int v, *dst = opt == 's' ? &cfg.th[0].start :
				      opt == 'S' ? &cfg.th[1].start :
				      opt == 'd' ? &cfg.th[0].dur : &cfg.th[1].dur;

			if (!parse_int(optarg, 0, 1000000, &v))
				return die("bad tick count '%s'", optarg);
			*dst = v;
			break;
		}
		case 'r': rates[0] = optarg; break;
		case 'R': rates[1] = optarg; break;
		case 't':
			if (!parse_int(optarg, 1, 1000000, &cfg.ticks))
				return die("--ticks takes 1 to 1000000, not '%s'", optarg);
			break;
		case 'M': matcher = optarg; break;
		case 'x': xsu = optarg; break;
		case 'o':
			if (!strcmp(optarg, "fixed")) {
				cfg.order = SIM_ORDER_FIXED;
			} else if (!strcmp(optarg, "alternate")) {
				cfg.order = SIM_ORDER_ALTERNATE;
			} else if (!strncmp(optarg, "random", 6) &&
				   (!optarg[6] || optarg[6] == ':')) {
				cfg.order = SIM_ORDER_RANDOM;
				cfg.seed = optarg[6] ? strtoull(optarg + 7, NULL, 0) : 1;
			} else {
				return die("--order takes fixed, alternate or random[:SEED], not '%s'", optarg);
			}
			break;
		case 'c': cfg.cont = true; break;
		case 'N': cfg.no_full = true; break;
		case 'q': case 'Q':
			if (!*optarg || strspn(optarg, "0123456789") != strlen(optarg))
				return die("--rotations0/1 take a digit per tick, not '%s'", optarg);
			cfg.rotations[opt == 'Q'] = optarg;
			break;
		case 'W':
			if (!*optarg || strspn(optarg, "01") != strlen(optarg))
				return die("--first takes a digit 0 or 1 per tick, not '%s'", optarg);
			cfg.first = optarg;
			break;
		case 'Y':
			if (!parse_int(optarg, 1, 1000000, &cfg.hold))
				return die("--hold takes 1 to 1000000 ticks, not '%s'", optarg);
			break;
		case 'J':
			if (!parse_int(optarg, 0, 1000000, &cfg.rotate1))
				return die("--rotate1 takes a number of rotations, not '%s'", optarg);
			rotate1 = true;
			break;
		case 'g': svg = optarg; break;
		case 'e':
			if (!parse_int(optarg, 1, 6, &exh))
				return die("--exhaustive takes 1 to 6, not '%s'", optarg);
			break;
		case 'Z':
			if (!parse_int(optarg, 1, sim_nr_scenarios, &scenario))
				return die("--scenario takes 1 to 6, not '%s'", optarg);
			break;
		case 'F':
			if (!parse_int(optarg, 1, 1000000, &fairness))
				return die("--fairness takes a number of runs, not '%s'", optarg);
			break;
		case 'E':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'P':
			if (!parse_int(optarg, 1, 100000000, &samples))
				return die("--sampled takes a number of lists, not '%s'", optarg);
			break;
		case 'I':
			if (!parse_int(optarg, 0, 1000000, &random_run))
				return die("--random takes a run number, not '%s'", optarg);
			break;
		case 'a': metrics[0] = optarg; break;
		case 'b': metrics[1] = optarg; break;
		case 'X': expand = optarg; break;
		case 'L': metric_table = true; break;
		case 'O': corrupting_only = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		return die("unexpected argument '%s' (see --help)", argv[optind]);
	if (exh)
		return exhaustive(exh);
	if (samples)
		return sampled(samples, seed);

	if (!tree) {
		static char def[4096];
		char *slash;

		/* the binary lives in build/harness: the tree is build/linux */
		snprintf(def, sizeof(def), "%s", argv[0]);
		slash = strrchr(def, '/');
		if (slash)
			snprintf(slash, def + sizeof(def) - slash, "/../linux");
		else
			snprintf(def, sizeof(def), "../linux");
		tree = def;
	}

	if (expand) {
		struct sim_metric_expansion x;

		if (sim_pmu_lookup(model, ht, counters, &cfg.pmu, err,
				   sizeof(err)) ||
		    sim_metrics_expand(&cfg.pmu, tree, expand, &x, err,
				       sizeof(err)))
			return die("%s", err);
		sim_metrics_print(stdout, &x);
		sim_metrics_free(&x);
		return 0;
	}
	if (metric_table)
		return sim_metric_table(tree, cfg.ticks, corrupting_only);

	if (fairness) {
		static struct sim_fairness f;

		printf("x86-pmu-sim: XSU policies side by side, matcher hk, seed %llu\n\n",
		       (unsigned long long)seed);
		if (sim_fairness_run(tree, fairness, seed, &f, err, sizeof(err)))
			return die("%s", err);
		sim_fairness_print(&f);
		return 0;
	}

	if (random_run >= 0) {
		if (sim_random_config(tree, seed, random_run, &cfg, err,
				      sizeof(err)))
			return die("%s", err);
		scenario = -1;
		matcher = matcher ? matcher : "hk";
		xsu = xsu ? xsu : "upstream,research,series";
		printf("random run %d of the mix with seed %llu\n", random_run,
		       (unsigned long long)seed);
	} else if (scenario) {
		const struct sim_scenario *sc = &sim_scenarios[scenario - 1];

		if (sim_scenario_config(sc, tree, &cfg, err, sizeof(err)))
			return die("%s", err);
		matcher = matcher ? matcher : sc->matchers;
		xsu = xsu ? xsu : sc->xsus;
		printf("%s\n", sc->title);
	}
	matcher = matcher ? matcher : "all";
	xsu = xsu ? xsu : "off,upstream,series";

	/* Policies: the product of the matchers and XSU variants asked for. */
	for (i = 0; i < 2; i++) {
		static const char *const mn[2] = { "greedy", "hk" };

		if (strcmp(matcher, "all") && strcmp(matcher, mn[i]))
			continue;
		for (j = 0; j < 4; j++) {
			static const char *const xn[4] = {
				"off", "upstream", "series", "research" };
			char *list = strdup(xsu), *tok, *save = NULL;
			bool want = false;

			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				want |= !strcmp(tok, "all") || !strcmp(tok, xn[j]);
			free(list);
			if (want && npol < MAX_POLICIES) {
				pol[npol].matcher = i;
				pol[npol++].xsu = j;
			}
		}
	}
	if (!npol)
		return die("no policy matches --matcher/--xsu ('%s')", matcher);

	if (!scenario &&
	    sim_pmu_lookup(model, ht, counters, &cfg.pmu, err, sizeof(err)))
		return die("%s", err);

	/* Without the erratum every XSU variant is "off": keep one of each. */
	if (!cfg.pmu.erratum) {
		int k = 0;

		for (i = 0; i < npol; i++) {
			for (j = 0; j < k; j++)
				if (pol[j].matcher == pol[i].matcher)
					break;
			if (j == k) {
				pol[k] = pol[i];
				pol[k++].xsu = SIM_XSU_OFF;
			}
		}
		npol = k;
	}


	for (i = 0; i < 2 && !scenario; i++) {
		int n;

		if (metrics[i] && (lists[i] || (i == 0 && masks)))
			return die("%s", "give a thread events or metrics, not both");
		if (metrics[i]) {
			if (sim_metrics_thread(&cfg, i, tree, metrics[i], err,
					       sizeof(err)))
				return die("%s", err);
			n = cfg.th[i].n;
		} else if (i == 0 && masks)
			n = sim_masks_parse(masks, cfg.th[0].ev, SIM_MAX_EVENTS,
					    err, sizeof(err));
		else if (lists[i]) {
			char *flat = malloc(strlen(lists[i]) + 1);
			int g;

			if (!flat)
				return die("%s", "out of memory");
			g = split_groups(lists[i], flat, cfg.th[i].leader,
					 SIM_MAX_EVENTS, err, sizeof(err));
			n = g < 0 ? -1 :
			    sim_events_parse(&cfg.pmu, tree, flat,
					     cfg.th[i].ev, SIM_MAX_EVENTS, err,
					     sizeof(err));
			free(flat);
			cfg.th[i].grouped = g > 0;
		} else
			n = 0;
		if (n < 0)
			return die("%s", err);
		cfg.th[i].n = n;
		if (rates[i]) {
			int r = parse_rates(rates[i], cfg.th[i].rate,
					    SIM_MAX_EVENTS, err, sizeof(err));

			if (r < 0)
				return die("bad rate '%s' (events per tick)", err);
			if (r != n)
				return die("%s", "--rates0/--rates1 need one rate per event");
		}
	}
	if (!cfg.th[0].n && !cfg.th[1].n)
		return die("%s", "no events: give --ht0, --ht1 or -C (see --help)");

	printf("x86-pmu-sim: %s, HT %s, %d GP + %d fixed counters, %d ticks, order %s%s%s; erratum %s\n",
	       cfg.pmu.name, cfg.pmu.ht ? "on" : "off", cfg.pmu.nr_gp,
	       cfg.pmu.nr_fixed, cfg.ticks, cfg.first ? "as recorded, then " : "",
	       cfg.order == SIM_ORDER_FIXED ? "fixed" :
	       cfg.order == SIM_ORDER_ALTERNATE ? "alternate" : "random",
	       cfg.cont ? ", continuing past failures" : "",
	       cfg.pmu.erratum ? "applies" : "does not apply");
	if (rotate1 && cfg.th[1].n)
		printf("HT1's list starts %d rotations ahead of HT0's, of %d groups\n",
		       cfg.rotate1 % sim_groups(&cfg.th[1]),
		       sim_groups(&cfg.th[1]));

	for (i = 0; i < npol; i++) {
		if (sim_run(&cfg, &pol[i], &res[i], svg && !i)) {
			fprintf(stderr, "x86-pmu-sim: out of memory\n");
			return 1;
		}
		printf("\n== matcher %s ==\n", sim_policy_name(&pol[i]));
		print_stats(&cfg, &res[i], rates[0] || rates[1]);
		if (res[i].tl) {
			if (sim_svg_write(res[i].tl, svg, err, sizeof(err)))
				return die("%s", err);
			printf("timeline: %s\n", svg);
			sim_timeline_free(res[i].tl);
		}
	}

	if (npol > 1) {
		printf("\nscheduled fraction side by side:\n  %-6s %-28s", "", "event");
		for (i = 0; i < npol; i++)
			printf(" %20s", sim_policy_name(&pol[i]));
		printf("\n");
		for (j = 0; j < 2; j++) {
			int e;

			for (e = 0; e < cfg.th[j].n; e++) {
				printf("  HT%d    %-28s", j, cfg.th[j].ev[e].name);
				for (i = 0; i < npol; i++) {
					const struct sim_event_stats *st = &res[i].ev[j][e];

					printf(" %19.2f%%", st->enabled ?
					       100.0 * st->running / st->enabled : 0);
				}
				printf("\n");
			}
		}
		printf("  %-35s", "reprogrammings per tick");
		for (i = 0; i < npol; i++)
			printf(" %20.3f", (double)res[i].reprogrammings / cfg.ticks);
		printf("\n");
	}
	return 0;
}
