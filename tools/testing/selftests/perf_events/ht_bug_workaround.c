// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for /sys/devices/cpu/ht_bug_workaround, the switch of the
 * workaround for the Intel SandyBridge/IvyBridge/Haswell Hyper-Threading
 * counter-corruption erratum (BJ122, BV98, HSD29).
 *
 * The file exists only where the erratum can occur (affected model with
 * Hyper-Threading on); elsewhere the tests that need it skip and say why.
 */
#define _GNU_SOURCE

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define KNOB	"/sys/bus/event_source/devices/cpu/ht_bug_workaround"
#define CPU_PMU	"/sys/bus/event_source/devices/cpu"

/* Affected models, family 6 (arch/x86/include/asm/intel-family.h). */
static const int affected_models[] = {
	0x2a,	/* SANDYBRIDGE */
	0x2d,	/* SANDYBRIDGE_X */
	0x3a,	/* IVYBRIDGE */
	0x3e,	/* IVYBRIDGE_X */
	0x3c,	/* HASWELL */
	0x3f,	/* HASWELL_X */
	0x45,	/* HASWELL_L */
	0x46,	/* HASWELL_G */
};

static bool read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * Threads per core as the CPU reports them (CPUID leaf 0xb, SMT level),
 * which is what the kernel decided the workaround by at boot: switching
 * SMT off at run time (/sys/devices/system/cpu/smt/control) or booting with
 * "nosmt" does not change it, and neither keeps the sibling from existing.
 */
static unsigned int threads_per_core(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (__get_cpuid_max(0, NULL) < 0xb)
		return 1;
	__cpuid_count(0xb, 0, eax, ebx, ecx, edx);
	if (((ecx >> 8) & 0xff) != 1)	/* level type 1: SMT */
		return 1;
	return ebx & 0xffff;
}

/*
 * Whether the erratum can occur on this machine; if not, why not (for the
 * skip messages).
 */
static bool erratum_possible(char *why, size_t len)
{
	char line[256], vendor[64] = "";
	int family = -1, model = -1;
	bool affected = false;
	unsigned int i;
	FILE *f;

	if (access(CPU_PMU, F_OK)) {
		snprintf(why, len, "erratum cannot occur: no core PMU (%s)",
			 CPU_PMU);
		return false;
	}

	f = fopen("/proc/cpuinfo", "r");
	if (!f) {
		snprintf(why, len, "cannot read /proc/cpuinfo");
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!vendor[0] && sscanf(line, "vendor_id : %63s", vendor) == 1)
			continue;
		if (family < 0 && sscanf(line, "cpu family : %d", &family) == 1)
			continue;
		if (model < 0 && sscanf(line, "model : %d", &model) == 1)
			continue;
	}
	fclose(f);

	for (i = 0; i < ARRAY_SIZE(affected_models); i++)
		affected |= model == affected_models[i];
	if (strcmp(vendor, "GenuineIntel") || family != 6 || !affected) {
		snprintf(why, len,
			 "erratum cannot occur: CPU %s family %d model %#x is not SandyBridge/IvyBridge/Haswell",
			 vendor[0] ? vendor : "?", family, model);
		return false;
	}
	if (threads_per_core() < 2) {
		snprintf(why, len,
			 "erratum cannot occur: one thread per core at boot (Hyper-Threading off)");
		return false;
	}
	snprintf(why, len, "affected CPU model %#x with Hyper-Threading on",
		 model);
	return true;
}

static bool knob_present(void)
{
	return access(KNOB, F_OK) == 0;
}

static int knob_read(void)
{
	char buf[16];

	if (!read_file(KNOB, buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "1\n"))
		return 1;
	if (!strcmp(buf, "0\n"))
		return 0;
	return -2;
}

