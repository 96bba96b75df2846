/*
 * Emulated Intel architectural PMU and HT counter-corruption erratum, and
 * the AMD family 15h core PMU (TCG, -cpu ...,pmu=on): the QEMU glue around
 * xpmu-model.c.
 *
 * Copyright (c) 2026 x86 PMU scheduler maintainers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/main-loop.h"
#include "qemu/notify.h"
#include "qemu/queue.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "sysemu/reset.h"
#include "sysemu/runstate.h"
#include "sysemu/sysemu.h"
#include "hw/i386/apic.h"
#include "cpu.h"
#include "xpmu.h"

/**
 * struct XPMUCore - a core of the emulated host: two sibling vCPUs
 * @lock: serialises every model call on the core
 * @m: the model's state
 * @cpu: the vCPUs, by thread index (NULL: not present)
 * @socket_id: topology of the core
 * @die_id: topology of the core
 * @core_id: topology of the core
 * @pair: thread_id / 2 (the model pairs threads 2k and 2k+1)
 * @index: order of creation, for the ledger
 * @next: list of all cores
 */
typedef struct XPMUCore {
    QemuMutex lock;
    struct xpmu_core m;
    X86CPU *cpu[XPMU_THREADS];
    int32_t socket_id, die_id, core_id, pair;
    unsigned int index;
    QLIST_ENTRY(XPMUCore) next;
} XPMUCore;

static QLIST_HEAD(, XPMUCore) xpmu_cores = QLIST_HEAD_INITIALIZER(xpmu_cores);
static unsigned int xpmu_num_cores;
static Notifier xpmu_exit_notifier;

static int xpmu_cpl(CPUX86State *env)
{
    return env->hflags & HF_CPL_MASK;
}

/* "now" for the model: virtual time and both threads' instruction counts */
static void xpmu_now(XPMUCore *c, struct xpmu_now *now, int cpl)
{
    int t;

    now->ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    for (t = 0; t < XPMU_THREADS; t++) {
        now->insns[t] = c->cpu[t] ?
                        qatomic_read(&c->cpu[t]->env.xpmu_insns) : 0;
    }
    now->cpl = cpl;
}

/*
 * The DS save area of a 64-bit kernel (Intel SDM vol. 3, "DS Save Area"):
 * the PEBS fields, then a reset value per counter (format 4: GP counter i
 * at slot i, fixed counter i at slot 8 + i).
 */
#define XPMU_DS_PEBS_BASE       0x20
#define XPMU_DS_PEBS_INDEX      0x28
#define XPMU_DS_PEBS_MAX        0x30
#define XPMU_DS_PEBS_THRESHOLD  0x38
#define XPMU_DS_PEBS_RESET      0x40
#define XPMU_DS_RESET_FIXED     8
/* Record groups: basic 4, memory info 4, GPRs 18, XMMs 32 words; LBRs 3 */
#define XPMU_PEBS_LBR_WORDS     3
#define XPMU_PEBS_MAX_WORDS     (4 + 4 + 18 + 32 + 256 * XPMU_PEBS_LBR_WORDS)

/*
 * One adaptive PEBS record (format 4) of the vCPU @env for @counters,
 * in @rec; returns its size in words. The basic group is real (the vCPU's
 * next instruction, the TSC); so are the GPR and XMM groups. The memory
 * info group is synthetic: the data address is the stack pointer, the
 * data source 0 and the load latency one above the threshold; LBR
 * entries are zero (the model has no LBR).
 */
