/*
 * User-space tests of the emulated PMU model (target/i386/xpmu-model.c),
 * compiled with plain gcc against the same file QEMU builds. Prints TAP.
 *
 * Expected figures are derived by hand in the comments from the event
 * table's documented rates (INST_RETIRED 1/1 instruction, cycles 1/ns,
 * MEM_UOPS_RETIRED 0xd0 1/3 instruction, LBR_INSERTS 0xcc nothing; AMD:
 * RETIRED_INSTRUCTIONS 0x0c0 1/1, CPU_CLK_UNHALTED 0x076 1/ns, retired
 * branches 0x0c2 1/5, events not in the table 1/16).
 *
 * Copyright (c) 2026 x86 PMU scheduler maintainers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpmu-model.h"

static int tests, failures;
static int case_failed;
static char case_msg[512];

#define CHECK(cond, ...) do {                                           \
        if (!(cond) && !case_failed) {                                  \
            case_failed = 1;                                            \
            snprintf(case_msg, sizeof(case_msg), __VA_ARGS__);          \
            fprintf(stdout, "# %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        }                                                               \
    } while (0)

#define CHECK_EQ(a, b) do {                                             \
        unsigned long long a_ = (a), b_ = (b);                          \
        CHECK(a_ == b_, "%s = %llu (0x%llx), expected %llu (0x%llx)",   \
              #a, a_, a_, b_, b_);                                      \
    } while (0)

static void run(const char *name, void (*fn)(void))
{
    case_failed = 0;
    case_msg[0] = 0;
    fn();
    tests++;
    if (case_failed) {
        failures++;
        printf("not ok %d - %s\n# %s\n", tests, name, case_msg);
    } else {
        printf("ok %d - %s\n", tests, name);
    }
}

/* A little world: one core, two threads, a clock and instruction counts */
static struct xpmu_core core;
static struct xpmu_now now;

static void world_kind(enum xpmu_kind kind, bool erratum, bool two_threads)
{
    memset(&now, 0, sizeof(now));
    now.ns = 1000;
    now.insns[0] = 5000;
    now.insns[1] = 7000;
    now.cpl = -1;
    xpmu_core_init_kind(&core, kind, erratum, now.ns);
    xpmu_thread_attach(&core, 0, now.insns[0], 0);
    if (two_threads) {
        xpmu_thread_attach(&core, 1, now.insns[1], 0);
    }
}

/* The Intel version 3 PMU, with or without the erratum */
static void world(bool erratum, bool two_threads)
{
    world_kind(XPMU_INTEL, erratum, two_threads);
}

/* The same with the AMD family 15h core PMU */
static void world_amd(bool two_threads)
{
    world_kind(XPMU_AMD_F15H, true, two_threads);
}

/* Thread @thr retires @n instructions; time moves by @ns. */
static void step(int thr, uint64_t n, int64_t ns)
{
    now.insns[thr] += n;
    now.ns += ns;
}

static uint64_t rd(int thr, uint32_t msr)
{
    uint64_t v = 0xdeadbeef;
    int r;

    now.cpl = -1;
    r = xpmu_rdmsr(&core, thr, &now, msr, &v);
    CHECK(r == XPMU_OK, "rdmsr 0x%x by thread %d: %d", msr, thr, r);
    return v;
}

static int wr(int thr, uint32_t msr, uint64_t v)
{
    now.cpl = -1;
    return xpmu_wrmsr(&core, thr, &now, msr, v);
}

static void wr_ok(int thr, uint32_t msr, uint64_t v)
{
    int r = wr(thr, msr, v);

    CHECK(r == XPMU_OK, "wrmsr 0x%x = 0x%llx by thread %d: %d", msr,
          (unsigned long long)v, thr, r);
}

static void set_cpl(int thr, int cpl)
{
    now.cpl = cpl;
    xpmu_sync(&core, thr, &now);
    now.cpl = -1;
}

#define PMC(i)          (XPMU_MSR_PMC0 + (i))
#define EVTSEL(i)       (XPMU_MSR_EVNTSEL0 + (i))
#define FIXED(i)        (XPMU_MSR_FIXED_CTR0 + (i))
#define LEDGER(off)     (XPMU_MSR_LEDGER_BASE + (off))
#define EN              XPMU_EVTSEL_EN
#define USR             XPMU_EVTSEL_USR
#define OS              XPMU_EVTSEL_OS
#define INT             XPMU_EVTSEL_INT
#define EV_INSNS        0xc0
#define EV_CYCLES       0x3c
#define EV_MEM_UOPS     0x81d0          /* corrupting, 1/3 instruction */
#define EV_LBR          0x20cc          /* counts nothing */
#define EV_BRANCHES     0xc4            /* 1/5 instruction */

/* AMD family 15h */
#define K7_CTL(i)       (XPMU_MSR_K7_EVNTSEL0 + (i))
#define K7_CTR(i)       (XPMU_MSR_K7_PERFCTR0 + (i))
#define F15H_CTL(i)     (XPMU_MSR_F15H_PERF_CTL0 + 2 * (i))
#define F15H_CTR(i)     (XPMU_MSR_F15H_PERF_CTL0 + 2 * (i) + 1)
#define AMD_EV_CYCLES   0x76
#define AMD_EV_INSNS    0xc0
#define AMD_EV_BRANCHES 0xc2            /* 1/5 instruction */
#define GUESTONLY       XPMU_AMD_EVTSEL_GUESTONLY
#define HOSTONLY        XPMU_AMD_EVTSEL_HOSTONLY

static void test_cpuid(void)
{
    uint32_t a, b, c, d;

    xpmu_cpuid_0xa(&a, &b, &c, &d);
    CHECK_EQ(a & 0xff, 3);              /* version */
    CHECK_EQ((a >> 8) & 0xff, 4);       /* GP counters */
    CHECK_EQ((a >> 16) & 0xff, 48);     /* GP width */
    CHECK_EQ((a >> 24) & 0xff, 7);      /* EBX length */
    CHECK_EQ(b, 0);                     /* all 7 events available */
    CHECK_EQ(c, 0);
    CHECK_EQ(d & 0x1f, 3);              /* fixed counters */
    CHECK_EQ((d >> 5) & 0xff, 48);      /* fixed width */
}

static void test_event_table(void)
{
    const struct xpmu_event *e;
    unsigned int i;

    e = xpmu_event_lookup(0xc0, 0x00);
    CHECK(e->source == XPMU_SRC_INSNS && e->num == 1 && e->den == 1,
          "0xc0 is not instructions 1/1");
    e = xpmu_event_lookup(0x3c, 0x00);
    CHECK(e->source == XPMU_SRC_CYCLES, "0x3c is not cycles");
    e = xpmu_event_lookup(0x3c, 0x01);
    CHECK(e->source == XPMU_SRC_CYCLES, "0x013c is not cycles");
    e = xpmu_event_lookup(0xcc, 0x20);
    CHECK(e->source == XPMU_SRC_NONE, "0x20cc counts");
    for (i = 0xd0; i <= 0xd3; i++) {
        e = xpmu_event_lookup(i, 0x81);
        CHECK(e->corrupting && e->source == XPMU_SRC_INSNS,
              "0x%x is not a corrupting instruction-derived event", i);
        CHECK(xpmu_event_is_corrupting(i), "0x%x", i);
    }
    CHECK(!xpmu_event_is_corrupting(0xcf) && !xpmu_event_is_corrupting(0xd4),
          "0xcf/0xd4 corrupting");
    /* Only 0xd0-0xd3 are corrupting in the table */
    for (i = 0; i < xpmu_num_events; i++) {
        CHECK(xpmu_events[i].corrupting ==
              xpmu_event_is_corrupting(xpmu_events[i].event),
              "entry %s", xpmu_events[i].name);
        CHECK(xpmu_events[i].den != 0, "entry %s: den 0", xpmu_events[i].name);
    }
    e = xpmu_event_lookup(0x42, 0x01);
    CHECK(e == &xpmu_event_default && !e->corrupting, "default entry");
    CHECK(xpmu_fixed_events[0].source == XPMU_SRC_INSNS &&
          xpmu_fixed_events[1].source == XPMU_SRC_CYCLES &&
          xpmu_fixed_events[2].source == XPMU_SRC_CYCLES, "fixed events");
}

static void test_affected_models(void)
{
    static const unsigned int yes[] = {
        0x2a, 0x2d, 0x3a, 0x3e, 0x3c, 0x3f, 0x45, 0x46
    };
    unsigned int m, i, hits = 0;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        CHECK(xpmu_model_affected(6, yes[i]), "model 0x%x", yes[i]);
    }
    for (m = 0; m < 256; m++) {
        hits += xpmu_model_affected(6, m);
        CHECK(!xpmu_model_affected(15, m), "family 15 model 0x%x", m);
    }
    CHECK_EQ(hits, 8);
    /* Skylake (0x5e), Broadwell (0x3d) are not */
    CHECK(!xpmu_model_affected(6, 0x5e) && !xpmu_model_affected(6, 0x3d),
          "skylake/broadwell");
}

static void test_reset_state(void)
{
    int i;

    world(true, true);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_CTRL), 0xf);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK_EQ(rd(0, XPMU_MSR_FIXED_CTR_CTRL), 0);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(rd(1, PMC(i)), 0);
        CHECK_EQ(rd(1, EVTSEL(i)), 0);
    }
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_OVF_CTRL), 0);
    /* Other MSRs are not the model's */
    {
        uint64_t v;

        CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0xc5, &v), XPMU_UNHANDLED);
        CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0x18a, &v), XPMU_UNHANDLED);
        CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0x1d9, &v), XPMU_UNHANDLED);
        CHECK_EQ(xpmu_wrmsr(&core, 0, &now, 0x4c1, 5), XPMU_UNHANDLED);
        CHECK_EQ(xpmu_wrmsr(&core, 0, &now, 0x30c, 5), XPMU_UNHANDLED);
    }
}

