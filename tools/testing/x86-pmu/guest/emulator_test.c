// SPDX-License-Identifier: GPL-2.0
/*
 * emulator_test - guest-side test of the emulated affected host (QEMU with
 * this project's PMU patches, -cpu Haswell,pmu=on,ht-erratum=on|off,
 * -smp 2,sockets=1,cores=1,threads=2). Prints TAP.
 *
 * Part 1 (--msr) programs the PMU directly through /dev/cpu/N/msr, before
 * any perf event exists (boot with nmi_watchdog=0; msr.allow_writes=on
 * keeps the msr driver quiet), pinned to CPU 0 and reading CPU 1 (its
 * sibling) through the same device: CPUID 0xA, counter write/readback with
 * sign extension, reserved bits, a disabled counter does not move,
 * GLOBAL_CTRL gates, USR/OS filtering, overflow status, and the erratum:
 * a corrupting event on counter i of CPU 0 leaks into counter i of CPU 1
 * exactly while both are enabled, and the emulator's ledger MSRs count it;
 * with ht-erratum=off nothing leaks (the ledger MSR base+3 tells which
 * case this is). Everything it changes is restored.
 *
 * On an AMD family 15h host (-cpu Opteron_G5,pmu=on) part 1 checks the
 * AMD core PMU instead: CPUID Fn8000_0001 ECX PerfCtrExtCore and no
 * PerfMonV2, the six PERF_CTL/PERF_CTR pairs at 0xc0010200, the K7 MSRs
 * aliasing the first four, 48-bit counters, reserved bits, EN, USR/OS
 * filtering, ratios of the synthetic events, overflow (amd_msr_part()).
 *
 * On a Gracemont host (-cpu Skylake-Client,model=190,pmu=on, 2 cores)
 * part 1 checks CPUID 0xA (version 5, 6 GP counters, fixed bitmap 7),
 * CPUID.1 DS/DTES64/PDCM, IA32_MISC_ENABLE, PERF_CAPABILITIES, the PEBS
 * MSRs and GP counters 4 and 5 (grt_msr_part()); part 2 adds PEBS
 * sampling through perf: instructions:ppp and the load-latency event,
 * PERF_RECORD_SAMPLE records read from the mmapped ring buffer
 * (grt_perf_pebs()).
 *
 * Part 2 (--perf) uses perf_event_open(2): counting and sampling
 * (SIGTRAP on overflow) on instructions and cycles, that the overflows
 * came as PMIs, RDPMC from user space through the mmapped page.
 *
 * No argument: both parts. Exit 0 if all passed, 1 on a failure, 4 (skip)
 * if this is not the emulated host. As PID 1 (rdinit=) it mounts /dev,
 * /proc and /sys, runs both parts and reboots (QEMU -no-reboot exits);
 * arguments after "--" on the kernel command line reach it.
 *
 * --watchdog SECONDS (after the parts): keeps both CPUs busy that long
 * while the NMI watchdog runs, and checks that NMIs (the watchdog's cycle
 * counter overflowing) arrived; the host checks the console for a
 * hard-lockup report.
 *
 * Counts other than instructions and cycles are synthetic in the emulator
 * (qemu/README.md): the test asserts zero/non-zero, ratios, and exact
 * equality only where the emulator makes it exact (a leak equals the
 * corrupting counter's count over an interval in which both were on).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSR_PMC0		0xc1
#define MSR_EVNTSEL0		0x186
#define MSR_FIXED_CTR0		0x309
#define MSR_FIXED_CTR_CTRL	0x38d
#define MSR_GLOBAL_STATUS	0x38e
#define MSR_GLOBAL_CTRL		0x38f
#define MSR_GLOBAL_OVF_CTRL	0x390
/* The emulator's ledger MSRs (qemu/README.md) */
#define LEDGER			0x58504d00u
#define LEDGER_LEAKED		(LEDGER + 0x00)
#define LEDGER_EXPOSED_NS	(LEDGER + 0x01)
#define LEDGER_SETTLEMENTS	(LEDGER + 0x02)
#define LEDGER_ERRATUM		(LEDGER + 0x03)
#define LEDGER_THREAD		(LEDGER + 0x04)
#define LEDGER_SIBLING		(LEDGER + 0x05)
#define LEDGER_INSNS		(LEDGER + 0x06)
#define LEDGER_INSNS_OS		(LEDGER + 0x07)
#define LEDGER_CTR_LEAKED(i)	(LEDGER + 0x10 + (i))
#define LEDGER_CTR_EXPOSED(i)	(LEDGER + 0x20 + (i))
#define LEDGER_CTR_SETTLE(i)	(LEDGER + 0x30 + (i))
#define LEDGER_RESET		(LEDGER + 0xff)

#define EVTSEL_USR		(1ULL << 16)
#define EVTSEL_OS		(1ULL << 17)
#define EVTSEL_INT		(1ULL << 20)
#define EVTSEL_EN		(1ULL << 22)
#define EV_INSNS		0x00c0ULL
#define EV_MEM_UOPS		0x81d0ULL	/* corrupting */
#define EV_LBR_INSERTS		0x20ccULL	/* counts nothing in the emulator */
#define CTR_MASK		((1ULL << 48) - 1)
#define NR_GP			4

/* AMD family 15h core PMU */
#define MSR_K7_EVNTSEL0		0xc0010000
#define MSR_K7_PERFCTR0		0xc0010004
#define MSR_F15H_PERF_CTL(i)	(0xc0010200 + 2 * (i))
#define MSR_F15H_PERF_CTR(i)	(0xc0010201 + 2 * (i))
#define AMD_NR_GP		6
#define AMD_NR_K7		4
#define AMD_EV_CYCLES		0x076ULL
#define AMD_EV_INSNS		0x0c0ULL
#define AMD_EV_BRANCHES		0x0c2ULL	/* synthetic */
#define AMD_EVTSEL_HI(e)	((uint64_t)(e) << 32)	/* EventSelect[11:8] */
#define CPUID_PERFCTR_CORE	(1u << 23)	/* Fn8000_0001 ECX */

/* Gracemont (Alder Lake-N): version 5, six GP counters, adaptive PEBS */
#define GRT_MODEL		0xbe
#define GRT_NR_GP		6
#define MSR_MISC_ENABLE		0x1a0
#define MISC_BTS_UNAVAIL	(1ULL << 11)
#define MISC_PEBS_UNAVAIL	(1ULL << 12)
#define MSR_PERF_CAPS		0x345
#define GRT_PERF_CAPS		0x44c0ULL	/* trap, regs, fmt 4, baseline */
#define MSR_PEBS_ENABLE		0x3f1
#define MSR_PEBS_DATA_CFG	0x3f2
#define MSR_PEBS_LD_LAT		0x3f6
#define MSR_DS_AREA		0x600
#define CPUID1_EDX_DS		(1u << 21)
#define CPUID1_ECX_DTES64	(1u << 2)
#define CPUID1_ECX_PDCM		(1u << 15)