static size_t xpmu_pebs_record(XPMUCore *c, CPUX86State *env,
                               uint64_t counters, uint64_t *rec)
{
    int thr = env->xpmu_thread;
    uint64_t cfg = xpmu_pebs_record_cfg(&c->m, thr, counters);
    size_t n = 4;
    int i;

    rec[1] = env->eip + env->segs[R_CS].base;
    rec[2] = counters;
    rec[3] = cpu_get_tsc(env) + env->tsc_offset;
    if (cfg & XPMU_PEBS_CFG_MEMINFO) {
        rec[n++] = env->regs[R_ESP];
        rec[n++] = 0;
        /* instr_latency 15:0, cache_latency 47:32 */
        rec[n++] = 1 | ((c->m.t[thr].ld_lat + 1) & 0xffff) << 32;
        rec[n++] = 0;
    }
    if (cfg & XPMU_PEBS_CFG_GP) {
        static const int order[] = { R_EAX, R_ECX, R_EDX, R_EBX, R_ESP,
                                     R_EBP, R_ESI, R_EDI };

        rec[n++] = cpu_compute_eflags(env);
        rec[n++] = rec[1];
        for (i = 0; i < ARRAY_SIZE(order); i++) {
            rec[n++] = env->regs[order[i]];
        }
        for (i = 8; i < 16; i++) {
            rec[n++] = env->regs[i];
        }
    }
    if (cfg & XPMU_PEBS_CFG_XMMS) {
        for (i = 0; i < 16; i++) {
            rec[n++] = env->xmm_regs[i].ZMM_Q(0);
            rec[n++] = env->xmm_regs[i].ZMM_Q(1);
        }
    }
    if (cfg & XPMU_PEBS_CFG_LBRS) {
        size_t words = (((cfg >> XPMU_PEBS_CFG_LBR_SHIFT) & 0xff) + 1) *
                       XPMU_PEBS_LBR_WORDS;

        memset(&rec[n], 0, words * sizeof(*rec));
        n += words;
    }
    /* format_group 31:0, retire_latency 47:32 (0), record size 63:48 */
    rec[0] = (cfg & UINT32_MAX) | (uint64_t)(n * 8) << 48;
    for (i = 0; i < n; i++) {
        rec[i] = cpu_to_le64(rec[i]);
    }
    return n;
}

/*
 * The PEBS assist of @counters on the vCPU @env, its own thread, with the
 * core's lock held: the record goes to the DS area's PEBS buffer (not if
 * the buffer is full, or the DS area cannot be read), the index moves on,
 * the counters restart from their reset values, and at the threshold the
 * model requests the PMI. Guest memory is reached by linear address
 * through the vCPU's page tables, as the hardware does.
 */
static void xpmu_pebs_assist(XPMUCore *c, CPUX86State *env, uint64_t counters)
{
    CPUState *cs = env_cpu(env);
    int thr = env->xpmu_thread;
    uint64_t ds = c->m.t[thr].ds_area;
    uint64_t reset[XPMU_MAX_GP + XPMU_NUM_FIXED] = { 0 };
    uint64_t hdr[4], rec[XPMU_PEBS_MAX_WORDS], index;
    bool interrupt = false;
    size_t n;
    int i;

    if (!ds || cpu_memory_rw_debug(cs, ds + XPMU_DS_PEBS_BASE, hdr,
                                   sizeof(hdr), false)) {
        xpmu_pebs_done(&c->m, thr, counters, reset, false);
        return;
    }
    for (i = 0; i < c->m.num_gp; i++) {
        if (counters & (UINT64_C(1) << i)) {
            cpu_memory_rw_debug(cs, ds + XPMU_DS_PEBS_RESET + 8 * i,
                                &reset[i], 8, false);
            reset[i] = le64_to_cpu(reset[i]);
        }
    }
    for (i = 0; i < XPMU_NUM_FIXED; i++) {
        if (counters & (UINT64_C(1) << (XPMU_GLOBAL_FIXED_SHIFT + i))) {
            cpu_memory_rw_debug(cs, ds + XPMU_DS_PEBS_RESET +
                                8 * (XPMU_DS_RESET_FIXED + i),
                                &reset[XPMU_MAX_GP + i], 8, false);
            reset[XPMU_MAX_GP + i] = le64_to_cpu(reset[XPMU_MAX_GP + i]);
        }
    }
    index = le64_to_cpu(hdr[1]);
    n = xpmu_pebs_record(c, env, counters, rec);
    if (index + n * 8 <= le64_to_cpu(hdr[2]) &&
        !cpu_memory_rw_debug(cs, index, rec, n * 8, true)) {
        index += n * 8;
        hdr[1] = cpu_to_le64(index);
        cpu_memory_rw_debug(cs, ds + XPMU_DS_PEBS_INDEX, &hdr[1], 8, true);
    }
    interrupt = index >= le64_to_cpu(hdr[3]);
    xpmu_pebs_done(&c->m, thr, counters, reset, interrupt);
}