static void test_legacy_write_sign_extension(void)
{
    world(true, true);
    wr_ok(0, PMC(0), 0x80000000);
    CHECK_EQ(rd(0, PMC(0)), 0xffff80000000ULL);
    wr_ok(0, PMC(1), 0x7fffffff);
    CHECK_EQ(rd(0, PMC(1)), 0x7fffffffULL);
    wr_ok(0, PMC(2), 0x123456789ULL);           /* bits 63:32 dropped */
    CHECK_EQ(rd(0, PMC(2)), 0x23456789ULL);
    wr_ok(0, PMC(3), 0xffffffffffff0000ULL);    /* -65536 */
    CHECK_EQ(rd(0, PMC(3)), 0xffffffff0000ULL);
    /* Linux's check_hw_exists(): write value ^ 0xffff, read it back */
    wr_ok(1, PMC(0), 0xffff);
    CHECK_EQ(rd(1, PMC(0)), 0xffff);
    /* Fixed counters take 48 bits */
    wr_ok(0, FIXED(0), 0x123456789abcULL);
    CHECK_EQ(rd(0, FIXED(0)), 0x123456789abcULL);
    wr_ok(0, FIXED(2), 0xffff800000000001ULL);
    CHECK_EQ(rd(0, FIXED(2)), 0x800000000001ULL);
    /* Thread 1's counters are its own */
    CHECK_EQ(rd(1, PMC(1)), 0);
}

static void test_reserved_bits_fault(void)
{
    world(true, true);
    wr_ok(0, EVTSEL(0), EN | USR | EV_INSNS);
    CHECK_EQ(wr(0, EVTSEL(0), (1ULL << 32) | EV_LBR), XPMU_FAULT);
    CHECK_EQ(rd(0, EVTSEL(0)), EN | USR | EV_INSNS);   /* unchanged */
    CHECK_EQ(wr(0, EVTSEL(1), 1ULL << 63), XPMU_FAULT);
    /* ANY, EDGE, INV, CMASK, PC are accepted (and ignored) */
    wr_ok(0, EVTSEL(1), XPMU_EVTSEL_ANY | XPMU_EVTSEL_EDGE |
          XPMU_EVTSEL_INV | XPMU_EVTSEL_CMASK | XPMU_EVTSEL_PC | 0x3c);
    CHECK_EQ(wr(0, XPMU_MSR_FIXED_CTR_CTRL, 0x1000), XPMU_FAULT);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0xfff);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_CTRL, 0x10), XPMU_FAULT);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_CTRL, 1ULL << 35), XPMU_FAULT);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x70000000fULL);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_STATUS, 0), XPMU_FAULT);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_OVF_CTRL, 1ULL << 4), XPMU_FAULT);
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, 0xc00000070000000fULL);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_CTRL), 0x70000000fULL);
    CHECK_EQ(rd(0, XPMU_MSR_FIXED_CTR_CTRL), 0xfff);
}

static void test_rdpmc_decoding(void)
{
    uint64_t v;
    uint32_t i;

    world(true, true);
    for (i = 0; i < 4; i++) {
        wr_ok(0, PMC(i), 0x100 + i);
    }
    for (i = 0; i < 3; i++) {
        wr_ok(0, FIXED(i), 0x234500000000ULL + i);
    }
    for (i = 0; i < 4; i++) {
        CHECK_EQ(xpmu_rdpmc(&core, 0, &now, i, &v), XPMU_OK);
        CHECK_EQ(v, 0x100 + i);
    }
    for (i = 0; i < 3; i++) {
        CHECK_EQ(xpmu_rdpmc(&core, 0, &now, (1u << 30) | i, &v), XPMU_OK);
        CHECK_EQ(v, 0x234500000000ULL + i);
    }
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, 4, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, 8, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, (1u << 30) | 3, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, 0x10000, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, (1u << 29), &v), XPMU_FAULT);
    /* bit 31: low 32 bits only */
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, (1u << 31) | (1u << 30) | 1, &v),
             XPMU_OK);
    CHECK_EQ(v, 0x00000001ULL);
    /* the other thread reads its own */
    CHECK_EQ(xpmu_rdpmc(&core, 1, &now, 0, &v), XPMU_OK);
    CHECK_EQ(v, 0);
}

/* A counter accrues only while EN and its GLOBAL_CTRL bit are both set. */
static void test_disabled_does_not_move(void)
{
    world(false, true);
    wr_ok(0, EVTSEL(0), USR | OS | EV_INSNS);           /* EN clear */
    step(0, 1000, 500);
    CHECK_EQ(rd(0, PMC(0)), 0);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0xe);                /* bit 0 clear */
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_INSNS);
    step(0, 1000, 500);
    CHECK_EQ(rd(0, PMC(0)), 0);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0xf);
    step(0, 1000, 500);
    CHECK_EQ(rd(0, PMC(0)), 1000);
    wr_ok(0, EVTSEL(0), USR | OS | EV_INSNS);           /* EN clear again */
    step(0, 777, 500);
    CHECK_EQ(rd(0, PMC(0)), 1000);
    /* the sibling's instructions never count on thread 0 */
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_INSNS);
    step(1, 5000, 10);
    CHECK_EQ(rd(0, PMC(0)), 1000);
    step(0, 1, 0);
    CHECK_EQ(rd(0, PMC(0)), 1001);
}

/*
 * The scheduler swaps a counter out and in: counts exactly over the
 * enabled intervals, whatever the reads in between (eager settling, not
 * lazy: a model settling at read time would count the disabled gaps).
 */
static void test_swapped_out_counter(void)
{
    world(false, true);
    wr_ok(0, EVTSEL(2), EN | USR | OS | EV_CYCLES);
    step(0, 10, 100);                   /* +100 ns */
    wr_ok(0, EVTSEL(2), USR | OS | EV_CYCLES);          /* out */
    step(0, 10, 1000);                  /* not counted */
    wr_ok(0, EVTSEL(2), EN | USR | OS | EV_CYCLES);     /* in */
    step(0, 10, 50);
    CHECK_EQ(rd(0, PMC(2)), 150);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0xb);                /* global off */
    step(0, 10, 4000);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0xf);
    step(0, 10, 7);
    CHECK_EQ(rd(0, PMC(2)), 157);
    /* Reprogrammed to another event: the new event from the write on */
    wr_ok(0, EVTSEL(2), EN | USR | OS | EV_INSNS);
    step(0, 33, 1000);
    CHECK_EQ(rd(0, PMC(2)), 157 + 33);
}

/* GLOBAL_CTRL gates each GP and fixed counter by its own bit. */
static void test_global_ctrl_gating(void)
{
    int i;

    world(false, true);
    for (i = 0; i < 4; i++) {
        wr_ok(0, EVTSEL(i), EN | USR | OS | EV_INSNS);
    }
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x500000005ULL);     /* GP 0,2; FX 0,2 */
    step(0, 100, 40);
    CHECK_EQ(rd(0, PMC(0)), 100);
    CHECK_EQ(rd(0, PMC(1)), 0);
    CHECK_EQ(rd(0, PMC(2)), 100);
    CHECK_EQ(rd(0, PMC(3)), 0);
    CHECK_EQ(rd(0, FIXED(0)), 100);
    CHECK_EQ(rd(0, FIXED(1)), 0);
    CHECK_EQ(rd(0, FIXED(2)), 40);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x20000000aULL);     /* GP 1,3; FX 1 */
    step(0, 10, 8);
    CHECK_EQ(rd(0, PMC(0)), 100);
    CHECK_EQ(rd(0, PMC(1)), 10);
    CHECK_EQ(rd(0, PMC(3)), 10);
    CHECK_EQ(rd(0, FIXED(0)), 100);
    CHECK_EQ(rd(0, FIXED(1)), 8);
    CHECK_EQ(rd(0, FIXED(2)), 40);
    /* fixed counter with ctrl nibble 0 does not count, even enabled */
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x0c0);           /* ANY|PMI only */
    step(0, 10, 8);
    CHECK_EQ(rd(0, FIXED(1)), 8);
}

/* USR (CPL 1-3) / OS (CPL 0) filtering, and when the glue must hook. */
static void test_cpl_filtering(void)
{
    world(false, true);
    wr_ok(0, EVTSEL(0), EN | USR | EV_INSNS);
    wr_ok(0, EVTSEL(1), EN | OS | EV_INSNS);
    wr_ok(0, EVTSEL(2), EN | USR | OS | EV_INSNS);
    wr_ok(0, EVTSEL(3), EN | EV_INSNS);                 /* neither */
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x2 | (0x1 << 4) | (0x3 << 8));
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x70000000fULL);
    CHECK(xpmu_cpl_sensitive(&core, 0), "not CPL sensitive");
    CHECK(!xpmu_cpl_sensitive(&core, 1), "idle thread CPL sensitive");
    step(0, 100, 10);                   /* at CPL 0 */
    set_cpl(0, 3);
    step(0, 40, 3);                     /* at CPL 3 */
    set_cpl(0, 1);
    step(0, 2, 1);                      /* CPL 1 counts as USR */
    set_cpl(0, 0);
    step(0, 5, 1);
    CHECK_EQ(rd(0, PMC(0)), 42);
    CHECK_EQ(rd(0, PMC(1)), 105);
    CHECK_EQ(rd(0, PMC(2)), 147);
    CHECK_EQ(rd(0, PMC(3)), 0);
    CHECK_EQ(rd(0, FIXED(0)), 42);      /* USR */
    CHECK_EQ(rd(0, FIXED(1)), 11);      /* OS: 10 + 1 ns */
    CHECK_EQ(rd(0, FIXED(2)), 15);      /* both */
    /* the calling thread's CPL taken by an MSR op */
    wr_ok(0, EVTSEL(1), 0);
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_INSNS);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333);
    CHECK(!xpmu_cpl_sensitive(&core, 0), "still CPL sensitive");
}

static void test_overflow_status_and_pmi(void)
{
    world(false, true);
    wr_ok(0, PMC(1), (uint64_t)-256);
    CHECK_EQ(rd(0, PMC(1)), 0xffffffffff00ULL);
    wr_ok(0, EVTSEL(1), EN | USR | OS | EV_INSNS);      /* no INT */
    step(0, 255, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    step(0, 1, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0x2);
    CHECK_EQ(rd(0, PMC(1)), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI without INT");
    step(0, 15, 0);
    CHECK_EQ(rd(0, PMC(1)), 15);        /* 48-bit wrap keeps counting */
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, 0x2);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    /* with INT: a PMI request */
    wr_ok(0, PMC(1), (uint64_t)-10);
    wr_ok(0, EVTSEL(1), EN | USR | OS | INT | EV_INSNS);
    step(0, 25, 0);
    CHECK_EQ(rd(0, PMC(1)), 15);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0x2);
    CHECK(xpmu_take_pmi(&core, 0), "no PMI");
    CHECK(!xpmu_take_pmi(&core, 0), "PMI taken twice");
    CHECK(!xpmu_take_pmi(&core, 1), "PMI on the sibling");
    /* fixed counter 1 (cycles) with PMI: status bit 33 */
    wr_ok(0, FIXED(1), XPMU_CTR_MASK - 99);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0xb0);            /* OS|USR|PMI */
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x20000000fULL);
    step(0, 0, 99);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0x2);
    step(0, 0, 1);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0x200000002ULL);
    CHECK(xpmu_take_pmi(&core, 0), "no fixed PMI");
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, 0x200000000ULL);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0x2);
}

