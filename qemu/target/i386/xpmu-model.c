/*
 * Emulated Intel architectural PMU (version 3) and the SandyBridge/
 * IvyBridge/Haswell Hyper-Threading counter-corruption erratum, and the
 * AMD family 15h core PMU: the model.
 * Pure C, no QEMU dependency; see xpmu-model.h.
 *
 * Copyright (c) 2026 x86 PMU scheduler maintainers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <string.h>

#include "xpmu-model.h"

/*
 * The event table: the one place that says what each event counts.
 *
 * Only two sources are real: retired instructions (counted per translated
 * block by the glue) and the virtual clock (nanoseconds times the nominal
 * clock XPMU_CYCLES_NUM/XPMU_CYCLES_DEN, i.e. 1 GHz). Everything else is
 * a fixed fraction of the retired instructions: synthetic, deterministic,
 * and only meant to be non-zero and proportionate. Events that cannot
 * happen in the guest count nothing. Unit masks are ignored unless an
 * entry names one. EDGE, INV, CMASK, ANY and PC are ignored.
 */
const struct xpmu_event xpmu_events[] = {
    /* Architectural events (CPUID.0AH:EBX) */
    { 0x3c, 0x00, false, false, XPMU_SRC_CYCLES, XPMU_CYCLES_NUM,
      XPMU_CYCLES_DEN, "UNHALTED_CORE_CYCLES" },
    { 0xc0, 0x00, true, false, XPMU_SRC_INSNS, 1, 1, "INST_RETIRED" },
    { 0x3c, 0x01, false, false, XPMU_SRC_CYCLES, XPMU_CYCLES_NUM,
      XPMU_CYCLES_DEN, "UNHALTED_REFERENCE_CYCLES" },
    { 0x2e, 0x4f, false, false, XPMU_SRC_INSNS, 1, 50, "LLC_REFERENCES" },
    { 0x2e, 0x41, false, false, XPMU_SRC_INSNS, 1, 500, "LLC_MISSES" },
    { 0xc4, 0x00, true, false, XPMU_SRC_INSNS, 1, 5, "BR_INST_RETIRED" },
    { 0xc5, 0x00, true, false, XPMU_SRC_INSNS, 1, 100, "BR_MISP_RETIRED" },
    /* Other cycle events (e.g. 0x3c with other unit masks) */
    { 0x3c, 0x00, true, false, XPMU_SRC_CYCLES, XPMU_CYCLES_NUM,
      XPMU_CYCLES_DEN, "CPU_CLK_UNHALTED.*" },
    /* The corrupting events of the erratum (BJ122, BV98, HSD29) */
    { 0xd0, 0x00, true, true, XPMU_SRC_INSNS, 1, 3, "MEM_UOPS_RETIRED.*" },
    { 0xd1, 0x00, true, true, XPMU_SRC_INSNS, 1, 4,
      "MEM_LOAD_UOPS_RETIRED.*" },
    { 0xd2, 0x00, true, true, XPMU_SRC_INSNS, 1, 64,
      "MEM_LOAD_UOPS_LLC_HIT_RETIRED.*" },
    { 0xd3, 0x00, true, true, XPMU_SRC_INSNS, 1, 1024,
      "MEM_LOAD_UOPS_LLC_MISS_RETIRED.*" },
    /* Cannot happen in the guest: count nothing */
    { 0xcc, 0x00, true, false, XPMU_SRC_NONE, 0, 1,
      "ROB_MISC_EVENTS.* (LBR_INSERTS)" },
    { 0x00, 0x00, true, false, XPMU_SRC_NONE, 0, 1, "(no event)" },
};
const unsigned int xpmu_num_events =
    sizeof(xpmu_events) / sizeof(xpmu_events[0]);

/* Any event not in the table */
const struct xpmu_event xpmu_event_default = {
    0x00, 0x00, true, false, XPMU_SRC_INSNS, 1, 16, "(other events)"
};

/* The fixed counters */
const struct xpmu_event xpmu_fixed_events[XPMU_NUM_FIXED] = {
    { 0xc0, 0x00, false, false, XPMU_SRC_INSNS, 1, 1, "INST_RETIRED.ANY" },
    { 0x3c, 0x00, false, false, XPMU_SRC_CYCLES, XPMU_CYCLES_NUM,
      XPMU_CYCLES_DEN, "CPU_CLK_UNHALTED.CORE" },
    { 0x3c, 0x01, false, false, XPMU_SRC_CYCLES, XPMU_CYCLES_NUM,
      XPMU_CYCLES_DEN, "CPU_CLK_UNHALTED.REF" },
};

/*
 * The AMD family 15h event table, on the same counting model: cycles
 * (CPU_CLK_UNHALTED, 0x076) and retired instructions (0x0c0) are real,
 * the others fixed fractions of the instructions (the rates of their
 * Intel counterparts above). Event codes are 12 bits (PERF_CTL 35:32 and
 * 7:0); unit masks are ignored. Nothing is corrupting: the erratum is
 * Intel's. Events not in the table count xpmu_event_default.
 */
const struct xpmu_event xpmu_amd_events[] = {
    { 0x076, 0x00, true, false, XPMU_SRC_CYCLES, XPMU_CYCLES_NUM,
      XPMU_CYCLES_DEN, "CPU_CLK_UNHALTED" },
    { 0x0c0, 0x00, true, false, XPMU_SRC_INSNS, 1, 1,
      "RETIRED_INSTRUCTIONS" },
    { 0x0c2, 0x00, true, false, XPMU_SRC_INSNS, 1, 5,
      "RETIRED_BRANCH_INSTRUCTIONS" },
    { 0x0c3, 0x00, true, false, XPMU_SRC_INSNS, 1, 100,
      "RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS" },
    { 0x07d, 0x00, true, false, XPMU_SRC_INSNS, 1, 50, "REQUESTS_TO_L2" },
    { 0x07e, 0x00, true, false, XPMU_SRC_INSNS, 1, 500, "L2_CACHE_MISS" },
    { 0x000, 0x00, true, false, XPMU_SRC_NONE, 0, 1, "(no event)" },
};
const unsigned int xpmu_amd_num_events =
    sizeof(xpmu_amd_events) / sizeof(xpmu_amd_events[0]);