/*
 * After a model call, with the lock held: write the PEBS records of the
 * calling vCPU @self (NULL: called from the main loop; a thread with a
 * record due has an instruction limit that is due at once, so its own
 * next block writes it), publish each thread's CPL hook flag and
 * instruction limit, arm its cycle timer, and collect the PMIs to deliver
 * once the lock is dropped.
 */
static void xpmu_publish(XPMUCore *c, bool pmi[XPMU_THREADS],
                         CPUX86State *self)
{
    int t;

    if (self) {
        uint64_t counters = xpmu_take_pebs(&c->m, self->xpmu_thread);

        if (counters) {
            xpmu_pebs_assist(c, self, counters);
        }
    }
    for (t = 0; t < XPMU_THREADS; t++) {
        CPUX86State *env;
        int64_t ns;

        pmi[t] = false;
        if (!c->cpu[t]) {
            continue;
        }
        env = &c->cpu[t]->env;
        qatomic_set(&env->xpmu_cpl_hook, xpmu_cpl_sensitive(&c->m, t));
        qatomic_set(&env->xpmu_insn_limit, xpmu_insn_deadline(&c->m, t));
        /* A counting cycle counter keeps its deadline: re-arm on change */
        ns = xpmu_clock_deadline(&c->m, t);
        if (ns == XPMU_NO_NS) {
            if (timer_pending(env->xpmu_timer)) {
                timer_del(env->xpmu_timer);
            }
        } else if ((int64_t)timer_expire_time_ns(env->xpmu_timer) != ns) {
            timer_mod(env->xpmu_timer, ns);
        }
        pmi[t] = xpmu_take_pmi(&c->m, t);
    }
}

/*
 * PMIs through LVTPC, under the BQL. Like hardware, the delivery sets the
 * LVTPC mask bit (apic_deliver_pmi()); the guest's handler unmasks it.
 */
static void xpmu_deliver(XPMUCore *c, const bool pmi[XPMU_THREADS])
{
    bool locked;
    int t;

    if (!pmi[0] && !pmi[1]) {
        return;
    }
    locked = qemu_mutex_iothread_locked();
    if (!locked) {
        qemu_mutex_lock_iothread();
    }
    for (t = 0; t < XPMU_THREADS; t++) {
        DeviceState *apic = c->cpu[t] ? c->cpu[t]->apic_state : NULL;

        if (pmi[t] && apic && object_dynamic_cast(OBJECT(apic), "apic")) {
            apic_deliver_pmi(apic);
        }
    }
    if (!locked) {
        qemu_mutex_unlock_iothread();
    }
}

/**
 * x86_xpmu_sync() - settle the vCPU's core now and act on the result
 * @env: the vCPU, running
 *
 * Called when the vCPU reaches its instruction limit (helper_xpmu_limit).
 */
void x86_xpmu_sync(CPUX86State *env)
{
    XPMUCore *c = env->xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];

    if (!c) {
        return;
    }
    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, xpmu_cpl(env));
    xpmu_sync(&c->m, env->xpmu_thread, &now);
    xpmu_publish(c, pmi, env);
    qemu_mutex_unlock(&c->lock);
    xpmu_deliver(c, pmi);
}

/**
 * x86_xpmu_cpl_changed() - the vCPU moves between CPL 0 and CPL 1-3
 * @env: the vCPU, with the old CPL still in hflags
 * @cpl: the new CPL
 *
 * Called from cpu_x86_load_seg_cache() while env->xpmu_cpl_hook is set
 * (an enabled counter counts in one of USR/OS only): settles the core
 * with the old CPL, then the model counts with the new one.
 */
