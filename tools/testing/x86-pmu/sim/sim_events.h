/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduling simulator's PMU models and events (sim_events.c): perf's
 * JSON tables, raw codes and explicit masks. Every other part of the
 * simulator takes its types from here; it includes none of them.
 */
#ifndef _X86_PMU_SIM_EVENTS_H
#define _X86_PMU_SIM_EVENTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define SIM_MAX_EVENTS	256	/* per thread: perf stat -M TopdownL4 opens 255 */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define SIM_FIXED_BASE	32	/* counter index of fixed counter 0 */

/* printf() an error message into @err, if it has room for one at all. */
static inline void __attribute__((format(printf, 3, 4)))
sim_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct sim_pmu {
	char name[16];		/* "snb", "ivb", "hsw" or "generic" */
	const char *json_dir;	/* perf's table directory, NULL: generic */
	bool ht;		/* Hyper-Threading on */
	int nr_gp;		/* 4 with HT on, 8 with HT off, or --counters */
	int nr_fixed;		/* 3 on snb/ivb/hsw, 0 on generic */
	bool erratum;		/* BJ122/BV98/HSD29 apply: snb/ivb/hsw, HT on */
};

/*
 * Fill @pmu for @model ("snb", "ivb", "hsw" or "generic"); @ht selects 4
 * or 8 GP counters on the Intel models; @counters (> 0) is the number of
 * GP counters of "generic" (0 otherwise). Returns 0, or -1 with a message
 * in @err.
 */
int sim_pmu_lookup(const char *model, bool ht, int counters,
		   struct sim_pmu *pmu, char *err, size_t errlen);

struct sim_event {
	char name[64];		/* the token as the user wrote it */
	u64 mask;		/* static counter mask: GP from bit 0, fixed from bit 32 */
	bool corrupting;	/* event code 0xd0-0xd3 or marked with the erratum */
};

/*
 * Parse a comma-separated event list as a perf user writes it: names from
 * perf's tables for the model (case-insensitive EventName, e.g.
 * MEM_UOPS_RETIRED.ALL_LOADS), perf's generic names (cycles, instructions,
 * branches, ...), raw codes rUUEE (r81d0), each optionally followed by
 * perf modifiers (":u", ":k", ":ukp", ...). @ksrc is the kernel tree that
 * holds tools/perf/pmu-events/arch/x86/. Returns the number of events, or
 * -1 with a message naming the bad token in @err (nothing is returned in
 * @ev then).
 */
int sim_events_parse(const struct sim_pmu *pmu, const char *ksrc,
		     const char *list, struct sim_event *ev, int max,
		     char *err, size_t errlen);

/*
 * Parse explicit masks ("0x6,0x8,0x9,0xb"), each optionally followed by
 * ":c" for a corrupting event. Returns the number of events, or -1 with a
 * message naming the bad token in @err.
 */
int sim_masks_parse(const char *list, struct sim_event *ev, int max,
		    char *err, size_t errlen);

/*
 * Every event of the model's tables, for random lists. Returns how many
 * were written (at most @max), or -1 with @err set.
 */
int sim_events_all(const struct sim_pmu *pmu, const char *ksrc,
		   struct sim_event *ev, int max, char *err, size_t errlen);

/*
 * Read the JSON file @path, an array of objects as perf's tables are, and
 * call @fn for each object with the text of its fields @keys[0..@nr-1]
 * in @vals (NULL where absent; at most 16 keys). @fn returns non-zero on
 * an allocation failure. Returns 0, or -1 with @err set.
 */
/* perf's hardware cache event @name (@len bytes): its config, or -1. */
long sim_hw_cache_config(const char *name, size_t len);

int sim_json_read(const char *path, const char *const *keys, int nr,
		  int (*fn)(char **vals, void *arg), void *arg,
		  char *err, size_t errlen);

#endif
