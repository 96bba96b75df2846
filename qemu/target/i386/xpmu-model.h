/*
 * Emulated Intel architectural PMU (version 3) and the SandyBridge/
 * IvyBridge/Haswell Hyper-Threading counter-corruption erratum, and the
 * AMD family 15h core PMU (six counters, PerfCtrExtCore): the model.
 *
 * This unit is pure C (no QEMU headers): it keeps the PMU registers of the
 * two hardware threads of one core, turns retired instructions and virtual
 * time into counts, applies the erratum's leak between sibling counters and
 * keeps the exposure ledger. The QEMU glue (xpmu.c) serialises every call
 * on a core with the core's lock and passes in "now": the virtual time and
 * each thread's retired-instruction count. The same file is compiled by
 * the user-space unit test (tests/unit/test-xpmu-model.c in this project).
 *
 * Exactness: every operation first settles both threads of the core up to
 * "now" with the state that was in force since the previous settle, and
 * only then reads or changes anything. A counter therefore accrues exactly
 * over the intervals in which it was enabled, and a leak only over the
 * intervals in which both ends were enabled.
 *
 * Copyright (c) 2026 x86 PMU scheduler maintainers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef XPMU_MODEL_H
#define XPMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define XPMU_VERSION            3
#define XPMU_NUM_GP             4
#define XPMU_NUM_FIXED          3
#define XPMU_CTR_BITS           48
#define XPMU_CTR_MASK           ((UINT64_C(1) << XPMU_CTR_BITS) - 1)
#define XPMU_THREADS            2
/* Counters per thread in the largest model (AMD family 15h) */
#define XPMU_MAX_GP             6
/* Architectural events of CPUID.0AH:EBX (all available) */
#define XPMU_NUM_ARCH_EVENTS    7

/* MSR indexes */
#define XPMU_MSR_PMC0           0xc1        /* IA32_PMC0-3, legacy writes */
#define XPMU_MSR_EVNTSEL0       0x186       /* IA32_PERFEVTSEL0-3 */
#define XPMU_MSR_FIXED_CTR0     0x309       /* IA32_FIXED_CTR0-2 */
#define XPMU_MSR_FIXED_CTR_CTRL 0x38d
#define XPMU_MSR_GLOBAL_STATUS  0x38e       /* read-only */
#define XPMU_MSR_GLOBAL_CTRL    0x38f
#define XPMU_MSR_GLOBAL_OVF_CTRL 0x390      /* write 1 to clear */

/*
 * Gracemont (Alder Lake-N, family 6 model 0xbe): architectural PMU
 * version 5, six GP counters, and PEBS in the adaptive format (format 4,
 * baseline) through the DS save area. PERF_CAPABILITIES reports PEBS
 * trap, architectural registers, format 4 and the baseline; no LBR format,
 * no full-width counter writes, no PEBS-via-PT.
 */
#define XPMU_GRT_MODEL          0xbe
#define XPMU_GRT_VERSION        5
#define XPMU_GRT_NUM_GP         6
#define XPMU_MSR_OFFCORE_RSP0   0x1a6       /* OFFCORE_RSP_0-1: registers */
#define XPMU_MSR_PERF_CAPS      0x345       /* read-only */
#define XPMU_MSR_PEBS_ENABLE    0x3f1
#define XPMU_MSR_PEBS_DATA_CFG  0x3f2
#define XPMU_MSR_PEBS_LD_LAT    0x3f6       /* threshold, bits 15:0 */
#define XPMU_MSR_DS_AREA        0x600
/* IA32_MISC_ENABLE: BTS unavailable (PEBS unavailable, bit 12, stays 0) */
#define XPMU_MISC_ENABLE_BTS_UNAVAIL (UINT64_C(1) << 11)
#define XPMU_GRT_PERF_CAPS      ((UINT64_C(1) << 6) |  /* PEBS trap */ \
                                 (UINT64_C(1) << 7) |  /* arch. regs */ \
                                 (UINT64_C(4) << 8) |  /* format 4 */ \
                                 (UINT64_C(1) << 14))  /* baseline */
/* PEBS_DATA_CFG: memory info, GPRs, XMMs, LBRs (entries in 31:24) */
#define XPMU_PEBS_CFG_MEMINFO   (UINT64_C(1) << 0)
#define XPMU_PEBS_CFG_GP        (UINT64_C(1) << 1)
#define XPMU_PEBS_CFG_XMMS      (UINT64_C(1) << 2)
#define XPMU_PEBS_CFG_LBRS      (UINT64_C(1) << 3)
#define XPMU_PEBS_CFG_LBR_SHIFT 24
#define XPMU_PEBS_CFG_VALID     (UINT64_C(0xff00000f))

