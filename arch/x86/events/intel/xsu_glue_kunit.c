// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite x86_intel_xsu_glue: the XSU glue of intel/core.c driven by
 * real perf events on the two hyper-threads of a core.
 *
 * Every case creates CPU-wide counting events with
 * perf_event_create_kernel_counter() on CPU 0 (HT0) and its sibling (HT1),
 * enables, disables, reads and releases them through perf's own API, so
 * that the whole path runs: the transactions of group_sched_in(),
 * x86_pmu_add(), x86_pmu_commit_txn() with its reclaim pass,
 * x86_schedule_events() and the scheduling callbacks, x86_pmu_del(),
 * x86_pmu_enable() and intel_pmu_enable_all() with intel_xsu_settle(), the
 * kicks between the siblings (irq_work), the recheck hrtimer, perf's
 * multiplexing, ht_bug_workaround written through sysfs and CPU hotplug.
 * The cases then look at:
 *
 *  - the XSU states of the core (per_cpu(cpu_hw_events, cpu).xsu), read
 *    under the core's lock, and the counters each CPU keeps disabled
 *    (cpu_hw_events.xsu_held);
 *  - the events' state, counter, count and enabled/running times;
 *  - the emulator's ledger (qemu/README.md): MSR 0x58504d00 counts what
 *    leaked between the threads of the core, 0x58504d01 the time a
 *    corrupting event ran beside an enabled sibling counter. With the
 *    workaround on, neither may move. Elsewhere the MSRs do not exist and
 *    only the ledger checks are left out.
 *
 * perf has no in-kernel API for event groups: each event here is a group
 * of its own, which goes through the same transaction as a larger group.
 *
 * The suite needs an affected PMU (SandyBridge, IvyBridge or Haswell with
 * Hyper-Threading on: PMU_FL_EXCL_CNTRS and the scheduling callbacks
 * bound), 4 GP counters per thread and CPU 0 with an online sibling, as on
 * the emulated Haswell (-smp 2,sockets=1,cores=1,threads=2 -cpu
 * Haswell,pmu=on); it skips elsewhere. Times under TCG vary: every wait
 * polls with a generous timeout.
 *
 * This file is included at the end of intel/core.c, so that it reaches the
 * glue's static functions and the knob's store; it is built only when the
 * KUnit tests of the XSU unit are built in.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/iopoll.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/mount.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/topology.h>

#define GLUE_CORRUPTING		0x81d0	/* MEM_UOPS_RETIRED.ALL_LOADS */
#define GLUE_BRANCHES		0x00c4	/* BR_INST_RETIRED.ALL_BRANCHES */
#define GLUE_MISPREDICTS	0x00c5	/* BR_MISP_RETIRED.ALL_BRANCHES */
#define GLUE_PREC_DIST		0x01c0	/* INST_RETIRED.PREC_DIST: counter 1 */
#define GLUE_INSTRUCTIONS	0x00c0	/* INST_RETIRED.ANY: fixed counter 0 or GP */

/* The emulator's ledger, per core (qemu/README.md). */
#define GLUE_MSR_LEAKED		0x58504d00
#define GLUE_MSR_EXPOSED	0x58504d01
#define GLUE_MSR_ERRATUM	0x58504d03
#define GLUE_MSR_PAIRED		0x58504d05

#define GLUE_NR_GP		4
#define GLUE_ALL_GP		GENMASK_ULL(GLUE_NR_GP - 1, 0)

#define GLUE_POLL_US		(5 * USEC_PER_MSEC)
#define GLUE_TIMEOUT_US		(20 * USEC_PER_SEC)
/* The longest a CPU is kept with interrupts off by the suite. */
#define GLUE_IRQS_OFF_MS	2000

/**
 * struct xsu_glue - one case's view of the affected core
 * @test:   the case
 * @cpu:    the CPU of HT0 (CPU 0) and of HT1, its sibling
 * @ledger: the emulator's ledger can be read
 */
struct xsu_glue {
	struct kunit	*test;
	int		cpu[2];
	bool		ledger;
};

/**
 * struct xsu_glue_snap - the core's XSU state of the GP counters at one instant
 * @enabled: the core applies dynamic masks
 * @tracked: the thread's states follow its placements
 * @excl:    eXclusive counters of the thread
 * @shared:  its Shared counters
 * @pin:     those of them that pinned events hold
 * @place:   the counters of its placement (place_excl | place_shared)
 * @held:    placed counters still in conflict with the sibling (xsu_hold())
 * @hw_held: counters its CPU keeps disabled in GLOBAL_CTRL (xsu_held)
 * @demand:  the thread's demand for counters, 0 when lapsed
 * @waits:   the thread's last pass failed for its sibling
 *
 * Every array is indexed by HT0/HT1, not by the XSU thread id.
 */
struct xsu_glue_snap {
	bool	enabled;
	bool	tracked[2];
	u64	excl[2];
	u64	shared[2];
	u64	pin[2];
	u64	place[2];
	u64	held[2];
	u64	hw_held[2];
	int	demand[2];
	bool	waits[2];
};

struct xsu_glue_ledger {
	u64	leaked;
	u64	exposed;
};

struct xsu_glue_times {
	u64	count;
	u64	enabled;
	u64	running;
};

static struct cpu_hw_events *xsu_glue_cpuc(struct xsu_glue *g, int ht)
{
	return &per_cpu(cpu_hw_events, g->cpu[ht]);
}

/* HT0 never goes offline: its pointers stay valid for the whole case. */
static struct xsu_core *xsu_glue_core(struct xsu_glue *g)
{
	return xsu_glue_cpuc(g, 0)->xsu;
}

static int xsu_glue_tid(struct xsu_glue *g, int ht)
{
	return xsu_glue_cpuc(g, 0)->xsu_tid ^ ht;
}

/**
 * xsu_glue_snap() - read the core's XSU state
 * @g: the case
 * @s: receives the state
 *
 * The shared states are read under the core's lock, as a pass sees them.
 */
static void xsu_glue_snap(struct xsu_glue *g, struct xsu_glue_snap *s)
{
	struct xsu_arb *arb = xsu_glue_cpuc(g, 0)->xsu_arb;
	struct xsu_core *xc = xsu_glue_core(g);
	unsigned long flags;
	int ht;

	raw_spin_lock_irqsave(&xc->lock, flags);
	s->enabled = xc->enabled;
	for (ht = 0; ht < 2; ht++) {
		int tid = xsu_glue_tid(g, ht);
		const struct xsu_thread *t = &xc->thread[tid];

		s->tracked[ht] = t->tracked;
		/*
		 * Only the GP counters: fixed ones are tracked Shared, and
		 * the hard-lockup watchdog keeps cycles on one everywhere.
		 */
		s->excl[ht] = t->excl & GLUE_ALL_GP;
		s->shared[ht] = t->shared & GLUE_ALL_GP;
		s->pin[ht] = t->pin & GLUE_ALL_GP;
		s->place[ht] = (t->place_excl | t->place_shared) & GLUE_ALL_GP;
		s->held[ht] = t->held & GLUE_ALL_GP;
		s->demand[ht] = xsu_arb_demand(arb, tid, jiffies);
		s->waits[ht] = xsu_arb_waits(arb, tid);
	}
	raw_spin_unlock_irqrestore(&xc->lock, flags);

	for (ht = 0; ht < 2; ht++)
		s->hw_held[ht] = READ_ONCE(xsu_glue_cpuc(g, ht)->xsu_held);
}