/**
 * xpmu_event_lookup() - the table entry of an event
 * @event: event select code
 * @umask: unit mask
 *
 * Return: the first entry that matches, else &xpmu_event_default.
 */
const struct xpmu_event *xpmu_event_lookup(uint8_t event, uint8_t umask)
{
    unsigned int i;

    for (i = 0; i < xpmu_num_events; i++) {
        const struct xpmu_event *e = &xpmu_events[i];

        if (e->event == event && (e->any_umask || e->umask == umask)) {
            return e;
        }
    }
    return &xpmu_event_default;
}

/**
 * xpmu_amd_event_lookup() - the AMD table entry of an event
 * @event: 12-bit event select code
 *
 * Return: the entry, else &xpmu_event_default.
 */
const struct xpmu_event *xpmu_amd_event_lookup(uint16_t event)
{
    unsigned int i;

    for (i = 0; i < xpmu_amd_num_events; i++) {
        if (xpmu_amd_events[i].event == event) {
            return &xpmu_amd_events[i];
        }
    }
    return &xpmu_event_default;
}

/* The table entry of the event in @evtsel, in the core's table */
static const struct xpmu_event *evtsel_event(const struct xpmu_core *c,
                                             uint64_t evtsel)
{
    if (c->kind == XPMU_AMD_F15H) {
        return xpmu_amd_event_lookup((evtsel & XPMU_EVTSEL_EVENT) |
                                     ((evtsel & XPMU_AMD_EVTSEL_EVENT_HI) >>
                                      24));
    }
    return xpmu_event_lookup(evtsel & XPMU_EVTSEL_EVENT,
                             (evtsel & XPMU_EVTSEL_UMASK) >> 8);
}

/**
 * xpmu_event_is_corrupting() - does an event code trigger the erratum?
 * @event: event select code
 *
 * Return: true for 0xd0-0xd3.
 */
bool xpmu_event_is_corrupting(uint8_t event)
{
    return event >= 0xd0 && event <= 0xd3;
}

/**
 * xpmu_model_affected() - is a family 6 model affected by the erratum?
 * @family: display family
 * @model: display model
 *
 * Return: true for SandyBridge (0x2a, 0x2d), IvyBridge (0x3a, 0x3e) and
 * Haswell (0x3c, 0x3f, 0x45, 0x46).
 */
bool xpmu_model_affected(unsigned int family, unsigned int model)
{
    if (family != 6) {
        return false;
    }
    switch (model) {
    case 0x2a: case 0x2d:
    case 0x3a: case 0x3e:
    case 0x3c: case 0x3f: case 0x45: case 0x46:
        return true;
    default:
        return false;
    }
}

static bool mode_counts(bool os, bool usr, int cpl)
{
    return cpl == 0 ? os : usr;
}

/**
 * xpmu_gp_enabled() - is GP counter @i of thread @thr enabled?
 * @c: the core
 * @thr: thread index
 * @i: GP counter index
 *
 * Enabled means EN in its evtsel and its bit in GLOBAL_CTRL, whatever the
 * privilege level; this is what the erratum's leak needs on both ends.
 *
 * Return: true if enabled.
 */
bool xpmu_gp_enabled(const struct xpmu_core *c, int thr, int i)
{
    const struct xpmu_thread *t = &c->t[thr];

    return t->present && (t->evtsel[i] & XPMU_EVTSEL_EN) &&
           (t->global_ctrl & (UINT64_C(1) << i));
}

/*
 * The erratum's condition: a corrupting event enabled on GP counter @i of
 * thread @thr while the sibling's counter @i is enabled too.
 */
static bool exposes(const struct xpmu_core *c, int thr, int i)
{
    return xpmu_gp_enabled(c, thr, i) && c->t[thr].gp_event[i]->corrupting &&
           xpmu_gp_enabled(c, 1 - thr, i);
}

/**
 * xpmu_exposed_pairs() - the counters exposed to the erratum right now
 * @c: the core
 *
 * Return: bit XPMU_NUM_GP * thr + i set when a corrupting event on GP
 * counter i of thread thr can leak into the sibling's counter i (whether
 * or not the erratum model is on); 0 without a sibling.
 */
uint64_t xpmu_exposed_pairs(const struct xpmu_core *c)
{
    uint64_t pairs = 0;
    int thr, i;

    if (!c->t[0].present || !c->t[1].present) {
        return 0;
    }
    for (thr = 0; thr < XPMU_THREADS; thr++) {
        for (i = 0; i < XPMU_NUM_GP; i++) {
            if (exposes(c, thr, i)) {
                pairs |= UINT64_C(1) << (XPMU_NUM_GP * thr + i);
            }
        }
    }
    return pairs;
}

/*
 * AMD: GuestOnly without HostOnly counts only in a guest, and the emulated
 * host runs none (the HG bits of a nested guest are not modelled).
 */
static bool amd_guest_only(const struct xpmu_core *c, uint64_t evtsel)
{
    return c->kind == XPMU_AMD_F15H &&
           (evtsel & (XPMU_AMD_EVTSEL_GUESTONLY | XPMU_AMD_EVTSEL_HOSTONLY)) ==
           XPMU_AMD_EVTSEL_GUESTONLY;
}

static bool gp_counting(const struct xpmu_core *c, int thr, int i)
{
    const struct xpmu_thread *t = &c->t[thr];

    return xpmu_gp_enabled(c, thr, i) && !amd_guest_only(c, t->evtsel[i]) &&
           mode_counts(t->evtsel[i] & XPMU_EVTSEL_OS,
                       t->evtsel[i] & XPMU_EVTSEL_USR, t->cpl);
}

static unsigned int fixed_nibble(const struct xpmu_thread *t, int i)
{
    return (t->fixed_ctrl >> (4 * i)) & 0xf;
}

static bool fixed_enabled(const struct xpmu_thread *t, int i)
{
    return t->present && (fixed_nibble(t, i) & (XPMU_FIXED_OS |
                                                XPMU_FIXED_USR)) &&
           (t->global_ctrl & (UINT64_C(1) << (XPMU_GLOBAL_FIXED_SHIFT + i)));
}