/*
 * AMD family 15h core PMU (CPUID Fn8000_0001 ECX bit 23, PerfCtrExtCore):
 * six 48-bit counters, PERF_CTL i at 0xc0010200 + 2i and PERF_CTR i at
 * 0xc0010201 + 2i; the legacy K7 MSRs alias the first four counters.
 */
#define XPMU_AMD_NUM_GP         6
#define XPMU_MSR_K7_EVNTSEL0    0xc0010000u /* K7 PERF_CTL0-3 */
#define XPMU_MSR_K7_PERFCTR0    0xc0010004u /* K7 PERF_CTR0-3 */
#define XPMU_K7_NUM             4
#define XPMU_MSR_F15H_PERF_CTL0 0xc0010200u /* + 2i; PERF_CTR i: + 2i + 1 */
#define XPMU_CPUID_PERFCTR_CORE (UINT32_C(1) << 23) /* Fn8000_0001 ECX */

/*
 * Emulator-private MSRs ("XPM\0"): the exposure ledger, readable by the
 * guest. Outside the hypervisor range 0x40000000-0x400000ff and KVM's
 * 0x4b564dxx. Reads of the core totals and of the reading thread's
 * per-counter figures; any write to XPMU_MSR_LEDGER_RESET clears the
 * core's ledger. Other indexes of the range fault (#GP).
 */
#define XPMU_MSR_LEDGER_BASE    0x58504d00u
#define XPMU_LEDGER_LEAKED      0x00    /* core: counts leaked, total */
#define XPMU_LEDGER_EXPOSED_NS  0x01    /* core: exposure time, total ns */
#define XPMU_LEDGER_SETTLEMENTS 0x02    /* core: settlements that leaked */
#define XPMU_LEDGER_ERRATUM     0x03    /* 1: erratum model on, 0: off */
#define XPMU_LEDGER_THREAD      0x04    /* reading thread's index (0/1) */
#define XPMU_LEDGER_SIBLING     0x05    /* 1: the core has two threads */
/* Read by the glue (xpmu.c), not the model: the reading thread's counts */
#define XPMU_LEDGER_INSNS       0x06    /* instructions retired, any CPL */
#define XPMU_LEDGER_INSNS_OS    0x07    /* instructions retired at CPL 0 */
#define XPMU_LEDGER_CTR_LEAKED  0x10    /* +i: leaked into my counter i */
#define XPMU_LEDGER_CTR_EXPOSED 0x20    /* +i: exposure ns of my counter i */
#define XPMU_LEDGER_CTR_SETTLE  0x30    /* +i: settlements into counter i */
#define XPMU_LEDGER_RESET       0xff    /* write: clear the core's ledger */
#define XPMU_MSR_LEDGER_END     (XPMU_MSR_LEDGER_BASE + 0x100)

/* IA32_PERFEVTSELx */
#define XPMU_EVTSEL_EVENT       UINT64_C(0x000000ff)
#define XPMU_EVTSEL_UMASK       UINT64_C(0x0000ff00)
#define XPMU_EVTSEL_USR         (UINT64_C(1) << 16)
#define XPMU_EVTSEL_OS          (UINT64_C(1) << 17)
#define XPMU_EVTSEL_EDGE        (UINT64_C(1) << 18)   /* ignored */
#define XPMU_EVTSEL_PC          (UINT64_C(1) << 19)   /* ignored */
#define XPMU_EVTSEL_INT         (UINT64_C(1) << 20)
#define XPMU_EVTSEL_ANY         (UINT64_C(1) << 21)   /* ignored */
#define XPMU_EVTSEL_EN          (UINT64_C(1) << 22)
#define XPMU_EVTSEL_INV         (UINT64_C(1) << 23)   /* ignored */
#define XPMU_EVTSEL_CMASK       UINT64_C(0xff000000)  /* ignored */
#define XPMU_EVTSEL_RESERVED    UINT64_C(0xffffffff00000000)
/* Gracemont: a PEBS record of this counter has the adaptive format */
#define XPMU_EVTSEL_ADAPTIVE    (UINT64_C(1) << 34)

/*
 * AMD PERF_CTL: bits 31:0 as above (bits 19 and 21 reserved there, accepted
 * and ignored here), EventSelect[11:8] in bits 35:32, GuestOnly (40) and
 * HostOnly (41). Other bits are reserved: #GP.
 */
#define XPMU_AMD_EVTSEL_EVENT_HI   UINT64_C(0x0000000f00000000)
#define XPMU_AMD_EVTSEL_GUESTONLY  (UINT64_C(1) << 40)
#define XPMU_AMD_EVTSEL_HOSTONLY   (UINT64_C(1) << 41)
#define XPMU_AMD_EVTSEL_RESERVED   UINT64_C(0xfffffcf000000000)