/* Every counter of both threads Unused, nothing placed, nothing held. */
static bool xsu_glue_snap_clean(const struct xsu_glue_snap *s)
{
	int ht;

	for (ht = 0; ht < 2; ht++) {
		if (s->excl[ht] || s->shared[ht] || s->pin[ht] ||
		    s->place[ht] || s->held[ht] || s->hw_held[ht])
			return false;
	}
	return true;
}

/* No counter is eXclusive on one thread and in use on the other. */
static bool xsu_glue_snap_consistent(const struct xsu_glue_snap *s)
{
	return !(s->excl[0] & (s->excl[1] | s->shared[1])) &&
	       !(s->excl[1] & (s->excl[0] | s->shared[0]));
}

/* Poll the core's state until @cond holds: 0, or -ETIMEDOUT. */
#define xsu_glue_wait(g, snap, cond)					\
	poll_timeout_us(xsu_glue_snap(g, snap), cond, GLUE_POLL_US,	\
			GLUE_TIMEOUT_US, false)

/* Poll until @cond holds: 0, or -ETIMEDOUT. */
#define xsu_glue_until(cond)						\
	poll_timeout_us(, cond, GLUE_POLL_US, GLUE_TIMEOUT_US, false)

static void xsu_glue_ledger(struct xsu_glue *g, struct xsu_glue_ledger *l)
{
	l->leaked = 0;
	l->exposed = 0;
	if (!g->ledger)
		return;
	/* Either thread reads the core's totals. */
	KUNIT_EXPECT_EQ(g->test, rdmsrq_safe(GLUE_MSR_LEAKED, &l->leaked), 0);
	KUNIT_EXPECT_EQ(g->test, rdmsrq_safe(GLUE_MSR_EXPOSED, &l->exposed), 0);
}

/* Nothing leaked, and no corrupting event ran beside an enabled counter. */
static void xsu_glue_expect_no_leak(struct xsu_glue *g,
				    const struct xsu_glue_ledger *before)
{
	struct xsu_glue_ledger now;

	xsu_glue_ledger(g, &now);
	KUNIT_EXPECT_EQ_MSG(g->test, now.leaked, before->leaked,
			    "counts leaked between the siblings");
	KUNIT_EXPECT_EQ_MSG(g->test, now.exposed, before->exposed,
			    "a corrupting event ran beside an enabled counter");
}

static void xsu_glue_release_action(void *event)
{
	perf_event_release_kernel(event);
}

/**
 * xsu_glue_event() - a counting event on one of the siblings, disabled
 * @g:      the case
 * @ht:     0: HT0, 1: HT1
 * @config: the raw event (umask << 8 | event code)
 * @pinned: a pinned event, else a flexible one
 *
 * The event is released when the case ends, unless the case releases it
 * first (xsu_glue_release()).
 *
 * Return: the event.
 */
static struct perf_event *xsu_glue_event(struct xsu_glue *g, int ht,
					 u64 config, bool pinned)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_RAW,
		.size		= sizeof(attr),
		.config		= config,
		.pinned		= pinned,
		.disabled	= 1,
	};
	struct perf_event *event;
	int ret;

	event = perf_event_create_kernel_counter(&attr, g->cpu[ht], NULL,
						 NULL, NULL);
	KUNIT_ASSERT_FALSE_MSG(g->test, IS_ERR(event), "HT%d r%llx: %ld", ht,
			       config, PTR_ERR(event));
	ret = kunit_add_action_or_reset(g->test, xsu_glue_release_action,
					event);
	KUNIT_ASSERT_EQ(g->test, ret, 0);
	return event;
}

static void xsu_glue_release(struct xsu_glue *g, struct perf_event *event)
{
	kunit_release_action(g->test, xsu_glue_release_action, event);
}

static enum perf_event_state xsu_glue_state(struct perf_event *event)
{
	return READ_ONCE(event->state);
}

static int xsu_glue_counter(struct perf_event *event)
{
	return READ_ONCE(event->hw.idx);
}

/*
 * @event is on a counter of its CPU. Its state alone does not say so when
 * read from another CPU: event_sched_in() sets ACTIVE before the PMU tries
 * to add the event, and back to INACTIVE when that fails.
 */
static bool xsu_glue_running(struct perf_event *event)
{
	int c = xsu_glue_counter(event);

	return xsu_glue_state(event) == PERF_EVENT_STATE_ACTIVE &&
	       c >= 0 && c < X86_PMC_IDX_MAX &&
	       READ_ONCE(per_cpu(cpu_hw_events, event->cpu).events[c]) == event;
}

/* Wait until @event runs: 0, or -ETIMEDOUT. */
static int xsu_glue_wait_active(struct perf_event *event)
{
	return xsu_glue_until(xsu_glue_running(event));
}

static void xsu_glue_times(struct perf_event *event, struct xsu_glue_times *t)
{
	t->count = perf_event_read_value(event, &t->enabled, &t->running);
}

static void xsu_glue_busy_fn(void *info)
{
	ktime_t end = ktime_add_ms(ktime_get(), *(unsigned int *)info);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

/* Keep HT @ht busy for @ms: its events count kernel instructions. */
static void xsu_glue_busy(struct xsu_glue *g, int ht, unsigned int ms)
{
	int ret = smp_call_function_single(g->cpu[ht], xsu_glue_busy_fn, &ms,
					   1);

	KUNIT_EXPECT_EQ(g->test, ret, 0);
}

/* Move the case's thread to HT @ht, for what must run there. */
static void xsu_glue_run_on(struct xsu_glue *g, int ht)
{
	int ret = set_cpus_allowed_ptr(current, cpumask_of(g->cpu[ht]));

	KUNIT_ASSERT_EQ(g->test, ret, 0);
	KUNIT_ASSERT_EQ(g->test, raw_smp_processor_id(), g->cpu[ht]);
}

/**
 * xsu_glue_knob() - write ht_bug_workaround through sysfs
 * @on: the value to write
 *
 * The write goes through a kernel mount of sysfs to
 * devices/cpu/ht_bug_workaround, as "echo 0 > /sys/devices/cpu/..."
 * does: kernfs, the attribute's visibility and ht_bug_workaround_store().
 *
 * Return: 0, or the error of the mount, the open or the write.
 */
static int xsu_glue_knob(bool on)
{
	struct file_system_type *type;
	struct vfsmount *mnt;
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;

	type = get_fs_type("sysfs");
	if (!type)
		return -ENODEV;
	mnt = kern_mount(type);
	put_filesystem(type);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);

	file = file_open_root_mnt(mnt, "devices/cpu/ht_bug_workaround",
				  O_WRONLY, 0);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
	} else {
		ret = kernel_write(file, on ? "1\n" : "0\n", 2, &pos);
		fput(file);
	}
	kern_unmount(mnt);
	if (ret < 0)
		return ret;
	return ret == 2 ? 0 : -EIO;
}