static bool fixed_counting(const struct xpmu_thread *t, int i)
{
    unsigned int n = fixed_nibble(t, i);

    return fixed_enabled(t, i) &&
           mode_counts(n & XPMU_FIXED_OS, n & XPMU_FIXED_USR, t->cpl);
}

/*
 * Counts of @ev for @units of its source, carrying the remainder in
 * @ctr->frac: units = q * den + r, so units * num / den = q * num +
 * (r * num + frac) / den, exactly and without overflow.
 */
static uint64_t accrue(const struct xpmu_event *ev, struct xpmu_counter *ctr,
                       uint64_t dins, uint64_t dns)
{
    uint64_t units, q, r, part;

    switch (ev->source) {
    case XPMU_SRC_INSNS:
        units = dins;
        break;
    case XPMU_SRC_CYCLES:
        units = dns;
        break;
    default:
        return 0;
    }
    q = units / ev->den;
    r = units % ev->den;
    part = r * ev->num + ctr->frac;
    ctr->frac = part % ev->den;
    return q * ev->num + part / ev->den;
}

/* Smallest number of source units after which @ev has counted @need. */
static uint64_t units_to_reach(const struct xpmu_event *ev,
                               const struct xpmu_counter *ctr, uint64_t need)
{
    uint64_t total = need * ev->den - ctr->frac;

    return (total + ev->num - 1) / ev->num;
}

static void add_count(struct xpmu_thread *t, struct xpmu_counter *ctr,
                      uint64_t n, uint64_t status_bit, bool pmi)
{
    uint64_t v;

    if (!n) {
        return;
    }
    v = ctr->value + n;
    if (v > XPMU_CTR_MASK) {
        if (t->pebs_enable & status_bit) {
            /* a PEBS assist instead: the glue writes the record */
            t->pebs_pending |= status_bit;
        } else {
            t->global_status |= status_bit;
            if (pmi) {
                t->pmi = true;
            }
        }
    }
    ctr->value = v & XPMU_CTR_MASK;
}

/**
 * xpmu_settle() - bring both threads' counters up to @now
 * @c: the core
 * @now: the instant; @now->cpl is not used here
 *
 * Every counter that was counting since the last settle (enabled, and the
 * thread's privilege level selected by its USR/OS bits) accrues its
 * event's count over the interval: instructions the thread retired, or
 * virtual time. With the erratum on, a corrupting event on GP counter i of
 * one thread that was enabled while GP counter i of the sibling was
 * enabled adds the count it made to the sibling's counter, and the ledger
 * records the leak and the exposure time. Overflows past 48 bits set the
 * counter's GLOBAL_STATUS bit and, with the counter's interrupt bit,
 * request a PMI; on a counter with its PEBS_ENABLE bit (Gracemont) they
 * request a PEBS record instead (xpmu_take_pebs()).
 */
void xpmu_settle(struct xpmu_core *c, const struct xpmu_now *now)
{
    uint64_t own[XPMU_THREADS][XPMU_MAX_GP];
    uint64_t dns = now->ns > c->last_ns ? (uint64_t)(now->ns - c->last_ns) : 0;
    int thr, i;

    memset(own, 0, sizeof(own));
    for (thr = 0; thr < XPMU_THREADS; thr++) {
        struct xpmu_thread *t = &c->t[thr];
        uint64_t dins;

        if (!t->present) {
            continue;
        }
        dins = now->insns[thr] > t->last_insns ?
               now->insns[thr] - t->last_insns : 0;
        for (i = 0; i < c->num_gp; i++) {
            if (!gp_counting(c, thr, i)) {
                continue;
            }
            own[thr][i] = accrue(t->gp_event[i], &t->gp[i], dins, dns);
            add_count(t, &t->gp[i], own[thr][i], UINT64_C(1) << i,
                      t->evtsel[i] & XPMU_EVTSEL_INT);
        }
        for (i = 0; i < XPMU_NUM_FIXED; i++) {
            if (!fixed_counting(t, i)) {
                continue;
            }
            add_count(t, &t->fixed[i],
                      accrue(&xpmu_fixed_events[i], &t->fixed[i], dins, dns),
                      UINT64_C(1) << (XPMU_GLOBAL_FIXED_SHIFT + i),
                      fixed_nibble(t, i) & XPMU_FIXED_PMI);
        }
        if (now->insns[thr] > t->last_insns) {
            t->last_insns = now->insns[thr];
        }
    }

    if (c->erratum && c->t[0].present && c->t[1].present) {
        for (thr = 0; thr < XPMU_THREADS; thr++) {
            int sib = 1 - thr;
            struct xpmu_thread *v = &c->t[sib];

            for (i = 0; i < XPMU_NUM_GP; i++) {
                struct xpmu_ledger *l = &c->ledger[sib][i];

                if (!exposes(c, thr, i)) {
                    continue;
                }
                l->exposed_ns += dns;
                if (own[thr][i]) {
                    add_count(v, &v->gp[i], own[thr][i], UINT64_C(1) << i,
                              v->evtsel[i] & XPMU_EVTSEL_INT);
                    l->leaked += own[thr][i];
                    l->settlements++;
                }
            }
        }
    }
    if (now->ns > c->last_ns) {
        c->last_ns = now->ns;
    }
}

/**
 * xpmu_sync() - settle, then take the calling thread's privilege level
 * @c: the core
 * @thr: the calling thread
 * @now: the instant and the privilege level from now on (-1: unchanged)
 *
 * The glue calls it on a change of privilege level (with the new level),
 * from its timers, from the instruction-deadline helper and at exit.
 */
void xpmu_sync(struct xpmu_core *c, int thr, const struct xpmu_now *now)
{
    xpmu_settle(c, now);
    if (now->cpl >= 0) {
        c->t[thr].cpl = now->cpl;
    }
}

static void thread_regs_reset(const struct xpmu_core *c, struct xpmu_thread *t)
{
    int i;

    for (i = 0; i < XPMU_MAX_GP; i++) {
        t->evtsel[i] = 0;
        t->gp_event[i] = evtsel_event(c, 0);
        t->gp[i].value = 0;
        t->gp[i].frac = 0;
    }
    for (i = 0; i < XPMU_NUM_FIXED; i++) {
        t->fixed[i].value = 0;
        t->fixed[i].frac = 0;
    }
    t->fixed_ctrl = 0;
    /*
     * AMD has no global control: every counter is gated by EN alone.
     * Intel: every GP counter enabled at power-up.
     */
    t->global_ctrl = (UINT64_C(1) << c->num_gp) - 1;
    t->global_status = 0;
    t->pmi = false;
    t->pebs_enable = 0;
    t->pebs_data_cfg = 0;
    t->ds_area = 0;
    t->ld_lat = 0;
    t->offcore_rsp[0] = 0;
    t->offcore_rsp[1] = 0;
    t->pebs_pending = 0;
}

