/*
 * Emulated Intel architectural PMU and HT counter-corruption erratum, AMD
 * family 15h core PMU (TCG, -cpu ...,pmu=on): the interface of the QEMU
 * glue.
 *
 * The model itself is xpmu-model.c (pure C). The glue pairs sibling vCPUs
 * into cores, serialises every model call on a core with the core's lock,
 * feeds it virtual time and each vCPU's retired-instruction count, arms
 * the deadlines it returns (a QEMU_CLOCK_VIRTUAL timer per vCPU for cycle
 * counts, an instruction limit checked at the start of every translated
 * block), delivers PMIs through the local APIC's LVTPC, and writes the
 * exposure ledger at exit.
 *
 * Lock order: the BQL before a core lock; a core lock is never held while
 * taking the BQL (PMIs are delivered after the core lock is dropped).
 *
 * Copyright (c) 2026 x86 PMU scheduler maintainers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TARGET_I386_XPMU_H
#define TARGET_I386_XPMU_H

#include "xpmu-model.h"

bool x86_xpmu_realize(X86CPU *cpu, Error **errp);
int x86_xpmu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val);
int x86_xpmu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val);
int x86_xpmu_rdpmc(CPUX86State *env, uint32_t ecx, uint64_t *val);
void x86_xpmu_sync(CPUX86State *env);
void x86_xpmu_cpuid_0xa(CPUX86State *env, uint32_t *eax, uint32_t *ebx,
                        uint32_t *ecx, uint32_t *edx);
bool x86_xpmu_has_pebs(CPUX86State *env);

#ifdef CONFIG_TCG
/* Translator hooks (tcg/sysemu/pmu_helper.c) */
struct TCGOp *x86_xpmu_gen_tb_start(bool kernel);
void x86_xpmu_gen_tb_end(struct TCGOp *count, int num_insns);
#endif

#endif /* TARGET_I386_XPMU_H */