/* IA32_FIXED_CTR_CTRL: a nibble per fixed counter */
#define XPMU_FIXED_OS           0x1
#define XPMU_FIXED_USR          0x2
#define XPMU_FIXED_ANY          0x4     /* ignored */
#define XPMU_FIXED_PMI          0x8
#define XPMU_FIXED_CTRL_VALID   UINT64_C(0xfff)
/* Gracemont: fixed counter i's PEBS records are adaptive (bit 32 + 4i) */
#define XPMU_FIXED_ADAPTIVE(i)  (UINT64_C(1) << (32 + 4 * (i)))

/* GLOBAL_CTRL / GLOBAL_STATUS / GLOBAL_OVF_CTRL bits */
#define XPMU_GLOBAL_GP_MASK     UINT64_C(0xf)
#define XPMU_GLOBAL_FIXED_SHIFT 32
#define XPMU_GLOBAL_FIXED_MASK  (UINT64_C(0x7) << XPMU_GLOBAL_FIXED_SHIFT)
#define XPMU_GLOBAL_CTRL_VALID  (XPMU_GLOBAL_GP_MASK | XPMU_GLOBAL_FIXED_MASK)
#define XPMU_OVF_CTRL_VALID     (XPMU_GLOBAL_CTRL_VALID | \
                                 (UINT64_C(3) << 62))   /* OvfBuf, CondChgd */
/* GLOBAL_STATUS: the PEBS buffer reached its interrupt threshold */
#define XPMU_GLOBAL_OVF_BUF     (UINT64_C(1) << 62)
/* Power-up value of GLOBAL_CTRL: every GP counter enabled (SDM, and KVM) */
#define XPMU_GLOBAL_CTRL_RESET  XPMU_GLOBAL_GP_MASK

/* RDPMC ECX */
#define XPMU_RDPMC_FIXED        (UINT32_C(1) << 30)
#define XPMU_RDPMC_FAST         (UINT32_C(1) << 31)  /* low 32 bits only */

/* Return values of the MSR and RDPMC entry points */
#define XPMU_UNHANDLED  0       /* not an MSR of this model */
#define XPMU_OK         1
#define XPMU_FAULT      (-1)    /* #GP */

/* No deadline */
#define XPMU_NO_NS      INT64_MAX
#define XPMU_NO_INSNS   UINT64_MAX

/* Nominal core clock of the cycle events: cycles = virtual ns * 1 */
#define XPMU_CYCLES_NUM 1
#define XPMU_CYCLES_DEN 1

/**
 * enum xpmu_kind - the PMU of a core
 * @XPMU_INTEL: Intel architectural PMU version 3, 4 GP and 3 fixed
 *              counters, the global control MSRs, the erratum model
 * @XPMU_AMD_F15H: AMD family 15h core PMU: 6 counters with their own enable
 *                 bits, no global MSRs, no fixed counters, no erratum
 * @XPMU_INTEL_GRT: Gracemont: Intel architectural PMU version 5, 6 GP and
 *                  3 fixed counters, adaptive PEBS on every counter
 *                  (records written by the glue), no erratum
 */
enum xpmu_kind {
    XPMU_INTEL,
    XPMU_AMD_F15H,
    XPMU_INTEL_GRT,
};

/**
 * enum xpmu_source - what an event counts
 * @XPMU_SRC_NONE: nothing (cannot happen in the guest)
 * @XPMU_SRC_INSNS: retired instructions times num/den
 * @XPMU_SRC_CYCLES: virtual nanoseconds times num/den (nominal clock)
 */
enum xpmu_source {
    XPMU_SRC_NONE,
    XPMU_SRC_INSNS,
    XPMU_SRC_CYCLES,
};

/**
 * struct xpmu_event - an entry of the event table
 * @event: event select code (evtsel bits 7:0; AMD: 11:0, bits 35:32 of
 *         PERF_CTL giving 11:8)
 * @umask: unit mask (evtsel bits 15:8), if @any_umask is false
 * @any_umask: the entry matches every unit mask
 * @corrupting: the event triggers the HT erratum (codes 0xd0-0xd3)
 * @source: what it counts
 * @num: numerator of the rate
 * @den: denominator of the rate (non-zero)
 * @name: the event's name, for the documentation and the tests
 */
struct xpmu_event {
    uint16_t event;
    uint8_t umask;
    bool any_umask;
    bool corrupting;
    enum xpmu_source source;
    uint32_t num;
    uint32_t den;
    const char *name;
};