static void xsu_glue_knob_restore(void *unused)
{
	if (!intel_ht_workaround_on())
		WARN_ON(xsu_glue_knob(true));
}

static void xsu_glue_cpu_restore(void *cpu)
{
	if (!cpu_online((long)cpu))
		WARN_ON(add_cpu((long)cpu));
}

/*
 * A CPU kept in an interrupt handler, with interrupts off: it neither
 * reschedules nor answers a kick until released, but runs instructions,
 * so its corrupting events count. Bounded by GLUE_IRQS_OFF_MS.
 */
struct xsu_glue_freeze {
	bool	entered;
	bool	release;
	bool	expired;
	bool	left;
};

static struct xsu_glue_freeze xsu_glue_frozen;

static void xsu_glue_freeze_fn(void *info)
{
	struct xsu_glue_freeze *f = info;
	ktime_t end = ktime_add_ms(ktime_get(), GLUE_IRQS_OFF_MS);

	WRITE_ONCE(f->entered, true);
	while (!READ_ONCE(f->release)) {
		if (ktime_after(ktime_get(), end)) {
			WRITE_ONCE(f->expired, true);
			break;
		}
		cpu_relax();
	}
	/* Pairs with xsu_glue_thaw_action(): f is no longer used here. */
	smp_store_release(&f->left, true);
}

static void xsu_glue_thaw_action(void *info)
{
	struct xsu_glue_freeze *f = info;

	WRITE_ONCE(f->release, true);
	/* Pairs with xsu_glue_freeze_fn(): f may be reused after this. */
	WARN_ON(xsu_glue_until(smp_load_acquire(&f->left)));
}

static void xsu_glue_freeze(struct xsu_glue *g, int ht)
{
	struct xsu_glue_freeze *f = &xsu_glue_frozen;
	int ret;

	memset(f, 0, sizeof(*f));
	KUNIT_ASSERT_NE(g->test, raw_smp_processor_id(), g->cpu[ht]);
	ret = smp_call_function_single(g->cpu[ht], xsu_glue_freeze_fn, f, 0);
	KUNIT_ASSERT_EQ(g->test, ret, 0);
	ret = kunit_add_action_or_reset(g->test, xsu_glue_thaw_action, f);
	KUNIT_ASSERT_EQ(g->test, ret, 0);
	KUNIT_ASSERT_EQ(g->test, xsu_glue_until(READ_ONCE(f->entered)), 0);
}

/* Release the frozen CPU; false if it gave up waiting on its own. */
static bool xsu_glue_thaw(struct xsu_glue *g)
{
	kunit_release_action(g->test, xsu_glue_thaw_action, &xsu_glue_frozen);
	return !READ_ONCE(xsu_glue_frozen.expired);
}

/*
 * The lock probe: HT1 reschedules from an irq_work, as a kick makes it do,
 * while the case may hold the core's lock on HT0.
 */
struct xsu_glue_probe {
	bool	started;
	bool	done;
};

static struct xsu_glue_probe xsu_glue_probe;

static void xsu_glue_probe_fn(struct irq_work *work)
{
	WRITE_ONCE(xsu_glue_probe.started, true);
	perf_pmu_resched(x86_get_pmu(smp_processor_id()));
	/* Pairs with xsu_glue_pass_under_lock(): the pass has ended. */
	smp_store_release(&xsu_glue_probe.done, true);
}

static struct irq_work xsu_glue_probe_work =
	IRQ_WORK_INIT_HARD(xsu_glue_probe_fn);

/**
 * xsu_glue_pass_under_lock() - does a pass on HT1 need the core's lock?
 * @g:       the case, running on HT0
 * @started: receives whether HT1 started its reschedule in time
 *
 * HT0 holds the core's lock with interrupts off while HT1 reschedules all
 * its events (a full pass for each, then intel_pmu_enable_all()). A pass
 * that takes the lock cannot finish until HT0 lets go, at the latest
 * 100 ms after HT1 started, or GLUE_IRQS_OFF_MS in all.
 *
 * Return: true when HT1's reschedule completed while HT0 held the lock.
 */
static bool xsu_glue_pass_under_lock(struct xsu_glue *g, bool *started)
{
	struct xsu_core *xc = xsu_glue_core(g);
	ktime_t end, give_up = 0;
	unsigned long flags;
	bool done = false;

	WRITE_ONCE(xsu_glue_probe.started, false);
	WRITE_ONCE(xsu_glue_probe.done, false);

	local_irq_save(flags);
	raw_spin_lock(&xc->lock);
	if (smp_processor_id() == g->cpu[0] &&
	    irq_work_queue_on(&xsu_glue_probe_work, g->cpu[1])) {
		end = ktime_add_ms(ktime_get(), GLUE_IRQS_OFF_MS);
		while (ktime_before(ktime_get(), end)) {
			/* Pairs with xsu_glue_probe_fn() */
			done = smp_load_acquire(&xsu_glue_probe.done);
			if (done)
				break;
			if (!give_up && READ_ONCE(xsu_glue_probe.started))
				give_up = ktime_add_ms(ktime_get(), 100);
			if (give_up && ktime_after(ktime_get(), give_up))
				break;
			cpu_relax();
		}
	}
	*started = READ_ONCE(xsu_glue_probe.started);
	raw_spin_unlock(&xc->lock);
	local_irq_restore(flags);

	irq_work_sync(&xsu_glue_probe_work);
	return done;
}

/**
 * xsu_glue_init() - every case starts on a clean affected core
 * @test: the case
 *
 * Skips unless the PMU has the erratum with HT on, the scheduling
 * callbacks are bound, every thread has 4 GP counters and CPU 0 has an
 * online sibling sharing its XSU state. Then the workaround must be on and
 * every counter of the core Unused (the previous case released its
 * events); the knob is restored when the case ends, whatever happens.
 *
 * Return: 0.
 */