/**
 * xpmu_core_init_kind() - an empty core with the PMU @kind
 * @c: the core
 * @kind: Intel, AMD family 15h or Gracemont
 * @erratum: model the erratum (Intel only; ignored for the others)
 * @now_ns: virtual time now
 */
void xpmu_core_init_kind(struct xpmu_core *c, enum xpmu_kind kind,
                         bool erratum, int64_t now_ns)
{
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->num_gp = kind == XPMU_AMD_F15H ? XPMU_AMD_NUM_GP :
                kind == XPMU_INTEL_GRT ? XPMU_GRT_NUM_GP : XPMU_NUM_GP;
    c->erratum = kind == XPMU_INTEL && erratum;
    c->last_ns = now_ns;
    thread_regs_reset(c, &c->t[0]);
    thread_regs_reset(c, &c->t[1]);
}

/**
 * xpmu_core_init() - an empty core with the Intel PMU
 * @c: the core
 * @erratum: model the erratum
 * @now_ns: virtual time now
 */
void xpmu_core_init(struct xpmu_core *c, bool erratum, int64_t now_ns)
{
    xpmu_core_init_kind(c, XPMU_INTEL, erratum, now_ns);
}

/**
 * xpmu_thread_attach() - a thread joins its core, registers at reset
 * @c: the core
 * @thr: thread index
 * @insns: the thread's retired-instruction count now
 * @cpl: its privilege level now
 *
 * Call before the thread runs; nothing accrues yet (every counter is
 * disabled at reset).
 */
void xpmu_thread_attach(struct xpmu_core *c, int thr, uint64_t insns, int cpl)
{
    struct xpmu_thread *t = &c->t[thr];

    thread_regs_reset(c, t);
    t->present = true;
    t->last_insns = insns;
    t->cpl = cpl;
}

/**
 * xpmu_thread_reset() - power-up/reset values of one thread's registers
 * @c: the core
 * @thr: the thread
 * @now: the instant (settled first)
 */
void xpmu_thread_reset(struct xpmu_core *c, int thr,
                       const struct xpmu_now *now)
{
    xpmu_sync(c, thr, now);
    thread_regs_reset(c, &c->t[thr]);
}

/**
 * xpmu_is_pmu_msr() - is @msr one of the model's MSRs?
 * @msr: MSR index
 *
 * Return: true for the PMU MSRs of this model and the ledger range.
 */
bool xpmu_is_pmu_msr(uint32_t msr)
{
    return (msr >= XPMU_MSR_PMC0 && msr < XPMU_MSR_PMC0 + XPMU_NUM_GP) ||
           (msr >= XPMU_MSR_EVNTSEL0 &&
            msr < XPMU_MSR_EVNTSEL0 + XPMU_NUM_GP) ||
           (msr >= XPMU_MSR_FIXED_CTR0 &&
            msr < XPMU_MSR_FIXED_CTR0 + XPMU_NUM_FIXED) ||
           (msr >= XPMU_MSR_FIXED_CTR_CTRL &&
            msr <= XPMU_MSR_GLOBAL_OVF_CTRL) ||
           (msr >= XPMU_MSR_LEDGER_BASE && msr < XPMU_MSR_LEDGER_END);
}

/*
 * AMD: the counter index of a PERF_CTL/PERF_CTR MSR, K7 or family 15h;
 * *ctl tells which of the two. -1: not one of them.
 */
static int amd_msr_counter(uint32_t msr, bool *ctl)
{
    if (msr >= XPMU_MSR_K7_EVNTSEL0 &&
        msr < XPMU_MSR_K7_EVNTSEL0 + XPMU_K7_NUM) {
        *ctl = true;
        return msr - XPMU_MSR_K7_EVNTSEL0;
    }
    if (msr >= XPMU_MSR_K7_PERFCTR0 &&
        msr < XPMU_MSR_K7_PERFCTR0 + XPMU_K7_NUM) {
        *ctl = false;
        return msr - XPMU_MSR_K7_PERFCTR0;
    }
    if (msr >= XPMU_MSR_F15H_PERF_CTL0 &&
        msr < XPMU_MSR_F15H_PERF_CTL0 + 2 * XPMU_AMD_NUM_GP) {
        *ctl = !((msr - XPMU_MSR_F15H_PERF_CTL0) & 1);
        return (msr - XPMU_MSR_F15H_PERF_CTL0) / 2;
    }
    return -1;
}

/**
 * xpmu_core_has_msr() - is @msr one of the MSRs of core @c's model?
 * @c: the core (its kind)
 * @msr: MSR index
 *
 * Return: Intel: as xpmu_is_pmu_msr(); AMD family 15h: the K7 and family
 * 15h PERF_CTL/PERF_CTR MSRs and the ledger range; Gracemont: the Intel
 * MSRs of its six GP counters, PERF_CAPABILITIES, the PEBS MSRs, the DS
 * area and OFFCORE_RSP_0/1.
 */
bool xpmu_core_has_msr(const struct xpmu_core *c, uint32_t msr)
{
    bool ctl = false;

    if (c->kind == XPMU_AMD_F15H) {
        return amd_msr_counter(msr, &ctl) >= 0 ||
               (msr >= XPMU_MSR_LEDGER_BASE && msr < XPMU_MSR_LEDGER_END);
    }
    if (c->kind == XPMU_INTEL_GRT) {
        return xpmu_is_pmu_msr(msr) ||
               (msr >= XPMU_MSR_PMC0 && msr < XPMU_MSR_PMC0 + (uint32_t)c->num_gp) ||
               (msr >= XPMU_MSR_EVNTSEL0 &&
                msr < XPMU_MSR_EVNTSEL0 + (uint32_t)c->num_gp) ||
               msr == XPMU_MSR_OFFCORE_RSP0 ||
               msr == XPMU_MSR_OFFCORE_RSP0 + 1 ||
               msr == XPMU_MSR_PERF_CAPS || msr == XPMU_MSR_PEBS_ENABLE ||
               msr == XPMU_MSR_PEBS_DATA_CFG ||
               msr == XPMU_MSR_PEBS_LD_LAT || msr == XPMU_MSR_DS_AREA;
    }
    return xpmu_is_pmu_msr(msr);
}

