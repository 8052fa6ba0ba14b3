/* SPDX-License-Identifier: Apache-2.0 */
/* system.c: armprof-qemu-system, the SPE backend of the patched qemu-system-aarch64: one SPU per vCPU behind the guest's own SPE registers, fed by the guest's instruction stream. */
/*
 * Two interfaces meet here (docs/linux.md):
 *  - QEMU's SPE backend interface (qemu_spe_api.h, added by qemu/patches): the guest's MRS/MSR of
 *    the SPE System registers, CPU reset and Exception level changes come in; buffer writes go
 *    out through the guest's own translation regime, and PMBIRQ goes to the GIC.
 *  - The TCG plugin interface: translated blocks and memory accesses. As in the user-mode plugin
 *    (plugin.c), a vCPU counts the operations it may skip before its next sample point
 *    (spu_ops_until_sample()), one callback per block; the block that holds the sample point arms
 *    that instruction, whose memory callback gives the data VA and PA and whose successor block
 *    gives the branch outcome. The sampled operation is then spu_retire()d.
 * Time: each SPU's cycle is one nanosecond of QEMU's virtual clock, so spu_now() / cycles_per_tick
 * is the Generic Timer's physical count and the Timestamp packets match the guest's CNTPCT_EL0.
 * The SPU is brought to "now" at every sample, register access, PSB CSYNC and Exception level
 * change, which is when the guest can observe it.
 * Instrumentation starts with the first write that enables a Profiling Buffer (PMBLIMITR_EL1.E):
 * before that the plugin costs nothing per instruction (qemu_plugin_reset() flushes the
 * translated code once so that blocks are instrumented from then on).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "a64.h"
#include "armprof/spu.h"
#include "insn_op.h"
#include "memsys.h"
#include "plugin_args.h"
#include "qemu_plugin_api.h"
#include "qemu_spe_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS 256
#define PSB_CSYNC 0xD503223Fu           /* HINT #17 */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    fprintf(stderr, "armprof-qemu-system: %s\n", b);
}

/* ----- Options ------------------------------------------------------------------------------ */

typedef struct options {
    spu_config spu;
    memsys_config ms;
    bool cache;                 /* accesses of a profiled context go through the cache model */
    bool warm_all;              /* every access through the whole model (else: L1D and TLB only,
                                 * outside the window before each sample point) */
    uint32_t warm_ops;          /* the window: operations before a sample point */
    uint32_t warm_every;        /* outside the window, one access in this many warms L1D/TLB (0: none) */
    bool v1p2;                  /* FEAT_SPEv1p2 (PMSVer 0b0011) */
    char out[PATH_MAX];         /* where the summary goes at exit; empty: none */
    char regs_log[PATH_MAX];    /* every register access, for tests; empty: none */
} options;

static options opt;
static qemu_plugin_id_t plugin_id;
static FILE *regs_log;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const usage_keys =
    "out, regs_log, min_interval, max_record, count_size, lds, ernd, align, v1p2, fifo, inflight, "
    "cache (on, off, all), warm_ops, warm_every, and the core model's";

/* PMSIDR_EL1.Interval encodings (seed 001 §4.3.5): the minimum sampling interval they stand for. */
static const uint32_t interval_of_enc[9] = { 256, 0, 512, 768, 1024, 1536, 2048, 3072, 4096 };