static int tests, failures, skips;
static int msr_fd[2] = { -1, -1 };

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failures++;
	printf("%sok %d - ", ok ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void skip(const char *what, const char *why)
{
	tests++;
	skips++;
	printf("ok %d - %s # SKIP %s\n", tests, what, why);
	fflush(stdout);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* 0, or -errno (EIO: the MSR access faulted) */
static int rdmsr_on(int cpu, uint32_t msr, uint64_t *val)
{
	if (pread(msr_fd[cpu], val, 8, msr) == 8)
		return 0;
	return -errno;
}

static int wrmsr_on(int cpu, uint32_t msr, uint64_t val)
{
	if (pwrite(msr_fd[cpu], &val, 8, msr) == 8)
		return 0;
	return -errno;
}

static uint64_t rd(int cpu, uint32_t msr)
{
	uint64_t v = 0;

	if (rdmsr_on(cpu, msr, &v))
		diag("rdmsr 0x%x on CPU %d failed", msr, cpu);
	return v;
}

static void wr(int cpu, uint32_t msr, uint64_t v)
{
	if (wrmsr_on(cpu, msr, v))
		diag("wrmsr 0x%x = 0x%llx on CPU %d failed", msr,
		     (unsigned long long)v, cpu);
}

/* User-mode instructions: about 4 per iteration. */
static void user_work(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

/* Mostly kernel-mode instructions. */
static void kernel_work(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/* What the test changes, to be restored */
static struct {
	uint64_t evtsel[2][NR_GP], pmc[2][NR_GP];
	uint64_t global_ctrl[2], fixed_ctrl[2];
} saved;

static void save_pmu(int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		for (int i = 0; i < NR_GP; i++) {
			saved.evtsel[c][i] = rd(c, MSR_EVNTSEL0 + i);
			saved.pmc[c][i] = rd(c, MSR_PMC0 + i);
		}
		saved.global_ctrl[c] = rd(c, MSR_GLOBAL_CTRL);
		saved.fixed_ctrl[c] = rd(c, MSR_FIXED_CTR_CTRL);
	}
}

static void restore_pmu(int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		wr(c, MSR_FIXED_CTR_CTRL, saved.fixed_ctrl[c]);
		for (int i = 0; i < NR_GP; i++) {
			wr(c, MSR_EVNTSEL0 + i, saved.evtsel[c][i]);
			/* a legacy write sign-extends bit 31: write the low half */
			wr(c, MSR_PMC0 + i, saved.pmc[c][i] & 0xffffffffULL);
		}
		wr(c, MSR_GLOBAL_OVF_CTRL, rd(c, MSR_GLOBAL_STATUS));
		wr(c, MSR_GLOBAL_CTRL, saved.global_ctrl[c]);
	}
}

static void test_cpuid(void)
{
	unsigned int a, b, c, d;

	__cpuid_count(0xa, 0, a, b, c, d);
	diag("CPUID.0AH: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x", a, b, c, d);
	tap((a & 0xff) == 3 && ((a >> 8) & 0xff) == 4 &&
	    ((a >> 16) & 0xff) == 48 && ((a >> 24) & 0xff) == 7,
	    "CPUID.0AH:EAX: version 3, 4 GP counters, 48 bits, EBX length 7");
	tap(b == 0, "CPUID.0AH:EBX: all 7 architectural events available");
	tap((d & 0x1f) == 3 && ((d >> 5) & 0xff) == 48,
	    "CPUID.0AH:EDX: 3 fixed counters, 48 bits");
}

static void test_write_readback(void)
{
	uint64_t v;
	int ok;

	wr(0, MSR_PMC0, 0x12345);
	ok = rd(0, MSR_PMC0) == 0x12345;
	wr(0, MSR_PMC0, 0x80000000ULL);
	v = rd(0, MSR_PMC0);
	ok &= v == 0xffff80000000ULL;
	wr(0, MSR_PMC0, 0xffff);	/* check_hw_exists() */
	ok &= rd(0, MSR_PMC0) == 0xffff;
	wr(1, MSR_PMC0 + 3, 0x7fffffff);
	ok &= rd(1, MSR_PMC0 + 3) == 0x7fffffff;
	tap(ok, "PMC write/readback; a legacy write of 0x80000000 reads 0x%llx",
	    (unsigned long long)v);
	wr(0, MSR_FIXED_CTR0 + 2, 0x123456789abcULL);
	v = rd(0, MSR_FIXED_CTR0 + 2);
	tap(v == 0x123456789abcULL, "fixed counter takes 48 bits (0x%llx)",
	    (unsigned long long)v);
	wr(0, MSR_FIXED_CTR0 + 2, 0);
}

static void test_reserved_bits(void)
{
	uint64_t before = rd(0, MSR_EVNTSEL0 + 1);
	int ok;

	ok = wrmsr_on(0, MSR_EVNTSEL0 + 1, 1ULL << 32 | EV_INSNS) == -EIO;
	ok &= rd(0, MSR_EVNTSEL0 + 1) == before;
	ok &= wrmsr_on(0, MSR_GLOBAL_STATUS, 0) == -EIO;
	ok &= wrmsr_on(0, MSR_FIXED_CTR_CTRL, 1ULL << 12) == -EIO;
	ok &= wrmsr_on(0, MSR_GLOBAL_CTRL, 1ULL << 4) == -EIO;
	ok &= wrmsr_on(0, MSR_GLOBAL_OVF_CTRL, 1ULL << 40) == -EIO;
	ok &= wrmsr_on(0, LEDGER_LEAKED, 0) == -EIO;
	tap(ok, "reserved bits, GLOBAL_STATUS and ledger writes fault (#GP)");
}

static void test_disabled_and_gating(void)
{
	uint64_t v0, v1, v2;
	uint64_t gc = rd(0, MSR_GLOBAL_CTRL);

	wr(0, MSR_PMC0, 0);
	wr(0, MSR_EVNTSEL0, EVTSEL_USR | EVTSEL_OS | EV_INSNS);	/* no EN */
	user_work(200000);
	v0 = rd(0, MSR_PMC0);
	tap(v0 == 0, "a counter without EN does not move (%llu)",
	    (unsigned long long)v0);

	wr(0, MSR_GLOBAL_CTRL, gc & ~1ULL);
	wr(0, MSR_EVNTSEL0, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_INSNS);
	user_work(200000);
	v0 = rd(0, MSR_PMC0);
	wr(0, MSR_GLOBAL_CTRL, gc | 1);
	user_work(200000);
	v1 = rd(0, MSR_PMC0);
	wr(0, MSR_GLOBAL_CTRL, gc & ~1ULL);
	v1 = rd(0, MSR_PMC0);
	user_work(200000);
	v2 = rd(0, MSR_PMC0);
	tap(v0 == 0 && v1 >= 200000 && v2 == v1,
	    "GLOBAL_CTRL gates: off %llu, on %llu, off again %llu",
	    (unsigned long long)v0, (unsigned long long)v1,
	    (unsigned long long)v2);
	wr(0, MSR_EVNTSEL0, 0);
	wr(0, MSR_GLOBAL_CTRL, gc);
}

static void test_usr_os(void)
{
	uint64_t u0, o0, u1, o1, u2, o2, f0, f1, f0b, f1b;
	uint64_t gc = rd(0, MSR_GLOBAL_CTRL);
	long n = 1000000;

	wr(0, MSR_PMC0, 0);
	wr(0, MSR_PMC0 + 1, 0);
	wr(0, MSR_FIXED_CTR0, 0);
	wr(0, MSR_FIXED_CTR0 + 1, 0);
	wr(0, MSR_EVNTSEL0, EVTSEL_EN | EVTSEL_USR | EV_INSNS);
	wr(0, MSR_EVNTSEL0 + 1, EVTSEL_EN | EVTSEL_OS | EV_INSNS);
	wr(0, MSR_FIXED_CTR_CTRL, 0x33);	/* fixed 0, 1: OS and USR */
	wr(0, MSR_GLOBAL_CTRL, gc | 0x3 | (0x3ULL << 32));
	u0 = rd(0, MSR_PMC0);
	o0 = rd(0, MSR_PMC0 + 1);
	f0 = rd(0, MSR_FIXED_CTR0);
	f1 = rd(0, MSR_FIXED_CTR0 + 1);
	user_work(n);
	u1 = rd(0, MSR_PMC0);
	o1 = rd(0, MSR_PMC0 + 1);
	kernel_work(20000);
	u2 = rd(0, MSR_PMC0);
	o2 = rd(0, MSR_PMC0 + 1);
	f0b = rd(0, MSR_FIXED_CTR0);
	f1b = rd(0, MSR_FIXED_CTR0 + 1);
	diag("user loop: USR +%llu OS +%llu; syscall loop: USR +%llu OS +%llu",
	     (unsigned long long)(u1 - u0), (unsigned long long)(o1 - o0),
	     (unsigned long long)(u2 - u1), (unsigned long long)(o2 - o1));
	tap(u1 - u0 >= (uint64_t)n && u1 - u0 > 5 * (o1 - o0),
	    "USR-only instructions count the user loop");
	tap(o2 - o1 > 5 * (u2 - u1) && o2 - o1 > 20000,
	    "OS-only instructions count the syscall loop");
	tap(f0b - f0 >= (u2 - u0) && f1b > f1,
	    "fixed counters: instructions (+%llu) and cycles (+%llu) count",
	    (unsigned long long)(f0b - f0), (unsigned long long)(f1b - f1));
	wr(0, MSR_EVNTSEL0, 0);
	wr(0, MSR_EVNTSEL0 + 1, 0);
	wr(0, MSR_FIXED_CTR_CTRL, 0);
	wr(0, MSR_GLOBAL_CTRL, gc);
}

/*
 * The emulator's own instruction counts (no counter involved): all of the
 * user loop and little kernel in it; over the syscall loop, the kernel's
 * count agrees with an OS-only counter of instructions within 2%.
 */
static void test_insn_counts(void)
{
	uint64_t gc = rd(0, MSR_GLOBAL_CTRL), o[3], a[3], k[3];
	long n = 1000000;

	wr(0, MSR_PMC0, 0);
	wr(0, MSR_EVNTSEL0, EVTSEL_EN | EVTSEL_OS | EV_INSNS);
	wr(0, MSR_GLOBAL_CTRL, gc | 0x1);
	for (int i = 0; i < 3; i++) {
		if (i == 1)
			user_work(n);
		if (i == 2)
			kernel_work(20000);
		o[i] = rd(0, MSR_PMC0);
		a[i] = rd(0, LEDGER_INSNS);
		k[i] = rd(0, LEDGER_INSNS_OS);
	}
	diag("user loop: all +%llu, CPL 0 +%llu; syscall loop: all +%llu, CPL 0 +%llu, OS-only counter +%llu",
	     (unsigned long long)(a[1] - a[0]), (unsigned long long)(k[1] - k[0]),
	     (unsigned long long)(a[2] - a[1]), (unsigned long long)(k[2] - k[1]),
	     (unsigned long long)(o[2] - o[1]));
	tap(a[1] - a[0] >= (uint64_t)n && 5 * (k[1] - k[0]) < a[1] - a[0],
	    "the emulator's instruction count (MSR 0x58504d06) has the user loop, its CPL 0 count (0x58504d07) not");
	tap(k[2] - k[1] > 20000 && k[2] - k[1] <= a[2] - a[1] &&
	    50 * (k[2] - k[1]) > 49 * (o[2] - o[1]) &&
	    50 * (k[2] - k[1]) < 51 * (o[2] - o[1]),
	    "its CPL 0 count over the syscall loop agrees with an OS-only counter within 2%% (+%llu, +%llu)",
	    (unsigned long long)(k[2] - k[1]), (unsigned long long)(o[2] - o[1]));
	wr(0, MSR_EVNTSEL0, 0);
	wr(0, MSR_GLOBAL_CTRL, gc);
}

static void test_overflow_status(void)
{
	uint64_t gc = rd(0, MSR_GLOBAL_CTRL), st, v;

	wr(0, MSR_GLOBAL_OVF_CTRL, 0x8);
	wr(0, MSR_PMC0 + 3, (uint64_t)-100000);	/* 0xfffffffe7960 */
	wr(0, MSR_EVNTSEL0 + 3, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_INSNS);
	wr(0, MSR_GLOBAL_CTRL, gc | 0x8);
	user_work(100000);
	wr(0, MSR_EVNTSEL0 + 3, 0);
	st = rd(0, MSR_GLOBAL_STATUS);
	v = rd(0, MSR_PMC0 + 3);
	tap((st & 0x8) && v < 10000000,
	    "48-bit wrap sets GLOBAL_STATUS bit 3 (status 0x%llx, counter %llu)",
	    (unsigned long long)st, (unsigned long long)v);
	wr(0, MSR_GLOBAL_OVF_CTRL, 0x8);
	st = rd(0, MSR_GLOBAL_STATUS);
	tap(!(st & 0x8), "GLOBAL_OVF_CTRL clears it (status 0x%llx)",
	    (unsigned long long)st);
	wr(0, MSR_PMC0 + 3, 0);
	wr(0, MSR_GLOBAL_CTRL, gc);
}

/*
 * The erratum: CPU 0 runs MEM_UOPS_RETIRED (0x81d0, corrupting) on counter
 * i, CPU 1 runs LBR_INSERTS (0x20cc, which never counts in the emulator)
 * on counter i. Whatever CPU 1's counter holds is leaked.
 */
static void test_leak(int erratum, int sibling)
{
	uint64_t a, b, l, s, x, b0, gc1 = rd(1, MSR_GLOBAL_CTRL);
	int expect = erratum && sibling;
	int i = 2;

	wr(0, LEDGER_RESET, 0);
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < NR_GP; k++)
			wr(c, MSR_PMC0 + k, 0);
	wr(0, MSR_GLOBAL_CTRL, rd(0, MSR_GLOBAL_CTRL) | 0xf);
	wr(1, MSR_GLOBAL_CTRL, gc1 | 0xf);

	/* victim on first, corrupter inside: both on for the whole run */
	wr(1, MSR_EVNTSEL0 + i, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_LBR_INSERTS);
	wr(0, MSR_EVNTSEL0 + i, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_MEM_UOPS);
	user_work(300000);
	wr(0, MSR_EVNTSEL0 + i, 0);
	a = rd(0, MSR_PMC0 + i);
	b = rd(1, MSR_PMC0 + i);
	l = rd(1, LEDGER_CTR_LEAKED(i));
	s = rd(1, LEDGER_CTR_SETTLE(i));
	x = rd(1, LEDGER_CTR_EXPOSED(i));
	diag("corrupting counter %d on CPU 0: %llu; CPU 1's counter %d: %llu; "
	     "ledger: leaked %llu in %llu settlements, exposed %llu ns", i,
	     (unsigned long long)a, i, (unsigned long long)b,
	     (unsigned long long)l, (unsigned long long)s,
	     (unsigned long long)x);
	if (expect) {
		tap(a > 0 && b == a,
		    "erratum on: the sibling's counter %d gains exactly the corrupting count", i);
		tap(l == a && s >= 1 && x > 0 && rd(0, LEDGER_LEAKED) == a &&
		    rd(0, LEDGER_SETTLEMENTS) == s,
		    "ledger MSRs: leaked == corrupting count, settlements, exposure");
	} else {
		tap(a > 0 && b == 0, "erratum %s: nothing leaks into the sibling",
		    erratum ? "on but no sibling" : "off");
		tap(l == 0 && s == 0 && x == 0 && rd(0, LEDGER_LEAKED) == 0 &&
		    rd(0, LEDGER_EXPOSED_NS) == 0,
		    "ledger MSRs stay zero");
	}

	/* victim off (EN clear): the corrupter runs alone, nothing lands */
	b0 = rd(1, MSR_PMC0 + i);
	wr(1, MSR_EVNTSEL0 + i, EVTSEL_USR | EVTSEL_OS | EV_LBR_INSERTS);
	wr(0, MSR_EVNTSEL0 + i, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_MEM_UOPS);
	user_work(300000);
	wr(0, MSR_EVNTSEL0 + i, 0);
	tap(rd(1, MSR_PMC0 + i) == b0 && rd(1, LEDGER_CTR_LEAKED(i)) == l &&
	    rd(1, LEDGER_CTR_EXPOSED(i)) == x,
	    "no leak while the sibling's counter is disabled (EN clear)");

	/* victim EN set but its GLOBAL_CTRL bit clear: gated, nothing lands */
	wr(1, MSR_GLOBAL_CTRL, (gc1 | 0xf) & ~(1ULL << i));
	wr(1, MSR_EVNTSEL0 + i, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_LBR_INSERTS);
	wr(0, MSR_EVNTSEL0 + i, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_MEM_UOPS);
	user_work(300000);
	wr(0, MSR_EVNTSEL0 + i, 0);
	wr(1, MSR_EVNTSEL0 + i, 0);
	tap(rd(1, MSR_PMC0 + i) == b0 && rd(1, LEDGER_CTR_LEAKED(i)) == l,
	    "no leak while the sibling's GLOBAL_CTRL bit is clear");
	wr(1, MSR_GLOBAL_CTRL, gc1 | 0xf);

	/* corrupter on counter 1, victims on 0 and 1: only counter 1 gains */
	wr(0, LEDGER_RESET, 0);
	wr(0, MSR_PMC0 + 1, 0);
	wr(1, MSR_PMC0, 0);
	wr(1, MSR_PMC0 + 1, 0);
	wr(1, MSR_EVNTSEL0, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_LBR_INSERTS);
	wr(1, MSR_EVNTSEL0 + 1, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_LBR_INSERTS);
	wr(0, MSR_EVNTSEL0 + 1, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_MEM_UOPS);
	user_work(300000);
	wr(0, MSR_EVNTSEL0 + 1, 0);
	a = rd(0, MSR_PMC0 + 1);
	wr(1, MSR_EVNTSEL0, 0);
	wr(1, MSR_EVNTSEL0 + 1, 0);
	tap(rd(1, MSR_PMC0) == 0 && rd(1, MSR_PMC0 + 1) == (expect ? a : 0) &&
	    rd(1, LEDGER_CTR_LEAKED(0)) == 0 &&
	    rd(1, LEDGER_CTR_LEAKED(1)) == (expect ? a : 0) &&
	    rd(0, LEDGER_CTR_LEAKED(1)) == 0,
	    "a leak lands in the same counter index of the sibling only");
	/* the ledger keeps this last leak: the host sees it at exit */
	wr(1, MSR_GLOBAL_CTRL, gc1);
}

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	siglongjmp(segv_jmp, 1);
}