/* The GLOBAL_CTRL bits of core @c's counters */
static uint64_t counters_mask(const struct xpmu_core *c)
{
    return ((UINT64_C(1) << c->num_gp) - 1) | XPMU_GLOBAL_FIXED_MASK;
}

/*
 * Gracemont's MSRs beyond the version 3 PMU; -1: not one of them, or a
 * write that faults (reserved bits, a read-only MSR, a non-canonical DS
 * area).
 */
static int grt_rdmsr(const struct xpmu_thread *t, uint32_t msr,
                     uint64_t *val)
{
    switch (msr) {
    case XPMU_MSR_PERF_CAPS:
        *val = XPMU_GRT_PERF_CAPS;
        return 0;
    case XPMU_MSR_PEBS_ENABLE:
        *val = t->pebs_enable;
        return 0;
    case XPMU_MSR_PEBS_DATA_CFG:
        *val = t->pebs_data_cfg;
        return 0;
    case XPMU_MSR_PEBS_LD_LAT:
        *val = t->ld_lat;
        return 0;
    case XPMU_MSR_DS_AREA:
        *val = t->ds_area;
        return 0;
    case XPMU_MSR_OFFCORE_RSP0:
    case XPMU_MSR_OFFCORE_RSP0 + 1:
        *val = t->offcore_rsp[msr - XPMU_MSR_OFFCORE_RSP0];
        return 0;
    }
    return -1;
}

static bool grt_write_faults(const struct xpmu_core *c, uint32_t msr,
                             uint64_t val)
{
    switch (msr) {
    case XPMU_MSR_PERF_CAPS:
        return true;
    case XPMU_MSR_PEBS_ENABLE:
        return val & ~counters_mask(c);
    case XPMU_MSR_PEBS_DATA_CFG:
        return val & ~XPMU_PEBS_CFG_VALID;
    case XPMU_MSR_PEBS_LD_LAT:
        return val > 0xffff;
    case XPMU_MSR_DS_AREA:
        /* canonical with 48-bit linear addresses */
        return (uint64_t)((int64_t)(val << 16) >> 16) != val;
    }
    return false;
}

/*
 * @pending: the records that were pending before this write's settle; one
 * that the settle added was due before the write, and stays.
 */
static void grt_wrmsr(struct xpmu_thread *t, uint32_t msr, uint64_t val,
                      uint64_t pending)
{
    switch (msr) {
    case XPMU_MSR_PEBS_ENABLE:
        t->pebs_enable = val;
        /* a counter no longer enabled for PEBS has no record to write */
        t->pebs_pending &= val | ~pending;
        break;
    case XPMU_MSR_PEBS_DATA_CFG:
        t->pebs_data_cfg = val;
        break;
    case XPMU_MSR_PEBS_LD_LAT:
        t->ld_lat = val;
        break;
    case XPMU_MSR_DS_AREA:
        t->ds_area = val;
        break;
    case XPMU_MSR_OFFCORE_RSP0:
    case XPMU_MSR_OFFCORE_RSP0 + 1:
        t->offcore_rsp[msr - XPMU_MSR_OFFCORE_RSP0] = val;
        break;
    }
}

static int ledger_read(const struct xpmu_core *c, int thr, uint32_t off,
                       uint64_t *val)
{
    uint64_t leaked, settlements, exposed;

    xpmu_ledger_totals(c, &leaked, &settlements, &exposed);
    if (off >= XPMU_LEDGER_CTR_LEAKED &&
        off < XPMU_LEDGER_CTR_LEAKED + XPMU_NUM_GP) {
        *val = c->ledger[thr][off - XPMU_LEDGER_CTR_LEAKED].leaked;
    } else if (off >= XPMU_LEDGER_CTR_EXPOSED &&
               off < XPMU_LEDGER_CTR_EXPOSED + XPMU_NUM_GP) {
        *val = c->ledger[thr][off - XPMU_LEDGER_CTR_EXPOSED].exposed_ns;
    } else if (off >= XPMU_LEDGER_CTR_SETTLE &&
               off < XPMU_LEDGER_CTR_SETTLE + XPMU_NUM_GP) {
        *val = c->ledger[thr][off - XPMU_LEDGER_CTR_SETTLE].settlements;
    } else {
        switch (off) {
        case XPMU_LEDGER_LEAKED:
            *val = leaked;
            break;
        case XPMU_LEDGER_EXPOSED_NS:
            *val = exposed;
            break;
        case XPMU_LEDGER_SETTLEMENTS:
            *val = settlements;
            break;
        case XPMU_LEDGER_ERRATUM:
            *val = c->erratum;
            break;
        case XPMU_LEDGER_THREAD:
            *val = thr;
            break;
        case XPMU_LEDGER_SIBLING:
            *val = c->t[0].present && c->t[1].present;
            break;
        default:
            return XPMU_FAULT;
        }
    }
    return XPMU_OK;
}

/**
 * xpmu_rdmsr() - RDMSR of a model MSR by thread @thr
 * @c: the core
 * @thr: the reading thread
 * @now: the instant (settled first)
 * @msr: MSR index
 * @val: the value read
 *
 * Return: XPMU_OK, XPMU_FAULT (#GP) or XPMU_UNHANDLED (not ours; nothing
 * settled).
 */