static int parse_arg(const char *arg)
{
    char key[64];
    const char *v;
    if (pa_split(arg, key, sizeof key, &v)) {
        say("option '%s': expected key=value (keys: %s: %s)", arg, usage_keys, pa_memsys_keys);
        return -1;
    }
    uint32_t x;
    uint32_t *mf = pa_memsys_field(&opt.ms, key);
    if (mf) {
        if (pa_u32(v, mf)) {
            say("option '%s': '%s' is not a number", key, v);
            return -1;
        }
        return 0;
    }
    struct { const char *name; uint32_t *p; } u32s[] = {
        { "fifo", &opt.spu.fifo_bytes }, { "inflight", &opt.spu.max_inflight },
        { "warm_ops", &opt.warm_ops }, { "warm_every", &opt.warm_every },
    };
    for (size_t i = 0; i < sizeof u32s / sizeof u32s[0]; i++)
        if (!strcmp(key, u32s[i].name)) {
            if (pa_u32(v, u32s[i].p)) {
                say("option '%s': '%s' is not a number", key, v);
                return -1;
            }
            return 0;
        }
    bool b;
    if (!strcmp(key, "out") || !strcmp(key, "regs_log")) {
        char *dst = key[0] == 'o' ? opt.out : opt.regs_log;
        if (!*v || strlen(v) >= PATH_MAX - 64) {
            say("option '%s': empty or too long path", key);
            return -1;
        }
        snprintf(dst, PATH_MAX, "%s", v);
    } else if (!strcmp(key, "min_interval")) {
        int enc = -1;
        if (!pa_u32(v, &x))
            for (int e = 0; e < 9; e++)
                if (interval_of_enc[e] && interval_of_enc[e] == x)
                    enc = e;
        if (enc < 0) {
            say("option 'min_interval': '%s' is not one of 256, 512, 768, 1024, 1536, 2048, 3072, 4096 "
                "(PMSIDR_EL1.Interval)", v);
            return -1;
        }
        opt.spu.interval = (uint8_t)enc;
    } else if (!strcmp(key, "max_record")) {
        int e = -1;
        if (!pa_u32(v, &x))
            for (int k = 4; k <= 11; k++)
                if (x == 1u << k)
                    e = k;
        if (e < 0) {
            say("option 'max_record': '%s' is not a power of two from 16 to 2048 bytes (PMSIDR_EL1.MaxSize)", v);
            return -1;
        }
        opt.spu.max_size = (uint8_t)e;
    } else if (!strcmp(key, "align")) {
        int e = -1;
        if (!pa_u32(v, &x))
            for (int k = 0; k <= 11; k++)
                if (x == 1u << k)
                    e = k;
        if (e < 0) {
            say("option 'align': '%s' is not a power of two from 1 to 2048 bytes (PMBIDR_EL1.Align)", v);
            return -1;
        }
        opt.spu.align = (uint8_t)e;
    } else if (!strcmp(key, "count_size")) {
        if (pa_u32(v, &x) || (x != 12 && x != 16)) {
            say("option 'count_size': '%s' is not 12 or 16 (PMSIDR_EL1.CountSize, bits)", v);
            return -1;
        }
        opt.spu.count_size = x == 12 ? 2 : 3;
    } else if (!strcmp(key, "cache") && !strcmp(v, "all")) {
        opt.cache = opt.warm_all = true;
    } else if (!strcmp(key, "lds") || !strcmp(key, "ernd") || !strcmp(key, "v1p2") ||
               !strcmp(key, "cache")) {
        if (pa_bool(key, v, &b)) {
            say("option '%s': '%s' is not on or off", key, v);
            return -1;
        }
        if (!strcmp(key, "lds")) opt.spu.lds = b;
        else if (!strcmp(key, "ernd")) opt.spu.ernd = b;
        else if (!strcmp(key, "v1p2")) opt.v1p2 = opt.spu.feat_spev1p2 = opt.spu.fne = b;
        else opt.cache = b, opt.warm_all = false;
    } else {
        say("unknown option '%s' (keys: %s: %s)", key, usage_keys, pa_memsys_keys);
        return -1;
    }
    return 0;
}

/* ----- Translation-time descriptions --------------------------------------------------------- */

typedef struct insn_desc {
    insn_static st;             /* PC, branch and load/store decoding */
    uint32_t idx;               /* position in its block */
    bool exc_gen;               /* SVC, HVC, SMC, BRK: generates an exception */
} insn_desc;

typedef struct tb_desc {
    struct tb_desc *next_alloc;
    uint64_t pc;
    uint32_t n;
    bool ends_in_branch;
    insn_desc insn[];
} tb_desc;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tb_desc *all_tbs;

/* ----- Per-vCPU state ------------------------------------------------------------------------- */


typedef struct svcpu {
    int index;                  /* QEMU's cpu_index */
    spu_t *spu;
    memsys ms;
    armprof_pe_ctx ctx;
    uint64_t until;             /* operations to count before the next sample point (UINT64_MAX: none) */
    uint64_t pending;           /* counted, not yet reported to the SPU */
    uint64_t tb_base, insns;    /* instructions before the current block / with it: the memory
                                   model's program-order time (one cycle each) */
    const tb_desc *prev;
    const insn_desc *armed;     /* the instruction at the sample point, in the current block */
    const tb_desc *armed_tb;
    insn_access armed_mem;
    uint64_t warm_line;         /* line number + 1 of the last L1D-only warming access */
    uint32_t warm_count;        /* accesses since it */
    bool armed_mispred;
    bool irq;
    /* figures for the summary */
    uint64_t reg_reads, reg_writes, reg_refused, psb_csyncs, el_changes, irqs, exceptions;
    uint64_t described_statically;
    uint64_t write_faults, write_aborts;
} svcpu;

