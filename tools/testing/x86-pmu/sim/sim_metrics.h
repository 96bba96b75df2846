/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's metrics and metric groups in the scheduling simulator: the
 * *metrics.json tables of the kernel tree expanded into the event groups
 * that `perf stat -M` opens, by perf 7.3's rules (tools/perf/util/
 * metricgroup.c and expr.y), and those groups as the simulator's events.
 */
#ifndef _X86_PMU_SIM_METRICS_H
#define _X86_PMU_SIM_METRICS_H

#include "sim_events.h"

/* One event list perf parses for a metric (a "Parsing metric events" line). */
struct sim_metric_group {
	bool grouped;		/* a weak group "{...}:W" */
	int n;
	char **ids;		/* the metric ids in perf's order, tool events last */
};

struct sim_metric_expansion {
	int nr;
	struct sim_metric_group *g;
};

/*
 * Expand @names (comma-separated metric or metric group names, as given
 * to perf stat -M) on @pmu from the tables of the tree @ksrc, for perf
 * stat -C on one hyper-thread (#SMT_on from @pmu->ht, #core_wide 0, the
 * NMI watchdog off), into perf's evlist order: the lists in the order
 * perf parses them, the ids of each in the order of perf's hash map.
 * Returns 0, or -1 with a message naming the unknown name in @err (@x is
 * then empty).
 */
int sim_metrics_expand(const struct sim_pmu *pmu, const char *ksrc,
		       const char *names, struct sim_metric_expansion *x,
		       char *err, size_t errlen);

void sim_metrics_free(struct sim_metric_expansion *x);

/* Print @x one list a line, in perf's order, as tests compare it with perf. */
void sim_metrics_print(FILE *f, const struct sim_metric_expansion *x);

/*
 * The core PMU events of @x as the simulator's events, in the order perf
 * stat opens them, which is the order the kernel schedules and rotates
 * them in: @leader[i] is true where a new group starts. A weak group that
 * cannot be scheduled on an idle PMU with its static masks is opened as
 * single events, as perf does when the kernel refuses the group, and
 * after all other events (perf stat reopens a split group's events in a
 * second pass). Events of other PMUs (uncore, msr, cstate) and tool
 * events use no core counter and are left out. Returns the number of
 * events, or -1 with @err set.
 */
int sim_metrics_events(const struct sim_pmu *pmu, const char *ksrc,
		       const struct sim_metric_expansion *x,
		       struct sim_event *ev, bool *leader, int max,
		       char *err, size_t errlen);

/*
 * All metric group names of @pmu's tables, sorted, into a malloc()ed
 * array in @names (free each name and the array). Returns how many, or
 * -1 with @err set.
 */
int sim_metric_group_names(const struct sim_pmu *pmu, const char *ksrc,
			   char ***names, char *err, size_t errlen);

#endif