/* Returns 0 or the errno of the write. */
static int knob_write(const char *val, size_t len)
{
	int fd = open(KNOB, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, len) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * Why a test of the file cannot run here (absent, or a write test and not
 * root), or NULL when it can.
 */
static const char *unusable(bool write)
{
	static char why[256];
	char reason[160];

	erratum_possible(reason, sizeof(reason));
	if (!knob_present())
		snprintf(why, sizeof(why), "%s absent: %s", KNOB, reason);
	else if (write && geteuid())
		snprintf(why, sizeof(why), "writing %s needs root", KNOB);
	else
		return NULL;
	return why;
}

TEST(present_exactly_where_erratum_can_occur)
{
	char why[160];
	bool possible = erratum_possible(why, sizeof(why));

	TH_LOG("%s; core PMU %s, %s %s", why,
	       access(CPU_PMU, F_OK) ? "absent" : "present", KNOB,
	       knob_present() ? "present" : "absent");
	ASSERT_EQ(possible, knob_present());
}

TEST(reads_0_or_1)
{
	const char *why = unusable(false);

	if (why)
		SKIP(return, "%s", why);
	ASSERT_GE(knob_read(), 0);
}

/*
 * The tests that write the knob: the value found is put back on every
 * exit path, a failed assertion included (the teardown runs then too).
 */
FIXTURE(knob) {
	int before;
};

FIXTURE_SETUP(knob)
{
	self->before = knob_present() ? knob_read() : -1;
}

FIXTURE_TEARDOWN(knob)
{
	if (self->before >= 0 && !geteuid() &&
	    knob_read() != self->before)
		knob_write(self->before ? "1" : "0", 1);
}

TEST_F(knob, accepted_writes)
{
	static const struct {
		const char *in;
		int value;
	} cases[] = {
		{ "0", 0 }, { "1", 1 }, { "n\n", 0 }, { "y\n", 1 },
		{ "off", 0 }, { "on", 1 }, { "N", 0 }, { "Y", 1 },
		{ "false", 0 }, { "true", 1 }, { "1", 1 },
	};
	const char *why = unusable(true);
	unsigned int i;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_GE(self->before, 0);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(0, knob_write(cases[i].in, strlen(cases[i].in)))
			TH_LOG("writing \"%s\"", cases[i].in);
		EXPECT_EQ(cases[i].value, knob_read());
		/* The current value again: accepted, nothing changes. */
		EXPECT_EQ(0, knob_write(cases[i].in, strlen(cases[i].in)));
		EXPECT_EQ(cases[i].value, knob_read());
	}
}

TEST_F(knob, rejected_writes_change_nothing)
{
	static const char *const bad[] = { "2", "x", "-1", "o", " 1", "\n" };
	const char *why = unusable(true);
	unsigned int i;
	int v;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_GE(self->before, 0);

	for (v = 0; v < 2; v++) {
		ASSERT_EQ(0, knob_write(v ? "1" : "0", 1));
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			EXPECT_EQ(EINVAL, knob_write(bad[i], strlen(bad[i])))
				TH_LOG("writing \"%s\"", bad[i]);
			EXPECT_EQ(v, knob_read());
		}
	}
}

TEST_F(knob, non_root_write_refused)
{
	const char *why = unusable(false);
	int status;
	pid_t pid;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_GE(self->before, 0);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (!geteuid() && (setgid(65534) || setuid(65534)))
			_exit(2);
		_exit(knob_write(self->before ? "0" : "1", 1) == EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(self->before, knob_read());
}

/* ---- the two-sibling experiment (affected hardware only) ---- */

static int spin_stop;
static uint64_t sink[4096];

/* A load-heavy loop pinned on @arg's CPU. */
static void *spin(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t set;
	uint64_t x = 0;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!__atomic_load_n(&spin_stop, __ATOMIC_RELAXED))
		for (i = 0; i < 4096; i++)
			x += __atomic_load_n(&sink[(i * 67) & 4095],
					     __ATOMIC_RELAXED);
	return (void *)(uintptr_t)x;
}

static int open_raw(uint64_t config, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.config = config,
		.disabled = 1,
		.exclude_kernel = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
}