static svcpu *vcpus[MAX_VCPUS];
static atomic_bool instrumented;

static svcpu *vcpu_of(int idx)
{
    return idx >= 0 && idx < MAX_VCPUS ? vcpus[idx] : NULL;
}

/* ----- The SPU's outputs ---------------------------------------------------------------------- */

/* A Profiling Buffer write, through the owning translation regime's walk in QEMU. */
static armprof_mem_result buf_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                    const armprof_regime *rg)
{
    svcpu *v = user;
    ARMSPEBufferWrite w = {
        .addr = addr, .data = data, .len = len,
        .regime = rg->kind == ARMPROF_REGIME_EL2 ? ARM_SPE_REGIME_EL2
                  : rg->kind == ARMPROF_REGIME_EL20 ? ARM_SPE_REGIME_EL20 : ARM_SPE_REGIME_EL10,
        .secure = rg->ss == ARMPROF_SECURE, .stage2 = rg->stage2, .nvm = rg->nvm,
    };
    ARMSPEWriteResult r;
    arm_spe_buffer_write(v->index, &w, &r);
    armprof_mem_result m = { .status = ARMPROF_MEM_OK, .written = r.written };
    switch (r.status) {
    case ARM_SPE_WRITE_OK:
        break;
    case ARM_SPE_WRITE_FAULT:
        /* seed 002: EC 0x24 for a stage 1 fault, 0x25 for stage 2 (a stage 2 fault on the walk of
         * a stage 1 table included), MSS.FSC the fault status code */
        m.status = ARMPROF_MEM_FAULT;
        m.ec = r.stage2 ? ARMPROF_EC_S2_ABORT : ARMPROF_EC_S1_ABORT;
        m.fsc = (uint8_t)(r.fsc & 0x3F);
        v->write_faults++;
        break;
    default:
        m.status = ARMPROF_MEM_EXT_ABORT;
        m.ec = r.stage2 ? ARMPROF_EC_S2_ABORT : ARMPROF_EC_OTHER;
        m.fsc = (uint8_t)(r.fsc & 0x3F);
        v->write_aborts++;
        break;
    }
    return m;
}

static void on_irq(void *user, bool level)
{
    svcpu *v = user;
    if (level != v->irq) {
        v->irqs += level;
        v->irq = level;
        arm_spe_set_irq(v->index, level);
    }
}

static void on_log(void *user, armprof_log_level level, const char *msg)
{
    svcpu *v = user;
    if (level <= ARMPROF_LOG_WARN)
        say("vCPU %d: %s", v->index, msg);
}

/* ----- The PE context ------------------------------------------------------------------------- */

/* armprof's PE context from QEMU's registers (bit positions: Arm ARM D19, MDCR_EL2, MDCR_EL3,
 * SCR_EL3, HCR_EL2). Without EL3 the Profiling Buffer belongs to Non-secure EL1 (NSPB as 0b11);
 * without EL2, MDCR_EL2 is as if 0b11 in E2PB (no trap, EL1 owns it). */
static void ctx_from_state(armprof_pe_ctx *c, const ARMSPECPUState *st)
{
    armprof_pe_ctx_default(c);
    c->have_el2 = st->have_el2;
    c->have_el3 = st->have_el3;
    c->el = st->el;
    c->aarch32 = st->aarch32;
    c->os_lock = st->os_lock;
    uint64_t scr = st->scr_el3, mdcr2 = st->mdcr_el2, mdcr3 = st->mdcr_el3, hcr = st->hcr_el2;
    if (st->have_el3) {
        c->scr_ns = scr & 1;
        c->scr_ea = (scr >> 3) & 1;
        c->scr_eel2 = (scr >> 18) & 1;
        c->scr_fgten = (scr >> 27) & 1;
        c->mdcr3_nspb = (uint8_t)((mdcr3 >> 12) & 3);
        c->mdcr3_spme = (mdcr3 >> 17) & 1;
        c->mdcr3_nstb = (uint8_t)((mdcr3 >> 24) & 3);
    } else {
        c->scr_ns = !st->secure;
    }
    if (st->have_el2) {
        c->mdcr2_e2pb = (uint8_t)((mdcr2 >> 12) & 3);
        c->mdcr2_tpms = (mdcr2 >> 14) & 1;
        c->mdcr2_e2tb = (uint8_t)((mdcr2 >> 24) & 3);
        c->mdcr2_hpmn = (uint8_t)(mdcr2 & 0x1F);
        c->mdcr2_hpme = (mdcr2 >> 7) & 1;
        c->mdcr2_hpmd = (mdcr2 >> 17) & 1;
        c->hcr_vm = hcr & 1;
        c->hcr_tge = (hcr >> 27) & 1;
        c->hcr_e2h = (hcr >> 34) & 1;
        c->hcr_tea = (hcr >> 37) & 1;
        c->hcr_nv = (hcr >> 42) & 1;
        c->hcr_nv1 = (hcr >> 43) & 1;
        c->hcr_nv2 = (hcr >> 45) & 1;
    }
    c->contextidr_el1 = st->contextidr_el1;
    c->contextidr_el2 = st->contextidr_el2;
    c->cntvoff = st->cntvoff_el2;
    c->timer_enabled = true;
}