static void test_user_rdpmc_without_pce(void)
{
	struct sigaction sa = { .sa_handler = on_segv }, old;
	volatile int faulted = 0;
	unsigned int lo, hi;

	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(segv_jmp, 1))
		asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(0));
	else
		faulted = 1;
	sigaction(SIGSEGV, &old, NULL);
	tap(faulted, "RDPMC at CPL 3 without CR4.PCE raises #GP (SIGSEGV)");
}

static int watchdog_on(void)
{
	int fd = open("/proc/sys/kernel/nmi_watchdog", O_RDONLY);
	char c = '0';

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

/*
 * No architectural PMU (QEMU without pmu=on): QEMU's behaviour as before
 * the patches: the PMU MSRs read 0 and ignore writes, no hardware events.
 * Return 4: the PMU tests do not apply.
 */
static int no_pmu(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
	};
	uint64_t v = 1, l = 1;
	long fd;

	diag("no architectural PMU (CPUID.0AH:EAX = 0)");
	wrmsr_on(0, MSR_PMC0, 0x1234);
	if (rdmsr_on(0, MSR_PMC0, &v) || rdmsr_on(0, LEDGER_ERRATUM, &l))
		v = l = 1;
	tap(v == 0 && l == 0,
	    "no PMU: IA32_PMC0 and the ledger MSRs read 0, writes are ignored");
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	tap(fd < 0, "no PMU: no hardware perf events (%s)",
	    fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);
	return 4;
}