static int xsu_glue_init(struct kunit *test)
{
	struct xsu_glue_snap s;
	struct xsu_glue *g;
	u64 erratum, paired;
	int sibling, ret;

	if (!(x86_pmu.flags & PMU_FL_EXCL_CNTRS) ||
	    x86_pmu.start_scheduling != intel_start_scheduling ||
	    !per_cpu(cpu_hw_events, 0).xsu)
		kunit_skip(test, "no PMU with the HT counter-corruption erratum and HT on");
	if (x86_pmu_max_num_counters(NULL) != GLUE_NR_GP)
		kunit_skip(test, "written for 4 GP counters per thread");

	sibling = cpumask_next(0, topology_sibling_cpumask(0));
	if (sibling >= nr_cpu_ids || !cpu_online(sibling) ||
	    per_cpu(cpu_hw_events, sibling).xsu != per_cpu(cpu_hw_events, 0).xsu)
		kunit_skip(test, "CPU 0 has no online HT sibling");

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->test = test;
	g->cpu[0] = 0;
	g->cpu[1] = sibling;
	g->ledger = !rdmsrq_safe(GLUE_MSR_ERRATUM, &erratum) && erratum == 1 &&
		    !rdmsrq_safe(GLUE_MSR_PAIRED, &paired) && paired == 1;
	if (!g->ledger)
		kunit_info(test, "no emulator ledger: leaks are not checked\n");
	test->priv = g;

	ret = kunit_add_action_or_reset(test, xsu_glue_knob_restore, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, intel_ht_workaround_on(),
			      "ht_bug_workaround is 0");
	ret = xsu_glue_wait(g, &s, xsu_glue_snap_clean(&s) &&
			    !s.demand[0] && !s.demand[1]);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0,
			    "left: HT0 X %llx S %llx demand %d, HT1 X %llx S %llx demand %d",
			    s.excl[0], s.shared[0], s.demand[0], s.excl[1],
			    s.shared[1], s.demand[1]);
	KUNIT_ASSERT_TRUE(test, s.enabled && s.tracked[0] && s.tracked[1]);
	return 0;
}

/*
 * All @n events run at once, each on its own GP counter: @used receives
 * the counters.
 */
static bool xsu_glue_all_active(struct perf_event **ev, int n, u64 *used)
{
	int i, c;

	*used = 0;
	for (i = 0; i < n; i++) {
		c = xsu_glue_counter(ev[i]);
		if (!xsu_glue_running(ev[i]) || c >= GLUE_NR_GP ||
		    (*used & BIT_ULL(c)))
			return false;
		*used |= BIT_ULL(c);
	}
	return true;
}

/*
 * HT0 enables @n flexible corrupting events, and all of them must run at
 * once: with nothing on HT1, they take @n counters eXclusive.
 */
static void xsu_glue_hold_all(struct xsu_glue *g, struct perf_event **x,
			      int n)
{
	struct xsu_glue_snap s;
	u64 used = 0;
	int i, ret;

	for (i = 0; i < n; i++) {
		x[i] = xsu_glue_event(g, 0, GLUE_CORRUPTING, false);
		perf_event_enable(x[i]);
	}
	ret = xsu_glue_wait(g, &s, xsu_glue_all_active(x, n, &used) &&
			    s.excl[0] == used);
	KUNIT_ASSERT_EQ_MSG(g->test, ret, 0, "HT0 X %llx, its events on %llx",
			    s.excl[0], used);
}

/*
 * The protocol on real events: HT0's corrupting event makes its counter
 * eXclusive; HT1's other event avoids that counter and is Shared; HT1's
 * corrupting event avoids both. All of them run, nothing leaks, and once
 * they are released every counter of the core is Unused again.
 */
static void glue_protocol_real_events(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct perf_event *x0, *s1, *x1;
	struct xsu_glue_ledger ledger;
	struct xsu_glue_times t;
	struct xsu_glue_snap s;
	int c0, c1, c2, ret;

	xsu_glue_ledger(g, &ledger);
	x0 = xsu_glue_event(g, 0, GLUE_CORRUPTING, false);
	s1 = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
	x1 = xsu_glue_event(g, 1, GLUE_CORRUPTING, false);

	perf_event_enable(x0);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(x0), 0);
	c0 = xsu_glue_counter(x0);
	KUNIT_ASSERT_TRUE(test, c0 >= 0 && c0 < GLUE_NR_GP);
	ret = xsu_glue_wait(g, &s, s.excl[0] == BIT_ULL(c0) && !s.shared[0] &&
			    !s.excl[1] && !s.shared[1]);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT0 X %llx S %llx, HT1 X %llx S %llx",
			    s.excl[0], s.shared[0], s.excl[1], s.shared[1]);

	perf_event_enable(s1);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(s1), 0);
	c1 = xsu_glue_counter(s1);
	KUNIT_ASSERT_TRUE(test, c1 >= 0 && c1 < GLUE_NR_GP);
	KUNIT_EXPECT_NE(test, c1, c0);
	ret = xsu_glue_wait(g, &s, s.shared[1] == BIT_ULL(c1) && !s.excl[1]);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT1 X %llx S %llx", s.excl[1],
			    s.shared[1]);

	/* The pass may move HT1's other event: it still avoids c0. */
	perf_event_enable(x1);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(x1), 0);
	c1 = xsu_glue_counter(s1);
	c2 = xsu_glue_counter(x1);
	KUNIT_ASSERT_TRUE(test, c2 >= 0 && c2 < GLUE_NR_GP);
	KUNIT_EXPECT_NE(test, c1, c0);
	KUNIT_EXPECT_NE(test, c2, c0);
	KUNIT_EXPECT_NE(test, c2, c1);
	ret = xsu_glue_wait(g, &s, s.excl[1] == BIT_ULL(c2) &&
			    s.shared[1] == BIT_ULL(c1) &&
			    s.excl[0] == BIT_ULL(c0) && !s.shared[0]);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT0 X %llx S %llx, HT1 X %llx S %llx",
			    s.excl[0], s.shared[0], s.excl[1], s.shared[1]);
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(x0), c0);

	/* All three count, on their counters. */
	xsu_glue_busy(g, 0, 20);
	xsu_glue_busy(g, 1, 20);
	xsu_glue_times(x0, &t);
	KUNIT_EXPECT_GT(test, t.count, 0);
	KUNIT_EXPECT_GT(test, t.running, 0);
	xsu_glue_times(s1, &t);
	KUNIT_EXPECT_GT(test, t.count, 0);
	KUNIT_EXPECT_GT(test, t.running, 0);
	xsu_glue_times(x1, &t);
	KUNIT_EXPECT_GT(test, t.count, 0);
	KUNIT_EXPECT_GT(test, t.running, 0);
	xsu_glue_expect_no_leak(g, &ledger);

	/* Disabled, then released: every counter Unused again. */
	perf_event_disable(x0);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(x0), PERF_EVENT_STATE_OFF);
	ret = xsu_glue_wait(g, &s, !s.excl[0]);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0,
			    "HT0 X %llx after its event was disabled",
			    s.excl[0]);
	xsu_glue_release(g, x0);
	xsu_glue_release(g, s1);
	xsu_glue_release(g, x1);
	ret = xsu_glue_wait(g, &s, xsu_glue_snap_clean(&s));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT0 X %llx S %llx, HT1 X %llx S %llx",
			    s.excl[0], s.shared[0], s.excl[1], s.shared[1]);
}