/* The counted operations reach the SPU (under the context they ran in), then its time is
 * brought to now. */
static void flush_counts(svcpu *v)
{
    if (v->pending) {
        spu_skip(v->spu, v->pending);
        v->pending = 0;
    }
}

static void advance_to(svcpu *v, uint64_t ns)
{
    uint64_t now = spu_now(v->spu);
    if (ns > now)
        spu_advance(v->spu, ns - now);
}

static void set_context(svcpu *v, const ARMSPECPUState *st)
{
    armprof_pe_ctx c;
    ctx_from_state(&c, st);
    if (memcmp(&c, &v->ctx, sizeof c)) {
        v->ctx = c;
        spu_set_pe_context(v->spu, &c);
    }
}

/* Everything the SPU was told is up to date, in the state `st`; the sample point recomputed. */
static void sync_to(svcpu *v, const ARMSPECPUState *st)
{
    flush_counts(v);
    advance_to(v, st->virtual_ns);
    set_context(v, st);
}

static void rearm(svcpu *v)
{
    v->until = spu_ops_until_sample(v->spu);
    v->pending = 0;
}

/* ----- Sampled operations --------------------------------------------------------------------- */

/* The SPU operation for instruction d: the user-mode plugin's description (insn_op.c), with
 * what only the full system has: the data PA, the Exception level of a branch target, and an
 * exception (a load or store whose access was not seen keeps its class, without an address). */
static void describe(const svcpu *v, const insn_desc *d, const insn_access *m, uint64_t next_pc, bool known,
                     bool mispred, bool exception, spu_op *op)
{
    bool ns = armprof_pe_security(&v->ctx) != ARMPROF_SECURE;
    insn_op_ctx c = { .cpi = 1, .mispredict_lat = opt.ms.mispredict_lat, .target_el = v->ctx.el, .target_ns = ns };
    insn_op_describe(&d->st, m, next_pc, known, mispred, &c, op);
    if (op->op_class == SPE_CLASS_OTHER && d->st.mem.is_mem)
        op->op_class = SPE_CLASS_LDST;
    if (exception) {
        op->flags |= SPU_OP_EXCEPTION;
        op->events |= 1ull << SPE_EV_EXCEPTION;
    }
}

/* The armed instruction is resolved: it completed and execution went on at next_pc (known), or an
 * Exception level change came first (not known: `exception` says whether the armed instruction is
 * the one that took it). The counts before it, the time, then the operation reach the SPU. */
static void retire_armed(svcpu *v, uint64_t next_pc, bool known, bool exception)
{
    const insn_desc *d = v->armed;
    const tb_desc *tb = v->armed_tb;
    bool last = d->idx + 1 == tb->n;
    spu_op op;
    describe(v, d, &v->armed_mem, last ? next_pc : tb->insn[d->idx + 1].st.pc, known || !last,
             last && v->armed_mispred, exception, &op);
    v->armed = NULL;
    v->armed_mem.valid = false;
    v->armed_mispred = false;
    v->exceptions += exception;

    ARMSPECPUState st;
    arm_spe_cpu_state(v->index, &st);
    flush_counts(v);
    advance_to(v, st.virtual_ns);
    spu_retire(v->spu, &op);
    /* The rest of the block: more sample points in it are described from their encoding alone. */
    uint64_t rest = tb->n - d->idx - 1;
    uint64_t k = spu_ops_until_sample(v->spu);
    uint32_t i = d->idx + 1;
    while (k != UINT64_MAX && rest > k) {
        spu_skip(v->spu, k);
        i += (uint32_t)k;
        rest -= k + 1;
        describe(v, &tb->insn[i], NULL, 0, false, false, false, &op);
        spu_retire(v->spu, &op);
        v->described_statically++;
        i++;
        k = spu_ops_until_sample(v->spu);
    }
    v->pending = k == UINT64_MAX ? 0 : rest;
    v->until = k == UINT64_MAX ? UINT64_MAX : k - rest;
}