void x86_xpmu_cpl_changed(CPUX86State *env, int cpl)
{
    XPMUCore *c = env->xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];

    if (!c) {
        return;
    }
    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, cpl);
    xpmu_sync(&c->m, env->xpmu_thread, &now);
    xpmu_publish(c, pmi, env);
    qemu_mutex_unlock(&c->lock);
    xpmu_deliver(c, pmi);
}

/**
 * x86_xpmu_rdmsr() - RDMSR of an emulated PMU or ledger MSR
 * @env: the vCPU
 * @msr: MSR index
 * @val: the value read
 *
 * Return: XPMU_OK, XPMU_FAULT (raise #GP) or XPMU_UNHANDLED (no emulated
 * PMU, or not one of its MSRs).
 */
int x86_xpmu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val)
{
    XPMUCore *c = env->xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];
    int r;

    if (!c || !xpmu_core_has_msr(&c->m, msr)) {
        return XPMU_UNHANDLED;
    }
    /* The vCPU's own instruction counts: no settling needed */
    if (msr == XPMU_MSR_LEDGER_BASE + XPMU_LEDGER_INSNS) {
        *val = qatomic_read(&env->xpmu_insns);
        return XPMU_OK;
    }
    if (msr == XPMU_MSR_LEDGER_BASE + XPMU_LEDGER_INSNS_OS) {
        *val = qatomic_read(&env->xpmu_insns_os);
        return XPMU_OK;
    }
    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, xpmu_cpl(env));
    r = xpmu_rdmsr(&c->m, env->xpmu_thread, &now, msr, val);
    xpmu_publish(c, pmi, env);
    qemu_mutex_unlock(&c->lock);
    xpmu_deliver(c, pmi);
    return r;
}

/*
 * XPMU_TRACE=FILE: one line per WRMSR that exposes a counter to the erratum
 * (xpmu_exposed_pairs() gains a bit), with the virtual time, the writing
 * thread and its RIP, the MSR and value, the exposed pairs before and
 * after (bit 4 * thread + counter: the thread of the corrupting event),
 * the core's exposure so far, the sibling's RIP and both threads' event
 * selects. A leak with the workaround on is then traced to the kernel
 * code that enabled the counter (boot with nokaslr and read System.map).
 * Buffered; written out at exit.
 */
static FILE *xpmu_trace;

static void xpmu_trace_open(void)
{
    static bool done;
    const char *path;

    if (done) {
        return;
    }
    done = true;
    path = getenv("XPMU_TRACE");
    if (!path || !*path) {
        return;
    }
    xpmu_trace = fopen(path, "w");
    if (!xpmu_trace) {
        error_report("xpmu: cannot write the trace to %s: %s", path,
                     strerror(errno));
        return;
    }
    setvbuf(xpmu_trace, NULL, _IOFBF, 1 << 20);
}

/* With the core's lock held, after a WRMSR that exposed new pairs. */
static void xpmu_trace_exposure(XPMUCore *c, CPUX86State *env, uint32_t msr,
                                uint64_t val, uint64_t before, uint64_t after)
{
    const struct xpmu_thread *t0 = &c->m.t[0], *t1 = &c->m.t[1];
    X86CPU *sib = c->cpu[1 - env->xpmu_thread];
    uint64_t leaked, settlements, exposed;

    xpmu_ledger_totals(&c->m, &leaked, &settlements, &exposed);
    fprintf(xpmu_trace, "ns=%" PRId64 " core=%u thread=%d rip=%#" PRIx64
            " msr=%#x val=%#" PRIx64 " pairs=%#" PRIx64 "->%#" PRIx64
            " exposed_ns=%" PRIu64 " sibling_rip=%#" PRIx64
            " evtsel0=%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64
            " evtsel1=%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64 "\n",
            qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL), c->index,
            env->xpmu_thread, (uint64_t)env->eip, msr, val, before, after,
            exposed, sib ? (uint64_t)sib->env.eip : 0,
            t0->evtsel[0], t0->evtsel[1], t0->evtsel[2], t0->evtsel[3],
            t1->evtsel[0], t1->evtsel[1], t1->evtsel[2], t1->evtsel[3]);
}

