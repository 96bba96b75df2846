// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-moved A B: a corrupting event that moves down in the scheduling
 * pass must stay exclusive (tests/host/moved.sh runs it).
 *
 * On CPU A, with the HT workaround on: a pinned ROB_MISC_EVENTS (r20cc:u),
 * then a pinned MEM_UOPS_RETIRED.ALL_LOADS (r81d0:u, corrupting). Closing
 * the first moves the second down one index in the pass; then a flexible
 * branches event (r00c4:u) is added behind it. On CPU B, four flexible
 * r20cc:u. For one second the loads event must keep its counter index to
 * itself: the emulator's ledger of the core may not move. A dynamic
 * constraint that stayed behind at the old index (x86_pmu_del()) would be
 * overwritten by the branches event's, flags included, and the loads
 * event would be scheduled as a non-corrupting one.
 *
 * Prints what it did and "leaked=N exposed_ns=T"; exit 1 on a leak or any
 * exposure, 2 when an event cannot be opened, 4 (skip) without the
 * emulator's ledger.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define XPMU_MSR_LEAKED		0x58504d00
#define XPMU_MSR_EXPOSED_NS	0x58504d01

static int open_on(int cpu, uint64_t config, int pinned)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = config;
	attr.pinned = pinned;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int ledger(int fd, uint64_t *leaked, uint64_t *exposed)
{
	return pread(fd, leaked, 8, XPMU_MSR_LEAKED) == 8 &&
	       pread(fd, exposed, 8, XPMU_MSR_EXPOSED_NS) == 8 ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t l0, e0, l1, e1, v[3];
	int a, b, msr, rob, loads, branches, sib[4], i;
	char path[64];

	if (argc != 3) {
		fprintf(stderr, "usage: x86pmu-moved CPU_A CPU_B\n");
		return 2;
	}
	a = atoi(argv[1]);
	b = atoi(argv[2]);
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", a);
	msr = open(path, O_RDONLY);
	if (msr < 0 || ledger(msr, &l0, &e0)) {
		printf("SKIP: no emulator ledger on CPU %d\n", a);
		return 4;
	}

	rob = open_on(a, 0x20cc, 1);
	loads = open_on(a, 0x81d0, 1);
	if (rob < 0 || loads < 0) {
		perror("perf_event_open (pinned, CPU A)");
		return 2;
	}
	close(rob);
	branches = open_on(a, 0x00c4, 0);
	if (branches < 0) {
		perror("perf_event_open (branches, CPU A)");
		return 2;
	}
	for (i = 0; i < 4; i++) {
		sib[i] = open_on(b, 0x20cc, 0);
		if (sib[i] < 0) {
			perror("perf_event_open (CPU B)");
			return 2;
		}
	}
	sleep(1);
	if (read(loads, v, sizeof(v)) != sizeof(v))
		v[0] = v[1] = v[2] = 0;
	if (ledger(msr, &l1, &e1)) {
		printf("cannot read the ledger again\n");
		return 2;
	}
	for (i = 0; i < 4; i++)
		close(sib[i]);
	close(branches);
	close(loads);

	printf("CPU %d: pinned r20cc:u closed, pinned r81d0:u (%llu, ran %llu of %llu ns), r00c4:u added; CPU %d: 4 x r20cc:u\n",
	       a, (unsigned long long)v[0], (unsigned long long)v[2],
	       (unsigned long long)v[1], b);
	printf("leaked=%llu exposed_ns=%llu\n", (unsigned long long)(l1 - l0),
	       (unsigned long long)(e1 - e0));
	return l1 != l0 || e1 != e0 ? 1 : 0;
}