static void tb_exec(unsigned int idx, void *udata)
{
    const tb_desc *tb = udata;
    svcpu *v = vcpu_of((int)idx);
    if (!v)
        return;
    const tb_desc *p = v->prev;
    v->prev = tb;
    v->tb_base = v->insns;
    v->insns += tb->n;
    if (v->armed) {
        if (p && p->ends_in_branch && v->armed == &p->insn[p->n - 1]) {
            const insn_static *b = &v->armed->st;
            if (b->br.conditional)
                v->armed_mispred = memsys_branch_cond(&v->ms, b->pc, tb->pc != b->pc + 4);
            else if (b->br.indirect)
                v->armed_mispred = memsys_branch_indirect(&v->ms, b->pc, tb->pc);
        }
        retire_armed(v, tb->pc, true, false);
    } else if (p && p->ends_in_branch && v->until != UINT64_MAX &&
               (opt.warm_all || v->until < opt.warm_ops + tb->n)) {
        /* train the predictor on the branches of profiled code in the window before the sample
         * point (every one with cache=all): a branch's counter needs few outcomes to settle */
        const insn_static *b = &p->insn[p->n - 1].st;
        if (b->br.conditional)
            memsys_branch_cond(&v->ms, b->pc, tb->pc != b->pc + 4);
        else if (b->br.indirect)
            memsys_branch_indirect(&v->ms, b->pc, tb->pc);
    }
    if (tb->n <= v->until) {
        if (v->until != UINT64_MAX) {
            v->until -= tb->n;                 /* no sample point in this block */
            v->pending += tb->n;
        }
        return;
    }
    uint32_t i = (uint32_t)v->until;
    v->pending += i;
    v->until = 0;
    v->armed = &tb->insn[i];
    v->armed_tb = tb;
}

static void mem_access(unsigned int idx, qemu_plugin_meminfo_t info, uint64_t va, void *udata)
{
    svcpu *v = vcpu_of((int)idx);
    if (!v || v->until == UINT64_MAX)
        return;
    /* No register dependences here: the address waits for no load (memsys.h) */
    const insn_desc *d = udata;
    memsys_req q = { .va = va, .now = v->tb_base + d->idx, .addr_reg = { MEMSYS_REG_NONE, MEMSYS_REG_NONE },
                     .dst_reg = { MEMSYS_DST_NONE, MEMSYS_DST_NONE } };
    if (udata == v->armed) {
        if (!v->armed_mem.valid) {
            struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, va);
            v->armed_mem = (insn_access){ .valid = true, .store = qemu_plugin_mem_is_store(info),
                                          .size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info)), .va = va,
                                          .has_pa = hw != NULL, .pa = hw ? qemu_plugin_hwaddr_phys_addr(hw) : 0,
                                          .pa_ns = armprof_pe_security(&v->ctx) != ARMPROF_SECURE,
                                          .acc = memsys_access_data(&v->ms, &q) };
        }
    } else if (opt.cache) {
        /* The whole model (L2, LLC, queues) in the window before the sample point; outside it
         * only L1D and the TLB keep up, which costs a few cycles of the host per access. */
        if (opt.warm_all || v->until < opt.warm_ops) {
            memsys_access_quiet(&v->ms, &q);
            v->warm_line = 0;
        } else if (opt.warm_every && ++v->warm_count >= opt.warm_every && (va >> 6) + 1 != v->warm_line) {
            v->warm_count = 0;
            v->warm_line = (va >> 6) + 1;
            memsys_warm_l1(&v->ms, va, q.now);
        }
    }
}

/* PSB CSYNC (seed 001 §3.6): the operations before it reach the SPU, whose records are then
 * written out before the instruction completes. */
static void psb_csync(unsigned int idx, void *udata)
{
    (void)udata;
    svcpu *v = vcpu_of((int)idx);
    if (!v)
        return;
    if (v->armed)
        retire_armed(v, v->armed->st.pc + 4, false, false);
    ARMSPECPUState st;
    arm_spe_cpu_state((int)idx, &st);
    sync_to(v, &st);
    spu_psb_csync(v->spu);
    v->psb_csyncs++;
    rearm(v);
}