int xpmu_rdmsr(struct xpmu_core *c, int thr, const struct xpmu_now *now,
               uint32_t msr, uint64_t *val)
{
    struct xpmu_thread *t = &c->t[thr];
    bool ctl = false;
    int i;

    if (!xpmu_core_has_msr(c, msr)) {
        return XPMU_UNHANDLED;
    }
    xpmu_sync(c, thr, now);
    if (msr >= XPMU_MSR_LEDGER_BASE && msr < XPMU_MSR_LEDGER_END) {
        return ledger_read(c, thr, msr - XPMU_MSR_LEDGER_BASE, val);
    } else if (c->kind == XPMU_AMD_F15H) {
        i = amd_msr_counter(msr, &ctl);
        *val = ctl ? t->evtsel[i] : t->gp[i].value;
    } else if (c->kind == XPMU_INTEL_GRT && grt_rdmsr(t, msr, val) == 0) {
        return XPMU_OK;
    } else if (msr >= XPMU_MSR_PMC0 && msr < XPMU_MSR_PMC0 + (uint32_t)c->num_gp) {
        *val = t->gp[msr - XPMU_MSR_PMC0].value;
    } else if (msr >= XPMU_MSR_EVNTSEL0 &&
               msr < XPMU_MSR_EVNTSEL0 + (uint32_t)c->num_gp) {
        *val = t->evtsel[msr - XPMU_MSR_EVNTSEL0];
    } else if (msr >= XPMU_MSR_FIXED_CTR0 &&
               msr < XPMU_MSR_FIXED_CTR0 + XPMU_NUM_FIXED) {
        *val = t->fixed[msr - XPMU_MSR_FIXED_CTR0].value;
    } else {
        switch (msr) {
        case XPMU_MSR_FIXED_CTR_CTRL:
            *val = t->fixed_ctrl;
            break;
        case XPMU_MSR_GLOBAL_STATUS:
            *val = t->global_status;
            break;
        case XPMU_MSR_GLOBAL_CTRL:
            *val = t->global_ctrl;
            break;
        default: /* XPMU_MSR_GLOBAL_OVF_CTRL */
            *val = 0;
            break;
        }
    }
    return XPMU_OK;
}

static uint64_t evtsel_reserved(const struct xpmu_core *c)
{
    return c->kind == XPMU_INTEL_GRT ?
           XPMU_EVTSEL_RESERVED & ~XPMU_EVTSEL_ADAPTIVE : XPMU_EVTSEL_RESERVED;
}

static uint64_t fixed_ctrl_valid(const struct xpmu_core *c)
{
    uint64_t valid = XPMU_FIXED_CTRL_VALID;
    int i;

    if (c->kind == XPMU_INTEL_GRT) {
        for (i = 0; i < XPMU_NUM_FIXED; i++) {
            valid |= XPMU_FIXED_ADAPTIVE(i);
        }
    }
    return valid;
}

/**
 * xpmu_wrmsr() - WRMSR of a model MSR by thread @thr
 * @c: the core
 * @thr: the writing thread
 * @now: the instant (settled first, with the state before the write)
 * @msr: MSR index
 * @val: the value written
 *
 * Legacy counter writes (IA32_PMCx) keep bits 31:0 and sign-extend bit 31
 * into the 48 bits; fixed counters take bits 47:0. Reserved bits of the
 * control MSRs, writes to GLOBAL_STATUS and to the read-only ledger MSRs
 * fault and change nothing. AMD: PERF_CTR takes bits 47:0 (63:48 are
 * dropped); PERF_CTL faults on its reserved bits (63:42, 39:36); the K7
 * MSRs are the first four counters' registers.
 *
 * Return: XPMU_OK, XPMU_FAULT (#GP) or XPMU_UNHANDLED.
 */
int xpmu_wrmsr(struct xpmu_core *c, int thr, const struct xpmu_now *now,
               uint32_t msr, uint64_t val)
{
    struct xpmu_thread *t = &c->t[thr];
    bool ledger = msr >= XPMU_MSR_LEDGER_BASE && msr < XPMU_MSR_LEDGER_END;
    uint64_t old, cur;
    bool ctl = false;
    int i;

    if (!xpmu_core_has_msr(c, msr)) {
        return XPMU_UNHANDLED;
    }
    if (ledger && msr != XPMU_MSR_LEDGER_BASE + XPMU_LEDGER_RESET) {
        return XPMU_FAULT;
    }
    if (c->kind == XPMU_AMD_F15H && !ledger) {
        i = amd_msr_counter(msr, &ctl);
        if (ctl && (val & XPMU_AMD_EVTSEL_RESERVED)) {
            return XPMU_FAULT;
        }
        xpmu_sync(c, thr, now);
        if (ctl) {
            if ((t->evtsel[i] ^ val) & (XPMU_EVTSEL_EVENT |
                                        XPMU_AMD_EVTSEL_EVENT_HI)) {
                t->gp[i].frac = 0;
            }
            t->evtsel[i] = val;
            t->gp_event[i] = evtsel_event(c, val);
        } else {
            t->gp[i].value = val & XPMU_CTR_MASK;
            t->gp[i].frac = 0;
        }
        return XPMU_OK;
    }
    /* Validate first: a faulting write changes nothing. */
    if ((msr >= XPMU_MSR_EVNTSEL0 && msr < XPMU_MSR_EVNTSEL0 + (uint32_t)c->num_gp &&
         (val & evtsel_reserved(c))) ||
        (msr == XPMU_MSR_FIXED_CTR_CTRL && (val & ~fixed_ctrl_valid(c))) ||
        msr == XPMU_MSR_GLOBAL_STATUS ||
        (msr == XPMU_MSR_GLOBAL_CTRL && (val & ~counters_mask(c))) ||
        (msr == XPMU_MSR_GLOBAL_OVF_CTRL &&
         (val & ~(counters_mask(c) | (UINT64_C(3) << 62)))) ||
        (c->kind == XPMU_INTEL_GRT && grt_write_faults(c, msr, val))) {
        return XPMU_FAULT;
    }
    old = t->pebs_pending;
    xpmu_sync(c, thr, now);

    if (ledger) {
        memset(c->ledger, 0, sizeof(c->ledger));
    } else if (c->kind == XPMU_INTEL_GRT && grt_rdmsr(t, msr, &cur) == 0) {
        grt_wrmsr(t, msr, val, old);
    } else if (msr >= XPMU_MSR_PMC0 && msr < XPMU_MSR_PMC0 + (uint32_t)c->num_gp) {
        i = msr - XPMU_MSR_PMC0;
        t->gp[i].value = (uint64_t)(int64_t)(int32_t)(uint32_t)val &
                         XPMU_CTR_MASK;
        t->gp[i].frac = 0;
    } else if (msr >= XPMU_MSR_EVNTSEL0 &&
               msr < XPMU_MSR_EVNTSEL0 + (uint32_t)c->num_gp) {
        i = msr - XPMU_MSR_EVNTSEL0;
        if ((t->evtsel[i] ^ val) & (XPMU_EVTSEL_EVENT | XPMU_EVTSEL_UMASK)) {
            t->gp[i].frac = 0;
        }
        t->evtsel[i] = val;
        t->gp_event[i] = evtsel_event(c, val);
    } else if (msr >= XPMU_MSR_FIXED_CTR0 &&
               msr < XPMU_MSR_FIXED_CTR0 + XPMU_NUM_FIXED) {
        i = msr - XPMU_MSR_FIXED_CTR0;
        t->fixed[i].value = val & XPMU_CTR_MASK;
        t->fixed[i].frac = 0;
    } else {
        switch (msr) {
        case XPMU_MSR_FIXED_CTR_CTRL:
            t->fixed_ctrl = val;
            break;
        case XPMU_MSR_GLOBAL_CTRL:
            t->global_ctrl = val;
            break;
        default: /* XPMU_MSR_GLOBAL_OVF_CTRL */
            t->global_status &= ~val;
            break;
        }
    }
    return XPMU_OK;
}