/* Splitting an interval into settlements does not change a 1/3 rate. */
static void test_fractional_rates_exact(void)
{
    int k;

    world(false, true);
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_MEM_UOPS);
    wr_ok(0, EVTSEL(1), EN | USR | OS | EV_BRANCHES);
    for (k = 0; k < 1000; k++) {
        step(0, 1, 0);
        (void)rd(0, PMC(0));            /* a settle per instruction */
    }
    CHECK_EQ(rd(0, PMC(0)), 333);       /* floor(1000 / 3) */
    CHECK_EQ(rd(0, PMC(1)), 200);       /* 1000 / 5 */
    step(0, 2, 0);
    CHECK_EQ(rd(0, PMC(0)), 334);       /* floor(1002 / 3) */
}

/*
 * The leak: for every enable state of the corrupting counter on thread A
 * (EN, GLOBAL_CTRL bit) and of the victim on thread B, with the erratum on
 * and off: the victim gains the corrupting count iff all four are set and
 * the erratum is on, and the ledger says so.
 */
static void test_leak_enable_matrix(void)
{
    int combo, erratum, a;

    for (erratum = 0; erratum < 2; erratum++) {
        for (a = 0; a < 2; a++) {
            for (combo = 0; combo < 16; combo++) {
                int b = 1 - a;
                bool a_en = combo & 1, a_gl = combo & 2;
                bool b_en = combo & 4, b_gl = combo & 8;
                bool leak = erratum && a_en && a_gl && b_en && b_gl;
                uint64_t l, s, x;

                world(erratum, true);
                wr_ok(a, EVTSEL(2), (a_en ? EN : 0) | USR | OS | EV_MEM_UOPS);
                wr_ok(a, XPMU_MSR_GLOBAL_CTRL, a_gl ? 0xf : 0xb);
                wr_ok(b, EVTSEL(2), (b_en ? EN : 0) | USR | OS | EV_LBR);
                wr_ok(b, XPMU_MSR_GLOBAL_CTRL, b_gl ? 0xf : 0xb);
                /* exposure as the trace reports it, erratum on or off */
                CHECK_EQ(xpmu_exposed_pairs(&core),
                         a_en && a_gl && b_en && b_gl ?
                         UINT64_C(1) << (XPMU_NUM_GP * a + 2) : 0);
                step(a, 300, 50);
                CHECK_EQ(rd(b, PMC(2)), leak ? 100 : 0);
                CHECK_EQ(rd(a, PMC(2)), a_en && a_gl ? 100 : 0);
                xpmu_ledger_totals(&core, &l, &s, &x);
                CHECK_EQ(l, leak ? 100 : 0);
                CHECK_EQ(s, leak ? 1 : 0);
                CHECK_EQ(x, leak ? 50 : 0);
                CHECK_EQ(core.ledger[b][2].leaked, leak ? 100 : 0);
                CHECK_EQ(core.ledger[a][2].leaked, 0);
            }
        }
    }
}

/*
 * A's corrupting event runs over 900 instructions; B's counter is enabled
 * only for the middle 300 of them: B gets exactly A's count over those
 * 300 (100), the ledger 100 over the middle interval's time.
 */
static void test_leak_only_while_both_enabled(void)
{
    world(true, true);
    wr_ok(0, EVTSEL(1), EN | USR | OS | EV_MEM_UOPS);
    wr_ok(1, EVTSEL(1), USR | OS | EV_LBR);             /* victim off */
    step(0, 300, 1000);
    step(1, 50, 0);
    wr_ok(1, EVTSEL(1), EN | USR | OS | EV_LBR);        /* victim on */
    step(0, 150, 100);
    CHECK_EQ(rd(1, PMC(1)), 50);        /* read in the middle */
    step(0, 150, 100);
    wr_ok(1, EVTSEL(1), USR | OS | EV_LBR);             /* victim off */
    step(0, 300, 5000);
    CHECK_EQ(rd(0, PMC(1)), 300);       /* 900 / 3 */
    CHECK_EQ(rd(1, PMC(1)), 100);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_LEAKED + 1)), 100);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_EXPOSED + 1)), 200);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_SETTLE + 1)), 2);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_LEAKED)), 100);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_EXPOSED_NS)), 200);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_SETTLEMENTS)), 2);
    /* thread 0 was never a victim */
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_CTR_LEAKED + 1)), 0);
    /* the corrupting side toggled instead: same rule */
    wr_ok(1, EVTSEL(1), EN | USR | OS | EV_LBR);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0xd);                /* A's bit 1 off */
    step(0, 3000, 100);
    CHECK_EQ(rd(1, PMC(1)), 100);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_EXPOSED + 1)), 200);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0xf);
    step(0, 30, 10);
    CHECK_EQ(rd(1, PMC(1)), 110);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_EXPOSED + 1)), 210);
}

/* Leaks go to counter i of the sibling only, both ways, and add. */
static void test_leak_same_index_only(void)
{
    int i;

    world(true, true);
    for (i = 0; i < 4; i++) {
        wr_ok(1, EVTSEL(i), EN | USR | OS | EV_INSNS);
    }
    wr_ok(0, EVTSEL(3), EN | USR | OS | EV_MEM_UOPS);
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_LBR);
    step(0, 600, 10);
    step(1, 10, 0);
    CHECK_EQ(rd(1, PMC(0)), 10);
    CHECK_EQ(rd(1, PMC(1)), 10);
    CHECK_EQ(rd(1, PMC(2)), 10);
    CHECK_EQ(rd(1, PMC(3)), 210);       /* own 10 + 600 / 3 leaked */
    CHECK_EQ(rd(0, PMC(0)), 0);         /* no leak into the corrupter */
    CHECK_EQ(rd(0, PMC(3)), 200);       /* under-count is not modelled */
    /* both corrupting on counter 3: each leaks into the other */
    wr_ok(1, EVTSEL(3), EN | USR | OS | 0x01d1);        /* 1/4 */
    wr_ok(1, PMC(3), 0);
    wr_ok(0, PMC(3), 0);
    step(0, 300, 0);
    step(1, 400, 0);
    CHECK_EQ(rd(0, PMC(3)), 100 + 100);
    CHECK_EQ(rd(1, PMC(3)), 100 + 100);
    CHECK_EQ(core.ledger[0][3].leaked, 100);
    CHECK_EQ(core.ledger[1][3].leaked, 200 + 100);
}

/* The corrupting event counts only at its CPL; exposure runs regardless. */
static void test_leak_cpl(void)
{
    world(true, true);
    wr_ok(0, EVTSEL(0), EN | USR | EV_MEM_UOPS);        /* user only */
    wr_ok(1, EVTSEL(0), EN | OS | EV_LBR);
    set_cpl(1, 3);                      /* victim's own CPL is irrelevant */
    step(0, 300, 100);                  /* thread 0 at CPL 0 */
    CHECK_EQ(rd(1, PMC(0)), 0);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_EXPOSED + 0)), 100);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_SETTLE + 0)), 0);
    set_cpl(0, 3);
    step(0, 30, 10);
    CHECK_EQ(rd(1, PMC(0)), 10);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_EXPOSED + 0)), 110);
}

/* A leak can overflow the victim: its status bit, and its PMI if INT. */
static void test_leak_overflow_pmi(void)
{
    world(true, true);
    wr_ok(1, PMC(2), (uint64_t)-5);
    wr_ok(1, EVTSEL(2), EN | USR | OS | INT | EV_LBR);
    wr_ok(0, EVTSEL(2), EN | USR | OS | EV_MEM_UOPS);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 15);
    CHECK_EQ(xpmu_insn_deadline(&core, 1), XPMU_NO_INSNS);
    step(0, 14, 0);
    CHECK_EQ(rd(1, XPMU_MSR_GLOBAL_STATUS), 0);
    step(0, 1, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK_EQ(rd(1, XPMU_MSR_GLOBAL_STATUS), 0x4);
    CHECK(xpmu_take_pmi(&core, 1), "no PMI on the victim");
    CHECK(!xpmu_take_pmi(&core, 0), "PMI on the corrupter");
    CHECK_EQ(rd(1, PMC(2)), 0);
}

static void test_no_leak_when_off_or_alone(void)
{
    uint64_t l, s, x;

    world(false, true);
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_MEM_UOPS);
    wr_ok(1, EVTSEL(0), EN | USR | OS | EV_LBR);
    step(0, 3000, 1000);
    CHECK_EQ(rd(1, PMC(0)), 0);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_ERRATUM)), 0);
    xpmu_ledger_totals(&core, &l, &s, &x);
    CHECK(l == 0 && s == 0 && x == 0, "ledger not empty with erratum off");

    world(true, false);                 /* one thread: nobody to leak to */
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_MEM_UOPS);
    step(0, 3000, 1000);
    CHECK_EQ(rd(0, PMC(0)), 1000);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_ERRATUM)), 1);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_SIBLING)), 0);
    xpmu_ledger_totals(&core, &l, &s, &x);
    CHECK(l == 0 && s == 0 && x == 0, "ledger not empty without sibling");
}

static void test_ledger_msrs(void)
{
    uint64_t v;

    world(true, true);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_THREAD)), 0);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_THREAD)), 1);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_ERRATUM)), 1);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_SIBLING)), 1);
    wr_ok(0, EVTSEL(0), EN | USR | OS | EV_MEM_UOPS);
    wr_ok(1, EVTSEL(0), EN | USR | OS | EV_LBR);
    step(0, 30, 7);
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_LEAKED)), 10);    /* either thread */
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_LEAKED)), 10);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_LEAKED)), 10);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_SETTLE)), 1);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_EXPOSED)), 7);
    /* unknown offsets and writes other than the reset fault */
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, LEDGER(0x06), &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, LEDGER(0x14), &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, LEDGER(0xff), &v), XPMU_FAULT);
    CHECK_EQ(wr(0, LEDGER(XPMU_LEDGER_LEAKED), 0), XPMU_FAULT);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_LEAKED)), 10);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, XPMU_MSR_LEDGER_END, &v),
             XPMU_UNHANDLED);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, XPMU_MSR_LEDGER_BASE - 1, &v),
             XPMU_UNHANDLED);
    /* the reset clears the core's whole ledger, not the counters */
    wr_ok(0, LEDGER(XPMU_LEDGER_RESET), 0);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_CTR_LEAKED)), 0);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_EXPOSED_NS)), 0);
    CHECK_EQ(rd(1, PMC(0)), 10);
    step(0, 3, 1);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_LEAKED)), 1);
}