static bool a64_is_exception_generating(uint32_t insn)
{
    return (insn & 0xFF000000u) == 0xD4000000u;   /* SVC, HVC, SMC, BRK, HLT, DCPSn */
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    tb_desc *d = calloc(1, sizeof *d + n * sizeof(insn_desc));
    if (!d)
        return;
    d->pc = qemu_plugin_tb_vaddr(tb);
    d->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
        insn_desc *x = &d->insn[i];
        x->st.pc = qemu_plugin_insn_vaddr(in);
        x->idx = (uint32_t)i;
        uint32_t op = 0;
        if (qemu_plugin_insn_size(in) == 4)
            memcpy(&op, qemu_plugin_insn_data(in), 4);
        x->st.br = a64_decode_branch(op, x->st.pc);
        x->st.mem = a64_decode_mem(op);
        x->exc_gen = a64_is_exception_generating(op);
        if (op == PSB_CSYNC)
            qemu_plugin_register_vcpu_insn_exec_cb(in, psb_csync, QEMU_PLUGIN_CB_NO_REGS, x);
        if (x->st.mem.is_mem)
            qemu_plugin_register_vcpu_mem_cb(in, mem_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, x);
    }
    d->ends_in_branch = n && d->insn[n - 1].st.br.kind != A64_NOT_BRANCH;
    pthread_mutex_lock(&lock);
    d->next_alloc = all_tbs;
    all_tbs = d;
    pthread_mutex_unlock(&lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, d);
}

static void at_exit(qemu_plugin_id_t id, void *ud);

/* Runs once QEMU has flushed the translated code: blocks are instrumented from now on. */
static void instrument(qemu_plugin_id_t id)
{
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
}

static void start_instrumenting(void)
{
    bool was = false;
    if (atomic_compare_exchange_strong(&instrumented, &was, true))
        qemu_plugin_reset(plugin_id, instrument);
}

/* ----- The backend: registers, reset, Exception level changes --------------------------------- */

static int be_cpu_realize(void *opaque, int cpu_index, const char **err)
{
    (void)opaque;
    static char why[256];
    if (cpu_index < 0 || cpu_index >= MAX_VCPUS) {
        snprintf(why, sizeof why, "armprof-qemu-system models at most %d vCPUs", MAX_VCPUS);
        *err = why;
        return 0;
    }
    ARMSPECPUState st;
    arm_spe_cpu_state(cpu_index, &st);
    if (!st.cntfrq_hz || st.cntfrq_hz > 1000000000u) {
        snprintf(why, sizeof why, "the system counter's frequency (%" PRIu64 " Hz) is not 1 Hz to 1 GHz",
                 st.cntfrq_hz);
        *err = why;
        return 0;
    }
    svcpu *v = calloc(1, sizeof *v);
    if (!v || memsys_init(&v->ms, &opt.ms)) {
        *err = "out of memory";
        return 0;
    }
    v->index = cpu_index;
    spu_config sc = opt.spu;
    sc.pe_index = (uint8_t)cpu_index;
    /* one SPU cycle per nanosecond of the virtual clock; QEMU derives the counter with the same
     * integer period (gt_cntfrq_period_ns()) */
    sc.cycles_per_tick = (uint32_t)(1000000000u / st.cntfrq_hz);
    armprof_host_ops ops = { .mem_write = buf_write, .irq = on_irq, .log = on_log, .user = v };
    char cwhy[200] = "";
    armprof_err e = spu_open(&sc, &ops, &v->spu);
    if (e != ARMPROF_OK) {
        spu_config_validate(&sc, cwhy, sizeof cwhy);
        snprintf(why, sizeof why, "SPU configuration: %s (%s)", armprof_strerror(e), cwhy);
        *err = why;
        return 0;
    }
    ctx_from_state(&v->ctx, &st);
    spu_set_pe_context(v->spu, &v->ctx);
    v->until = UINT64_MAX;
    vcpus[cpu_index] = v;
    return opt.v1p2 ? 3 : 1;            /* ID_AA64DFR0_EL1.PMSVer: FEAT_SPE, or FEAT_SPEv1p2 */
}

static void be_cpu_reset(void *opaque, int cpu_index)
{
    (void)opaque;
    svcpu *v = vcpu_of(cpu_index);
    if (!v)
        return;
    spu_reset(v->spu);
    v->armed = NULL;
    v->prev = NULL;
    v->pending = 0;
    v->until = UINT64_MAX;
    if (v->irq)
        on_irq(v, false);
}