/**
 * x86_xpmu_wrmsr() - WRMSR of an emulated PMU or ledger MSR
 * @env: the vCPU
 * @msr: MSR index
 * @val: the value written
 *
 * Return: XPMU_OK, XPMU_FAULT (raise #GP) or XPMU_UNHANDLED.
 */
int x86_xpmu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val)
{
    XPMUCore *c = env->xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];
    int r;

    if (!c || !xpmu_core_has_msr(&c->m, msr)) {
        return XPMU_UNHANDLED;
    }
    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, xpmu_cpl(env));
    if (xpmu_trace) {
        uint64_t before = xpmu_exposed_pairs(&c->m), after;

        r = xpmu_wrmsr(&c->m, env->xpmu_thread, &now, msr, val);
        after = xpmu_exposed_pairs(&c->m);
        if (after & ~before) {
            xpmu_trace_exposure(c, env, msr, val, before, after);
        }
    } else {
        r = xpmu_wrmsr(&c->m, env->xpmu_thread, &now, msr, val);
    }
    xpmu_publish(c, pmi, env);
    qemu_mutex_unlock(&c->lock);
    xpmu_deliver(c, pmi);
    return r;
}

/**
 * x86_xpmu_rdpmc() - RDPMC
 * @env: the vCPU (CR4.PCE and CPL already checked)
 * @ecx: counter selector
 * @val: the counter's value
 *
 * Return: XPMU_OK, XPMU_FAULT (raise #GP) or XPMU_UNHANDLED (no PMU).
 */
int x86_xpmu_rdpmc(CPUX86State *env, uint32_t ecx, uint64_t *val)
{
    XPMUCore *c = env->xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];
    int r;

    if (!c) {
        return XPMU_UNHANDLED;
    }
    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, xpmu_cpl(env));
    r = xpmu_rdpmc(&c->m, env->xpmu_thread, &now, ecx, val);
    xpmu_publish(c, pmi, env);
    qemu_mutex_unlock(&c->lock);
    xpmu_deliver(c, pmi);
    return r;
}

/* A cycle counter of this vCPU overflows now (main loop, BQL held). */
static void xpmu_timer_cb(void *opaque)
{
    X86CPU *cpu = opaque;
    XPMUCore *c = cpu->env.xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];

    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, -1);
    xpmu_sync(&c->m, cpu->env.xpmu_thread, &now);
    xpmu_publish(c, pmi, NULL);
    qemu_mutex_unlock(&c->lock);
    xpmu_deliver(c, pmi);
}

/* Machine reset: the PMU registers take their power-up values. */
static void xpmu_reset(void *opaque)
{
    X86CPU *cpu = opaque;
    XPMUCore *c = cpu->env.xpmu_core;
    struct xpmu_now now;
    bool pmi[XPMU_THREADS];

    qemu_mutex_lock(&c->lock);
    xpmu_now(c, &now, -1);
    xpmu_thread_reset(&c->m, cpu->env.xpmu_thread, &now);
    xpmu_publish(c, pmi, NULL);
    qemu_mutex_unlock(&c->lock);
}

static const char *xpmu_onoff(bool on)
{
    return on ? "on" : "off";
}

/*
 * At exit: settle every core, close the trace (XPMU_TRACE) and, if
 * XPMU_LEDGER names a file, write the ledger there. First line: the
 * totals; then one line per victim counter with non-zero figures.
 */