/* Deadlines: the PMI comes exactly when the counter wraps. */
static void test_deadlines(void)
{
    world(false, true);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
    CHECK_EQ(xpmu_clock_deadline(&core, 0), XPMU_NO_NS);
    wr_ok(0, PMC(0), (uint64_t)-1000);
    wr_ok(0, EVTSEL(0), EN | USR | OS | INT | EV_INSNS);
    wr_ok(0, PMC(1), (uint64_t)-10);
    wr_ok(0, EVTSEL(1), EN | USR | OS | INT | EV_MEM_UOPS);  /* 30 insns */
    wr_ok(0, PMC(2), (uint64_t)-500);
    wr_ok(0, EVTSEL(2), EN | USR | OS | INT | EV_CYCLES);
    wr_ok(0, PMC(3), (uint64_t)-1);
    wr_ok(0, EVTSEL(3), EN | USR | OS | EV_INSNS);      /* no INT */
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 30);
    CHECK_EQ(xpmu_clock_deadline(&core, 0), now.ns + 500);
    step(0, 29, 499);
    (void)rd(0, PMC(0));
    CHECK(!xpmu_take_pmi(&core, 0), "early PMI");
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 1);
    CHECK_EQ(xpmu_clock_deadline(&core, 0), now.ns + 1);
    step(0, 1, 0);
    (void)rd(0, PMC(0));
    CHECK(xpmu_take_pmi(&core, 0), "no PMI at the instruction deadline");
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0xa);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 970);
    step(0, 0, 1);
    (void)rd(0, PMC(0));
    CHECK(xpmu_take_pmi(&core, 0), "no PMI at the clock deadline");
    /* a USR-only counter at CPL 0 has no deadline until CPL changes */
    wr_ok(0, EVTSEL(0), EN | USR | INT | EV_INSNS);
    wr_ok(0, EVTSEL(1), 0);
    wr_ok(0, EVTSEL(2), 0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
    set_cpl(0, 3);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 970);
    /* fixed counter 0 with PMI */
    wr_ok(0, EVTSEL(0), 0);
    wr_ok(0, FIXED(0), XPMU_CTR_MASK - 6);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0xa);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x10000000fULL);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 7);
}

static void test_thread_reset(void)
{
    world(true, true);
    wr_ok(1, EVTSEL(0), EN | USR | OS | EV_INSNS);
    wr_ok(1, XPMU_MSR_GLOBAL_CTRL, 0x1);
    step(1, 100, 0);
    now.cpl = -1;
    xpmu_thread_reset(&core, 1, &now);
    CHECK_EQ(rd(1, PMC(0)), 0);
    CHECK_EQ(rd(1, EVTSEL(0)), 0);
    CHECK_EQ(rd(1, XPMU_MSR_GLOBAL_CTRL), 0xf);
    step(1, 100, 0);
    CHECK_EQ(rd(1, PMC(0)), 0);
}

/*
 * Property: extra settlements anywhere change nothing. Two cores run the
 * same random program of MSR writes, CPL changes, instructions and time;
 * one also settles (reads) at random instants in between. Counters,
 * status, PMI requests, leaked counts and exposure times must match at
 * the end (only the number of settlements may differ). A model that
 * accrued lazily, or that depended on when it was asked, would differ.
 */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void random_op(struct xpmu_core *c, struct xpmu_now *n, uint64_t r,
                      int *pmis)
{
    static const uint16_t events[] = {
        0xc0, 0x3c, 0x81d0, 0x01d1, 0x01d2, 0x01d3, 0x20cc, 0xc4, 0x42
    };
    int thr = r & 1;
    uint64_t v;

    r >>= 1;
    switch (r % 7) {
    case 0: {
        uint64_t sel = events[(r >> 3) % 9] | EN | INT;

        sel |= (r >> 8) & 1 ? USR : 0;
        sel |= (r >> 9) & 1 ? OS : 0;
        sel &= (r >> 10) % 4 ? ~0ULL : ~EN;
        n->cpl = -1;
        xpmu_wrmsr(c, thr, n, EVTSEL((r >> 12) % 4), sel);
        break;
    }
    case 1:
        n->cpl = -1;
        xpmu_wrmsr(c, thr, n, XPMU_MSR_GLOBAL_CTRL,
                   ((r >> 3) & 0xf) | (((r >> 7) & 7) << 32));
        break;
    case 2:
        n->cpl = -1;
        xpmu_wrmsr(c, thr, n, PMC((r >> 3) % 4), -(int64_t)((r >> 5) % 5000));
        break;
    case 3:
        n->cpl = (r >> 3) & 1 ? 3 : 0;
        xpmu_sync(c, thr, n);
        break;
    case 4:
        n->cpl = -1;
        xpmu_wrmsr(c, thr, n, XPMU_MSR_FIXED_CTR_CTRL, (r >> 3) & 0xfff);
        break;
    case 5:
        n->cpl = -1;
        xpmu_wrmsr(c, thr, n, XPMU_MSR_GLOBAL_OVF_CTRL,
                   xpmu_rdmsr(c, thr, n, XPMU_MSR_GLOBAL_STATUS, &v) ==
                   XPMU_OK ? v : 0);
        break;
    default:
        n->insns[thr] += (r >> 3) % 2000;
        n->ns += (r >> 13) % 3000;
        break;
    }
    pmis[0] += xpmu_take_pmi(c, 0);
    pmis[1] += xpmu_take_pmi(c, 1);
}

static void test_settle_anytime_invariance(void)
{
    static struct xpmu_core a, b;
    int round, k, thr, i;
    int mismatches = 0;
    uint64_t leaked_total = 0;

    for (round = 0; round < 300; round++) {
        struct xpmu_now na = { 1000, { 10, 20 }, -1 }, nb;
        int pa[2] = { 0, 0 }, pb[2] = { 0, 0 };

        xpmu_core_init(&a, true, na.ns);
        xpmu_thread_attach(&a, 0, na.insns[0], 0);
        xpmu_thread_attach(&a, 1, na.insns[1], 3);
        b = a;
        nb = na;
        for (k = 0; k < 400; k++) {
            uint64_t r = rnd();

            random_op(&a, &na, r, pa);
            random_op(&b, &nb, r, pb);
            if (rnd() % 3 == 0) {
                uint64_t v;

                /* extra settlements on b only, and partial steps */
                nb.cpl = -1;
                xpmu_rdmsr(&b, rnd() & 1, &nb, XPMU_MSR_GLOBAL_STATUS, &v);
                pb[0] += xpmu_take_pmi(&b, 0);
                pb[1] += xpmu_take_pmi(&b, 1);
            }
        }
        na.cpl = nb.cpl = -1;
        xpmu_settle(&a, &na);
        xpmu_settle(&b, &nb);
        pa[0] += xpmu_take_pmi(&a, 0);
        pa[1] += xpmu_take_pmi(&a, 1);
        pb[0] += xpmu_take_pmi(&b, 0);
        pb[1] += xpmu_take_pmi(&b, 1);
        for (thr = 0; thr < 2; thr++) {
            for (i = 0; i < 4; i++) {
                mismatches += a.t[thr].gp[i].value != b.t[thr].gp[i].value;
                /* the number of settlements depends on how often */
                mismatches += a.ledger[thr][i].leaked !=
                              b.ledger[thr][i].leaked;
                mismatches += a.ledger[thr][i].exposed_ns !=
                              b.ledger[thr][i].exposed_ns;
                leaked_total += a.ledger[thr][i].leaked;
            }
            for (i = 0; i < 3; i++) {
                mismatches += a.t[thr].fixed[i].value !=
                              b.t[thr].fixed[i].value;
            }
            mismatches += a.t[thr].global_status != b.t[thr].global_status;
        }
        /*
         * PMI requests: b may see one overflow as the same request; a
         * request in a and none in b (or the reverse) is a mismatch.
         */
        mismatches += (pa[0] > 0) != (pb[0] > 0);
        mismatches += (pa[1] > 0) != (pb[1] > 0);
    }
    CHECK_EQ(mismatches, 0);
    CHECK(leaked_total > 0, "the random programs never leaked");
    printf("# 300 random programs of 400 operations, %llu counts leaked\n",
           (unsigned long long)leaked_total);
}

/*
 * Property: a leak never lands in a disabled counter. Random programs on
 * one core; before each step of time and instructions, the enable state
 * is recorded; counters of the victim that were disabled must not gain.
 */
static void test_no_leak_into_disabled(void)
{
    static struct xpmu_core c;
    int round, k, thr, i, bad = 0, leaks = 0;

    for (round = 0; round < 300; round++) {
        struct xpmu_now n = { 1000, { 10, 20 }, -1 };
        int p[2] = { 0, 0 };

        xpmu_core_init(&c, true, n.ns);
        xpmu_thread_attach(&c, 0, n.insns[0], 0);
        xpmu_thread_attach(&c, 1, n.insns[1], 0);
        for (k = 0; k < 300; k++) {
            uint64_t before[2][4], value[2][4];
            bool en[2][4], corrupt[2][4];

            for (thr = 0; thr < 2; thr++) {
                for (i = 0; i < 4; i++) {
                    before[thr][i] = c.ledger[thr][i].leaked;
                    value[thr][i] = c.t[thr].gp[i].value;
                    en[thr][i] = xpmu_gp_enabled(&c, thr, i);
                    corrupt[thr][i] = c.t[thr].gp_event[i]->corrupting;
                }
            }
            {
                uint64_t r = rnd();
                int op_thr = r & 1, kind = (r >> 1) % 7;
                int op_idx = (r >> 4) % 4;

                random_op(&c, &n, r, p);
                for (thr = 0; thr < 2; thr++) {
                    for (i = 0; i < 4; i++) {
                        bool gained = c.ledger[thr][i].leaked != before[thr][i];
                        bool written = kind == 2 && op_thr == thr &&
                                       op_idx == i;

                        leaks += gained;
                        /* a leak needs both ends enabled before the op */
                        if (gained && !(en[thr][i] && en[1 - thr][i] &&
                                        corrupt[1 - thr][i])) {
                            bad++;
                        }
                        /* a disabled counter only changes by a write */
                        if (!en[thr][i] && !written &&
                            c.t[thr].gp[i].value != value[thr][i]) {
                            bad++;
                        }
                    }
                }
            }
        }
    }
    CHECK_EQ(bad, 0);
    CHECK(leaks > 0, "no leak happened");
    printf("# %d settlements leaked, none into a disabled counter\n", leaks);
}