/*
 * A pinned event on HT1 while HT0's four flexible corrupting events hold
 * every counter: its first pass fails, and the reclaim pass gives it a
 * counter, ACTIVE, not ERROR. Until HT0 has rescheduled off that counter,
 * HT1 keeps it disabled (xsu_held) and the event does not count: HT0 is
 * kept in an interrupt handler meanwhile, running its corrupting events.
 * Once HT0 is let go, it leaves the counter, HT1 enables it, and the event
 * counts. Nothing leaks at any time.
 */
static void glue_pinned_reclaims_held_counter(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct xsu_glue_times t0, t1;
	struct xsu_glue_ledger ledger;
	struct perf_event *x[4], *p;
	struct xsu_glue_snap s;
	int c, ret;

	xsu_glue_hold_all(g, x, 4);
	p = xsu_glue_event(g, 1, GLUE_BRANCHES, true);
	xsu_glue_ledger(g, &ledger);

	xsu_glue_run_on(g, 1);
	xsu_glue_freeze(g, 0);
	perf_event_enable(p);	/* on this CPU: no IPI to HT0 */
	KUNIT_EXPECT_EQ(test, xsu_glue_state(p), PERF_EVENT_STATE_ACTIVE);
	c = xsu_glue_counter(p);
	if (c < 0 || c >= GLUE_NR_GP) {
		xsu_glue_thaw(g);
		KUNIT_FAIL_AND_ABORT(test, "pinned event on counter %d, state %d",
				     c, xsu_glue_state(p));
	}

	/* Taken back, but disabled while HT0 still runs its event there. */
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_EQ(test, s.hw_held[1], BIT_ULL(c));
	KUNIT_EXPECT_TRUE(test, s.pin[1] & BIT_ULL(c));
	KUNIT_EXPECT_TRUE(test, s.excl[0] & BIT_ULL(c));
	xsu_glue_times(p, &t0);
	xsu_glue_busy(g, 1, 20);
	xsu_glue_times(p, &t1);
	KUNIT_EXPECT_EQ_MSG(test, t1.count, t0.count,
			    "counter %d counted beside HT0's corrupting event", c);
	/* perf accounts the held time as running: the count is not scaled. */
	kunit_info(test, "held on counter %d: +%llu counts, +%llu ns running\n",
		   c, t1.count - t0.count, t1.running - t0.running);
	xsu_glue_expect_no_leak(g, &ledger);
	KUNIT_EXPECT_TRUE_MSG(test, xsu_glue_thaw(g),
			      "HT0 was let go late: the held window is not checked");

	/* HT0 answers the kick: it leaves counter c, HT1 enables it. */
	ret = xsu_glue_wait(g, &s, !s.hw_held[1] && !s.held[1] &&
			    !(s.excl[0] & BIT_ULL(c)));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT1 holds %llx, HT0 X %llx",
			    s.hw_held[1], s.excl[0]);
	KUNIT_EXPECT_TRUE(test, xsu_glue_running(p));
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(p), c);
	xsu_glue_times(p, &t0);
	xsu_glue_busy(g, 1, 20);
	xsu_glue_times(p, &t1);
	KUNIT_EXPECT_GT(test, t1.count, t0.count);
	KUNIT_EXPECT_GT(test, t1.running, t0.running);
	xsu_glue_expect_no_leak(g, &ledger);
}

/*
 * Five pinned GP events on HT1's four counters, the first of them a
 * corrupting one (so that HT1's passes arbitrate): the fifth cannot fit
 * whatever HT0 does. It goes to ERROR at once, as on every other PMU, and
 * HT1 does not wait for HT0 to make room (xsu_arb_waits(): no event it
 * waits for, no kick); the four others run.
 */
static void glue_pinned_too_large_errors(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct xsu_glue_ledger ledger;
	struct perf_event *b, *p[5];
	struct xsu_glue_snap s;
	int i, ret;

	xsu_glue_ledger(g, &ledger);
	b = xsu_glue_event(g, 0, GLUE_BRANCHES, false);
	perf_event_enable(b);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(b), 0);

	p[0] = xsu_glue_event(g, 1, GLUE_CORRUPTING, true);
	for (i = 1; i < 5; i++)
		p[i] = xsu_glue_event(g, 1, GLUE_MISPREDICTS, true);
	for (i = 0; i < 4; i++) {
		perf_event_enable(p[i]);
		KUNIT_EXPECT_TRUE_MSG(test, xsu_glue_running(p[i]),
				      "pinned %d", i);
	}
	ret = xsu_glue_wait(g, &s, (s.excl[1] | s.shared[1]) == GLUE_ALL_GP &&
			    !s.waits[1] && !s.hw_held[1]);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "HT1 X %llx S %llx held %llx",
			    s.excl[1], s.shared[1], s.hw_held[1]);

	perf_event_enable(p[4]);
	KUNIT_EXPECT_EQ(test, xsu_glue_state(p[4]), PERF_EVENT_STATE_ERROR);
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_FALSE(test, s.waits[1]);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE_MSG(test, xsu_glue_running(p[i]),
				      "pinned %d", i);
	KUNIT_EXPECT_TRUE(test, xsu_glue_running(b));
	xsu_glue_expect_no_leak(g, &ledger);
}

/*
 * ht_bug_workaround written 0 through sysfs: the core's states are
 * cleared and no longer tracked, and every event runs on its static mask,
 * HT1's beside HT0's corrupting ones (the ledger shows the exposure). Then
 * written 1: each thread's states cover its placement again, no counter is
 * in use on both threads against the table, and the exposure stops as
 * soon as the write has returned.
 */