static void log_access(const svcpu *v, const ARMSPECPUState *st, uint32_t enc, char what, uint64_t val,
                       armprof_err e)
{
    if (!regs_log)
        return;
    pthread_mutex_lock(&log_lock);
    fprintf(regs_log, "cpu=%d el=%u %c S%u_%u_C%u_C%u_%u = 0x%016" PRIx64 " %s\n", v->index, st->el, what,
            ARMPROF_SYSREG_OP0(enc), ARMPROF_SYSREG_OP1(enc), ARMPROF_SYSREG_CRN(enc), ARMPROF_SYSREG_CRM(enc),
            ARMPROF_SYSREG_OP2(enc), val, e == ARMPROF_OK ? "ok" : armprof_strerror(e));
    fflush(regs_log);
    pthread_mutex_unlock(&log_lock);
}

static ARMSPEAccess be_access(void *opaque, int cpu_index, uint32_t enc, bool isread,
                              const ARMSPECPUState *st)
{
    (void)opaque;
    svcpu *v = vcpu_of(cpu_index);
    if (!v)
        return ARM_SPE_ACCESS_UNDEFINED;
    set_context(v, st);
    armprof_err e = spu_reg_check(v->spu, enc, !isread);
    if (e != ARMPROF_OK) {
        v->reg_refused++;
        log_access(v, st, enc, isread ? 'R' : 'W', 0, e);
    }
    switch (e) {
    case ARMPROF_OK: return ARM_SPE_ACCESS_OK;
    case ARMPROF_ERR_TRAP_EL2: return ARM_SPE_ACCESS_TRAP_EL2;
    case ARMPROF_ERR_TRAP_EL3: return ARM_SPE_ACCESS_TRAP_EL3;
    default: return ARM_SPE_ACCESS_UNDEFINED;   /* UNDEFINED, no such register, read-only */
    }
}

static uint64_t be_read(void *opaque, int cpu_index, uint32_t enc, const ARMSPECPUState *st)
{
    (void)opaque;
    svcpu *v = vcpu_of(cpu_index);
    uint64_t val = 0;
    if (!v)
        return 0;
    if (v->armed)
        retire_armed(v, v->armed->st.pc + 4, false, false);
    sync_to(v, st);
    armprof_err e = spu_reg_read(v->spu, enc, &val);
    v->reg_reads++;
    log_access(v, st, enc, 'R', val, e);
    rearm(v);
    return val;
}

static void be_write(void *opaque, int cpu_index, uint32_t enc, uint64_t value, const ARMSPECPUState *st)
{
    (void)opaque;
    svcpu *v = vcpu_of(cpu_index);
    if (!v)
        return;
    if (v->armed)
        retire_armed(v, v->armed->st.pc + 4, false, false);
    sync_to(v, st);
    armprof_err e = spu_reg_write(v->spu, enc, value);
    v->reg_writes++;
    log_access(v, st, enc, 'W', value, e);
    if (e == ARMPROF_OK && enc == SPU_PMBLIMITR_EL1 && (value & 1))
        start_instrumenting();
    rearm(v);
}

/* Exception entry or return: the operations counted so far ran in the old context. An armed load
 * or store whose access was not seen, or an armed exception-generating instruction, is the
 * operation that took the exception. */
static void be_el_change(void *opaque, int cpu_index, const ARMSPECPUState *st)
{
    (void)opaque;
    svcpu *v = vcpu_of(cpu_index);
    if (!v)
        return;
    v->el_changes++;
    if (v->armed) {
        const insn_desc *d = v->armed;
        bool exc = (d->st.mem.is_mem && !v->armed_mem.valid) || d->exc_gen;
        retire_armed(v, st->pc, false, exc);
    }
    sync_to(v, st);
    rearm(v);
    v->prev = NULL;
}

static const ARMSPEBackendOps backend = {
    .version = ARM_SPE_BACKEND_VERSION,
    .cpu_realize = be_cpu_realize,
    .cpu_reset = be_cpu_reset,
    .access = be_access,
    .read = be_read,
    .write = be_write,
    .el_change = be_el_change,
};