/* AMD: which MSRs are the model's, reset values, the Intel ones are not */
static void test_amd_msrs_and_reset(void)
{
    uint64_t v;
    int i;

    world_amd(true);
    CHECK_EQ(core.num_gp, 6);
    CHECK(!core.erratum, "erratum on an AMD core");
    CHECK_EQ(XPMU_CPUID_PERFCTR_CORE, 1u << 23);
    for (i = 0; i < 6; i++) {
        CHECK_EQ(rd(1, F15H_CTL(i)), 0);
        CHECK_EQ(rd(1, F15H_CTR(i)), 0);
        CHECK(xpmu_core_has_msr(&core, F15H_CTL(i)), "CTL %d", i);
        CHECK(xpmu_core_has_msr(&core, F15H_CTR(i)), "CTR %d", i);
    }
    CHECK_EQ(F15H_CTR(5), 0xc001020b);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(rd(0, K7_CTL(i)), 0);
        CHECK_EQ(rd(0, K7_CTR(i)), 0);
    }
    CHECK_EQ(K7_CTR(3), 0xc0010007);
    /* beyond the ranges, and Intel's MSRs: not the model's */
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0xc0010008, &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0xc001020c, &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0xc00101ff, &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, XPMU_MSR_PMC0, &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_wrmsr(&core, 0, &now, XPMU_MSR_EVNTSEL0, 0),
             XPMU_UNHANDLED);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, XPMU_MSR_GLOBAL_CTRL, &v),
             XPMU_UNHANDLED);
    /* PerfMonV2's global MSRs (0xc0000300-0xc0000303) are absent */
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, 0xc0000300, &v), XPMU_UNHANDLED);
    /* the ledger is there, empty, erratum off */
    CHECK_EQ(rd(0, LEDGER(XPMU_LEDGER_ERRATUM)), 0);
    CHECK_EQ(rd(1, LEDGER(XPMU_LEDGER_THREAD)), 1);
    /* and an Intel core does not take AMD's MSRs */
    world(false, true);
    CHECK(!xpmu_core_has_msr(&core, F15H_CTL(0)), "Intel has F15H_CTL0");
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, K7_CTR(0), &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_wrmsr(&core, 0, &now, F15H_CTR(0), 5), XPMU_UNHANDLED);
}

/* AMD: the K7 MSRs are counters 0-3's registers; 4 and 5 have none */
static void test_amd_k7_alias(void)
{
    int i;

    world_amd(true);
    for (i = 0; i < 4; i++) {
        wr_ok(0, K7_CTR(i), 0x1000 + i);
        CHECK_EQ(rd(0, F15H_CTR(i)), 0x1000 + i);
        wr_ok(0, F15H_CTR(i), 0x2000 + i);
        CHECK_EQ(rd(0, K7_CTR(i)), 0x2000 + i);
        wr_ok(0, K7_CTL(i), USR | AMD_EV_BRANCHES);
        CHECK_EQ(rd(0, F15H_CTL(i)), USR | AMD_EV_BRANCHES);
        wr_ok(0, F15H_CTL(i), OS | AMD_EV_CYCLES);
        CHECK_EQ(rd(0, K7_CTL(i)), OS | AMD_EV_CYCLES);
        /* the other thread's registers are its own */
        CHECK_EQ(rd(1, K7_CTR(i)), 0);
        CHECK_EQ(rd(1, F15H_CTL(i)), 0);
    }
    wr_ok(0, F15H_CTR(4), 0x4444);
    wr_ok(0, F15H_CTR(5), 0x5555);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(rd(0, K7_CTR(i)), 0x2000 + i);
    }
    /* programmed through K7, counted in the F15h counter, and back */
    wr_ok(0, K7_CTR(2), 0);
    wr_ok(0, K7_CTL(2), EN | USR | OS | AMD_EV_INSNS);
    step(0, 300, 10);
    CHECK_EQ(rd(0, F15H_CTR(2)), 300);
    wr_ok(0, F15H_CTL(2), 0);           /* disabled through F15h */
    step(0, 300, 10);
    CHECK_EQ(rd(0, K7_CTR(2)), 300);
    CHECK_EQ(rd(0, F15H_CTR(4)), 0x4444);
    CHECK_EQ(rd(0, F15H_CTR(5)), 0x5555);
}

/* AMD: 48-bit counters without sign extension, PERF_CTL reserved bits */
static void test_amd_width_and_reserved(void)
{
    uint64_t ok_bits = 0xfULL << 32 | GUESTONLY | HOSTONLY;
    int i;

    world_amd(false);
    wr_ok(0, F15H_CTR(5), 0x123456789abcULL);
    CHECK_EQ(rd(0, F15H_CTR(5)), 0x123456789abcULL);
    wr_ok(0, F15H_CTR(5), 0x80000000ULL);
    CHECK_EQ(rd(0, F15H_CTR(5)), 0x80000000ULL);        /* no sign ext. */
    wr_ok(0, K7_CTR(1), 0xffff000000000007ULL);
    CHECK_EQ(rd(0, F15H_CTR(1)), 7);                    /* 63:48 dropped */
    wr_ok(0, F15H_CTL(3), EN | USR | AMD_EV_INSNS);
    for (i = 32; i < 64; i++) {
        uint64_t bit = 1ULL << i;

        if (bit & ok_bits) {
            wr_ok(0, F15H_CTL(3), EN | USR | AMD_EV_INSNS | bit);
            wr_ok(0, F15H_CTL(3), EN | USR | AMD_EV_INSNS);
            continue;
        }
        CHECK(wr(0, F15H_CTL(3), bit | AMD_EV_INSNS) == XPMU_FAULT,
              "PERF_CTL bit %d accepted", i);
        CHECK(wr(0, K7_CTL(3), bit) == XPMU_FAULT, "K7 bit %d", i);
    }
    CHECK_EQ(rd(0, F15H_CTL(3)), EN | USR | AMD_EV_INSNS);
    /* the Intel-reserved low bits (19, 21) and CMASK/INV/EDGE: accepted */
    wr_ok(0, F15H_CTL(0), 0xffffffffULL);
    CHECK_EQ(rd(0, K7_CTL(0)), 0xffffffffULL);
}

/* AMD: events, EN, USR/OS and the HG bits */
static void test_amd_counting_and_filtering(void)
{
    world_amd(true);
    wr_ok(0, F15H_CTL(0), EN | USR | AMD_EV_INSNS);
    wr_ok(0, F15H_CTL(1), EN | OS | AMD_EV_INSNS);
    wr_ok(0, F15H_CTL(2), EN | USR | OS | AMD_EV_INSNS);
    wr_ok(0, F15H_CTL(3), USR | OS | AMD_EV_INSNS);     /* no EN */
    wr_ok(0, F15H_CTL(4), EN | USR | OS | AMD_EV_CYCLES);
    wr_ok(0, F15H_CTL(5), EN | USR | OS | AMD_EV_BRANCHES);
    CHECK(xpmu_cpl_sensitive(&core, 0), "not CPL sensitive");
    step(0, 100, 10);                   /* CPL 0 */
    set_cpl(0, 3);
    step(0, 40, 3);
    set_cpl(0, 0);
    step(0, 10, 2);
    CHECK_EQ(rd(0, F15H_CTR(0)), 40);
    CHECK_EQ(rd(0, F15H_CTR(1)), 110);
    CHECK_EQ(rd(0, F15H_CTR(2)), 150);
    CHECK_EQ(rd(0, F15H_CTR(3)), 0);
    CHECK_EQ(rd(0, F15H_CTR(4)), 15);   /* ns */
    CHECK_EQ(rd(0, F15H_CTR(5)), 30);   /* 150 / 5 */
    CHECK_EQ(rd(1, F15H_CTR(2)), 0);    /* the other thread: nothing */
    /* EventSelect[11:8]: 0x1c0 is not 0x0c0 (the default 1/16) */
    wr_ok(0, F15H_CTR(2), 0);
    wr_ok(0, F15H_CTL(2), EN | USR | OS | 1ULL << 32 | AMD_EV_INSNS);
    step(0, 160, 0);
    CHECK_EQ(rd(0, F15H_CTR(2)), 10);
    /* HG: GuestOnly alone counts nothing, HostOnly or both count */
    wr_ok(0, F15H_CTR(0), 0);
    wr_ok(0, F15H_CTR(1), 0);
    wr_ok(0, F15H_CTR(2), 0);
    wr_ok(0, F15H_CTL(0), EN | USR | OS | GUESTONLY | AMD_EV_INSNS);
    wr_ok(0, F15H_CTL(1), EN | USR | OS | HOSTONLY | AMD_EV_INSNS);
    wr_ok(0, F15H_CTL(2), EN | USR | OS | GUESTONLY | HOSTONLY |
          AMD_EV_INSNS);
    step(0, 50, 1);
    CHECK_EQ(rd(0, F15H_CTR(0)), 0);
    CHECK_EQ(rd(0, F15H_CTR(1)), 50);
    CHECK_EQ(rd(0, F15H_CTR(2)), 50);
}

/* AMD: overflow wraps 48 bits, a PMI with INT only, deadlines */
static void test_amd_overflow_pmi(void)
{
    world_amd(true);
    wr_ok(0, F15H_CTR(5), (uint64_t)-256 & XPMU_CTR_MASK);
    wr_ok(0, F15H_CTL(5), EN | USR | OS | AMD_EV_INSNS);        /* no INT */
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
    step(0, 260, 0);
    CHECK_EQ(rd(0, F15H_CTR(5)), 4);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI without INT");
    /* with INT: the deadline is the wrap, the PMI comes at it */
    wr_ok(0, K7_CTR(3), (uint64_t)-100 & XPMU_CTR_MASK);
    wr_ok(0, K7_CTL(3), EN | USR | OS | INT | AMD_EV_INSNS);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 100);
    step(0, 99, 0);
    CHECK_EQ(rd(0, F15H_CTR(3)), XPMU_CTR_MASK);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI before the wrap");
    step(0, 1, 0);
    CHECK_EQ(rd(0, F15H_CTR(3)), 0);
    CHECK(xpmu_take_pmi(&core, 0), "no PMI at the wrap");
    CHECK(!xpmu_take_pmi(&core, 0), "PMI taken twice");
    CHECK(!xpmu_take_pmi(&core, 1), "PMI on the other thread");
    /* a cycle counter: the clock deadline */
    wr_ok(0, F15H_CTL(3), 0);
    wr_ok(0, F15H_CTR(4), (uint64_t)-1000 & XPMU_CTR_MASK);
    wr_ok(0, F15H_CTL(4), EN | USR | OS | INT | AMD_EV_CYCLES);
    CHECK_EQ(xpmu_clock_deadline(&core, 0), now.ns + 1000);
    step(0, 0, 999);
    CHECK_EQ(rd(0, F15H_CTR(4)), XPMU_CTR_MASK);
    CHECK(!xpmu_take_pmi(&core, 0), "cycle PMI early");
    step(0, 0, 1);
    CHECK_EQ(rd(0, F15H_CTR(4)), 0);
    CHECK(xpmu_take_pmi(&core, 0), "no cycle PMI");
}

