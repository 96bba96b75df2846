// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-load CPU [SECONDS]: a load-heavy loop pinned on CPU, for SECONDS
 * (default: until killed). It keeps a thread of the emulated host busy in
 * user mode, so that events counted with :u on that thread have something
 * to count (under the emulator, instructions and the events derived from
 * them).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink[4096];

int main(int argc, char **argv)
{
	uint64_t x = 0;
	struct timespec t0, t;
	double secs;
	cpu_set_t set;
	int cpu, i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s CPU [SECONDS]\n", argv[0]);
		return 2;
	}
	cpu = atoi(argv[1]);
	secs = argc == 3 ? atof(argv[2]) : 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (i = 0; i < 4096; i++)
			x += sink[(i * 67) & 4095];
		if (secs <= 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			break;
	}
	return (int)(x & 1);
}
