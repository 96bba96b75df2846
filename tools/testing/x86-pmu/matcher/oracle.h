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
int instance_format(const struct match_instance *in, char *buf, size_t len);

#endif
