// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-share CPU singles|group SECONDS: the share of its enabled time each
 * of Gracemont's three PEBS events counted on CPU, what perf stat would
 * print for them if it could (tests/grt/pebs.sh runs it).
 *
 * The events, in this order (event 0, 1, 2; the group's leader first): the
 * load latency event (raw 0x5d0, ldlat 3, precise 2: GP counters 0-1 in
 * intel_grt_pebs_event_constraints) and instructions:ppp twice (fixed
 * counter 0 or GP counter 0 on Gracemont, tnt_get_event_constraints()).
 * The three fit: GP counter 1, GP counter 0 and fixed counter 0. In this
 * order plain 7.3's greedy places the first on GP counter 0 and the
 * second on fixed counter 0, and has nothing for the third (only with the
 * load latency event last does it place the three). perf stat cannot count them: the kernel
 * gives PEBS only to sampling events (x86_pmu_hw_config() refuses a
 * precise event without a sample period, and perf stat clears the period),
 * so they are opened here as sampling events without a ring buffer (their
 * samples are dropped; the PEBS records are written and drained all the
 * same), CPU-wide on CPU, as single events or as one group, enabled for
 * SECONDS and read with their enabled and running times.
 *
 * Prints one line per event and a summary:
 *
 *   share MODE event N count C enabled E running R pct P
 *   share MODE events 3 counted K min P
 *
 * K: events with a non-zero count; P: running / enabled in percent (0 for
 * an event never enabled). A group the kernel refuses to open prints
 * "share group refused ERRNO" and counts as nothing counted. Exit 0, or 2
 * when a single event cannot be opened at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_EVENTS	3
#define PERIOD		100003

static int open_event(int i, int cpu, int group_fd, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	if (i) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_INSTRUCTIONS;
		attr.precise_ip = 3;
	} else {
		attr.type = PERF_TYPE_RAW;
		attr.config = 0x5d0;	/* MEM_UOPS_RETIRED.LOAD_LATENCY */
		attr.config1 = 3;	/* ldlat */
		attr.precise_ip = 2;
	}
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.disabled = group_fd < 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group)
		attr.read_format |= PERF_FORMAT_GROUP;
	return syscall(SYS_perf_event_open, &attr, -1, cpu, group_fd, 0);
}

int main(int argc, char **argv)
{
	uint64_t count[NR_EVENTS] = { 0 }, ena[NR_EVENTS] = { 0 };
	uint64_t run[NR_EVENTS] = { 0 };
	int fd[NR_EVENTS], cpu, group, i, counted = 0;
	double pct, min = 100;
	const char *mode;

	if (argc != 4 || (strcmp(argv[2], "singles") && strcmp(argv[2], "group"))) {
		fprintf(stderr, "usage: %s CPU singles|group SECONDS\n", argv[0]);
		return 2;
	}
	cpu = atoi(argv[1]);
	mode = argv[2];
	group = !strcmp(mode, "group");
	for (i = 0; i < NR_EVENTS; i++) {
		fd[i] = open_event(i, cpu, group && i ? fd[0] : -1, group);
		if (fd[i] >= 0)
			continue;
		if (!group || !i) {
			fprintf(stderr, "share: event %d: perf_event_open: %s\n",
				i, strerror(errno));
			return 2;
		}
		printf("share group refused %d\n", errno);
		printf("share group events %d counted 0 min 0\n", NR_EVENTS);
		return 0;
	}
	for (i = 0; i < NR_EVENTS; i++) {
		if (!group || !i)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	}
	usleep((useconds_t)(atof(argv[3]) * 1e6));
	for (i = NR_EVENTS - 1; i >= 0; i--) {
		if (!group || !i)
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	}
	if (group) {
		uint64_t buf[3 + NR_EVENTS];

		if (read(fd[0], buf, sizeof(buf)) != sizeof(buf)) {
			perror("share: read");
			return 2;
		}
		for (i = 0; i < NR_EVENTS; i++) {
			count[i] = buf[3 + i];
			ena[i] = buf[1];
			run[i] = buf[2];
		}
	} else {
		for (i = 0; i < NR_EVENTS; i++) {
			uint64_t buf[3];

			if (read(fd[i], buf, sizeof(buf)) != sizeof(buf)) {
				perror("share: read");
				return 2;
			}
			count[i] = buf[0];
			ena[i] = buf[1];
			run[i] = buf[2];
		}
	}
	for (i = 0; i < NR_EVENTS; i++) {
		pct = ena[i] ? 100.0 * run[i] / ena[i] : 0;
		if (pct < min)
			min = pct;
		if (count[i])
			counted++;
		printf("share %s event %d count %llu enabled %llu running %llu pct %.2f\n",
		       mode, i, (unsigned long long)count[i],
		       (unsigned long long)ena[i], (unsigned long long)run[i], pct);
	}
	printf("share %s events %d counted %d min %.2f\n", mode, NR_EVENTS,
	       counted, min);
	return 0;
}
