// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-switchcost CPU N KIND ROUNDS: what a context switch costs the
 * kernel, in instructions, with N per-task events on each of two tasks
 * (cost/cost.sh runs it).
 *
 * Two tasks bound to CPU ping-pong a byte through two pipes ROUNDS times:
 * a round is two context switches. Each task first opens N counting
 * events on itself (not a group: each is scheduled on its own, as perf
 * stat -e a,b,c opens them), of KIND "plain" (general events of the
 * Haswell tables) or "corrupting" (0xd0/0xd1 events, which the HT
 * erratum's workaround acts on); N may exceed the four counters, and the
 * events then rotate. The instructions are the emulator's own count of
 * what the CPU retired at CPL 0 (MSR 0x58504d07, qemu/README.md), read
 * before and after the rounds: no PMU counter measures, so nothing the
 * kernel schedules is disturbed by the measurement. Everything the kernel
 * does on CPU in that time counts: the two pipe syscalls a switch, the
 * switch itself with perf's sched-out and sched-in of the events, and the
 * timer ticks (perf's rotation among them).
 *
 * Prints one line:
 *   switchcost n=N kind=KIND rounds=R kernel_per_switch=K all_per_switch=A
 *   share=S
 * K and A in instructions (A counts user mode too), S the lowest share of
 * its enabled time any of the first task's events ran, in percent (100
 * when N = 0). Exit 2 when the CPU, the MSR or an event cannot be opened.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define XPMU_MSR_INSNS		0x58504d06
#define XPMU_MSR_INSNS_OS	0x58504d07
#define MAX_EVENTS		8
#define WARMUP			200

static const uint64_t plain[MAX_EVENTS] = {
	0x00c0, 0x003c, 0x00c4, 0x00c5, 0x4f2e, 0x412e, 0x01c2, 0x02c2,
};
static const uint64_t corrupting[MAX_EVENTS] = {
	0x81d0, 0x82d0, 0x11d0, 0x12d0, 0x01d1, 0x02d1, 0x04d1, 0x08d1,
};

static int bind_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* N counting events on the calling task; returns 0 or -1. */
static int open_events(const uint64_t *ev, int n, int *fd)
{
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_RAW;
		attr.config = ev[i];
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
				PERF_FLAG_FD_CLOEXEC);
		if (fd[i] < 0) {
			fprintf(stderr, "perf_event_open r%04llx: %m\n",
				(unsigned long long)ev[i]);
			return -1;
		}
	}
	return 0;
}

/* @rounds round trips: write to @out, read from @in (or the other way). */
static void ping(int in, int out, long rounds, int first)
{
	char c = 0;
	long i;

	for (i = 0; i < rounds; i++) {
		if (first && write(out, &c, 1) != 1)
			exit(1);
		if (read(in, &c, 1) != 1)
			exit(1);
		if (!first && write(out, &c, 1) != 1)
			exit(1);
	}
}

int main(int argc, char **argv)
{
	int cpu, n, msr, fd[MAX_EVENTS], to_child[2], to_parent[2], i;
	uint64_t k0, k1, a0, a1, v[3];
	double share = 100;
	const uint64_t *ev;
	char path[64];
	long rounds;
	pid_t child;

	if (argc != 5 || (strcmp(argv[3], "plain") && strcmp(argv[3], "corrupting"))) {
		fprintf(stderr, "usage: x86pmu-switchcost CPU N plain|corrupting ROUNDS\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	n = atoi(argv[2]);
	rounds = atol(argv[4]);
	ev = strcmp(argv[3], "plain") ? corrupting : plain;
	if (n < 0 || n > MAX_EVENTS || rounds <= 0) {
		fprintf(stderr, "N: 0-%d, ROUNDS: > 0\n", MAX_EVENTS);
		return 2;
	}
	if (bind_to(cpu)) {
		perror("sched_setaffinity");
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	msr = open(path, O_RDONLY);
	if (msr < 0 || pread(msr, &k0, 8, XPMU_MSR_INSNS_OS) != 8) {
		fprintf(stderr, "%s: no emulator instruction count (MSR 0x%x)\n",
			path, XPMU_MSR_INSNS_OS);
		return 2;
	}
	if (pipe(to_child) || pipe(to_parent)) {
		perror("pipe");
		return 2;
	}
	child = fork();
	if (child == 0) {
		if (open_events(ev, n, fd))
			_exit(2);
		ping(to_child[0], to_parent[1], WARMUP + rounds, 0);
		_exit(0);
	}
	if (open_events(ev, n, fd)) {
		kill(child, SIGKILL);
		return 2;
	}
	ping(to_parent[0], to_child[1], WARMUP, 1);
	if (pread(msr, &a0, 8, XPMU_MSR_INSNS) != 8 ||
	    pread(msr, &k0, 8, XPMU_MSR_INSNS_OS) != 8)
		return 2;
	ping(to_parent[0], to_child[1], rounds, 1);
	if (pread(msr, &k1, 8, XPMU_MSR_INSNS_OS) != 8 ||
	    pread(msr, &a1, 8, XPMU_MSR_INSNS) != 8)
		return 2;
	waitpid(child, &i, 0);
	if (!WIFEXITED(i) || WEXITSTATUS(i)) {
		fprintf(stderr, "the second task failed\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (read(fd[i], v, sizeof(v)) != sizeof(v) || !v[1]) {
			share = 0;
			continue;
		}
		if (100.0 * v[2] / v[1] < share)
			share = 100.0 * v[2] / v[1];
	}
	printf("switchcost n=%d kind=%s rounds=%ld kernel_per_switch=%llu all_per_switch=%llu share=%.1f\n",
	       n, argv[3], rounds,
	       (unsigned long long)((k1 - k0) / (2 * rounds)),
	       (unsigned long long)((a1 - a0) / (2 * rounds)), share);
	return 0;
}