/**
 * struct xpmu_counter - one counter's value
 * @value: the 48-bit count
 * @frac: remainder of the rate division (< the event's den), so that
 *        num/den rates are exact over any split into settlements
 */
struct xpmu_counter {
    uint64_t value;
    uint64_t frac;
};

/**
 * struct xpmu_thread - the PMU registers of one hardware thread
 * @present: the thread exists (a vCPU is attached)
 * @cpl: privilege level as last told (0: OS, 1-3: USR)
 * @evtsel: IA32_PERFEVTSELx (AMD: PERF_CTLx)
 * @gp_event: event table entry of each evtsel
 * @gp: general-purpose counters (AMD: PERF_CTRx)
 * @fixed_ctrl: IA32_FIXED_CTR_CTRL
 * @fixed: fixed counters (instructions, core cycles, reference cycles)
 * @global_ctrl: IA32_PERF_GLOBAL_CTRL (AMD: every counter's bit, fixed)
 * @global_status: IA32_PERF_GLOBAL_STATUS (overflow bits; AMD: not
 *                 visible to the guest)
 * @last_insns: the thread's retired-instruction count at the last settle
 * @pmi: a counter with its interrupt bit overflowed: deliver a PMI
 * @pebs_enable: IA32_PEBS_ENABLE (Gracemont; GLOBAL_CTRL's bit layout)
 * @pebs_data_cfg: MSR_PEBS_DATA_CFG (Gracemont)
 * @ds_area: IA32_DS_AREA, the linear address of the DS save area
 * @ld_lat: MSR_PEBS_LD_LAT_THRESHOLD
 * @offcore_rsp: MSR_OFFCORE_RSP_0 and _1 (kept, not used by any count)
 * @pebs_pending: counters (GLOBAL_STATUS bits) whose PEBS-enabled overflow
 *                awaits its record: the glue writes it (xpmu_take_pebs())
 */
struct xpmu_thread {
    bool present;
    int cpl;
    uint64_t evtsel[XPMU_MAX_GP];
    const struct xpmu_event *gp_event[XPMU_MAX_GP];
    struct xpmu_counter gp[XPMU_MAX_GP];
    uint64_t fixed_ctrl;
    struct xpmu_counter fixed[XPMU_NUM_FIXED];
    uint64_t global_ctrl;
    uint64_t global_status;
    uint64_t last_insns;
    bool pmi;
    uint64_t pebs_enable;
    uint64_t pebs_data_cfg;
    uint64_t ds_area;
    uint64_t ld_lat;
    uint64_t offcore_rsp[2];
    uint64_t pebs_pending;
};

/**
 * struct xpmu_ledger - leaks that landed in one (enabled) counter
 * @leaked: counts added by the sibling's corrupting event
 * @settlements: settlements that added a non-zero leak
 * @exposed_ns: virtual time during which a corrupting event was enabled
 *              on the sibling's counter of the same index while this
 *              counter was enabled (whether or not anything leaked)
 */
struct xpmu_ledger {
    uint64_t leaked;
    uint64_t settlements;
    uint64_t exposed_ns;
};

/**
 * struct xpmu_core - the two threads of one core
 * @kind: the PMU (Intel, AMD family 15h or Gracemont)
 * @num_gp: GP counters per thread (4 or 6)
 * @erratum: the erratum model is on for this core (Intel only)
 * @last_ns: virtual time of the last settle
 * @t: the threads
 * @ledger: leaks per victim thread and GP counter
 */
struct xpmu_core {
    enum xpmu_kind kind;
    int num_gp;
    bool erratum;
    int64_t last_ns;
    struct xpmu_thread t[XPMU_THREADS];
    struct xpmu_ledger ledger[XPMU_THREADS][XPMU_NUM_GP];
};

/**
 * struct xpmu_now - the instant an operation happens at
 * @ns: virtual time (QEMU_CLOCK_VIRTUAL), monotonic
 * @insns: retired-instruction count of each thread (absent: ignored)
 * @cpl: privilege level of the calling thread after the operation's
 *       settle, or -1 to keep the one last told (timers, exit)
 */
struct xpmu_now {
    int64_t ns;
    uint64_t insns[XPMU_THREADS];
    int cpl;
};

/* The event table */
extern const struct xpmu_event xpmu_events[];
extern const unsigned int xpmu_num_events;
extern const struct xpmu_event xpmu_event_default;
extern const struct xpmu_event xpmu_fixed_events[XPMU_NUM_FIXED];
const struct xpmu_event *xpmu_event_lookup(uint8_t event, uint8_t umask);
extern const struct xpmu_event xpmu_amd_events[];
extern const unsigned int xpmu_amd_num_events;
const struct xpmu_event *xpmu_amd_event_lookup(uint16_t event);
bool xpmu_event_is_corrupting(uint8_t event);