/* AMD: RDPMC 0-5 and nothing else */
static void test_amd_rdpmc(void)
{
    uint64_t v;
    int i;

    world_amd(false);
    for (i = 0; i < 6; i++) {
        wr_ok(0, F15H_CTR(i), 0x100000000ULL + i);
        v = 0;
        CHECK_EQ(xpmu_rdpmc(&core, 0, &now, i, &v), XPMU_OK);
        CHECK_EQ(v, 0x100000000ULL + i);
    }
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, 6, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, XPMU_RDPMC_FIXED, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, XPMU_RDPMC_FAST, &v), XPMU_FAULT);
}

/* AMD: no erratum: 0xd0 is an ordinary (synthetic) event, nothing leaks */
static void test_amd_no_erratum(void)
{
    uint64_t l, s, x;

    world_amd(true);
    wr_ok(1, F15H_CTL(2), EN | USR | OS | 0xcc);
    wr_ok(0, F15H_CTL(2), EN | USR | OS | 0x81d0);
    CHECK_EQ(xpmu_exposed_pairs(&core), 0);
    step(0, 1600, 10);
    CHECK_EQ(rd(0, F15H_CTR(2)), 100);  /* 1/16: not in the AMD table */
    step(1, 1600, 10);
    CHECK_EQ(rd(1, F15H_CTR(2)), 100);  /* its own 0xcc, no leak */
    xpmu_ledger_totals(&core, &l, &s, &x);
    CHECK_EQ(l + s + x, 0);
    CHECK(!xpmu_amd_event_lookup(0xd0)->corrupting, "0xd0 corrupting");
    CHECK_EQ(xpmu_amd_event_lookup(0x76)->source, XPMU_SRC_CYCLES);
    CHECK_EQ(xpmu_amd_event_lookup(0xc0)->source, XPMU_SRC_INSNS);
    CHECK(xpmu_amd_event_lookup(0x1c0) == &xpmu_event_default,
          "0x1c0 is in the table");
}

/* Gracemont (Alder Lake-N): version 5, six GP counters, adaptive PEBS */
#define PEBS_ENABLE     XPMU_MSR_PEBS_ENABLE
#define PEBS_DATA_CFG   XPMU_MSR_PEBS_DATA_CFG
#define PEBS_LD_LAT     XPMU_MSR_PEBS_LD_LAT
#define DS_AREA         XPMU_MSR_DS_AREA
#define PERF_CAPS       XPMU_MSR_PERF_CAPS
#define OFFCORE_RSP(i)  (XPMU_MSR_OFFCORE_RSP0 + (i))
#define ADAPTIVE        XPMU_EVTSEL_ADAPTIVE
#define OVF_BUF         (1ULL << 62)
#define FX_BIT(i)       (1ULL << (32 + (i)))

/* The little world with the Gracemont PMU */
static void world_grt(bool two_threads)
{
    world_kind(XPMU_INTEL_GRT, true, two_threads);
}

/* A settle of thread @thr at the current instant (no MSR op) */
static void settle(int thr)
{
    now.cpl = -1;
    xpmu_sync(&core, thr, &now);
}

/* GRT: six GP counters, the PEBS MSRs, reset values, per thread */
static void test_grt_msrs(void)
{
    static const uint32_t pebs_msrs[] = {
        PEBS_ENABLE, PEBS_DATA_CFG, PEBS_LD_LAT, DS_AREA, OFFCORE_RSP(0),
        OFFCORE_RSP(1), PERF_CAPS
    };
    uint64_t v;
    unsigned int k;
    int i;

    world_grt(true);
    CHECK_EQ(core.kind, XPMU_INTEL_GRT);
    CHECK_EQ(core.num_gp, 6);
    CHECK(!core.erratum, "erratum on a Gracemont core");
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_CTRL), 0x3f);    /* six GP counters on */
    for (k = 0; k < sizeof(pebs_msrs) / sizeof(pebs_msrs[0]); k++) {
        CHECK(xpmu_core_has_msr(&core, pebs_msrs[k]), "MSR 0x%x",
              pebs_msrs[k]);
        if (pebs_msrs[k] != PERF_CAPS) {
            CHECK_EQ(rd(1, pebs_msrs[k]), 0);
        }
    }
    CHECK_EQ(rd(0, PERF_CAPS), XPMU_GRT_PERF_CAPS);
    CHECK_EQ(XPMU_GRT_PERF_CAPS, 0x44c0);   /* trap, regs, fmt 4, baseline */
    for (i = 0; i < 6; i++) {
        CHECK(xpmu_core_has_msr(&core, PMC(i)), "PMC%d", i);
        CHECK(xpmu_core_has_msr(&core, EVTSEL(i)), "EVTSEL%d", i);
        wr_ok(0, PMC(i), 0x1000 + i);
        wr_ok(0, EVTSEL(i), USR | OS | EV_INSNS | i);
    }
    for (i = 0; i < 6; i++) {
        CHECK_EQ(rd(0, PMC(i)), 0x1000 + i);
        CHECK_EQ(rd(0, EVTSEL(i)), USR | OS | EV_INSNS | i);
        CHECK_EQ(rd(1, PMC(i)), 0);                 /* the sibling's own */
    }
    /* a legacy write still sign-extends bit 31 (no full-width writes) */
    wr_ok(0, PMC(5), 0x80000000ULL);
    CHECK_EQ(rd(0, PMC(5)), 0xffff80000000ULL);
    /* a seventh GP counter is not there: not the model's MSR, RDPMC #GP */
    CHECK(!xpmu_core_has_msr(&core, PMC(6)), "PMC6");
    CHECK(!xpmu_core_has_msr(&core, EVTSEL(6)), "EVTSEL6");
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, PMC(6), &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_wrmsr(&core, 0, &now, EVTSEL(6), EN), XPMU_UNHANDLED);
    for (i = 0; i < 6; i++) {
        CHECK_EQ(xpmu_rdpmc(&core, 0, &now, i, &v), XPMU_OK);
        CHECK_EQ(v, i == 5 ? 0xffff80000000ULL : 0x1000 + i);
    }
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, 6, &v), XPMU_FAULT);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, XPMU_RDPMC_FIXED | 2, &v), XPMU_OK);
    CHECK_EQ(xpmu_rdpmc(&core, 0, &now, XPMU_RDPMC_FIXED | 3, &v),
             XPMU_FAULT);
    /* the new MSRs read back what was written */
    wr_ok(0, PEBS_ENABLE, 0x70000003fULL);
    wr_ok(0, PEBS_DATA_CFG, 0xff00000fULL);
    wr_ok(0, PEBS_LD_LAT, 0xffff);
    wr_ok(0, DS_AREA, 0xffff888012345000ULL);
    wr_ok(0, OFFCORE_RSP(0), 0x3fbfc00001ULL);
    wr_ok(0, OFFCORE_RSP(1), 0xffffffffffffffffULL);  /* plain registers */
    CHECK_EQ(rd(0, PEBS_ENABLE), 0x70000003fULL);
    CHECK_EQ(rd(0, PEBS_DATA_CFG), 0xff00000fULL);
    CHECK_EQ(rd(0, PEBS_LD_LAT), 0xffff);
    CHECK_EQ(rd(0, DS_AREA), 0xffff888012345000ULL);
    CHECK_EQ(rd(0, OFFCORE_RSP(0)), 0x3fbfc00001ULL);
    CHECK_EQ(rd(0, OFFCORE_RSP(1)), 0xffffffffffffffffULL);
    wr_ok(0, DS_AREA, 0x00007ffffffff000ULL);           /* canonical, low */
    CHECK_EQ(rd(0, DS_AREA), 0x00007ffffffff000ULL);
    wr_ok(0, PEBS_DATA_CFG, 0x0f000003ULL);
    CHECK_EQ(rd(0, PEBS_DATA_CFG), 0x0f000003ULL);
    /* the sibling's are its own */
    CHECK_EQ(rd(1, PEBS_ENABLE), 0);
    CHECK_EQ(rd(1, DS_AREA), 0);
    CHECK_EQ(rd(1, OFFCORE_RSP(1)), 0);
    /* a thread reset clears them */
    now.cpl = -1;
    xpmu_thread_reset(&core, 0, &now);
    for (k = 0; k < sizeof(pebs_msrs) / sizeof(pebs_msrs[0]); k++) {
        CHECK_EQ(rd(0, pebs_msrs[k]),
                 pebs_msrs[k] == PERF_CAPS ? XPMU_GRT_PERF_CAPS : 0);
    }
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_CTRL), 0x3f);
    /* and neither an Intel v3 nor an AMD core has any of them */
    world(false, true);
    for (k = 0; k < sizeof(pebs_msrs) / sizeof(pebs_msrs[0]); k++) {
        CHECK(!xpmu_core_has_msr(&core, pebs_msrs[k]), "Intel: 0x%x",
              pebs_msrs[k]);
        CHECK_EQ(xpmu_rdmsr(&core, 0, &now, pebs_msrs[k], &v),
                 XPMU_UNHANDLED);
    }
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, PMC(4), &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, EVTSEL(5), &v), XPMU_UNHANDLED);
    world_amd(true);
    CHECK_EQ(xpmu_rdmsr(&core, 0, &now, PEBS_ENABLE, &v), XPMU_UNHANDLED);
    CHECK_EQ(xpmu_wrmsr(&core, 0, &now, DS_AREA, 0), XPMU_UNHANDLED);
}

