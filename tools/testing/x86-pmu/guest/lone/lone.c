// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-lone A B SECONDS: the events a user types first, one at a time on
 * CPU A, beside four corrupting events counted CPU-wide on its sibling
 * thread B (lone/lone.sh runs it, with the NMI watchdog on and off).
 *
 * B's events (r81d0, r82d0, r11d0, r12d0: MEM_UOPS_RETIRED.*, flexible)
 * stay enabled for the whole run. On A, each case opens, enables for
 * SECONDS and reads one of
 *
 *   cycles         PERF_COUNT_HW_CPU_CYCLES (fixed counter 1 or any GP
 *                  counter: the NMI watchdog holds fixed counter 1)
 *   instructions   PERF_COUNT_HW_INSTRUCTIONS (fixed counter 0 or GP)
 *   raw            r00c4, BR_INST_RETIRED.ALL_BRANCHES (GP counters only)
 *   sw-group       {cpu-clock, cycles}: a group with a software leader
 *   hw-group       {instructions, cycles}
 *
 * per task (this process, pinned on A and spinning, beside the load loop
 * lone.sh keeps on A) and CPU-wide on A, counting and sampling (a period,
 * no ring buffer: the samples are dropped, the counters and their
 * interrupts work as with perf record). Prints a line per case:
 *
 *   lone MODE KIND EVENT pct P count C
 *
 * MODE task|cpu, KIND count|sample, P the share of its enabled time the
 * event (a group: its hardware events) ran, C its count (a group: the
 * cycles). Exit 0, or 1 when an event cannot be opened.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERIOD		1000003

static const uint64_t corrupting[] = { 0x81d0, 0x82d0, 0x11d0, 0x12d0 };

struct ev {
	uint32_t type;
	uint64_t config;
};

static const struct ev CYCLES = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES };
static const struct ev INSTRUCTIONS = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS };
static const struct ev RAW = { PERF_TYPE_RAW, 0x00c4 };
static const struct ev CPU_CLOCK = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK };

/* Each case: its name, one or two events (the leader first). */
static const struct {
	const char *name;
	const struct ev *ev[2];
} cases[] = {
	{ "cycles", { &CYCLES } },
	{ "instructions", { &INSTRUCTIONS } },
	{ "raw", { &RAW } },
	{ "sw-group", { &CPU_CLOCK, &CYCLES } },
	{ "hw-group", { &INSTRUCTIONS, &CYCLES } },
};

static int open_ev(const struct ev *e, int pid, int cpu, int group_fd,
		   int sample)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = e->type;
	attr.config = e->config;
	attr.disabled = group_fd < 0;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP;
	if (sample && group_fd < 0)
		attr.sample_period = e->type == PERF_TYPE_SOFTWARE ? 1000000 : PERIOD;
	return syscall(__NR_perf_event_open, &attr, pid, cpu, group_fd, 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static volatile uint64_t sink;

static void spin(double secs)
{
	double end = now() + secs;
	uint64_t i;

	while (now() < end)
		for (i = 0; i < 100000; i++)
			sink += i;
}

static int run_case(int c, int task, int sample, int cpu, double secs)
{
	/* nr, time_enabled, time_running, one value per event */
	uint64_t v[3 + 2] = { 0 };
	int fd[2] = { -1, -1 }, ret = 1, n, i;
	double pct;

	for (n = 0; n < 2 && cases[c].ev[n]; n++) {
		fd[n] = open_ev(cases[c].ev[n], task ? 0 : -1, task ? -1 : cpu,
				n ? fd[0] : -1, sample);
		if (fd[n] < 0) {
			fprintf(stderr, "perf_event_open %s event %d: %m\n",
				cases[c].name, n);
			goto out;
		}
	}
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
	if (task)
		spin(secs);
	else
		usleep(secs * 1e6);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd[0], v, sizeof(v)) < (ssize_t)(3 * sizeof(v[0]))) {
		fprintf(stderr, "read %s: %m\n", cases[c].name);
		goto out;
	}
	pct = v[1] ? 100.0 * v[2] / v[1] : 0;
	printf("lone %s %s %s pct %.2f count %llu\n", task ? "task" : "cpu",
	       sample ? "sample" : "count", cases[c].name, pct,
	       (unsigned long long)v[3 + n - 1]);
	fflush(stdout);
	ret = 0;
out:
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return ret;
}

int main(int argc, char **argv)
{
	int a, b, c, i, task, sample, status = 0;
	cpu_set_t set;
	double secs;

	if (argc != 4) {
		fprintf(stderr, "usage: x86pmu-lone A B SECONDS\n");
		return 2;
	}
	a = atoi(argv[1]);
	b = atoi(argv[2]);
	secs = atof(argv[3]);

	for (i = 0; i < 4; i++) {
		struct ev x = { PERF_TYPE_RAW, corrupting[i] };
		int fd = open_ev(&x, -1, b, -1, 0);

		if (fd < 0) {
			perror("perf_event_open: the sibling's corrupting events");
			return 1;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);	/* kept open until exit */
	}
	CPU_ZERO(&set);
	CPU_SET(a, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	for (task = 1; task >= 0; task--)
		for (sample = 0; sample < 2; sample++)
			for (c = 0; c < (int)(sizeof(cases) / sizeof(cases[0])); c++)
				status |= run_case(c, task, sample, a, secs);
	return status;
}