/* Models of the erratum (family 6) */
bool xpmu_model_affected(unsigned int family, unsigned int model);

/* Set-up; no settle */
void xpmu_core_init(struct xpmu_core *c, bool erratum, int64_t now_ns);
void xpmu_core_init_kind(struct xpmu_core *c, enum xpmu_kind kind,
                         bool erratum, int64_t now_ns);
void xpmu_thread_attach(struct xpmu_core *c, int thr, uint64_t insns,
                        int cpl);

/* Operations of thread @thr at @now; each settles both threads first */
void xpmu_settle(struct xpmu_core *c, const struct xpmu_now *now);
void xpmu_sync(struct xpmu_core *c, int thr, const struct xpmu_now *now);
void xpmu_thread_reset(struct xpmu_core *c, int thr,
                       const struct xpmu_now *now);
int xpmu_rdmsr(struct xpmu_core *c, int thr, const struct xpmu_now *now,
               uint32_t msr, uint64_t *val);
int xpmu_wrmsr(struct xpmu_core *c, int thr, const struct xpmu_now *now,
               uint32_t msr, uint64_t val);
int xpmu_rdpmc(struct xpmu_core *c, int thr, const struct xpmu_now *now,
               uint32_t ecx, uint64_t *val);
bool xpmu_is_pmu_msr(uint32_t msr);
bool xpmu_core_has_msr(const struct xpmu_core *c, uint32_t msr);

/* Results, read after an operation (no settle) */
bool xpmu_take_pmi(struct xpmu_core *c, int thr);
uint64_t xpmu_take_pebs(struct xpmu_core *c, int thr);
uint64_t xpmu_pebs_record_cfg(const struct xpmu_core *c, int thr,
                              uint64_t counters);
void xpmu_pebs_done(struct xpmu_core *c, int thr, uint64_t counters,
                    const uint64_t *reset, bool interrupt);
bool xpmu_cpl_sensitive(const struct xpmu_core *c, int thr);
int64_t xpmu_clock_deadline(const struct xpmu_core *c, int thr);
uint64_t xpmu_insn_deadline(const struct xpmu_core *c, int thr);
bool xpmu_gp_enabled(const struct xpmu_core *c, int thr, int i);
uint64_t xpmu_exposed_pairs(const struct xpmu_core *c);
void xpmu_ledger_totals(const struct xpmu_core *c, uint64_t *leaked,
                        uint64_t *settlements, uint64_t *exposed_ns);

/**
 * xpmu_cpuid_0xa() - CPUID leaf 0AH of the emulated PMU
 * @eax: version 3, 4 GP counters, 48 bits, EBX length 7
 * @ebx: 0: every architectural event available
 * @ecx: 0
 * @edx: 3 fixed counters of 48 bits
 */
static inline void xpmu_cpuid_0xa(uint32_t *eax, uint32_t *ebx,
                                  uint32_t *ecx, uint32_t *edx)
{
    *eax = XPMU_VERSION | (XPMU_NUM_GP << 8) | (XPMU_CTR_BITS << 16) |
           (XPMU_NUM_ARCH_EVENTS << 24);
    *ebx = 0;
    *ecx = 0;
    *edx = XPMU_NUM_FIXED | (XPMU_CTR_BITS << 5);
}

/**
 * xpmu_cpuid_0xa_core() - CPUID leaf 0AH of core @c's PMU
 * @c: the core
 * @eax: as xpmu_cpuid_0xa(); Gracemont: version 5, 6 GP counters
 * @ebx: 0
 * @ecx: Gracemont: the fixed counters' bitmap (0x7)
 * @edx: as xpmu_cpuid_0xa(); Gracemont: AnyThread deprecated (bit 15)
 */
static inline void xpmu_cpuid_0xa_core(const struct xpmu_core *c,
                                       uint32_t *eax, uint32_t *ebx,
                                       uint32_t *ecx, uint32_t *edx)
{
    xpmu_cpuid_0xa(eax, ebx, ecx, edx);
    if (c->kind == XPMU_INTEL_GRT) {
        *eax = XPMU_GRT_VERSION | (XPMU_GRT_NUM_GP << 8) |
               (XPMU_CTR_BITS << 16) | (XPMU_NUM_ARCH_EVENTS << 24);
        *ecx = (1u << XPMU_NUM_FIXED) - 1;
        *edx |= 1u << 15;
    }
}

#endif /* XPMU_MODEL_H */
