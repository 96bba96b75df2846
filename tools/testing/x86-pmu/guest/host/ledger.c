// SPDX-License-Identifier: GPL-2.0
/*
 * x86pmu-ledger [--reset] CPU: print the emulator's exposure ledger of the
 * core that CPU belongs to, read through the emulator's private MSRs
 * (qemu/README.md, "The ledger") with the msr driver:
 *
 *   leaked=N exposed_ns=T settlements=M erratum=on|off
 *
 * --reset clears the core's ledger first. Exit 4 (skip) where there is no
 * ledger: no architectural PMU (QEMU without pmu=on reads unknown MSRs as
 * 0 rather than faulting), or the MSRs fault (not the emulated host).
 */
#include <cpuid.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XPMU_MSR_LEAKED		0x58504d00
#define XPMU_MSR_EXPOSED_NS	0x58504d01
#define XPMU_MSR_SETTLEMENTS	0x58504d02
#define XPMU_MSR_ERRATUM	0x58504d03
#define XPMU_MSR_RESET		0x58504dff

static int rd(int fd, uint32_t msr, uint64_t *v)
{
	return pread(fd, v, sizeof(*v), msr) == sizeof(*v) ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t leaked, exposed, settlements, erratum, zero = 0;
	unsigned int eax, ebx, ecx, edx;
	int reset = 0, cpu, fd;
	char path[64];

	if (argc == 3 && !strcmp(argv[1], "--reset")) {
		reset = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: x86pmu-ledger [--reset] CPU\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	eax = 0;
	if (__get_cpuid_max(0, NULL) >= 0xa)
		__cpuid_count(0xa, 0, eax, ebx, ecx, edx);
	if (!(eax & 0xff)) {
		fprintf(stderr, "no architectural PMU: no emulator ledger\n");
		return 4;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 4;
	}
	if (rd(fd, XPMU_MSR_ERRATUM, &erratum)) {
		fprintf(stderr, "no emulator ledger on CPU %d\n", cpu);
		return 4;
	}
	if (reset && pwrite(fd, &zero, sizeof(zero), XPMU_MSR_RESET) != sizeof(zero)) {
		perror("reset");
		return 1;
	}
	if (rd(fd, XPMU_MSR_LEAKED, &leaked) ||
	    rd(fd, XPMU_MSR_EXPOSED_NS, &exposed) ||
	    rd(fd, XPMU_MSR_SETTLEMENTS, &settlements)) {
		perror("rdmsr");
		return 1;
	}
	printf("leaked=%llu exposed_ns=%llu settlements=%llu erratum=%s\n",
	       (unsigned long long)leaked, (unsigned long long)exposed,
	       (unsigned long long)settlements, erratum ? "on" : "off");
	return 0;
}