static void xpmu_exit(Notifier *n, void *data)
{
    const char *path = getenv("XPMU_LEDGER");
    uint64_t leaked = 0, settlements = 0, exposed = 0;
    bool any_on = false, any_off = false;
    XPMUCore *c;
    FILE *f;

    QLIST_FOREACH(c, &xpmu_cores, next) {
        struct xpmu_now now;
        uint64_t l, s, x;

        qemu_mutex_lock(&c->lock);
        xpmu_now(c, &now, -1);
        xpmu_settle(&c->m, &now);
        xpmu_ledger_totals(&c->m, &l, &s, &x);
        qemu_mutex_unlock(&c->lock);
        leaked += l;
        settlements += s;
        exposed += x;
        any_on |= c->m.erratum;
        any_off |= !c->m.erratum;
    }
    if (xpmu_trace) {
        fclose(xpmu_trace);
        xpmu_trace = NULL;
    }
    if (!path || !*path) {
        return;
    }
    f = fopen(path, "w");
    if (!f) {
        error_report("xpmu: cannot write the ledger to %s: %s", path,
                     strerror(errno));
        return;
    }
    fprintf(f, "xpmu-ledger: leaked=%" PRIu64 " settlements=%" PRIu64
            " exposed_ns=%" PRIu64 " erratum=%s cores=%u\n",
            leaked, settlements, exposed,
            any_on && any_off ? "mixed" : xpmu_onoff(any_on), xpmu_num_cores);
    QLIST_FOREACH(c, &xpmu_cores, next) {
        int t, i;

        for (t = 0; t < XPMU_THREADS; t++) {
            for (i = 0; i < XPMU_NUM_GP; i++) {
                const struct xpmu_ledger *l = &c->m.ledger[t][i];

                if (!l->leaked && !l->settlements && !l->exposed_ns) {
                    continue;
                }
                fprintf(f, "core=%u socket=%d die=%d core-id=%d thread=%d"
                        " counter=%d leaked=%" PRIu64 " settlements=%" PRIu64
                        " exposed_ns=%" PRIu64 "\n", c->index, c->socket_id,
                        c->die_id, c->core_id, c->pair * 2 + t, i, l->leaked,
                        l->settlements, l->exposed_ns);
            }
        }
    }
    if (fclose(f)) {
        error_report("xpmu: cannot write the ledger to %s: %s", path,
                     strerror(errno));
    }
}

static unsigned int xpmu_display_family(uint32_t version)
{
    unsigned int family = (version >> 8) & 0xf;

    return family == 0xf ? family + ((version >> 20) & 0xff) : family;
}

static unsigned int xpmu_display_model(uint32_t version)
{
    return ((version >> 4) & 0xf) | ((version >> 12) & 0xf0);
}

/**
 * x86_xpmu_cpuid_0xa() - CPUID leaf 0AH of the vCPU's emulated PMU
 * @env: the vCPU, with an emulated Intel PMU
 * @eax: version, GP counters, width
 * @ebx: architectural events unavailable (none)
 * @ecx: fixed counters' bitmap (version 5)
 * @edx: fixed counters, width
 */
void x86_xpmu_cpuid_0xa(CPUX86State *env, uint32_t *eax, uint32_t *ebx,
                        uint32_t *ecx, uint32_t *edx)
{
    xpmu_cpuid_0xa_core(&env->xpmu_core->m, eax, ebx, ecx, edx);
}

/**
 * x86_xpmu_has_pebs() - does the vCPU's emulated PMU have PEBS?
 * @env: the vCPU
 *
 * Return: true on Gracemont: CPUID then reports DS, DTES64 and PDCM, and
 * IA32_MISC_ENABLE says PEBS available, BTS unavailable.
 */
bool x86_xpmu_has_pebs(CPUX86State *env)
{
    return env->xpmu_core && env->xpmu_core->m.kind == XPMU_INTEL_GRT;
}

/**
 * x86_xpmu_realize() - attach the emulated PMU to a vCPU (TCG)
 * @cpu: the vCPU, topology ids set, not running yet
 * @errp: error
 *
 * With pmu=on on an Intel CPU model: finds or creates the vCPU's core
 * (same socket, die, core and thread_id / 2), the erratum model per the
 * ht-erratum property (auto: on for the affected models); on family 6
 * model 0xbe (model=190: Gracemont, Alder Lake-N) the version 5 PMU with
 * six GP counters and PEBS, no erratum. With pmu=on on
 * an AMD family 15h model (Opteron_G4, Opteron_G5): the family 15h core
 * PMU, no erratum. Without pmu=on, or on other models: nothing, as before.
 *
 * Return: false with @errp set on a configuration error.
 */