/* AMD family 15h: see the top of the file */

static int is_amd(void)
{
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	return b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;
}

static struct {
	uint64_t ctl[2][AMD_NR_GP], ctr[2][AMD_NR_GP];
} amd_saved;

static void amd_save(int ncpu)
{
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < AMD_NR_GP; i++) {
			amd_saved.ctl[c][i] = rd(c, MSR_F15H_PERF_CTL(i));
			amd_saved.ctr[c][i] = rd(c, MSR_F15H_PERF_CTR(i));
		}
}

static void amd_restore(int ncpu)
{
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < AMD_NR_GP; i++) {
			wr(c, MSR_F15H_PERF_CTL(i), amd_saved.ctl[c][i]);
			wr(c, MSR_F15H_PERF_CTR(i), amd_saved.ctr[c][i]);
		}
}

static void amd_test_cpuid(void)
{
	unsigned int a, b, c, d, family, maxext;

	__cpuid(1, a, b, c, d);
	family = ((a >> 8) & 0xf) + ((a >> 20) & 0xff);
	__cpuid(0x80000001, a, b, c, d);
	diag("CPUID.80000001H:ECX=0x%08x, family 0x%x", c, family);
	tap(family == 0x15 && (c & CPUID_PERFCTR_CORE),
	    "family 15h with PerfCtrExtCore (CPUID Fn8000_0001 ECX bit 23)");
	__cpuid(0x80000000, maxext, b, c, d);
	a = 0;
	if (maxext >= 0x80000022)
		__cpuid_count(0x80000022, 0, a, b, c, d);
	tap(!(a & 1), "no PerfMonV2 (max extended leaf 0x%x)", maxext);
	__cpuid_count(0xa, 0, a, b, c, d);
	tap(!a && !b && !c && !d, "no Intel leaf 0xA");
}

static void amd_test_write_readback(void)
{
	uint64_t v, w;
	int ok = 1;

	for (int i = 0; i < AMD_NR_GP; i++) {
		wr(0, MSR_F15H_PERF_CTR(i), 0x123456789abcULL + i);
		ok &= rd(0, MSR_F15H_PERF_CTR(i)) == 0x123456789abcULL + i;
	}
	wr(0, MSR_F15H_PERF_CTR(5), 0x80000000ULL);
	v = rd(0, MSR_F15H_PERF_CTR(5));
	wr(0, MSR_F15H_PERF_CTR(4), 0xffff000000000007ULL);
	w = rd(0, MSR_F15H_PERF_CTR(4));
	tap(ok && v == 0x80000000ULL && w == 7,
	    "six 48-bit counters: write/readback, no sign extension (0x%llx), bits 63:48 dropped (0x%llx)",
	    (unsigned long long)v, (unsigned long long)w);
}

static void amd_test_alias(void)
{
	int ok = 1, other = 1, cpu1 = 1;

	for (int i = 0; i < AMD_NR_GP; i++)
		wr(1, MSR_F15H_PERF_CTR(i), 0);
	wr(0, MSR_F15H_PERF_CTR(4), 0x4444);
	wr(0, MSR_F15H_PERF_CTR(5), 0x5555);
	for (int i = 0; i < AMD_NR_K7; i++) {
		wr(0, MSR_K7_PERFCTR0 + i, 0x1000 + i);
		ok &= rd(0, MSR_F15H_PERF_CTR(i)) == 0x1000ULL + i;
		wr(0, MSR_F15H_PERF_CTR(i), 0x2000 + i);
		ok &= rd(0, MSR_K7_PERFCTR0 + i) == 0x2000ULL + i;
		wr(0, MSR_K7_EVNTSEL0 + i, EVTSEL_USR | AMD_EV_BRANCHES);
		ok &= rd(0, MSR_F15H_PERF_CTL(i)) == (EVTSEL_USR | AMD_EV_BRANCHES);
		wr(0, MSR_F15H_PERF_CTL(i), EVTSEL_OS | AMD_EV_CYCLES);
		ok &= rd(0, MSR_K7_EVNTSEL0 + i) == (EVTSEL_OS | AMD_EV_CYCLES);
		wr(0, MSR_F15H_PERF_CTL(i), 0);
		cpu1 &= rd(1, MSR_K7_PERFCTR0 + i) == 0;
	}
	other = rd(0, MSR_F15H_PERF_CTR(4)) == 0x4444 &&
		rd(0, MSR_F15H_PERF_CTR(5)) == 0x5555;
	tap(ok, "K7 PERF_CTL/PERF_CTR 0-3 (0xc0010000-7) alias F15h counters 0-3, both ways");
	tap(other && cpu1,
	    "counters 4 and 5 have no K7 alias; CPU 1's counters are its own");
}

static void amd_test_reserved(void)
{
	uint64_t before = rd(0, MSR_F15H_PERF_CTL(1));
	int ok;

	ok = wrmsr_on(0, MSR_F15H_PERF_CTL(1), 1ULL << 36 | AMD_EV_INSNS) == -EIO;
	ok &= wrmsr_on(0, MSR_K7_EVNTSEL0 + 1, 1ULL << 42) == -EIO;
	ok &= wrmsr_on(0, MSR_F15H_PERF_CTL(1), 1ULL << 63) == -EIO;
	ok &= rd(0, MSR_F15H_PERF_CTL(1)) == before;
	ok &= wrmsr_on(0, MSR_F15H_PERF_CTL(1), AMD_EVTSEL_HI(1) | AMD_EV_INSNS) == 0;
	ok &= wrmsr_on(0, MSR_F15H_PERF_CTL(1), 0) == 0;
	tap(ok, "PERF_CTL reserved bits (39:36, 63:42) fault (#GP), EventSelect[11:8] does not");
}

