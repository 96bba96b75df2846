/* SPDX-License-Identifier: GPL-2.0 */
/* The metric-group table of the simulator (sim_metrics_table.c). */
#ifndef _X86_PMU_SIM_METRICS_TABLE_H
#define _X86_PMU_SIM_METRICS_TABLE_H

#include "sim_engine.h"

/* Thread @tid of @cfg runs what perf stat -M @names opens. */
int sim_metrics_thread(struct sim_config *cfg, int tid, const char *tree,
		       const char *names, char *err, size_t errlen);

int sim_metric_table(const char *tree, int ticks, bool only_corrupting);

#endif