/* GRT: reserved bits fault and change nothing; bit 34 / 32+4i are GRT's */
static void test_grt_reserved_bits(void)
{
    uint64_t sel = EN | USR | OS | EV_INSNS;
    int i;

    world_grt(true);
    wr_ok(0, PEBS_ENABLE, 0x3);
    wr_ok(0, PEBS_DATA_CFG, 0x7);
    wr_ok(0, PEBS_LD_LAT, 3);
    wr_ok(0, DS_AREA, 0xfffffe0000001000ULL);
    CHECK_EQ(wr(0, PEBS_ENABLE, 1ULL << 6), XPMU_FAULT);        /* GP 6 */
    CHECK_EQ(wr(0, PEBS_ENABLE, 0x3 | 1ULL << 35), XPMU_FAULT); /* fixed 3 */
    CHECK_EQ(wr(0, PEBS_ENABLE, 0x3 | OVF_BUF), XPMU_FAULT);
    CHECK_EQ(wr(0, PEBS_DATA_CFG, 1ULL << 4), XPMU_FAULT);
    CHECK_EQ(wr(0, PEBS_DATA_CFG, 0x7 | 1ULL << 23), XPMU_FAULT);
    CHECK_EQ(wr(0, PEBS_DATA_CFG, 0x7 | 1ULL << 32), XPMU_FAULT);
    CHECK_EQ(wr(0, PEBS_LD_LAT, 0x10000), XPMU_FAULT);
    CHECK_EQ(wr(0, PEBS_LD_LAT, 1ULL << 63), XPMU_FAULT);
    CHECK_EQ(wr(0, DS_AREA, 0x0000800000000000ULL), XPMU_FAULT);
    CHECK_EQ(wr(0, DS_AREA, 0xfffe800000000000ULL), XPMU_FAULT);
    CHECK_EQ(wr(0, DS_AREA, 0x8000000000001000ULL), XPMU_FAULT);
    CHECK_EQ(wr(0, PERF_CAPS, XPMU_GRT_PERF_CAPS), XPMU_FAULT);
    CHECK_EQ(wr(0, PERF_CAPS, 0), XPMU_FAULT);
    CHECK_EQ(rd(0, PEBS_ENABLE), 0x3);
    CHECK_EQ(rd(0, PEBS_DATA_CFG), 0x7);
    CHECK_EQ(rd(0, PEBS_LD_LAT), 3);
    CHECK_EQ(rd(0, DS_AREA), 0xfffffe0000001000ULL);
    CHECK_EQ(rd(0, PERF_CAPS), XPMU_GRT_PERF_CAPS);
    /* GLOBAL_CTRL and OVF_CTRL take the six GP bits, not a seventh */
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x70000003fULL);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_CTRL, 0x7f), XPMU_FAULT);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_CTRL), 0x70000003fULL);
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, 0xc00000070000003fULL);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_OVF_CTRL, 1ULL << 6), XPMU_FAULT);
    /* evtsel bit 34 (adaptive): accepted; the other high bits fault */
    for (i = 0; i < 6; i++) {
        wr_ok(0, EVTSEL(i), sel | ADAPTIVE);
        CHECK_EQ(rd(0, EVTSEL(i)), sel | ADAPTIVE);
    }
    CHECK_EQ(wr(0, EVTSEL(5), sel | 1ULL << 32), XPMU_FAULT);
    CHECK_EQ(wr(0, EVTSEL(5), sel | 1ULL << 35), XPMU_FAULT);
    CHECK_EQ(wr(0, EVTSEL(5), sel | ADAPTIVE | 1ULL << 63), XPMU_FAULT);
    CHECK_EQ(rd(0, EVTSEL(5)), sel | ADAPTIVE);
    /* fixed ctrl bits 32, 36, 40 (adaptive): accepted; 33, 44 fault */
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333 | 1ULL << 32);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333 | 1ULL << 32 | 1ULL << 36 |
          1ULL << 40);
    CHECK_EQ(wr(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333 | 1ULL << 33), XPMU_FAULT);
    CHECK_EQ(wr(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333 | 1ULL << 44), XPMU_FAULT);
    CHECK_EQ(wr(0, XPMU_MSR_FIXED_CTR_CTRL, 0x1000), XPMU_FAULT);
    CHECK_EQ(rd(0, XPMU_MSR_FIXED_CTR_CTRL),
             0x333 | 1ULL << 32 | 1ULL << 36 | 1ULL << 40);
    /* on the Intel v3 PMU, the same bits fault */
    world(false, true);
    wr_ok(0, EVTSEL(0), sel);
    CHECK_EQ(wr(0, EVTSEL(0), sel | ADAPTIVE), XPMU_FAULT);
    CHECK_EQ(rd(0, EVTSEL(0)), sel);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333);
    CHECK_EQ(wr(0, XPMU_MSR_FIXED_CTR_CTRL, 0x333 | 1ULL << 32), XPMU_FAULT);
    CHECK_EQ(rd(0, XPMU_MSR_FIXED_CTR_CTRL), 0x333);
    CHECK_EQ(wr(0, XPMU_MSR_GLOBAL_CTRL, 0x3f), XPMU_FAULT);
}

/* CPUID 0xA of the core: Gracemont's version 5, Intel's v3 unchanged */
static void test_grt_cpuid(void)
{
    uint32_t a, b, c, d, a3, b3, c3, d3;

    world_grt(false);
    xpmu_cpuid_0xa_core(&core, &a, &b, &c, &d);
    CHECK_EQ(a & 0xff, 5);              /* version */
    CHECK_EQ((a >> 8) & 0xff, 6);       /* GP counters */
    CHECK_EQ((a >> 16) & 0xff, 48);     /* GP width */
    CHECK_EQ((a >> 24) & 0xff, 7);      /* EBX length */
    CHECK_EQ(b, 0);
    CHECK_EQ(c, 0x7);                   /* fixed counters 0-2 */
    CHECK_EQ(d & 0x1f, 3);
    CHECK_EQ((d >> 5) & 0xff, 48);
    CHECK_EQ(d & (1u << 15), 1u << 15); /* AnyThread deprecated */
    CHECK_EQ(d & ~((1u << 15) | 0x1fffu), 0);
    xpmu_cpuid_0xa(&a3, &b3, &c3, &d3);
    world(true, true);
    xpmu_cpuid_0xa_core(&core, &a, &b, &c, &d);
    CHECK(a == a3 && b == b3 && c == c3 && d == d3,
          "Intel v3 core: 0x%x 0x%x 0x%x 0x%x", a, b, c, d);
    CHECK_EQ(a & 0xff, 3);
    CHECK_EQ((a >> 8) & 0xff, 4);
    CHECK_EQ(c, 0);
    CHECK_EQ(d & (1u << 15), 0);
}

/* GRT: GP counters 4 and 5 count like the others, gated by bits 4 and 5 */
static void test_grt_counting(void)
{
    world_grt(true);
    wr_ok(0, EVTSEL(4), EN | USR | OS | EV_INSNS);
    wr_ok(0, EVTSEL(5), EN | USR | OS | EV_CYCLES);
    wr_ok(1, EVTSEL(5), EN | USR | EV_INSNS);
    step(0, 300, 40);
    step(1, 20, 0);
    CHECK_EQ(rd(0, PMC(4)), 300);
    CHECK_EQ(rd(0, PMC(5)), 40);
    CHECK_EQ(rd(1, PMC(5)), 0);         /* USR only, thread 1 at CPL 0 */
    set_cpl(1, 3);
    step(1, 20, 0);
    CHECK_EQ(rd(1, PMC(5)), 20);
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x1f);               /* bit 5 off */
    step(0, 100, 10);
    CHECK_EQ(rd(0, PMC(4)), 400);
    CHECK_EQ(rd(0, PMC(5)), 40);
    /* overflow of counter 5 without PEBS: status bit 5, PMI with INT */
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, 0x3f);
    wr_ok(0, PMC(5), (uint64_t)-20);
    wr_ok(0, EVTSEL(5), EN | USR | OS | INT | EV_INSNS);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 20);
    step(0, 20, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 1ULL << 5);
    CHECK(xpmu_take_pmi(&core, 0), "no PMI from GP counter 5");
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, 1ULL << 5);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
}

/*
 * GRT PEBS, a GP counter on instructions: the overflow is a PEBS assist,
 * not a status bit or a PMI; the deadline is the overflow, then "now"
 * while the record is pending; the record's groups; the reload from the
 * DS area's reset value; the buffer's threshold PMI.
 */
static void test_grt_pebs_gp(void)
{
    uint64_t reset[XPMU_MAX_GP + XPMU_NUM_FIXED] = { 0 };
    uint64_t sel = EN | USR | OS | EV_INSNS;

    world_grt(true);
    reset[4] = (uint64_t)-100 & XPMU_CTR_MASK;
    wr_ok(0, PEBS_DATA_CFG, XPMU_PEBS_CFG_MEMINFO | XPMU_PEBS_CFG_GP |
          XPMU_PEBS_CFG_XMMS);
    wr_ok(0, PMC(4), (uint64_t)-100);
    wr_ok(0, EVTSEL(4), sel | ADAPTIVE);        /* no INT, as Linux does */
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
    wr_ok(0, PEBS_ENABLE, 1ULL << 4);
    /* PEBS_ENABLE alone arms the deadline */
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 100);
    CHECK_EQ(xpmu_insn_deadline(&core, 1), XPMU_NO_INSNS);
    step(0, 99, 0);
    settle(0);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 1);
    step(0, 1, 0);
    settle(0);
    /* pending: the deadline is now, for this thread only */
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0]);
    CHECK_EQ(xpmu_insn_deadline(&core, 1), XPMU_NO_INSNS);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI on a PEBS overflow");
    CHECK_EQ(rd(0, PMC(4)), 0);
    CHECK_EQ(xpmu_pebs_record_cfg(&core, 0, 1ULL << 4), 0x7);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 4);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 0);              /* taken once */
    CHECK_EQ(xpmu_take_pebs(&core, 1), 0);
    /* the record is written: the counter restarts from its reset value */
    xpmu_pebs_done(&core, 0, 1ULL << 4, reset, false);
    CHECK_EQ(rd(0, PMC(4)), 0xffffffffff9cULL);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI below the threshold");
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 100);
    /* without the adaptive bit: the basic group alone */
    wr_ok(0, EVTSEL(4), sel);
    CHECK_EQ(xpmu_pebs_record_cfg(&core, 0, 1ULL << 4), 0);
    wr_ok(0, EVTSEL(4), sel | INT | ADAPTIVE);  /* INT too: still PEBS */
    CHECK_EQ(xpmu_pebs_record_cfg(&core, 0, 1ULL << 4), 0x7);
    /* the second overflow reaches the threshold: bit 62 and a PMI */
    step(0, 150, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI with INT on a PEBS overflow");
    CHECK_EQ(rd(0, PMC(4)), 50);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 4);
    reset[4] = (uint64_t)-1000 & XPMU_CTR_MASK;
    xpmu_pebs_done(&core, 0, 1ULL << 4, reset, true);
    CHECK_EQ(rd(0, PMC(4)), (uint64_t)-1000 & XPMU_CTR_MASK);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), OVF_BUF);
    CHECK(xpmu_take_pmi(&core, 0), "no PMI at the buffer threshold");
    CHECK(!xpmu_take_pmi(&core, 0), "PMI taken twice");
    CHECK(!xpmu_take_pmi(&core, 1), "PMI on the sibling");
    CHECK_EQ(rd(1, XPMU_MSR_GLOBAL_STATUS), 0);
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, OVF_BUF);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 1000);
    /* a counter without PEBS_ENABLE beside it overflows the old way */
    wr_ok(0, PMC(1), (uint64_t)-10);
    wr_ok(0, EVTSEL(1), sel | INT);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 10);
    step(0, 1000, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 1ULL << 1);
    CHECK(xpmu_take_pmi(&core, 0), "no PMI from the non-PEBS counter");
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 4);
    /* both at once, one PEBS and one not: each its own way */
    wr_ok(0, XPMU_MSR_GLOBAL_OVF_CTRL, 1ULL << 1);
    wr_ok(0, PMC(1), (uint64_t)-5);
    wr_ok(0, PMC(4), (uint64_t)-5);
    wr_ok(0, PEBS_ENABLE, 1ULL << 4 | 1ULL << 0);       /* 0: not counting */
    step(0, 5, 0);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 1ULL << 1);
    CHECK(xpmu_take_pmi(&core, 0), "no PMI from counter 1");
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 4);
}