static void amd_test_enable_and_alias_counting(void)
{
	uint64_t v0, v1, v2;

	wr(0, MSR_F15H_PERF_CTR(2), 0);
	wr(0, MSR_F15H_PERF_CTL(2), EVTSEL_USR | EVTSEL_OS | AMD_EV_INSNS);
	user_work(200000);
	v0 = rd(0, MSR_F15H_PERF_CTR(2));
	/* enabled through the K7 MSR, read through the F15h one */
	wr(0, MSR_K7_EVNTSEL0 + 2, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | AMD_EV_INSNS);
	user_work(200000);
	v1 = rd(0, MSR_F15H_PERF_CTR(2));
	wr(0, MSR_F15H_PERF_CTL(2), 0);
	v1 = rd(0, MSR_K7_PERFCTR0 + 2);
	user_work(200000);
	v2 = rd(0, MSR_F15H_PERF_CTR(2));
	tap(v0 == 0 && v1 >= 200000 && v2 == v1,
	    "EN gates: off %llu, on (through K7 EVNTSEL2) %llu, off again %llu",
	    (unsigned long long)v0, (unsigned long long)v1,
	    (unsigned long long)v2);
}

/* |a - b| within 2% of b plus @slack */
static int near(uint64_t a, uint64_t b, uint64_t slack)
{
	uint64_t d = a > b ? a - b : b - a;

	return d <= b / 50 + slack;
}

/*
 * USR/OS filtering against the emulator's own instruction counts (MSRs
 * 0x58504d06/07, no counter involved): the kernel may run other work on
 * CPU 0 during either loop, so each filtered counter is compared with what
 * the emulator saw retire at CPL 1-3 and at CPL 0 over the same interval.
 * The slack covers the reads of one snapshot (a few syscalls).
 */
#define SNAP_ALL	AMD_NR_GP	/* the emulator's instruction count */
#define SNAP_KERN	(AMD_NR_GP + 1)	/* of which at CPL 0 */

/* What snapshot @k added to value @i since snapshot @k - 1 */
static uint64_t delta(uint64_t s[][AMD_NR_GP + 2], int k, int i)
{
	return s[k][i] - s[k - 1][i];
}

static void amd_test_usr_os(void)
{
	uint64_t s[3][AMD_NR_GP + 2];
	uint64_t slack = 50000;
	long n = 1000000;

	for (int i = 0; i < AMD_NR_GP; i++)
		wr(0, MSR_F15H_PERF_CTR(i), 0);
	wr(0, MSR_F15H_PERF_CTL(4), EVTSEL_EN | EVTSEL_USR | AMD_EV_INSNS);
	wr(0, MSR_F15H_PERF_CTL(5), EVTSEL_EN | EVTSEL_OS | AMD_EV_INSNS);
	wr(0, MSR_K7_EVNTSEL0 + 0, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | AMD_EV_CYCLES);
	wr(0, MSR_K7_EVNTSEL0 + 1, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | AMD_EV_INSNS);
	wr(0, MSR_F15H_PERF_CTL(2), EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | AMD_EV_BRANCHES);
	for (int k = 0; k < 3; k++) {
		if (k == 1)
			user_work(n);
		if (k == 2)
			kernel_work(20000);
		for (int i = 0; i < AMD_NR_GP; i++)
			s[k][i] = rd(0, MSR_F15H_PERF_CTR(i));
		s[k][SNAP_ALL] = rd(0, LEDGER_INSNS);
		s[k][SNAP_KERN] = rd(0, LEDGER_INSNS_OS);
	}
	for (int i = 0; i < AMD_NR_GP; i++)
		wr(0, MSR_F15H_PERF_CTL(i), 0);
#define D(k, i) delta(s, k, i)
#define ALL(k) delta(s, k, SNAP_ALL)
#define KERN(k) delta(s, k, SNAP_KERN)
	diag("user loop: USR +%llu OS +%llu; syscall loop: USR +%llu OS +%llu",
	     (unsigned long long)D(1, 4), (unsigned long long)D(1, 5),
	     (unsigned long long)D(2, 4), (unsigned long long)D(2, 5));
	diag("emulator: user loop CPL>0 +%llu CPL0 +%llu; syscall loop CPL>0 +%llu CPL0 +%llu",
	     (unsigned long long)(ALL(1) - KERN(1)), (unsigned long long)KERN(1),
	     (unsigned long long)(ALL(2) - KERN(2)), (unsigned long long)KERN(2));
	diag("both loops: instructions +%llu, cycles +%llu, branches (synthetic) +%llu",
	     (unsigned long long)(s[2][1] - s[0][1]),
	     (unsigned long long)(s[2][0] - s[0][0]),
	     (unsigned long long)(s[2][2] - s[0][2]));
	tap(D(1, 4) >= (uint64_t)n && near(D(1, 4), ALL(1) - KERN(1), slack) &&
	    near(D(1, 5), KERN(1), slack),
	    "user loop: USR-only counts it; USR-only and OS-only agree with the emulator's CPL counts");
	tap(D(2, 5) > 20000 && D(2, 5) > 5 * D(2, 4) &&
	    near(D(2, 5), KERN(2), slack) &&
	    near(D(2, 4), ALL(2) - KERN(2), slack),
	    "syscall loop: OS-only counts it; USR-only and OS-only agree with the emulator's CPL counts");
	tap(s[2][1] - s[0][1] >= D(1, 4) + D(2, 5) && s[2][0] > s[0][0],
	    "instructions (USR+OS, K7 counter 1) cover both, cycles (0x76) count");
	tap(s[2][2] > s[0][2] && 2 * (s[2][2] - s[0][2]) < s[2][1] - s[0][1],
	    "synthetic branches (0xc2): non-zero, fewer than instructions");
#undef KERN
#undef ALL
#undef D
}

static void amd_test_overflow(void)
{
	uint64_t v;

	wr(0, MSR_F15H_PERF_CTR(3), (uint64_t)-100000 & CTR_MASK);
	wr(0, MSR_F15H_PERF_CTL(3), EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | AMD_EV_INSNS);
	user_work(100000);
	wr(0, MSR_F15H_PERF_CTL(3), 0);
	v = rd(0, MSR_F15H_PERF_CTR(3));
	tap(v < 10000000, "48-bit wrap: a counter at -100000 reads %llu after the loop",
	    (unsigned long long)v);
	wr(0, MSR_F15H_PERF_CTR(3), 0);
}

/*
 * The AMD family 15h host: the raw MSR part. The PMI is checked through
 * perf in part 2 (a raw counter's PMI would be an NMI nobody claims).
 */
static int amd_msr_part(int ncpu)
{
	unsigned int a, b, c, d;
	uint64_t v = 1;

	__cpuid(0x80000001, a, b, c, d);
	if (!(c & CPUID_PERFCTR_CORE)) {
		diag("AMD without PerfCtrExtCore (no pmu=on)");
		wrmsr_on(0, MSR_F15H_PERF_CTR(0), 0x1234);
		if (rdmsr_on(0, MSR_F15H_PERF_CTR(0), &v))
			v = 1;
		tap(v == 0, "no PMU: PERF_CTR0 reads 0, writes are ignored");
		return 4;
	}
	amd_test_cpuid();
	if (watchdog_on()) {
		skip("raw MSR tests", "the NMI watchdog owns a counter (boot with nmi_watchdog=0)");
		return 0;
	}
	for (int k = 0; k < ncpu; k++)
		for (int i = 0; i < AMD_NR_GP; i++)
			if (rd(k, MSR_F15H_PERF_CTL(i)) & EVTSEL_EN) {
				skip("raw MSR tests", "a perf event is using the PMU");
				return 0;
			}
	if (ncpu < 2) {
		skip("raw MSR tests", "needs CPU 0 and CPU 1");
		return 0;
	}
	tap(rd(0, LEDGER_ERRATUM) == 0 && rd(0, LEDGER_LEAKED) == 0,
	    "the emulator's ledger MSRs: erratum model off, nothing leaked");
	amd_save(ncpu);
	amd_test_write_readback();
	amd_test_alias();
	amd_test_reserved();
	amd_test_enable_and_alias_counting();
	amd_test_usr_os();
	amd_test_overflow();
	amd_restore(ncpu);
	test_user_rdpmc_without_pce();
	return 0;
}

/*
 * Gracemont (-cpu Skylake-Client,model=190,pmu=on, 2 cores): architectural
 * PMU version 5 with six GP counters and adaptive PEBS. Part 1 checks
 * CPUID (leaf 0xA, DS/DTES64/PDCM), IA32_MISC_ENABLE, PERF_CAPABILITIES,
 * the PEBS MSRs' reserved bits and GP counters 4 and 5 through raw MSRs
 * (grt_msr_part()); part 2 the PEBS path through the kernel's driver
 * (grt_perf_pebs()).
 */