/* ----- Exit: the summary ---------------------------------------------------------------------- */

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    if (!opt.out[0])
        return;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/armprof-qemu-system.json", opt.out);
    FILE *j = fopen(path, "w");
    if (!j) {
        say("cannot write %s: %s", path, strerror(errno));
        return;
    }
    uint64_t idr = 0, bidr = 0;
    for (int i = 0; i < MAX_VCPUS; i++)
        if (vcpus[i]) {
            spu_reg_peek(vcpus[i]->spu, SPU_PMSIDR_EL1, &idr);
            spu_reg_peek(vcpus[i]->spu, SPU_PMBIDR_EL1, &bidr);
            break;
        }
    fprintf(j, "{\n  \"pmsidr_el1\": \"0x%" PRIx64 "\", \"pmbidr_el1\": \"0x%" PRIx64 "\", \"pmsver\": %d,\n"
               "  \"instrumented\": %s,\n  \"vcpus\": [\n",
            idr, bidr, opt.v1p2 ? 3 : 1, atomic_load(&instrumented) ? "true" : "false");
    uint64_t tot[4] = { 0 };
    bool first = true;
    for (int i = 0; i < MAX_VCPUS; i++) {
        svcpu *v = vcpus[i];
        if (!v)
            continue;
        ARMSPECPUState st;
        arm_spe_cpu_state(i, &st);
        advance_to(v, st.virtual_ns);
        spu_stats s;
        spu_get_stats(v->spu, &s);
        tot[0] += s.population;
        tot[1] += s.feed;
        tot[2] += s.records_written;
        tot[3] += s.records_discarded;
        fprintf(j, "%s    {\"vcpu\": %d, \"population\": %" PRIu64 ", \"samples\": %" PRIu64
                   ", \"collisions\": %" PRIu64 ", \"filtered_out\": %" PRIu64 ", \"records_written\": %" PRIu64
                   ", \"records_discarded\": %" PRIu64 ", \"bytes_written\": %" PRIu64
                   ", \"management_events\": %" PRIu64 ", \"buffer_full_events\": %" PRIu64
                   ", \"fault_events\": %" PRIu64 ", \"pmbirq\": %" PRIu64 ", \"reg_reads\": %" PRIu64
                   ", \"reg_writes\": %" PRIu64 ", \"reg_refused\": %" PRIu64 ", \"psb_csyncs\": %" PRIu64
                   ", \"el_changes\": %" PRIu64 ", \"exceptions_sampled\": %" PRIu64
                   ", \"described_statically\": %" PRIu64 ", \"write_faults\": %" PRIu64
                   ", \"write_aborts\": %" PRIu64 ",\n     \"discarded\": {",
                first ? "" : ",\n", v->index, s.population, s.feed, s.collisions, s.filtered_out,
                s.records_written, s.records_discarded, s.bytes_written, s.management_events,
                s.buffer_full_events, s.fault_events, v->irqs, v->reg_reads, v->reg_writes, v->reg_refused,
                v->psb_csyncs, v->el_changes, v->exceptions, v->described_statically, v->write_faults,
                v->write_aborts);
        for (int r = 0; r < SPU_DISCARD__COUNT; r++)
            fprintf(j, "%s\"%s\": %" PRIu64, r ? ", " : "", spu_discard_reason_name((spu_discard_reason)r),
                    s.discarded[r]);
        fprintf(j, "}}");
        first = false;
    }
    fprintf(j, "\n  ],\n  \"population\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"records_written\": %" PRIu64
               ", \"records_discarded\": %" PRIu64 "\n}\n", tot[0], tot[1], tot[2], tot[3]);
    if (fclose(j))
        say("cannot write %s: %s", path, strerror(errno));
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (info->version.cur < QEMU_PLUGIN_VERSION || info->version.min > QEMU_PLUGIN_VERSION) {
        say("written for QEMU plugin API version %d (QEMU 7.2); this QEMU provides versions %d to %d",
            QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
        return -1;
    }
    if (!info->target_name || strcmp(info->target_name, "aarch64") || !info->system_emulation) {
        say("this plugin is the SPE backend of qemu-system-aarch64 built with qemu/patches "
            "(make linux); for programs under qemu-aarch64 use libarmprof-qemu.so");
        return -1;
    }
    memset(&opt, 0, sizeof opt);
    memsys_config_default(&opt.ms);
    spu_config_default(&opt.spu);
    opt.spu.lds = true;                 /* Data Source packets (PMSIDR_EL1.LDS) */
    opt.cache = true;
    opt.warm_ops = 32;
    opt.warm_every = 16;
    for (int i = 0; i < argc; i++)
        if (parse_arg(argv[i]))
            return -1;
    char why[300];
    if (pa_check(&opt.ms, &opt.spu, opt.out, why, sizeof why)) {
        say("%s", why);
        return -1;
    }
    if (opt.regs_log[0] && !(regs_log = fopen(opt.regs_log, "w"))) {
        say("option 'regs_log': cannot create %s: %s", opt.regs_log, strerror(errno));
        return -1;
    }
    plugin_id = id;
    if (arm_spe_backend_register(&backend, NULL)) {
        say("QEMU refused the SPE backend (another one is registered, or the patch series is of "
            "another version than %d)", ARM_SPE_BACKEND_VERSION);
        return -1;
    }
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
