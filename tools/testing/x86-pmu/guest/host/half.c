// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-half A B GROUPS WINDOW_MS: a thread that asks for half of the
 * counters gets them, every time (tests/host/half.sh runs it).
 *
 * On CPU B, four flexible corrupting events count system-wide for the
 * whole run (r81d0, r82d0, r11d0, r12d0: more than half of the four GP
 * counters, each needing the sibling's counter unused). On CPU A, GROUPS
 * groups of two GP events (r00c4, r00c5: half of the counters), one after
 * another, each opened, enabled for WINDOW_MS, read and closed, in turn:
 * per task (a busy child bound to CPU A) and CPU-wide, counting and
 * sampling (period 100000). Every group must have run at least 95% of the
 * time it was enabled: the arbitration guarantees a thread half of the
 * counters while its sibling competes. The sibling's events must run too;
 * their share is printed twice: over the judged groups' windows (what the
 * simulator predicts: two of the four counters while a group competes)
 * and over the whole run, which adds the gaps between groups, where the
 * sibling has the core to itself, and so depends on how busy the host was.
 * A first group, before them, is not counted: it finds the sibling
 * holding every counter and waits for it to give two back (an interrupt
 * on the sibling's CPU and its reschedule, tens of milliseconds under
 * emulation on a busy host); its share is printed.
 * With the emulator's ledger present and the workaround on, nothing may
 * leak.
 *
 * The emulated host is a process of a machine that may be busy with other
 * work: a virtual CPU the host does not run for a while answers no kick
 * and lets its demand lapse, which real CPUs never do. A watch thread on
 * each of the two CPUs (SCHED_FIFO, waking every WATCH_MS) adds up the
 * time it woke more than STALL_MS late: time the guest's CPU did not run.
 * A group's share is of its window less that time on either CPU; a group
 * whose window was more than half stalled is not judged, and another group
 * runs in its place, until GROUPS groups are judged or 2.4 times the time
 * they take has passed (240 s for 100 of 1 s: the test's timeout is 300 s);
 * fewer judged fails the run (the host was too busy to tell). Both shares
 * are printed.
 *
 * Prints one line per group that fell short or was stalled, the worst
 * share per kind of group, and the sibling's shares; exit 1 when a group
 * ran less than 95% or too many were not judged, 2 when an event cannot
 * be opened.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XPMU_MSR_LEAKED		0x58504d00
#define XPMU_MSR_EXPOSED_NS	0x58504d01
#define MIN_SHARE		0.95
#define NR_SIBLING		4
#define WATCH_MS		5
#define STALL_MS		20

static const uint64_t sibling_events[NR_SIBLING] = {
	0x81d0, 0x82d0, 0x11d0, 0x12d0
};

static const char *const kinds[4] = {
	"per-task counting", "per-task sampling",
	"CPU-wide counting", "CPU-wide sampling",
};

/* A watch thread: the time its CPU did not run it when it was due. */
struct watch {
	int		cpu;
	pthread_t	thread;
	_Atomic uint64_t stalled_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *watch_fn(void *arg)
{
	struct timespec ts = { 0, WATCH_MS * 1000000L };
	struct sched_param sp = { .sched_priority = 1 };
	struct watch *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	for (;;) {
		uint64_t t0 = now_ns(), late;

		nanosleep(&ts, NULL);
		late = now_ns() - t0 - WATCH_MS * 1000000ULL;
		if (late > STALL_MS * 1000000ULL)
			atomic_fetch_add(&w->stalled_ns, late);
	}
	return NULL;
}

static int open_event(uint64_t config, pid_t pid, int cpu, int group,
		      uint64_t period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = config;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = group < 0;
	attr.sample_period = period;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP;
	return syscall(__NR_perf_event_open, &attr, pid, cpu, group,
		       PERF_FLAG_FD_CLOEXEC);
}

/* A busy child bound to @cpu: the task a per-task group counts. */
static pid_t busy_child(int cpu)
{
	volatile uint64_t x = 0;
	cpu_set_t set;
	pid_t pid;

	pid = fork();
	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;)
		x += x * 7 + 1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* @fd's time enabled and running, added to @t (0 and 1) with @sign. */
static void sibling_times(int fd, int64_t sign, int64_t *t)
{
	uint64_t s[4];

	if (read(fd, s, sizeof(s)) < (ssize_t)(3 * sizeof(s[0])))
		return;
	t[0] += sign * (int64_t)s[1];
	t[1] += sign * (int64_t)s[2];
}

static int ledger(int fd, uint64_t *leaked, uint64_t *exposed)
{
	return fd >= 0 && pread(fd, leaked, 8, XPMU_MSR_LEAKED) == 8 &&
	       pread(fd, exposed, 8, XPMU_MSR_EXPOSED_NS) == 8 ? 0 : -1;
}

int main(int argc, char **argv)
{
	double worst[4] = { 1, 1, 1, 1 }, share, raw;
	uint64_t l0 = 0, e0 = 0, l1 = 0, e1 = 0, v[5];
	int a, b, groups, window, g, i, sib[NR_SIBLING], msr;
	int short_groups = 0, unjudged = 0, judged = 0, kind_runs[4] = { 0 };
	static struct watch watch[2];
	int64_t in_window[NR_SIBLING][2] = { 0 }, tw[NR_SIBLING][2];
	uint64_t stall0, stall, deadline;
	char path[64];
	pid_t child;

	if (argc != 5) {
		fprintf(stderr, "usage: x86pmu-half CPU_A CPU_B GROUPS WINDOW_MS\n");
		return 2;
	}
	a = atoi(argv[1]);
	b = atoi(argv[2]);
	groups = atoi(argv[3]);
	window = atoi(argv[4]);

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", a);
	msr = open(path, O_RDONLY);
	if (ledger(msr, &l0, &e0))
		msr = -1;

	for (i = 0; i < NR_SIBLING; i++) {
		sib[i] = open_event(sibling_events[i], -1, b, -1, 0);
		if (sib[i] < 0) {
			perror("perf_event_open (CPU B)");
			return 2;
		}
		ioctl(sib[i], PERF_EVENT_IOC_ENABLE, 0);
	}
	child = busy_child(a);
	watch[0].cpu = a;
	watch[1].cpu = b;
	for (i = 0; i < 2; i++) {
		if (pthread_create(&watch[i].thread, NULL, watch_fn, &watch[i])) {
			perror("pthread_create");
			kill(child, SIGKILL);
			return 2;
		}
	}
	sleep_ms(200);

	deadline = now_ns() + 2400000ULL * groups * window;
	for (g = -1; judged < groups; g++) {
		int kind = (g + 4) % 4, lead, member;
		pid_t pid = kind < 2 ? child : -1;
		int cpu = kind < 2 ? -1 : a;
		uint64_t period = kind & 1 ? 100000 : 0;

		if (g >= 0 && now_ns() > deadline)
			break;
		lead = open_event(0x00c4, pid, cpu, -1, period);
		member = lead < 0 ? -1 : open_event(0x00c5, pid, cpu, lead, period);
		if (lead < 0 || member < 0) {
			perror("perf_event_open (CPU A)");
			kill(child, SIGKILL);
			return 2;
		}
		stall0 = atomic_load(&watch[0].stalled_ns) +
			 atomic_load(&watch[1].stalled_ns);
		memset(tw, 0, sizeof(tw));
		for (i = 0; i < NR_SIBLING; i++)
			sibling_times(sib[i], -1, tw[i]);
		ioctl(lead, PERF_EVENT_IOC_ENABLE, 0);
		sleep_ms(window);
		if (read(lead, v, sizeof(v)) < (ssize_t)(3 * sizeof(v[0])))
			v[1] = v[2] = 0;
		for (i = 0; i < NR_SIBLING; i++)
			sibling_times(sib[i], 1, tw[i]);
		stall = atomic_load(&watch[0].stalled_ns) +
			atomic_load(&watch[1].stalled_ns) - stall0;
		close(member);
		close(lead);
		/* v: nr, time_enabled, time_running, counts */
		share = v[1] ? (double)v[2] / v[1] : 0;
		if (g < 0) {
			printf("first group (%s, not counted): ran %.1f%% of %.3f s enabled\n",
			       kinds[kind], 100 * share, v[1] / 1e9);
			continue;
		}
		if (stall > v[1] / 2) {
			unjudged++;
			printf("group %d (%s): not judged, the host stalled the guest %.3f of %.3f s (ran %.1f%%)\n",
			       g, kinds[kind], stall / 1e9, v[1] / 1e9, 100 * share);
			continue;
		}
		judged++;
		for (i = 0; i < NR_SIBLING; i++) {
			in_window[i][0] += tw[i][0];
			in_window[i][1] += tw[i][1];
		}
		raw = share;
		if (stall)
			share = (double)v[2] / (v[1] - stall);
		if (share > 1)
			share = 1;
		if (share < worst[kind])
			worst[kind] = share;
		kind_runs[kind]++;
		if (share >= MIN_SHARE)
			continue;
		short_groups++;
		printf("group %d (%s): ran %.1f%% of %.3f s enabled", g,
		       kinds[kind], 100 * raw, v[1] / 1e9);
		if (stall)
			printf(", %.1f%% of the %.3f s the host ran the guest",
			       100 * share, (v[1] - stall) / 1e9);
		printf("\n");
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	printf("%d groups of r00c4,r00c5 on CPU %d beside r81d0,r82d0,r11d0,r12d0 on CPU %d, %d ms each\n",
	       judged + unjudged, a, b, window);
	for (i = 0; i < 4; i++)
		printf("  %-18s %3d groups, lowest share %.1f%%\n", kinds[i],
		       kind_runs[i], 100 * worst[i]);
	for (i = 0; i < NR_SIBLING; i++) {
		uint64_t s[4];

		if (read(sib[i], s, sizeof(s)) < (ssize_t)(3 * sizeof(s[0])))
			s[1] = s[2] = 0;
		printf("  sibling r%04llx: ran %.1f%% while the groups ran, %.1f%% of the run\n",
		       (unsigned long long)sibling_events[i],
		       in_window[i][0] ? 100.0 * in_window[i][1] / in_window[i][0] : 0,
		       s[1] ? 100.0 * s[2] / s[1] : 0);
		close(sib[i]);
	}
	if (msr >= 0 && !ledger(msr, &l1, &e1))
		printf("  ledger over the run: leaked=%llu exposed_ns=%llu\n",
		       (unsigned long long)(l1 - l0),
		       (unsigned long long)(e1 - e0));
	printf("  the host stalled the guest's CPUs %.3f s and %.3f s (waking more than %d ms late)\n",
	       atomic_load(&watch[0].stalled_ns) / 1e9,
	       atomic_load(&watch[1].stalled_ns) / 1e9, STALL_MS);
	printf("%d of %d groups ran less than %.0f%% of their window; %d not judged\n",
	       short_groups, judged, 100 * MIN_SHARE, unjudged);
	if (judged < groups)
		printf("only %d of %d groups judged in the time allowed: the host was too busy to tell\n",
		       judged, groups);
	return short_groups || judged < groups ? 1 : 0;
}