static long perf_open(struct perf_event_attr *attr);
static long long interrupts(const char *name);

/* The busy loop of the PEBS samples: not inlined, its IPs are known */
static __attribute__((noinline)) void pebs_loop(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

static int is_grt(void)
{
	unsigned int a, b, c, d, family, model;

	__cpuid(0, a, b, c, d);
	if (b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e)
		return 0;	/* not GenuineIntel */
	__cpuid(1, a, b, c, d);
	family = (a >> 8) & 0xf;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	return family == 6 && model == GRT_MODEL;
}

static struct {
	uint64_t evtsel[2][GRT_NR_GP], pmc[2][GRT_NR_GP];
	uint64_t global_ctrl[2], ld_lat[2];
} grt_saved;

static void grt_save(int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		for (int i = 0; i < GRT_NR_GP; i++) {
			grt_saved.evtsel[c][i] = rd(c, MSR_EVNTSEL0 + i);
			grt_saved.pmc[c][i] = rd(c, MSR_PMC0 + i);
		}
		grt_saved.global_ctrl[c] = rd(c, MSR_GLOBAL_CTRL);
		grt_saved.ld_lat[c] = rd(c, MSR_PEBS_LD_LAT);
	}
}

static void grt_restore(int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		for (int i = 0; i < GRT_NR_GP; i++) {
			wr(c, MSR_EVNTSEL0 + i, grt_saved.evtsel[c][i]);
			wr(c, MSR_PMC0 + i, grt_saved.pmc[c][i] & 0xffffffffULL);
		}
		wr(c, MSR_PEBS_LD_LAT, grt_saved.ld_lat[c]);
		wr(c, MSR_GLOBAL_OVF_CTRL, rd(c, MSR_GLOBAL_STATUS));
		wr(c, MSR_GLOBAL_CTRL, grt_saved.global_ctrl[c]);
	}
}

static void grt_test_cpuid(void)
{
	unsigned int a, b, c, d;
	uint64_t misc, caps = 0;
	int r;

	__cpuid_count(0xa, 0, a, b, c, d);
	diag("CPUID.0AH: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x", a, b, c, d);
	tap((a & 0xff) == 5 && ((a >> 8) & 0xff) == GRT_NR_GP &&
	    ((a >> 16) & 0xff) == 48 && ((a >> 24) & 0xff) == 7,
	    "CPUID.0AH:EAX: version 5, 6 GP counters, 48 bits, EBX length 7");
	tap(b == 0 && c == 0x7,
	    "CPUID.0AH:EBX 0 (all events), ECX: fixed counters bitmap 0x7");
	tap((d & 0x1f) == 3 && ((d >> 5) & 0xff) == 48 && (d & (1u << 15)),
	    "CPUID.0AH:EDX: 3 fixed counters, 48 bits, AnyThread deprecated (bit 15)");
	__cpuid(1, a, b, c, d);
	diag("CPUID.01H: ecx=0x%08x edx=0x%08x", c, d);
	tap((d & CPUID1_EDX_DS) && (c & CPUID1_ECX_DTES64) &&
	    (c & CPUID1_ECX_PDCM),
	    "CPUID.01H: DS (EDX bit 21), DTES64 (ECX bit 2), PDCM (ECX bit 15)");
	misc = rd(0, MSR_MISC_ENABLE);
	tap(!(misc & MISC_PEBS_UNAVAIL) && (misc & MISC_BTS_UNAVAIL),
	    "IA32_MISC_ENABLE 0x%llx: PEBS available (bit 12 clear), BTS unavailable (bit 11 set)",
	    (unsigned long long)misc);
	r = rdmsr_on(0, MSR_PERF_CAPS, &caps);
	tap(!r && caps == GRT_PERF_CAPS && rd(1, MSR_PERF_CAPS) == caps &&
	    wrmsr_on(0, MSR_PERF_CAPS, caps) == -EIO,
	    "IA32_PERF_CAPABILITIES = 0x%llx (PEBS trap, arch. regs, format 4, baseline), read-only",
	    (unsigned long long)caps);
}

static void grt_test_pebs_msrs(void)
{
	uint64_t en = rd(0, MSR_PEBS_ENABLE), cfg = rd(0, MSR_PEBS_DATA_CFG);
	uint64_t ds = rd(0, MSR_DS_AREA), lat;
	int ok;

	diag("PEBS_ENABLE 0x%llx, PEBS_DATA_CFG 0x%llx, DS_AREA 0x%llx, LD_LAT %llu",
	     (unsigned long long)en, (unsigned long long)cfg,
	     (unsigned long long)ds,
	     (unsigned long long)rd(0, MSR_PEBS_LD_LAT));
	wr(0, MSR_PEBS_LD_LAT, 0x1234);
	lat = rd(0, MSR_PEBS_LD_LAT);
	ok = wrmsr_on(0, MSR_PEBS_LD_LAT, 0x10000) == -EIO;
	ok &= rd(0, MSR_PEBS_LD_LAT) == 0x1234;
	ok &= wrmsr_on(0, MSR_PEBS_ENABLE, en | 1ULL << GRT_NR_GP) == -EIO;
	ok &= wrmsr_on(0, MSR_PEBS_DATA_CFG, cfg | 1ULL << 4) == -EIO;
	ok &= wrmsr_on(0, MSR_DS_AREA, 0x0000800000000000ULL) == -EIO;
	ok &= rd(0, MSR_PEBS_ENABLE) == en && rd(0, MSR_PEBS_DATA_CFG) == cfg &&
	      rd(0, MSR_DS_AREA) == ds;
	tap(lat == 0x1234 && ok,
	    "PEBS MSRs: LD_LAT reads back; reserved bits of LD_LAT, PEBS_ENABLE (bit 6), DATA_CFG (bit 4), a non-canonical DS_AREA fault (#GP), nothing changes");
}

static void grt_test_gp45(void)
{
	uint64_t gc = rd(0, MSR_GLOBAL_CTRL), v4, v5, v4b, v5b, s;
	long n = 1000000;

	wr(0, MSR_PMC0 + 4, 0);
	wr(0, MSR_PMC0 + 5, 0);
	wr(0, MSR_EVNTSEL0 + 4, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | EV_INSNS);
	wr(0, MSR_EVNTSEL0 + 5, EVTSEL_EN | EVTSEL_USR | EV_INSNS);
	wr(0, MSR_GLOBAL_CTRL, gc | 0x30);
	user_work(n);
	v4 = rd(0, MSR_PMC0 + 4);
	v5 = rd(0, MSR_PMC0 + 5);
	wr(0, MSR_GLOBAL_CTRL, (gc | 0x30) & ~0x20ULL);
	v5 = rd(0, MSR_PMC0 + 5);
	user_work(n);
	v4b = rd(0, MSR_PMC0 + 4);
	v5b = rd(0, MSR_PMC0 + 5);
	diag("GP counter 4 (USR+OS) %llu, 5 (USR) %llu; then with GLOBAL_CTRL bit 5 clear: %llu, %llu",
	     (unsigned long long)v4, (unsigned long long)v5,
	     (unsigned long long)v4b, (unsigned long long)v5b);
	tap(v4 >= (uint64_t)n && v5 >= (uint64_t)n && v4 >= v5 &&
	    v4b - v4 >= (uint64_t)n && v5b == v5,
	    "GP counters 4 and 5 (MSRs 0xc5/0x18a, 0xc6/0x18b) count instructions, GLOBAL_CTRL bit 5 gates counter 5");
	/* overflow of counter 5 without PEBS: its GLOBAL_STATUS bit */
	wr(0, MSR_GLOBAL_OVF_CTRL, 0x20);
	wr(0, MSR_PMC0 + 5, (uint64_t)-100000);
	wr(0, MSR_GLOBAL_CTRL, gc | 0x30);
	user_work(100000);
	wr(0, MSR_EVNTSEL0 + 5, 0);
	s = rd(0, MSR_GLOBAL_STATUS);
	tap(s & 0x20, "counter 5's 48-bit wrap sets GLOBAL_STATUS bit 5 (0x%llx)",
	    (unsigned long long)s);
	wr(0, MSR_GLOBAL_OVF_CTRL, 0x20);
	/* no seventh counter: RDPMC 6 is #GP, MSR 0xc7 keeps QEMU's read-as-0 */
	wr(0, MSR_PMC0 + 6, 0x1234);
	tap(rd(0, MSR_PMC0 + 6) == 0, "no seventh GP counter (MSR 0xc7 does not hold a value)");
	wr(0, MSR_EVNTSEL0 + 4, 0);
	wr(0, MSR_GLOBAL_CTRL, gc);
}

