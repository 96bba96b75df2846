/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Independent oracles for the counter matcher: brute force over every
 * assignment, Hall's deficiency formula, and a checker for one assignment.
 * None of them shares code or method with arch/x86/events/counter_match.c.
 */
#ifndef _X86_PMU_ORACLE_H
#define _X86_PMU_ORACLE_H

#include <linux/types.h>

#define ORACLE_MAX_EVENTS	16

struct match_instance {
	int n;
	u64 masks[64];
	u64 paired;
	int gpmax;
	int prev[64];
};

int oracle_brute(const struct match_instance *in);
/*
 * The most events any assignment places; *kept gets the most events that
 * such an assignment leaves on their prev[] counter.
 */
int oracle_brute_keep(const struct match_instance *in, int *kept);
int oracle_hall(const u64 *masks, int n);
/* Returns NULL when @assign is a legal placement of @placed events. */
const char *oracle_check(const struct match_instance *in, const int *assign,
			 int placed);
u64 rng_next(u64 *state);
/* The calling thread's CPU time in microseconds. */
double cpu_us(void);
int instance_format(const struct match_instance *in, char *buf, size_t len);
/*
 * Paired events on arbitrary even masks, 16 blocks (32 GP counters): 12
 * paired events on 3-8 random blocks each and 12 single events on 2-4
 * random counters, more than fit, no previous counters: the best block
 * reservation may be any subset of the blocks, far more than match_pairs()
 * tries (2 per block): the bound.
 */
void instance_pairs_any(u64 *rng, struct match_instance *in);

#endif
