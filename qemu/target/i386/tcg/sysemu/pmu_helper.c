/*
 * Emulated Intel architectural PMU (TCG, pmu=on): retired-instruction
 * counting in translated code.
 *
 * Every translated block starts with
 *
 *     env->xpmu_insns += <number of guest instructions in the block>;
 *     env->xpmu_insns_os += <the same>;             (CPL 0 blocks only)
 *     if (env->xpmu_insns >= env->xpmu_insn_limit)
 *         helper_xpmu_limit(env);
 *
 * placed after the block's exit-request check. A block's CPL is fixed
 * when it is translated (it is part of the block's flags), so a CPL 0
 * block adds to the kernel's count as a whole, and the instruction that changes CPL (SYSCALL, SYSRET, IRET, an
 * interrupt's entry) ends its block. The ledger MSRs XPMU_LEDGER_INSNS and
 * XPMU_LEDGER_INSNS_OS read both counts, for the guest to measure what a
 * kernel path costs in instructions, exactly and beside no counter it
 * schedules (xpmu.c). The count is not known
 * when the block starts, so the add's constant is patched at the end of
 * translation, the way gen_tb_start()/gen_tb_end() patch icount.
 *
 * So a block's instructions count when the block is entered: a read in
 * the middle of a block (RDMSR) includes the block's later instructions,
 * and a block left early by an exception (a page fault, say) over-counts
 * the instructions after the faulting one, which run again when the block
 * is re-entered. Interrupts are only taken between blocks and do not
 * over-count. RDPMC and WRMSR end their block, so their reads and writes
 * happen at an exact count. An instruction-driven overflow is noticed at
 * the start of the next block (skid: at most the rest of the block in
 * which the counter crossed, up to 512 instructions), and its PMI is taken
 * at the block boundary after that.
 *
 * Copyright (c) 2026 x86 PMU scheduler maintainers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "cpu.h"
#include "exec/helper-proto.h"
#include "tcg/tcg.h"
#include "tcg/tcg-op.h"
#include "exec/helper-gen.h"
#include "xpmu.h"

/**
 * helper_xpmu_limit() - the vCPU reached its instruction limit
 * @env: the vCPU
 *
 * Settles its core: an overflow that is due raises its status bit and
 * PMI; the limit moves to the next deadline.
 */
void helper_xpmu_limit(CPUX86State *env)
{
    x86_xpmu_sync(env);
}

/* Emit env->xpmu_insns_os += @insns (@add) or -= @insns. */
static void xpmu_gen_os(TCGv_i64 insns, bool add)
{
    TCGv_i64 os = tcg_temp_new_i64();

    tcg_gen_ld_i64(os, cpu_env, offsetof(CPUX86State, xpmu_insns_os));
    if (add) {
        tcg_gen_add_i64(os, os, insns);
    } else {
        tcg_gen_sub_i64(os, os, insns);
    }
    tcg_gen_st_i64(os, cpu_env, offsetof(CPUX86State, xpmu_insns_os));
    tcg_temp_free_i64(os);
}

/**
 * x86_xpmu_gen_tb_start() - emit the instruction count of a block
 * @kernel: the block runs at CPL 0
 *
 * Return: the add whose constant x86_xpmu_gen_tb_end() sets.
 */
TCGOp *x86_xpmu_gen_tb_start(bool kernel)
{
    TCGv_i64 insns = tcg_temp_new_i64();
    TCGv_i64 limit = tcg_temp_new_i64();
    TCGLabel *below = gen_new_label();
    TCGOp *count;

    tcg_gen_ld_i64(insns, cpu_env, offsetof(CPUX86State, xpmu_insns));
    if (kernel) {
        /* The kernel's count gains what the add below adds */
        xpmu_gen_os(insns, false);
    }
    /* A dummy constant, replaced by the block's instruction count */
    tcg_gen_add_i64(insns, insns, tcg_constant_i64(0));
    count = tcg_last_op();
    tcg_debug_assert(count->opc == INDEX_op_add_i64);
    tcg_gen_st_i64(insns, cpu_env, offsetof(CPUX86State, xpmu_insns));
    if (kernel) {
        xpmu_gen_os(insns, true);
    }
    tcg_gen_ld_i64(limit, cpu_env, offsetof(CPUX86State, xpmu_insn_limit));
    tcg_gen_brcond_i64(TCG_COND_LTU, insns, limit, below);
    gen_helper_xpmu_limit(cpu_env);
    gen_set_label(below);
    tcg_temp_free_i64(insns);
    tcg_temp_free_i64(limit);
    return count;
}

/**
 * x86_xpmu_gen_tb_end() - set the block's instruction count
 * @count: what x86_xpmu_gen_tb_start() returned
 * @num_insns: guest instructions in the block
 */
void x86_xpmu_gen_tb_end(TCGOp *count, int num_insns)
{
    tcg_set_insn_param(count, 2, tcgv_i64_arg(tcg_constant_i64(num_insns)));
}