static void glue_knob_off_static_masks_on_again(struct kunit *test)
{
	struct xsu_glue_times t0[6], t1[6];
	struct xsu_glue_ledger l0, l1;
	struct perf_event *ev[6];
	struct xsu_glue *g = test->priv;
	struct xsu_glue_snap s;
	int i, ret;

	xsu_glue_hold_all(g, ev, 4);
	ev[4] = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
	ev[5] = xsu_glue_event(g, 1, GLUE_MISPREDICTS, false);
	perf_event_enable(ev[4]);
	perf_event_enable(ev[5]);

	KUNIT_ASSERT_EQ(test, xsu_glue_knob(false), 0);
	KUNIT_EXPECT_FALSE(test, intel_ht_workaround_on());
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_FALSE(test, s.enabled);
	KUNIT_EXPECT_FALSE(test, s.tracked[0]);
	KUNIT_EXPECT_FALSE(test, s.tracked[1]);
	KUNIT_EXPECT_TRUE_MSG(test, xsu_glue_snap_clean(&s),
			      "HT0 X %llx S %llx, HT1 X %llx S %llx",
			      s.excl[0], s.shared[0], s.excl[1], s.shared[1]);

	/* Static masks: 4 + 2 events on 4 + 4 counters, all running. */
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ_MSG(test, xsu_glue_wait_active(ev[i]), 0,
				    "event %d", i);
	xsu_glue_ledger(g, &l0);
	for (i = 0; i < 6; i++)
		xsu_glue_times(ev[i], &t0[i]);
	msleep(100);
	for (i = 0; i < 6; i++) {
		u64 enabled, running;

		xsu_glue_times(ev[i], &t1[i]);
		enabled = t1[i].enabled - t0[i].enabled;
		running = t1[i].running - t0[i].running;
		KUNIT_EXPECT_GT_MSG(test, running * 100, enabled * 99,
				    "event %d ran %llu of %llu ns", i, running,
				    enabled);
	}
	xsu_glue_ledger(g, &l1);
	if (g->ledger)
		KUNIT_EXPECT_GT_MSG(test, l1.exposed, l0.exposed,
				    "HT1's events did not share HT0's counters");
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_TRUE(test, xsu_glue_snap_clean(&s));

	/* On again: re-applied at once, and nothing exposed from now on. */
	KUNIT_ASSERT_EQ(test, xsu_glue_knob(true), 0);
	xsu_glue_ledger(g, &l0);
	KUNIT_EXPECT_TRUE(test, intel_ht_workaround_on());
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_TRUE(test, s.enabled && s.tracked[0] && s.tracked[1]);
	ret = xsu_glue_wait(g, &s, xsu_glue_snap_consistent(&s) &&
			    s.excl[0] && s.shared[1] &&
			    !s.shared[0] && !s.excl[1]);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT0 X %llx S %llx, HT1 X %llx S %llx",
			    s.excl[0], s.shared[0], s.excl[1], s.shared[1]);
	msleep(100);
	xsu_glue_expect_no_leak(g, &l0);
}

/*
 * With the workaround off, a pass takes no core lock. The observable: HT0
 * holds the core's lock, interrupts off, while HT1 reschedules all its
 * events from an irq_work; the reschedule can only complete if none of its
 * passes, nor the enable that follows, takes the lock. With the workaround
 * on, the same probe must block: that is what shows it can fail. The
 * states stay untouched (all Unused) by the passes with the workaround off.
 */
static void glue_knob_off_takes_no_core_lock(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct perf_event *x0, *x1, *b1;
	struct xsu_glue_snap s;
	bool started, done;

	x0 = xsu_glue_event(g, 0, GLUE_CORRUPTING, false);
	x1 = xsu_glue_event(g, 1, GLUE_CORRUPTING, false);
	b1 = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
	perf_event_enable(x0);
	perf_event_enable(x1);
	perf_event_enable(b1);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(x0), 0);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(x1), 0);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(b1), 0);
	xsu_glue_run_on(g, 0);

	done = xsu_glue_pass_under_lock(g, &started);
	KUNIT_ASSERT_TRUE_MSG(test, started, "HT1 never ran the probe");
	KUNIT_EXPECT_FALSE_MSG(test, done,
			       "the workaround on, a pass ran without the lock");

	KUNIT_ASSERT_EQ(test, xsu_glue_knob(false), 0);
	/* Kicks sent before the switch take the lock: let them run first. */
	irq_work_sync(per_cpu_ptr(&intel_xsu_kick, g->cpu[0]));
	irq_work_sync(per_cpu_ptr(&intel_xsu_kick, g->cpu[1]));
	done = xsu_glue_pass_under_lock(g, &started);
	KUNIT_EXPECT_TRUE_MSG(test, started && done,
			      "the workaround off, HT1's pass waited for the lock");
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_TRUE(test, xsu_glue_snap_clean(&s));
	KUNIT_EXPECT_FALSE(test, s.tracked[0] || s.tracked[1] || s.enabled);
	KUNIT_EXPECT_TRUE(test, xsu_glue_running(x1));
	KUNIT_EXPECT_TRUE(test, xsu_glue_running(b1));

	/* On again while the events run (glue_knob_cycle_forgets_demands()). */
	KUNIT_EXPECT_EQ(test, xsu_glue_knob(true), 0);
}

/*
 * HT1 going offline gives its counters back: HT0's four corrupting
 * events, down to three while HT1's corrupting event ran, all run again,
 * and HT1's demand is gone. Back online, HT1 starts with every counter
 * Unused and tracked, and a new event there gets a counter from HT0.
 */
static void glue_offline_releases_counters(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct xsu_glue_ledger ledger;
	struct perf_event *x[4], *y, *z;
	struct xsu_glue_snap s;
	long cpu = g->cpu[1];
	int c, i, ret;
	u64 used;

	xsu_glue_ledger(g, &ledger);
	xsu_glue_hold_all(g, x, 4);
	y = xsu_glue_event(g, 1, GLUE_CORRUPTING, false);
	perf_event_enable(y);
	KUNIT_ASSERT_EQ_MSG(test, xsu_glue_wait_active(y), 0,
			    "HT1 never got a counter from HT0");
	c = xsu_glue_counter(y);
	KUNIT_ASSERT_TRUE(test, c >= 0 && c < GLUE_NR_GP);
	ret = xsu_glue_wait(g, &s, s.excl[1] == BIT_ULL(c) &&
			    !(s.excl[0] & BIT_ULL(c)));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT0 X %llx, HT1 X %llx", s.excl[0],
			    s.excl[1]);

	xsu_glue_run_on(g, 0);
	KUNIT_ASSERT_EQ(test, remove_cpu(cpu), 0);
	ret = kunit_add_action_or_reset(test, xsu_glue_cpu_restore,
					(void *)cpu);
	KUNIT_ASSERT_EQ(test, ret, 0);
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_FALSE(test, s.tracked[1]);
	KUNIT_EXPECT_EQ(test, s.excl[1] | s.shared[1] | s.place[1], 0);
	KUNIT_EXPECT_EQ(test, s.demand[1], 0);
	KUNIT_EXPECT_FALSE(test, s.waits[1]);
	KUNIT_EXPECT_NE(test, xsu_glue_state(y), PERF_EVENT_STATE_ACTIVE);
	ret = xsu_glue_wait(g, &s, xsu_glue_all_active(x, 4, &used) &&
			    s.excl[0] == GLUE_ALL_GP);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT0 did not get counter %d back", c);

	kunit_release_action(test, xsu_glue_cpu_restore, (void *)cpu);
	KUNIT_ASSERT_TRUE(test, cpu_online(cpu));
	KUNIT_ASSERT_PTR_EQ(test, per_cpu(cpu_hw_events, cpu).xsu,
			    xsu_glue_core(g));
	KUNIT_EXPECT_EQ(test, per_cpu(cpu_hw_events, cpu).xsu_tid,
			xsu_glue_tid(g, 1));
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_TRUE(test, s.tracked[1] && s.enabled);
	KUNIT_EXPECT_EQ(test, s.excl[1] | s.shared[1] | s.place[1], 0);

	z = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
	perf_event_enable(z);
	KUNIT_EXPECT_EQ_MSG(test, xsu_glue_wait_active(z), 0,
			    "HT1 back online never got a counter from HT0");
	c = xsu_glue_counter(z);
	ret = xsu_glue_wait(g, &s, c >= 0 && s.shared[1] == BIT_ULL(c) &&
			    !(s.excl[0] & BIT_ULL(c)));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT1 on %d: S %llx, HT0 X %llx", c,
			    s.shared[1], s.excl[0]);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_NE(test, xsu_glue_state(x[i]),
				PERF_EVENT_STATE_ERROR);
	xsu_glue_expect_no_leak(g, &ledger);
}

