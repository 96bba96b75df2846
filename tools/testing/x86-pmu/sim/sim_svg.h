/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduling simulator's SVG timeline (sim_svg.c). */
#ifndef _X86_PMU_SIM_SVG_H
#define _X86_PMU_SIM_SVG_H

#include "sim_events.h"

enum sim_cell_state { SIM_U = 0, SIM_S = 1, SIM_X = 2 };

/* One counter of one thread during one tick. */
struct sim_cell {
	s16 event;		/* index into that thread's events, -1: idle */
	u8 state;		/* XSU state of this counter for this thread */
};

struct sim_timeline {
	const char *title;	/* e.g. "hsw, HT on, matcher hk, XSU series" */
	int ticks;
	int nr_gp, nr_fixed;	/* rows per thread: GP counters, then fixed */
	bool xsu;		/* states are meaningful (XSU on) */
	int nr_events[2];
	const struct sim_event *events[2];
	struct sim_cell *cells;	/* ticks x 2 threads x (nr_gp + nr_fixed) */
};

/* Cell of tick @t, thread @th (0/1), row @r (GP counter r, then fixed). */
#define SIM_CELL(tl, t, th, r) \
	((tl)->cells[((t) * 2 + (th)) * ((tl)->nr_gp + (tl)->nr_fixed) + (r)])

/* Write @tl as a standalone SVG file. Returns 0, or -1 with @err set. */
int sim_svg_write(const struct sim_timeline *tl, const char *path,
		  char *err, size_t errlen);

#endif