/**
 * xpmu_rdpmc() - RDPMC by thread @thr
 * @c: the core
 * @thr: the reading thread
 * @now: the instant (settled first)
 * @ecx: counter selector: index n of a GP counter, or bit 30 plus the
 *       index of a fixed counter; bit 31 returns the low 32 bits only.
 *       AMD: the index of a core counter (0-5), nothing else
 * @val: the counter's value
 *
 * The caller has checked CR4.PCE and the privilege level.
 *
 * Return: XPMU_OK, or XPMU_FAULT (#GP) for a bad index.
 */
int xpmu_rdpmc(struct xpmu_core *c, int thr, const struct xpmu_now *now,
               uint32_t ecx, uint64_t *val)
{
    uint32_t idx = ecx & ~(XPMU_RDPMC_FIXED | XPMU_RDPMC_FAST);

    if (c->kind == XPMU_AMD_F15H) {
        if (ecx >= (uint32_t)c->num_gp) {
            return XPMU_FAULT;
        }
        xpmu_sync(c, thr, now);
        *val = c->t[thr].gp[ecx].value;
        return XPMU_OK;
    }
    if (ecx & XPMU_RDPMC_FIXED) {
        if (idx >= XPMU_NUM_FIXED) {
            return XPMU_FAULT;
        }
    } else if (idx >= (uint32_t)c->num_gp) {
        return XPMU_FAULT;
    }
    xpmu_sync(c, thr, now);
    if (ecx & XPMU_RDPMC_FIXED) {
        *val = c->t[thr].fixed[idx].value;
    } else {
        *val = c->t[thr].gp[idx].value;
    }
    if (ecx & XPMU_RDPMC_FAST) {
        *val &= UINT32_MAX;
    }
    return XPMU_OK;
}

/**
 * xpmu_take_pmi() - fetch and clear thread @thr's PMI request
 * @c: the core
 * @thr: the thread
 *
 * Return: true if an overflow asked for a PMI since the last call.
 */
bool xpmu_take_pmi(struct xpmu_core *c, int thr)
{
    bool pmi = c->t[thr].pmi;

    c->t[thr].pmi = false;
    return pmi;
}

/**
 * xpmu_take_pebs() - fetch and clear thread @thr's pending PEBS records
 * @c: the core
 * @thr: the thread
 *
 * Return: the counters (GLOBAL_STATUS bits) whose PEBS-enabled overflow
 * awaits a record. The glue writes one record for them into the thread's
 * DS save area, then calls xpmu_pebs_done().
 */
uint64_t xpmu_take_pebs(struct xpmu_core *c, int thr)
{
    uint64_t bits = c->t[thr].pebs_pending;

    c->t[thr].pebs_pending = 0;
    return bits;
}

/**
 * xpmu_pebs_record_cfg() - the record groups of a PEBS record
 * @c: the core
 * @thr: the thread
 * @counters: the counters of the record (GLOBAL_STATUS bits, non-zero)
 *
 * Return: PEBS_DATA_CFG if the first of @counters has its adaptive bit
 * (evtsel bit 34, or FIXED_CTR_CTRL bit 32 + 4i), else 0: the basic
 * group alone.
 */
uint64_t xpmu_pebs_record_cfg(const struct xpmu_core *c, int thr,
                              uint64_t counters)
{
    const struct xpmu_thread *t = &c->t[thr];
    int i = __builtin_ctzll(counters);
    bool adaptive;

    if (i >= XPMU_GLOBAL_FIXED_SHIFT) {
        i -= XPMU_GLOBAL_FIXED_SHIFT;
        adaptive = i < XPMU_NUM_FIXED &&
                   (t->fixed_ctrl & XPMU_FIXED_ADAPTIVE(i));
    } else {
        adaptive = i < c->num_gp && (t->evtsel[i] & XPMU_EVTSEL_ADAPTIVE);
    }
    return adaptive ? t->pebs_data_cfg : 0;
}

/**
 * xpmu_pebs_done() - the PEBS assist of @counters is complete
 * @c: the core
 * @thr: the thread
 * @counters: the counters whose record the glue wrote (or dropped, the
 *            buffer being full)
 * @reset: the DS area's reset values: GP counter i at [i], fixed counter i
 *         at [XPMU_MAX_GP + i]
 * @interrupt: the buffer's index reached its interrupt threshold
 *
 * Each counter restarts from its reset value; at the threshold
 * GLOBAL_STATUS gains bit 62 (buffer overflow) and a PMI is requested.
 */