/*
 * The starvation the arbitration prevents: HT0's four flexible corrupting
 * events fit and would never multiplex, leaving HT1 nothing. HT1 adds two
 * other events: over 200 ms both of them run most of the time, and HT0
 * keeps running on what it has left, every one of its events in turn.
 */
static void glue_arbitration_both_threads_run(struct kunit *test)
{
	struct xsu_glue_times t0[6], t1[6];
	struct xsu_glue *g = test->priv;
	struct xsu_glue_ledger ledger;
	struct perf_event *ev[6];
	u64 enabled, running, ht0 = 0;
	int i, ret;

	xsu_glue_ledger(g, &ledger);
	xsu_glue_hold_all(g, ev, 4);
	ev[4] = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
	ev[5] = xsu_glue_event(g, 1, GLUE_MISPREDICTS, false);
	perf_event_enable(ev[4]);
	perf_event_enable(ev[5]);
	ret = xsu_glue_until(xsu_glue_running(ev[4]) &&
			     xsu_glue_running(ev[5]));
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "HT1's events never ran together");

	for (i = 0; i < 6; i++)
		xsu_glue_times(ev[i], &t0[i]);
	msleep(200);
	for (i = 0; i < 6; i++)
		xsu_glue_times(ev[i], &t1[i]);

	for (i = 0; i < 6; i++) {
		enabled = t1[i].enabled - t0[i].enabled;
		running = t1[i].running - t0[i].running;
		kunit_info(test, "HT%d event %d ran %llu of %llu ns\n",
			   i < 4 ? 0 : 1, i, running, enabled);
		if (i < 4) {
			KUNIT_EXPECT_GT_MSG(test, running, 0,
					    "HT0's event %d starved", i);
			ht0 += running;
		} else {
			KUNIT_EXPECT_GT_MSG(test, running * 2, enabled,
					    "HT1's event %d ran %llu of %llu ns",
					    i, running, enabled);
		}
	}
	/* HT0 kept at least one counter's worth. */
	KUNIT_EXPECT_GE(test, ht0, t1[0].enabled - t0[0].enabled);
	xsu_glue_expect_no_leak(g, &ledger);
}

/*
 * An event tied to one counter (PREC_DIST, counter 1 on Haswell) on HT1,
 * while HT0's four corrupting events hold every counter: a budget alone
 * would not help if HT0 kept counter 1. HT1's demand names it, HT0's
 * flexible events leave it, and the tied event runs there most of the time.
 */
static void glue_tied_event_gets_its_counter(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct xsu_glue_ledger ledger;
	struct xsu_glue_times t0, t1;
	struct perf_event *x[4], *p;
	struct xsu_glue_snap s;
	int ret;

	xsu_glue_ledger(g, &ledger);
	xsu_glue_hold_all(g, x, 4);
	p = xsu_glue_event(g, 1, GLUE_PREC_DIST, false);
	perf_event_enable(p);
	KUNIT_ASSERT_EQ_MSG(test, xsu_glue_wait_active(p), 0,
			    "the tied event never ran");
	KUNIT_EXPECT_EQ(test, xsu_glue_counter(p), 1);
	ret = xsu_glue_wait(g, &s, s.shared[1] == BIT_ULL(1) &&
			    !(s.excl[0] & BIT_ULL(1)));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "HT1 S %llx, HT0 X %llx", s.shared[1],
			    s.excl[0]);

	xsu_glue_times(p, &t0);
	msleep(200);
	xsu_glue_times(p, &t1);
	KUNIT_EXPECT_GT_MSG(test, (t1.running - t0.running) * 2,
			    t1.enabled - t0.enabled, "ran %llu of %llu ns",
			    t1.running - t0.running, t1.enabled - t0.enabled);
	xsu_glue_expect_no_leak(g, &ledger);
}

/*
 * A thread's pinned events are not charged against the budget its waiting
 * sibling imposes: HT0 pins three GP events, HT1's four flexible corrupting
 * events are left one counter and wait for more, so HT0's budget drops to
 * two. HT0's flexible event on a fixed counter (INST_RETIRED.ANY) still
 * fits, and runs all the time.
 */
static void glue_budget_spares_pinned_events(struct kunit *test)
{
	static const u64 pinned[] = { 0x00c4, 0x00c5, 0x01c2 };
	struct xsu_glue *g = test->priv;
	struct xsu_glue_ledger ledger;
	struct xsu_glue_times t0, t1;
	struct perf_event *x[4], *f;
	struct xsu_glue_snap s;
	int i, ret;

	xsu_glue_ledger(g, &ledger);
	for (i = 0; i < ARRAY_SIZE(pinned); i++) {
		f = xsu_glue_event(g, 0, pinned[i], true);
		perf_event_enable(f);
		KUNIT_ASSERT_TRUE(test, xsu_glue_running(f));
	}
	for (i = 0; i < 4; i++) {
		x[i] = xsu_glue_event(g, 1, GLUE_CORRUPTING, false);
		perf_event_enable(x[i]);
	}
	ret = xsu_glue_wait(g, &s, s.demand[1] > 1 && s.excl[1]);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "HT1 X %llx, demand %d", s.excl[1],
			    s.demand[1]);

	f = xsu_glue_event(g, 0, 0x00c0, false);
	perf_event_enable(f);
	KUNIT_ASSERT_EQ(test, xsu_glue_wait_active(f), 0);
	KUNIT_EXPECT_GE(test, xsu_glue_counter(f), INTEL_PMC_IDX_FIXED);
	xsu_glue_times(f, &t0);
	msleep(200);
	xsu_glue_times(f, &t1);
	xsu_glue_snap(g, &s);
	KUNIT_EXPECT_GT_MSG(test, (t1.running - t0.running) * 10,
			    (t1.enabled - t0.enabled) * 9,
			    "ran %llu of %llu ns beside HT1's demand of %d",
			    t1.running - t0.running, t1.enabled - t0.enabled,
			    s.demand[1]);
	xsu_glue_expect_no_leak(g, &ledger);
}