static int grt_msr_part(int ncpu)
{
	grt_test_cpuid();
	if (watchdog_on()) {
		skip("raw MSR tests", "the NMI watchdog owns a counter (boot with nmi_watchdog=0)");
		return 0;
	}
	for (int k = 0; k < ncpu; k++)
		for (int i = 0; i < GRT_NR_GP; i++)
			if (rd(k, MSR_EVNTSEL0 + i) & EVTSEL_EN) {
				skip("raw MSR tests", "a perf event is using the PMU");
				return 0;
			}
	if (ncpu < 2) {
		skip("raw MSR tests", "needs CPU 0 and CPU 1");
		return 0;
	}
	tap(rd(0, LEDGER_ERRATUM) == 0 && rd(0, LEDGER_SIBLING) == 0 &&
	    rd(0, LEDGER_LEAKED) == 0,
	    "the emulator's ledger MSRs: erratum model off, no sibling, nothing leaked");
	grt_save(ncpu);
	grt_test_pebs_msrs();
	grt_test_gp45();
	grt_restore(ncpu);
	test_user_rdpmc_without_pce();
	return 0;
}

/*
 * A PEBS sampling event on the busy loop: the records the kernel took
 * from the DS area's PEBS buffer, read from the mmapped ring buffer.
 * @ldlat: also read MSR_PEBS_LD_LAT_THRESHOLD while the event runs.
 */
static void grt_pebs_sample(struct perf_event_attr *attr, const char *name,
			    long work, int ldlat)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (1 + 16) * page;
	struct perf_event_mmap_page *mp;
	uint64_t head, off, samples = 0, exact = 0, user = 0, in_loop = 0;
	uint64_t first_ip = 0, first_addr = 0, first_weight = 0, addrs = 0;
	uint64_t lat = 0, count = 0, lost = 0;
	long long pmi0, pmi1;
	uintptr_t lo = (uintptr_t)pebs_loop, hi = lo + 0x100;
	char *data;
	int fd, lat_ok = 1;

	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	fd = perf_open(attr);
	if (fd < 0) {
		tap(0, "PEBS %s: perf_event_open: %s", name, strerror(errno));
		return;
	}
	mp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		tap(0, "PEBS %s: mmap: %s", name, strerror(errno));
		close(fd);
		return;
	}
	pmi0 = interrupts("PMI:");
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	pebs_loop(work);
	if (ldlat)
		lat_ok = !rdmsr_on(0, MSR_PEBS_LD_LAT, &lat);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	pmi1 = interrupts("PMI:");
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	data = (char *)mp + mp->data_offset;
	for (off = mp->data_tail; off < head;) {
		struct perf_event_header h;
		uint64_t w[6];
		size_t at = off % mp->data_size, k;

		for (k = 0; k < sizeof(h); k++)
			((char *)&h)[k] = data[(at + k) % mp->data_size];
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			for (k = 0; k < sizeof(w) && sizeof(h) + k < h.size; k++)
				((char *)w)[k] = data[(at + sizeof(h) + k) %
						      mp->data_size];
			/* IP, TID (pid, tid), ADDR, WEIGHT: sample_type order */
			samples++;
			exact += !!(h.misc & PERF_RECORD_MISC_EXACT_IP);
			user += (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				PERF_RECORD_MISC_USER;
			in_loop += w[0] >= lo && w[0] < hi;
			if (samples == 1) {
				first_ip = w[0];
				if (attr->sample_type & PERF_SAMPLE_ADDR)
					first_addr = w[2];
				if (attr->sample_type & PERF_SAMPLE_WEIGHT)
					first_weight = w[3];
			}
			if ((attr->sample_type & PERF_SAMPLE_ADDR) && w[2] &&
			    w[2] < (1ULL << 47))
				addrs++;
		} else if (h.type == PERF_RECORD_LOST) {
			lost++;
		}
		off += h.size;
	}
	munmap(mp, len);
	close(fd);
	diag("PEBS %s: count %llu, %lld PMIs, %llu samples (%llu exact IP, %llu user, %llu in the loop at 0x%lx), %llu lost records; first ip 0x%llx addr 0x%llx weight %llu",
	     name, (unsigned long long)count, pmi1 - pmi0,
	     (unsigned long long)samples,
	     (unsigned long long)exact, (unsigned long long)user,
	     (unsigned long long)in_loop, (unsigned long)lo,
	     (unsigned long long)lost, (unsigned long long)first_ip,
	     (unsigned long long)first_addr, (unsigned long long)first_weight);
	tap(samples > 0 && exact == samples && user == samples,
	    "PEBS %s: %llu PERF_RECORD_SAMPLE records, all with an exact user IP",
	    name, (unsigned long long)samples);
	tap(2 * in_loop > samples,
	    "PEBS %s: most sample IPs (%llu of %llu) in the busy loop",
	    name, (unsigned long long)in_loop, (unsigned long long)samples);
	if (attr->sample_type & PERF_SAMPLE_ADDR)
		tap(samples > 0 && addrs == samples,
		    "PEBS %s: every sample has a (synthetic) user data address",
		    name);
	if (attr->freq)
		tap(pmi0 >= 0 && pmi1 - pmi0 >= (long long)samples / 2,
		    "PEBS %s: one record per buffer threshold: the records came with PMIs (%lld)",
		    name, pmi1 - pmi0);
	if (ldlat)
		tap(lat_ok && lat == attr->config1,
		    "PEBS %s: the kernel programmed MSR_PEBS_LD_LAT_THRESHOLD = %llu",
		    name, (unsigned long long)lat);
}

/* Write @val into the sysctl @path; a failure is reported by the test after. */
static void sysctl_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		printf("# %s: %s\n", path, strerror(errno));
	close(fd);
}

static void grt_perf_pebs(void)
{
	struct perf_event_attr ins = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 100000, .precise_ip = 3,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	struct perf_event_attr ldlat = {
		.type = PERF_TYPE_RAW, .config = 0x5d0, .config1 = 3,
		.sample_period = 100000, .precise_ip = 2,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT,
	};
	/* frequency mode: no large PEBS, the threshold is one record */
	struct perf_event_attr freq = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.freq = 1, .sample_freq = 4000, .precise_ip = 3,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};

	/*
	 * A loaded host makes the guest's interrupts long, and the kernel
	 * then lowers perf_event_max_sample_rate, below 4000 Hz at times
	 * (the frequency case's open fails with EINVAL): the rate back at
	 * its default, and no more lowering (perf_cpu_time_max_percent 0).
	 */
	sysctl_write("/proc/sys/kernel/perf_event_max_sample_rate", "100000");
	sysctl_write("/proc/sys/kernel/perf_cpu_time_max_percent", "0");
	/* the LD_LAT check reads the MSR on CPU 0 while the event runs */
	msr_fd[0] = open("/dev/cpu/0/msr", O_RDONLY);
	pin(0);
	grt_pebs_sample(&ins, "instructions:ppp every 100000", 5000000, 0);
	grt_pebs_sample(&ldlat, "load latency r5d0 ldlat=3 (precise 2) every 100000",
			5000000, 1);
	grt_pebs_sample(&freq, "instructions:ppp at 4000 Hz", 20000000, 0);
	if (msr_fd[0] >= 0)
		close(msr_fd[0]);
	msr_fd[0] = -1;
}