void xpmu_pebs_done(struct xpmu_core *c, int thr, uint64_t counters,
                    const uint64_t *reset, bool interrupt)
{
    struct xpmu_thread *t = &c->t[thr];
    int i;

    for (i = 0; i < c->num_gp; i++) {
        if (counters & (UINT64_C(1) << i)) {
            t->gp[i].value = reset[i] & XPMU_CTR_MASK;
            t->gp[i].frac = 0;
        }
    }
    for (i = 0; i < XPMU_NUM_FIXED; i++) {
        if (counters & (UINT64_C(1) << (XPMU_GLOBAL_FIXED_SHIFT + i))) {
            t->fixed[i].value = reset[XPMU_MAX_GP + i] & XPMU_CTR_MASK;
            t->fixed[i].frac = 0;
        }
    }
    if (interrupt) {
        t->global_status |= XPMU_GLOBAL_OVF_BUF;
        t->pmi = true;
    }
}

/**
 * xpmu_cpl_sensitive() - do thread @thr's counts depend on its CPL?
 * @c: the core
 * @thr: the thread
 *
 * Return: true if an enabled counter counts in one of OS/USR only; the
 * glue must then call xpmu_sync() on every change between CPL 0 and 1-3.
 */
bool xpmu_cpl_sensitive(const struct xpmu_core *c, int thr)
{
    const struct xpmu_thread *t = &c->t[thr];
    int i;

    for (i = 0; i < c->num_gp; i++) {
        if (xpmu_gp_enabled(c, thr, i) &&
            !(t->evtsel[i] & XPMU_EVTSEL_OS) !=
            !(t->evtsel[i] & XPMU_EVTSEL_USR)) {
            return true;
        }
    }
    for (i = 0; i < XPMU_NUM_FIXED; i++) {
        unsigned int n = fixed_nibble(t, i);

        if (fixed_enabled(t, i) &&
            !(n & XPMU_FIXED_OS) != !(n & XPMU_FIXED_USR)) {
            return true;
        }
    }
    return false;
}

/*
 * Fewest units of @source that thread @thr must make before a counter with
 * its interrupt bit or its PEBS_ENABLE bit overflows: its own counting
 * counters, and with the erratum the sibling's counters its corrupting
 * events leak into.
 */
static uint64_t units_to_pmi(const struct xpmu_core *c, int thr,
                             enum xpmu_source source)
{
    const struct xpmu_thread *t = &c->t[thr];
    const struct xpmu_thread *v = &c->t[1 - thr];
    uint64_t best = UINT64_MAX, u;
    int i;

    for (i = 0; i < c->num_gp; i++) {
        const struct xpmu_event *ev = t->gp_event[i];

        if (!gp_counting(c, thr, i) || ev->source != source) {
            continue;
        }
        if ((t->evtsel[i] & XPMU_EVTSEL_INT) ||
            (t->pebs_enable & (UINT64_C(1) << i))) {
            u = units_to_reach(ev, &t->gp[i],
                               XPMU_CTR_MASK + 1 - t->gp[i].value);
            best = u < best ? u : best;
        }
        if (c->erratum && ev->corrupting && v->present &&
            xpmu_gp_enabled(c, 1 - thr, i) &&
            (v->evtsel[i] & XPMU_EVTSEL_INT)) {
            u = units_to_reach(ev, &t->gp[i],
                               XPMU_CTR_MASK + 1 - v->gp[i].value);
            best = u < best ? u : best;
        }
    }
    for (i = 0; i < XPMU_NUM_FIXED; i++) {
        const struct xpmu_event *ev = &xpmu_fixed_events[i];

        if (!fixed_counting(t, i) || ev->source != source ||
            (!(fixed_nibble(t, i) & XPMU_FIXED_PMI) &&
             !(t->pebs_enable &
               (UINT64_C(1) << (XPMU_GLOBAL_FIXED_SHIFT + i))))) {
            continue;
        }
        u = units_to_reach(ev, &t->fixed[i],
                           XPMU_CTR_MASK + 1 - t->fixed[i].value);
        best = u < best ? u : best;
    }
    return best;
}

/**
 * xpmu_clock_deadline() - when must the glue settle for a clock overflow?
 * @c: the core
 * @thr: the thread
 *
 * Return: the virtual time at which the first counter of @thr with its
 * interrupt bit that counts cycles overflows if nothing changes, or
 * XPMU_NO_NS.
 */
int64_t xpmu_clock_deadline(const struct xpmu_core *c, int thr)
{
    uint64_t u;

    if (!c->t[thr].present) {
        return XPMU_NO_NS;
    }
    u = units_to_pmi(c, thr, XPMU_SRC_CYCLES);
    if (u >= (uint64_t)(XPMU_NO_NS - c->last_ns)) {
        return XPMU_NO_NS;
    }
    return c->last_ns + (int64_t)u;
}

/**
 * xpmu_insn_deadline() - when must the glue settle for an instruction
 * overflow?
 * @c: the core
 * @thr: the thread
 *
 * Return: the retired-instruction count of @thr at which the first counter
 * with its interrupt bit that @thr's instructions drive (its own, or the
 * sibling's through a leak) overflows if nothing changes, or
 * XPMU_NO_INSNS; the count now if a PEBS record is pending (so that the
 * thread's own glue writes it at its next block).
 */
uint64_t xpmu_insn_deadline(const struct xpmu_core *c, int thr)
{
    const struct xpmu_thread *t = &c->t[thr];
    uint64_t u;

    if (!t->present) {
        return XPMU_NO_INSNS;
    }
    /* A PEBS record is due: the thread's glue writes it at once */
    if (t->pebs_pending) {
        return t->last_insns;
    }
    u = units_to_pmi(c, thr, XPMU_SRC_INSNS);
    if (u >= XPMU_NO_INSNS - t->last_insns) {
        return XPMU_NO_INSNS;
    }
    return t->last_insns + u;
}

/**
 * xpmu_ledger_totals() - the core's ledger summed over threads and counters
 * @c: the core
 * @leaked: total counts leaked
 * @settlements: settlements that leaked
 * @exposed_ns: total exposure time
 */
void xpmu_ledger_totals(const struct xpmu_core *c, uint64_t *leaked,
                        uint64_t *settlements, uint64_t *exposed_ns)
{
    int thr, i;

    *leaked = *settlements = *exposed_ns = 0;
    for (thr = 0; thr < XPMU_THREADS; thr++) {
        for (i = 0; i < XPMU_NUM_GP; i++) {
            *leaked += c->ledger[thr][i].leaked;
            *settlements += c->ledger[thr][i].settlements;
            *exposed_ns += c->ledger[thr][i].exposed_ns;
        }
    }
}