static bool sibling_pair(int *a, int *b)
{
	char buf[64];

	if (!read_file("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
		       buf, sizeof(buf)))
		return false;
	return sscanf(buf, "%d%*[,-]%d", a, b) == 2;
}

/* What one event counted and how long it was enabled and running. */
struct reading {
	uint64_t count;
	uint64_t enabled;
	uint64_t running;
};

/*
 * Count 0x81d0 on @a and 0x20cc on @b for a second, with a load on both.
 * Returns 0, or -1 when the events cannot be opened or read.
 */
static int experiment(int a, int b, struct reading *loads,
		      struct reading *lbr)
{
	pthread_t t[2];
	int fd[2], ret = 0;

	fd[0] = open_raw(0x81d0, a);	/* MEM_UOPS_RETIRED.ALL_LOADS */
	fd[1] = open_raw(0x20cc, b);	/* ROB_MISC_EVENTS.LBR_INSERTS */
	if (fd[0] < 0 || fd[1] < 0) {
		if (fd[0] >= 0)
			close(fd[0]);
		if (fd[1] >= 0)
			close(fd[1]);
		return -1;
	}

	__atomic_store_n(&spin_stop, 0, __ATOMIC_RELAXED);
	pthread_create(&t[0], NULL, spin, (void *)(intptr_t)a);
	pthread_create(&t[1], NULL, spin, (void *)(intptr_t)b);
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fd[1], PERF_EVENT_IOC_ENABLE, 0);
	sleep(1);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fd[1], PERF_EVENT_IOC_DISABLE, 0);
	__atomic_store_n(&spin_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);

	if (read(fd[0], loads, sizeof(*loads)) != sizeof(*loads) ||
	    read(fd[1], lbr, sizeof(*lbr)) != sizeof(*lbr))
		ret = -1;
	close(fd[0]);
	close(fd[1]);
	return ret;
}

/*
 * The erratum itself, on two sibling threads: with the knob at 1 the
 * sibling's event must run (time_running above 0: a kernel that never
 * schedules it would read 0 as well) and count nothing, since nothing
 * uses the LBR; at 0 the loads leak into it.
 */
TEST_F(knob, two_siblings_corruption)
{
	const char *why = unusable(true);
	struct reading loads, lbr;
	int a, b;

	if (why)
		SKIP(return, "%s", why);
	if (!sibling_pair(&a, &b))
		SKIP(return, "no sibling of CPU 0 found");
	ASSERT_GE(self->before, 0);

	ASSERT_EQ(0, knob_write("1", 1));
	if (experiment(a, b, &loads, &lbr))
		SKIP(return, "cannot open raw events 0x81d0/0x20cc");
	TH_LOG("workaround on:  CPU %d loads %llu (ran %llu of %llu ns),",
	       a, (unsigned long long)loads.count,
	       (unsigned long long)loads.running,
	       (unsigned long long)loads.enabled);
	TH_LOG("                CPU %d LBR inserts %llu (ran %llu of %llu ns)",
	       b, (unsigned long long)lbr.count,
	       (unsigned long long)lbr.running,
	       (unsigned long long)lbr.enabled);
	EXPECT_GT(loads.running, 0);
	EXPECT_GT(loads.count, 0);
	EXPECT_GT(lbr.running, 0);
	/* Nothing uses the LBR: only a leak could count here. */
	EXPECT_EQ(0, lbr.count);

	ASSERT_EQ(0, knob_write("0", 1));
	ASSERT_EQ(0, experiment(a, b, &loads, &lbr));
	TH_LOG("workaround off: CPU %d loads %llu, CPU %d LBR inserts %llu",
	       a, (unsigned long long)loads.count, b,
	       (unsigned long long)lbr.count);
	/* Both counters on the same index: the erratum leaks the loads. */
	EXPECT_GT(lbr.count, 0);
	EXPECT_LE(lbr.count, loads.count);
}

TEST_HARNESS_MAIN