static int msr_part(void)
{
	uint64_t erratum, sibling, thr0, thr1 = 1;
	int ncpu = 1;
	char path[64];

	for (int c = 0; c < 2; c++) {
		snprintf(path, sizeof(path), "/dev/cpu/%d/msr", c);
		msr_fd[c] = open(path, O_RDWR);
		if (msr_fd[c] >= 0)
			ncpu = c + 1;
	}
	if (msr_fd[0] < 0) {
		skip("raw MSR tests", "no /dev/cpu/0/msr (CONFIG_X86_MSR, root)");
		return 0;
	}
	if (pin(0)) {
		skip("raw MSR tests", "cannot pin to CPU 0");
		return 0;
	}
	if (is_amd() || is_grt()) {
		int r = is_amd() ? amd_msr_part(ncpu) : grt_msr_part(ncpu);

		for (int c = 0; c < 2; c++)
			if (msr_fd[c] >= 0)
				close(msr_fd[c]);
		return r;
	}
	{
		unsigned int a, b, c, d;

		__cpuid_count(0xa, 0, a, b, c, d);
		if (!(a & 0xff))
			return no_pmu();
	}
	if (rdmsr_on(0, LEDGER_ERRATUM, &erratum)) {
		skip("raw MSR tests", "not the emulated host: no ledger MSRs");
		return 4;
	}
	if (rdmsr_on(0, LEDGER_SIBLING, &sibling))
		sibling = 0;
	thr0 = rd(0, LEDGER_THREAD);
	if (ncpu > 1)
		thr1 = rd(1, LEDGER_THREAD);
	diag("emulated host: erratum model %s, CPU 0 is thread %llu, %s",
	     erratum ? "on" : "off", (unsigned long long)thr0,
	     sibling ? "its sibling is CPU 1" : "no sibling");

	test_cpuid();
	if (watchdog_on()) {
		skip("raw MSR tests", "the NMI watchdog owns a counter (boot with nmi_watchdog=0)");
		return 0;
	}
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < NR_GP; i++)
			if (rd(c, MSR_EVNTSEL0 + i) & EVTSEL_EN) {
				skip("raw MSR tests", "a perf event is using the PMU");
				return 0;
			}
	if (ncpu < 2 || !sibling || thr0 != 0 || thr1 != 1) {
		skip("raw MSR tests", "needs CPU 0 and CPU 1 as siblings (-smp 2,sockets=1,cores=1,threads=2)");
		return 0;
	}
	save_pmu(ncpu);
	test_write_readback();
	test_reserved_bits();
	test_disabled_and_gating();
	test_usr_os();
	test_insn_counts();
	test_overflow_status();
	test_leak(erratum, sibling);
	restore_pmu(ncpu);
	test_user_rdpmc_without_pce();
	for (int c = 0; c < 2; c++)
		if (msr_fd[c] >= 0)
			close(msr_fd[c]);
	return 0;
}

/* Part 2: through the kernel's perf driver */

static long perf_open(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
}

static volatile sig_atomic_t traps;

static void on_trap(int sig, siginfo_t *info, void *uc)
{
	traps++;
}

static void perf_count(uint32_t type, uint64_t config, const char *name,
		       long work, uint64_t at_least)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = type, .config = config,
		.disabled = 1, .exclude_hv = 1,
	};
	uint64_t count = 0;
	int fd = perf_open(&attr);

	if (fd < 0) {
		tap(0, "perf counting %s: perf_event_open: %s", name,
		    strerror(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	user_work(work);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	close(fd);
	tap(count >= at_least, "perf counting %s: %llu (at least %llu)", name,
	    (unsigned long long)count, (unsigned long long)at_least);
}

static void perf_sample(uint64_t config, uint64_t period, const char *name,
			long work)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
		.config = config, .sample_period = period, .disabled = 1,
		.exclude_hv = 1, .sigtrap = 1, .remove_on_exec = 1,
	};
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };
	struct sigaction old;
	int fd, n;

	sigaction(SIGTRAP, &sa, &old);
	traps = 0;
	fd = perf_open(&attr);
	if (fd < 0) {
		tap(0, "perf sampling %s: perf_event_open: %s", name,
		    strerror(errno));
		sigaction(SIGTRAP, &old, NULL);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	user_work(work);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	n = traps;
	sigaction(SIGTRAP, &old, NULL);
	tap(n > 0, "perf sampling %s every %llu: %d overflow signals", name,
	    (unsigned long long)period, n);
}

static void perf_rdpmc(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_event_mmap_page *pc;
	unsigned int lo, hi, idx;
	uint64_t c0, c1;
	int fd = perf_open(&attr);

	if (fd < 0) {
		tap(0, "user RDPMC: perf_event_open: %s", strerror(errno));
		return;
	}
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		tap(0, "user RDPMC: mmap: %s", strerror(errno));
		close(fd);
		return;
	}
	user_work(1000);
	idx = pc->index;
	if (!pc->cap_user_rdpmc || !idx) {
		tap(0, "user RDPMC: cap_user_rdpmc %u index %u",
		    (unsigned int)pc->cap_user_rdpmc, idx);
	} else {
		asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
		c0 = ((uint64_t)hi << 32) | lo;
		user_work(100000);
		asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
		c1 = ((uint64_t)hi << 32) | lo;
		tap(pc->index == idx && ((c1 - c0) & CTR_MASK) >= 100000,
		    "user RDPMC of counter 0x%x (perf index %u): +%llu over the loop",
		    idx - 1, idx, (unsigned long long)((c1 - c0) & CTR_MASK));
	}
	munmap(pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

static long long interrupts(const char *name);

static int perf_part(void)
{
	long long pmi0, pmi1;

	pin(0);
	perf_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
		   "instructions", 1000000, 1000000);
	perf_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles",
		   1000000, 1);
	if (is_amd())
		perf_count(PERF_TYPE_RAW, AMD_EV_BRANCHES, "rc2 (synthetic)",
			   1000000, 1);
	else
		perf_count(PERF_TYPE_RAW, EV_MEM_UOPS, "r81d0 (synthetic)",
			   1000000, 1);
	pmi0 = interrupts("PMI:");
	perf_sample(PERF_COUNT_HW_INSTRUCTIONS, 100000, "instructions",
		    5000000);
	perf_sample(PERF_COUNT_HW_CPU_CYCLES, 1000000, "cycles", 20000000);
	pmi1 = interrupts("PMI:");
	tap(pmi0 >= 0 && pmi1 > pmi0,
	    "the overflows came as PMIs (/proc/interrupts PMI: %lld -> %lld)",
	    pmi0, pmi1);
	perf_rdpmc();
	if (is_grt())
		grt_perf_pebs();
	return 0;
}

/* Sum of the per-CPU figures of a /proc/interrupts line ("NMI:", "PMI:") */
static long long interrupts(const char *name)
{
	char line[1024];
	long long sum = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, name, strlen(name)))
			continue;
		p += strlen(name);
		sum = 0;
		for (;;) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	if (f)
		fclose(f);
	return sum;
}

static void watchdog_part(int seconds)
{
	long long nmi0 = interrupts("NMI:"), nmi1;
	pid_t child;

	tap(watchdog_on(), "the NMI watchdog is on");
	child = fork();
	if (child == 0) {
		pin(1);
		for (;;)
			user_work(100000000);
	}
	pin(0);
	for (time_t end = time(NULL) + seconds; time(NULL) < end;)
		user_work(1000000);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	nmi1 = interrupts("NMI:");
	diag("NMIs: %lld before, %lld after %d s of load on both CPUs", nmi0,
	     nmi1, seconds);
	tap(nmi1 > nmi0, "watchdog NMIs arrive (%lld in %d s)", nmi1 - nmi0,
	    seconds);
}

static void as_init(void)
{
	mkdir("/dev", 0755);
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
}

int main(int argc, char **argv)
{
	int do_msr = 1, do_perf = 1, init = getpid() == 1, r = 0;
	int wait = 0;

	if (init)
		as_init();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--msr")) {
			do_perf = 0;
		} else if (!strcmp(argv[i], "--perf")) {
			do_msr = 0;
		} else if (!strcmp(argv[i], "--watchdog") && i + 1 < argc) {
			wait = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--all")) {
			fprintf(stderr, "usage: %s [--msr|--perf|--all] [--watchdog SECONDS]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (do_msr)
		r = msr_part();
	if (do_perf && r != 4)
		perf_part();
	if (wait > 0 && r != 4)
		watchdog_part(wait);
	printf("1..%d\n", tests);
	printf("# emulator_test: %d passed, %d failed, %d skipped\n",
	       tests - failures - skips, failures, skips);
	fflush(stdout);
	if (init) {
		sync();
		reboot(RB_AUTOBOOT);
	}
	if (failures)
		return 1;
	return r == 4 ? 4 : 0;
}