/* GRT PEBS on fixed counter 0 (instructions), and on a cycle counter */
static void test_grt_pebs_fixed_and_cycles(void)
{
    uint64_t reset[XPMU_MAX_GP + XPMU_NUM_FIXED] = { 0 };

    world_grt(true);
    wr_ok(0, PEBS_DATA_CFG, XPMU_PEBS_CFG_GP | XPMU_PEBS_CFG_LBRS |
          (7ULL << XPMU_PEBS_CFG_LBR_SHIFT));
    wr_ok(0, FIXED(0), XPMU_CTR_MASK - 49);
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x3 | XPMU_FIXED_ADAPTIVE(0));
    wr_ok(0, XPMU_MSR_GLOBAL_CTRL, FX_BIT(0));
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);     /* no PMI bit */
    wr_ok(0, PEBS_ENABLE, FX_BIT(0));
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 50);
    step(0, 49, 0);
    settle(0);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 0);
    step(0, 1, 0);
    settle(0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0]);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI on a fixed PEBS overflow");
    CHECK_EQ(xpmu_pebs_record_cfg(&core, 0, FX_BIT(0)), 0x0700000aULL);
    /* the first counter of a record decides: GP 4 without adaptive */
    wr_ok(0, EVTSEL(4), EN | USR | OS | EV_LBR);
    CHECK_EQ(xpmu_pebs_record_cfg(&core, 0, (1ULL << 4) | FX_BIT(0)), 0);
    CHECK_EQ(xpmu_take_pebs(&core, 0), FX_BIT(0));
    reset[XPMU_MAX_GP + 0] = XPMU_CTR_MASK - 999;
    reset[0] = 12345;                   /* not this record's counter */
    wr_ok(0, PMC(0), 77);
    xpmu_pebs_done(&core, 0, FX_BIT(0), reset, false);
    CHECK_EQ(rd(0, FIXED(0)), XPMU_CTR_MASK - 999);
    CHECK_EQ(rd(0, PMC(0)), 77);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI without the threshold");
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0] + 1000);
    /* without the adaptive bit: the basic group */
    wr_ok(0, XPMU_MSR_FIXED_CTR_CTRL, 0x3);
    CHECK_EQ(xpmu_pebs_record_cfg(&core, 0, FX_BIT(0)), 0);

    /*
     * A GP counter on cycles with PEBS: the clock deadline is its
     * overflow; noticed by a settle from the timer (another thread's),
     * the record waits for the owner, whose instruction deadline is now.
     */
    world_grt(true);
    wr_ok(0, PMC(2), (uint64_t)-300);
    wr_ok(0, EVTSEL(2), EN | USR | OS | ADAPTIVE | EV_CYCLES);
    CHECK_EQ(xpmu_clock_deadline(&core, 0), XPMU_NO_NS);
    wr_ok(0, PEBS_ENABLE, 1ULL << 2);
    CHECK_EQ(xpmu_clock_deadline(&core, 0), now.ns + 300);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
    step(0, 0, 300);
    settle(1);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0]);
    CHECK_EQ(xpmu_insn_deadline(&core, 1), XPMU_NO_INSNS);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI on a PEBS cycle overflow");
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 2);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
}

/* GRT: PEBS_ENABLE cleared with a record pending drops the record */
static void test_grt_pebs_disable_drops(void)
{
    world_grt(true);
    wr_ok(0, PMC(3), (uint64_t)-10);
    wr_ok(0, PMC(5), (uint64_t)-10);
    wr_ok(0, EVTSEL(3), EN | USR | OS | ADAPTIVE | EV_INSNS);
    wr_ok(0, EVTSEL(5), EN | USR | OS | ADAPTIVE | EV_INSNS);
    wr_ok(0, PEBS_ENABLE, (1ULL << 3) | (1ULL << 5));
    step(0, 10, 0);
    settle(0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0]);
    wr_ok(0, PEBS_ENABLE, 1ULL << 5);   /* counter 3 off: its record goes */
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0]);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 5);
    wr_ok(0, PMC(5), (uint64_t)-10);
    step(0, 10, 0);
    settle(0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), now.insns[0]);
    wr_ok(0, PEBS_ENABLE, 0);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 0);
    CHECK_EQ(xpmu_insn_deadline(&core, 0), XPMU_NO_INSNS);
    CHECK_EQ(rd(0, XPMU_MSR_GLOBAL_STATUS), 0);
    CHECK(!xpmu_take_pmi(&core, 0), "PMI from a dropped record");
    /* a faulting write of PEBS_ENABLE keeps the pending record */
    wr_ok(0, PEBS_ENABLE, 1ULL << 5);
    wr_ok(0, PMC(5), (uint64_t)-10);
    step(0, 10, 0);
    settle(0);
    CHECK_EQ(wr(0, PEBS_ENABLE, 1ULL << 6), XPMU_FAULT);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 5);
    /*
     * an overflow that only the write's own settle finds was due before
     * the write: its record stays
     */
    wr_ok(0, PMC(5), (uint64_t)-10);
    step(0, 10, 0);
    wr_ok(0, PEBS_ENABLE, 0);
    CHECK_EQ(xpmu_take_pebs(&core, 0), 1ULL << 5);
}

int main(void)
{
    printf("TAP version 13\n");
    run("CPUID 0xA: version 3, 4x48-bit GP, 3x48-bit fixed, 7 events",
        test_cpuid);
    run("event table: sources, corrupting 0xd0-0xd3, 0xcc counts nothing",
        test_event_table);
    run("affected models: SNB/IVB/HSW only", test_affected_models);
    run("reset state and MSRs outside the model", test_reset_state);
    run("legacy counter writes sign-extend bit 31", test_legacy_write_sign_extension);
    run("reserved bits fault and change nothing", test_reserved_bits_fault);
    run("RDPMC index decoding", test_rdpmc_decoding);
    run("a disabled counter does not move", test_disabled_does_not_move);
    run("a swapped-out counter does not accrue", test_swapped_out_counter);
    run("GLOBAL_CTRL gates GP and fixed counters", test_global_ctrl_gating);
    run("USR/OS filtering by CPL", test_cpl_filtering);
    run("overflow: 48-bit wrap, status bit, PMI only with INT",
        test_overflow_status_and_pmi);
    run("fractional rates exact over any settlement split",
        test_fractional_rates_exact);
    run("leak iff both ends enabled and the erratum on (matrix)",
        test_leak_enable_matrix);
    run("leak only over the both-enabled interval", test_leak_only_while_both_enabled);
    run("leak into counter i of the sibling only", test_leak_same_index_only);
    run("leak follows the corrupting event's CPL; exposure does not",
        test_leak_cpl);
    run("leak overflows the victim and requests its PMI", test_leak_overflow_pmi);
    run("no leak with the erratum off or without a sibling",
        test_no_leak_when_off_or_alone);
    run("ledger MSRs: per counter, totals, reset, faults", test_ledger_msrs);
    run("deadlines: PMI exactly at the wrap", test_deadlines);
    run("thread reset", test_thread_reset);
    run("extra settlements change nothing (random programs)",
        test_settle_anytime_invariance);
    run("no leak into a disabled counter (random programs)",
        test_no_leak_into_disabled);
    run("AMD f15h: its MSRs, reset values, not Intel's", test_amd_msrs_and_reset);
    run("AMD f15h: K7 MSRs alias counters 0-3", test_amd_k7_alias);
    run("AMD f15h: 48-bit counters, PERF_CTL reserved bits fault",
        test_amd_width_and_reserved);
    run("AMD f15h: events, EN, USR/OS, HG bits", test_amd_counting_and_filtering);
    run("AMD f15h: overflow, PMI with INT only, deadlines", test_amd_overflow_pmi);
    run("AMD f15h: RDPMC 0-5", test_amd_rdpmc);
    run("AMD f15h: no erratum, no leak", test_amd_no_erratum);
    run("Gracemont: six GP counters, PEBS MSRs read back, not on Intel v3/AMD",
        test_grt_msrs);
    run("Gracemont: reserved bits fault and change nothing; adaptive bits GRT only",
        test_grt_reserved_bits);
    run("Gracemont: CPUID 0xA version 5, 6 GP, fixed bitmap 7; Intel v3 unchanged",
        test_grt_cpuid);
    run("Gracemont: GP counters 4 and 5 count, gate and overflow", test_grt_counting);
    run("Gracemont PEBS: GP overflow is a record, reload, threshold PMI",
        test_grt_pebs_gp);
    run("Gracemont PEBS: fixed counter 0, a cycle counter's record waits for its thread",
        test_grt_pebs_fixed_and_cycles);
    run("Gracemont PEBS: clearing PEBS_ENABLE drops a pending record, not one due before it",
        test_grt_pebs_disable_drops);
    printf("1..%d\n", tests);
    return failures ? 1 : 0;
}