/*
 * Switched off while both threads compete for counters, the events
 * released meanwhile, then switched on again: nothing of the arbitration
 * before the switch may outlive it. A demand still standing would cap the
 * sibling to half its counters with nothing left to use them: HT0's four
 * corrupting events must all run at once again.
 */
static void glue_knob_cycle_forgets_demands(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct perf_event *x[4], *b[2];
	struct xsu_glue_snap s;
	int i, ret;

	xsu_glue_hold_all(g, x, 4);
	for (i = 0; i < 2; i++) {
		b[i] = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
		perf_event_enable(b[i]);
	}
	ret = xsu_glue_wait(g, &s, s.demand[0] && s.demand[1] && s.shared[1]);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "demands HT0 %d HT1 %d, HT1 S %llx",
			    s.demand[0], s.demand[1], s.shared[1]);

	KUNIT_ASSERT_EQ(test, xsu_glue_knob(false), 0);
	for (i = 0; i < 4; i++)
		xsu_glue_release(g, x[i]);
	for (i = 0; i < 2; i++)
		xsu_glue_release(g, b[i]);
	KUNIT_ASSERT_EQ(test, xsu_glue_knob(true), 0);

	ret = xsu_glue_wait(g, &s, xsu_glue_snap_clean(&s) &&
			    !s.demand[0] && !s.demand[1]);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0,
			    "off, release, on: demands HT0 %d HT1 %d still stand",
			    s.demand[0], s.demand[1]);
	xsu_glue_hold_all(g, x, 4);
}

/*
 * A demand ends with the corrupting events that made it: HT1's events
 * wait for the counters HT0's four corrupting events hold eXclusive, then
 * HT0 releases those while HT1's events keep running. Nothing on the core
 * competes any more, so four plain events of HT0 must all run at once, a
 * hold later (xsu_arb_round()); HT1's demand held up by its GP counters
 * would cap HT0 at two for as long as HT1's events run.
 */
static void glue_demand_ends_with_the_corrupting_events(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct perf_event *x[4], *b[2], *p[4];
	struct xsu_glue_snap s;
	u64 used = 0;
	int i, ret;

	xsu_glue_hold_all(g, x, 4);
	for (i = 0; i < 2; i++) {
		b[i] = xsu_glue_event(g, 1, GLUE_BRANCHES, false);
		perf_event_enable(b[i]);
	}
	ret = xsu_glue_wait(g, &s, s.demand[1] && s.shared[1]);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "HT1 demand %d, S %llx",
			    s.demand[1], s.shared[1]);

	for (i = 0; i < 4; i++)
		xsu_glue_release(g, x[i]);
	for (i = 0; i < 4; i++) {
		p[i] = xsu_glue_event(g, 0, GLUE_MISPREDICTS, false);
		perf_event_enable(p[i]);
	}
	ret = xsu_glue_wait(g, &s, xsu_glue_all_active(p, 4, &used));
	KUNIT_EXPECT_EQ_MSG(test, ret, 0,
			    "no corrupting event left: HT0's four events on %llx, HT1's demand %d",
			    used, s.demand[1]);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_TRUE(test, xsu_glue_running(b[i]));
}

/*
 * An event that may use a fixed counter or a GP counter, whose fixed
 * counter another event of its thread holds, needs a GP counter like any
 * other: with the NMI watchdog's cycles on fixed counter 1, a user's
 * cycles beside a sibling holding every GP counter with corrupting events
 * never ran. The same with instructions and fixed counter 0, which the
 * watchdog leaves alone, so that the case holds whether it runs or not:
 * HT1's pinned instructions takes fixed counter 0, and its flexible one
 * must get a GP counter from HT0.
 */
static void glue_fixed_counter_taken_gets_a_gp_counter(struct kunit *test)
{
	struct xsu_glue *g = test->priv;
	struct xsu_glue_ledger ledger;
	struct perf_event *x[4], *f, *e;
	int ret;

	xsu_glue_ledger(g, &ledger);
	xsu_glue_hold_all(g, x, 4);
	f = xsu_glue_event(g, 1, GLUE_INSTRUCTIONS, true);
	perf_event_enable(f);
	ret = xsu_glue_wait_active(f);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "HT1's pinned instructions never ran");
	KUNIT_ASSERT_EQ(test, xsu_glue_counter(f), INTEL_PMC_IDX_FIXED);

	e = xsu_glue_event(g, 1, GLUE_INSTRUCTIONS, false);
	perf_event_enable(e);
	ret = xsu_glue_wait_active(e);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0,
			    "HT1's second instructions never got a GP counter");
	KUNIT_EXPECT_LT(test, xsu_glue_counter(e), GLUE_NR_GP);
	xsu_glue_expect_no_leak(g, &ledger);
}

static struct kunit_case x86_intel_xsu_glue_cases[] = {
	KUNIT_CASE_SLOW(glue_protocol_real_events),
	KUNIT_CASE_SLOW(glue_pinned_reclaims_held_counter),
	KUNIT_CASE_SLOW(glue_pinned_too_large_errors),
	KUNIT_CASE_SLOW(glue_knob_off_static_masks_on_again),
	KUNIT_CASE_SLOW(glue_knob_off_takes_no_core_lock),
	KUNIT_CASE_SLOW(glue_offline_releases_counters),
	KUNIT_CASE_SLOW(glue_arbitration_both_threads_run),
	KUNIT_CASE_SLOW(glue_tied_event_gets_its_counter),
	KUNIT_CASE_SLOW(glue_budget_spares_pinned_events),
	KUNIT_CASE_SLOW(glue_knob_cycle_forgets_demands),
	KUNIT_CASE_SLOW(glue_demand_ends_with_the_corrupting_events),
	KUNIT_CASE_SLOW(glue_fixed_counter_taken_gets_a_gp_counter),
	{}
};

static struct kunit_suite x86_intel_xsu_glue_suite = {
	.name = "x86_intel_xsu_glue",
	.init = xsu_glue_init,
	.test_cases = x86_intel_xsu_glue_cases,
};

kunit_test_suites(&x86_intel_xsu_glue_suite);