bool x86_xpmu_realize(X86CPU *cpu, Error **errp)
{
    CPUX86State *env = &cpu->env;
    unsigned int family = xpmu_display_family(env->cpuid_version);
    unsigned int model = xpmu_display_model(env->cpuid_version);
    int32_t thread_id = cpu->thread_id >= 0 ? cpu->thread_id : 0;
    int thr = thread_id % XPMU_THREADS;
    int32_t pair = thread_id / XPMU_THREADS;
    enum xpmu_kind kind = XPMU_INTEL;
    bool erratum;
    XPMUCore *c;

    if (cpu->enable_pmu && IS_AMD_CPU(env) && family == 0x15 &&
        cpu->ht_erratum != ON_OFF_AUTO_ON) {
        kind = XPMU_AMD_F15H;
    } else if (cpu->enable_pmu && IS_INTEL_CPU(env) && family == 6 &&
               model == XPMU_GRT_MODEL && cpu->ht_erratum != ON_OFF_AUTO_ON) {
        kind = XPMU_INTEL_GRT;
    } else if (!cpu->enable_pmu || !IS_INTEL_CPU(env)) {
        if (cpu->ht_erratum == ON_OFF_AUTO_ON) {
            error_setg(errp, "ht-erratum=on needs pmu=on and an Intel CPU "
                       "model");
            return false;
        }
        return true;
    }
    if (HOST_LONG_BITS != 64) {
        error_setg(errp, "pmu=on under TCG needs a 64-bit host");
        return false;
    }
    erratum = kind == XPMU_INTEL &&
              (cpu->ht_erratum == ON_OFF_AUTO_AUTO ?
               xpmu_model_affected(family, model) :
               cpu->ht_erratum == ON_OFF_AUTO_ON);

    QLIST_FOREACH(c, &xpmu_cores, next) {
        if (c->socket_id == cpu->socket_id && c->die_id == cpu->die_id &&
            c->core_id == cpu->core_id && c->pair == pair) {
            break;
        }
    }
    if (c && c->cpu[thr]) {
        error_setg(errp, "pmu: two vCPUs with socket %d die %d core %d "
                   "thread %d", cpu->socket_id, cpu->die_id, cpu->core_id,
                   thread_id);
        return false;
    }
    if (c && c->m.kind != kind) {
        error_setg(errp, "pmu: vCPUs of two PMU models in one core");
        return false;
    }
    if (c && c->m.erratum != erratum) {
        error_setg(errp, "ht-erratum=%s on a vCPU whose sibling has "
                   "ht-erratum=%s", xpmu_onoff(erratum),
                   xpmu_onoff(c->m.erratum));
        return false;
    }
    if (!c) {
        c = g_new0(XPMUCore, 1);
        qemu_mutex_init(&c->lock);
        xpmu_core_init_kind(&c->m, kind, erratum,
                            qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
        c->socket_id = cpu->socket_id;
        c->die_id = cpu->die_id;
        c->core_id = cpu->core_id;
        c->pair = pair;
        c->index = xpmu_num_cores++;
        QLIST_INSERT_HEAD(&xpmu_cores, c, next);
        if (c->index == 0) {
            xpmu_exit_notifier.notify = xpmu_exit;
            qemu_add_exit_notifier(&xpmu_exit_notifier);
            xpmu_trace_open();
        }
    }

    env->xpmu_insns = 0;
    env->xpmu_insns_os = 0;
    env->xpmu_insn_limit = XPMU_NO_INSNS;
    env->xpmu_cpl_hook = false;
    env->xpmu_thread = thr;
    env->xpmu_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, xpmu_timer_cb, cpu);
    qemu_mutex_lock(&c->lock);
    c->cpu[thr] = cpu;
    xpmu_thread_attach(&c->m, thr, 0, 0);
    qemu_mutex_unlock(&c->lock);
    env->xpmu_core = c;
    qemu_register_reset(xpmu_reset, cpu);
    return true;
}
