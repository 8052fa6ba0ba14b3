/* SPDX-License-Identifier: Apache-2.0 */
/* plugin.c: armprof-qemu, a QEMU 7.2 TCG plugin that profiles a qemu-user AArch64 program with one SPU and PMU per guest vCPU. */
/*
 * How instructions reach the SPU (docs/qemu.md):
 *  - Each translated block (TB) gets one execution callback. A vCPU counts the instructions it
 *    has executed and knows the index of the next sample point (spu_ops_until_sample()); a block
 *    that ends before it costs an add and a compare, and no call into the SPU. The instructions
 *    before the sample point are handed over with spu_skip() (O(1)) when it arrives.
 *  - The block that holds the sample point "arms" that instruction. Its memory callback (QEMU calls
 *    it after the access) supplies the data VA, size and direction; the next block's start PC is
 *    the instruction's next PC, which says whether a conditional branch was taken and where an
 *    indirect branch went. Then the operation is described (insn_op.c) and spu_retire()d.
 *  - Every memory access goes through the core model (memsys.h: caches, TLB, MSHRs, bandwidth,
 *    the registers a load in flight will write), and every block ending in a branch trains the
 *    branch predictor, so their state is warm when a sample is taken. The model's stall cycles
 *    are the PE's time beyond instructions x cpi: they reach the SPU's clock (timestamps) and the
 *    PMU's CPU_CYCLES.
 * The SPU is programmed and serviced as Linux's arm_spe_pmu does for `perf record -e arm_spe//u`
 * on a user-space process: EL1 writes the registers, the program runs at EL0, PMBIRQ is handled
 * at EL1 (PSB CSYNC, read PMBSR_EL1, copy the buffer out, restart it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "a64.h"
#include "armprof/pmu.h"
#include "armprof/spu.h"
#include "guest_maps.h"
#include "insn_op.h"
#include "memsys.h"
#include "plugin_args.h"
#include "perf_export.h"
#include "qemu_plugin_api.h"
#include "trace_file.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS 1024
/* The Profiling Buffer's virtual address: a kernel (EL1) VA, as arm_spe_pmu's vmap of the AUX
 * buffer is; the memory port below is a flat memory there. */
#define BUF_VA 0xffff800010000000ull

/* ----- Options ------------------------------------------------------------------------------ */

typedef struct options {
    uint32_t interval;          /* PMSIRR_EL1.INTERVAL * 256 */
    bool rnd, ts, cx, pct;      /* PMSIRR_EL1.RND, PMSCR_EL1.{TS, CX, PCT} */
    bool f_load, f_store, f_branch; /* PMSFCR_EL1.FT with LD / ST / B */
    uint64_t evfilter;          /* PMSFCR_EL1.FE with PMSEVFR_EL1 */
    uint32_t min_latency;       /* PMSFCR_EL1.FL with PMSLATFR_EL1.MINLAT */
    uint64_t buffer_bytes;
    uint32_t cpi;               /* PE cycles per instruction (time between operations) */
    bool cache;                 /* feed every access to the cache model */
    bool stats;                 /* summary on stderr at exit */
    char out[PATH_MAX];         /* output directory */
    bool trace;                 /* write the operation trace of each vCPU */
    uint64_t trace_ops;         /* at most this many operations per vCPU */
    memsys_config ms;
    spu_config spu;
} options;

static options opt;
static qemu_plugin_id_t plugin_id;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    /* qemu_plugin_outs() only shows with -d plugin: errors and the summary go to stderr too. */
    fprintf(stderr, "armprof-qemu: %s\n", b);
}

static int parse_filter(const char *v)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s", v);
    opt.f_load = opt.f_store = opt.f_branch = false;
    for (char *save = NULL, *t = strtok_r(tmp, ",+", &save); t; t = strtok_r(NULL, ",+", &save)) {
        if (!strcmp(t, "load")) opt.f_load = true;
        else if (!strcmp(t, "store")) opt.f_store = true;
        else if (!strcmp(t, "branch")) opt.f_branch = true;
        else return -1;
    }
    return 0;
}

static const char *const usage_keys =
    "interval, rnd, ts, cx, pct, filter, event_filter, min_latency, buffer, cpi, cache, stats, out, "
    "fifo, inflight, trace, trace_ops, and the core model's";

/* One key=value argument. 0, or -1 after an error message that names the option. */
static int parse_arg(const char *arg)
{
    char key[64];
    const char *v;
    if (pa_split(arg, key, sizeof key, &v)) {
        say("option '%s': expected key=value (keys: %s: %s)", arg, usage_keys, pa_memsys_keys);
        return -1;
    }
    int bad = 0;
    uint32_t *mf = pa_memsys_field(&opt.ms, key);
    if (mf) {
        if (pa_u32(v, mf)) {
            say("option '%s': '%s' is not a number (a K, M or G suffix multiplies by 1024^n)", key, v);
            return -1;
        }
        return 0;
    }
    struct { const char *name; uint32_t *p; } u32s[] = {
        { "cpi", &opt.cpi }, { "min_latency", &opt.min_latency },
        { "fifo", &opt.spu.fifo_bytes }, { "inflight", &opt.spu.max_inflight },
    };
    for (size_t i = 0; i < sizeof u32s / sizeof u32s[0]; i++)
        if (!strcmp(key, u32s[i].name)) {
            if (pa_u32(v, u32s[i].p)) {
                say("option '%s': '%s' is not a number (a K, M or G suffix multiplies by 1024^n)", key, v);
                return -1;
            }
            return 0;
        }
    if (!strcmp(key, "interval")) {
        bad = pa_u32(v, &opt.interval);
        if (!bad && (opt.interval < 256 || opt.interval % 256 || opt.interval > 0xFFFFFF00u)) {
            say("option 'interval': %s is not a multiple of 256 from 256 to 4294967040 "
                "(PMSIRR_EL1.INTERVAL counts units of 256 operations)", v);
            return -1;
        }
    } else if (!strcmp(key, "rnd")) bad = pa_bool(key, v, &opt.rnd);
    else if (!strcmp(key, "ts")) bad = pa_bool(key, v, &opt.ts);
    else if (!strcmp(key, "cx")) bad = pa_bool(key, v, &opt.cx);
    else if (!strcmp(key, "pct")) bad = pa_bool(key, v, &opt.pct);
    else if (!strcmp(key, "cache")) bad = pa_bool(key, v, &opt.cache);
    else if (!strcmp(key, "stats")) bad = pa_bool(key, v, &opt.stats);
    else if (!strcmp(key, "trace")) bad = pa_bool(key, v, &opt.trace);
    else if (!strcmp(key, "trace_ops")) bad = pa_u64(v, &opt.trace_ops);
    else if (!strcmp(key, "filter")) {
        if (parse_filter(v)) {
            say("option 'filter': '%s' is not a list of load, store, branch (e.g. filter=load,store)", v);
            return -1;
        }
    } else if (!strcmp(key, "event_filter")) bad = pa_u64(v, &opt.evfilter);
    else if (!strcmp(key, "buffer")) {
        bad = pa_u64(v, &opt.buffer_bytes);
        if (!bad && (opt.buffer_bytes < 4096 || opt.buffer_bytes % 4096 || opt.buffer_bytes > (1ull << 32))) {
            say("option 'buffer': %s is not a multiple of 4096 bytes from 4K to 4G", v);
            return -1;
        }
    } else if (!strcmp(key, "out")) {
        if (!*v || strlen(v) >= sizeof opt.out - 32) {
            say("option 'out': empty or too long directory name");
            return -1;
        }
        snprintf(opt.out, sizeof opt.out, "%s", v);
    } else {
        say("unknown option '%s' (keys: %s: %s)", key, usage_keys, pa_memsys_keys);
        return -1;
    }
    if (bad) {
        say("option '%s': bad value '%s'", key, v);
        return -1;
    }
    return 0;
}

/* ----- Translation-time descriptions --------------------------------------------------------- */

typedef struct insn_desc {
    insn_static s;              /* pc, branch and load/store decode */
    uint32_t idx;               /* position in its block */
    uint8_t addr_reg[2];        /* registers the address depends on, for the core model:
                                   MEMSYS_REG_NONE where no load in flight can have written them */
    uint8_t dst_reg[2];         /* GPRs a load writes (MEMSYS_DST_NONE) */
} insn_desc;

/* How the final instruction of a block leaves it (for the branch predictor). */
enum { TB_BR_NONE = 0, TB_BR_COND, TB_BR_INDIRECT };

typedef struct tb_desc {
    struct tb_desc *next_alloc; /* every description, for freeing at exit */
    uint64_t pc;
    uint32_t n;
    uint8_t br;                 /* TB_BR_*: how its final instruction trains the predictor */
    uint32_t bp_index;          /* that instruction's predictor entry */
    uint64_t fall;              /* the PC after the final instruction */
    uint32_t regs_written;      /* GPRs the block leaves holding values no load wrote */
    insn_desc insn[];
} tb_desc;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tb_desc *all_tbs;
/* The "previous block" of a vCPU's first block. */
static const tb_desc no_tb;

/* ----- Per-vCPU state ------------------------------------------------------------------------- */

/* TCG's most instructions in one block (TCG_MAX_INSNS). */
#define MAX_TB_INSNS 512

typedef struct vcpu {
    /* read on every block and access */
    const tb_desc *prev;        /* the block that ran last */
    uint64_t tb_base;           /* instructions executed before the current block */
    uint64_t insns;             /* instructions executed, the current block included */
    uint64_t next_sample;       /* index of the instruction at the next sample point
                                   (UINT64_MAX: none) */
    bool slow;                  /* work at the next block boundary: a sample point is armed, the
                                   trace is on, or the thread id is not known yet */
    bool slow_mem;              /* accesses take the full path: armed, trace, cache=off, done */
    bool done;
    memsys ms;
    /* sampling */
    unsigned index;             /* QEMU's vcpu_index */
    unsigned serial;            /* CPU number in perf.data and the file names (creation order) */
    uint32_t tid;               /* the guest thread (host tid under qemu-user) */
    spu_t *spu;
    pmu_t *pmu;
    armprof_pe_ctx ctx;
    uint64_t reported;          /* instructions the SPU and PMU have been told about */
    uint64_t cycles;            /* PE cycles the SPU and PMU have been advanced by */
    const insn_desc *armed;     /* the instruction at the sample point, in the current block */
    const tb_desc *armed_tb;
    insn_access armed_mem;
    /* operation trace (docs/trace-format.md) */
    FILE *trace;
    uint64_t traced;            /* operations written */
    insn_access tobs[MAX_TB_INSNS]; /* per instruction of the current block, while tracing */
    uint64_t sampled_by_desc;   /* sample points that fell twice in one block (described statically) */
    /* buffer and its service */
    uint8_t *buf;
    bool irq;
    uint64_t irqs, serviced, fatal, dumped;
    FILE *out;
    char path[PATH_MAX + 64];
    spu_stats final;
} vcpu;

static vcpu *vcpus[MAX_VCPUS];
static vcpu *finished[MAX_VCPUS];
static unsigned n_finished, n_serial;

static void set_slow(vcpu *v)
{
    v->slow = v->armed || v->trace || !v->tid || v->done;
    v->slow_mem = v->armed || v->trace || !opt.cache || v->done;
}

static armprof_mem_result buf_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                    const armprof_regime *rg)
{
    (void)rg;
    vcpu *v = user;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK };
    if (addr < BUF_VA || addr - BUF_VA + len > opt.buffer_bytes) {
        r.status = ARMPROF_MEM_FAULT;           /* outside the buffer's pages: translation fault */
        r.ec = ARMPROF_EC_S1_ABORT;
        r.fsc = ARMPROF_FSC_TRANSLATION | 3;
        return r;
    }
    memcpy(v->buf + (addr - BUF_VA), data, len);
    return r;
}

static void on_irq(void *user, bool level)
{
    vcpu *v = user;
    if (level && !v->irq)
        v->irqs++;
    v->irq = level;
}

static void at_el(vcpu *v, uint8_t el)
{
    v->ctx.el = el;
    spu_set_pe_context(v->spu, &v->ctx);
    pmu_set_pe_context(v->pmu, &v->ctx);
}

static void wr(vcpu *v, uint32_t enc, uint64_t val)
{
    armprof_err e = spu_reg_write(v->spu, enc, val);
    if (e != ARMPROF_OK)
        say("vCPU %u: MSR 0x%x = 0x%" PRIx64 ": %s", v->index, enc, val, armprof_strerror(e));
}

static uint64_t rd(vcpu *v, uint32_t enc)
{
    uint64_t x = 0;
    spu_reg_read(v->spu, enc, &x);
    return x;
}

static void dump(vcpu *v, uint64_t ptr)
{
    if (ptr <= BUF_VA || ptr - BUF_VA > opt.buffer_bytes || !v->out)
        return;
    size_t n = (size_t)(ptr - BUF_VA);
    if (fwrite(v->buf, 1, n, v->out) != n)
        say("vCPU %u: cannot write %s", v->index, v->path);
    v->dumped += n;
}

/* arm_spe_pmu_irq_handler() at EL1: PSB CSYNC, PMBSR_EL1, hand the data to perf (the file),
 * restart the buffer at its base and clear PMBSR_EL1; a fault or External abort ends the
 * session (the buffer is disabled). */
static void service(vcpu *v)
{
    at_el(v, 1);
    spu_psb_csync(v->spu);
    uint64_t sr = rd(v, SPU_PMBSR_EL1);
    if (sr & (1ull << 17)) {                       /* PMBSR_EL1.S */
        uint64_t ec = (sr >> 26) & 0x3f;
        bool dl = (sr >> 19) & 1, ea = (sr >> 18) & 1;
        v->serviced++;
        if (!dl && !ea)
            dump(v, rd(v, SPU_PMBPTR_EL1));        /* DL=1: the tail is not to be trusted */
        if (ec == ARMPROF_EC_OTHER && !ea) {
            wr(v, SPU_PMBPTR_EL1, BUF_VA);
        } else {
            v->fatal++;
            wr(v, SPU_PMBLIMITR_EL1, 0);
        }
        wr(v, SPU_PMBSR_EL1, 0);
    }
    at_el(v, 0);
}

/* The SPU's and PMU's clock moves to the PE cycle of instruction `insn`: instructions x cpi
 * plus the stall cycles the core model has counted. */
static void advance_time(vcpu *v, uint64_t insn)
{
    uint64_t cyc = insn * opt.cpi + memsys_stall(&v->ms);
    if (cyc > v->cycles) {
        spu_advance(v->spu, cyc - v->cycles);
        pmu_advance(v->pmu, cyc - v->cycles);
        v->cycles = cyc;
    }
    if (v->irq)
        service(v);
}

/* The instructions before index `insn` that the SPU has not heard of are unsampled operations
 * (spu_skip(), O(1)); they count as INST_RETIRED, and time moves to `insn`. */
static void report_until(vcpu *v, uint64_t insn)
{
    if (insn > v->reported) {
        spu_skip(v->spu, insn - v->reported);
        pmu_count_event(v->pmu, PMU_EV_INST_RETIRED, insn - v->reported);
        v->reported = insn;
    }
    advance_time(v, insn);
}

static const insn_op_ctx *op_ctx(void)
{
    static insn_op_ctx c;
    c = (insn_op_ctx){ .cpi = opt.cpi, .mispredict_lat = opt.ms.mispredict_lat, .target_el = 0, .target_ns = true };
    return &c;
}

/* While tracing: the operations of block p, now that the next block (at next_pc) has started;
 * `mispred`: its final branch was mispredicted. */
static void trace_block(vcpu *v, const tb_desc *p, uint64_t next_pc, bool mispred)
{
    for (uint32_t i = 0; i < p->n && v->traced < opt.trace_ops; i++) {
        bool last = i + 1 == p->n;
        spu_op op;
        insn_op_describe(&p->insn[i].s, &v->tobs[i], last ? next_pc : p->insn[i + 1].s.pc, true, last && mispred,
                         op_ctx(), &op);
        if (wl_trace_write_op(v->trace, &op))
            say("vCPU %u: cannot write the trace", v->index);
        v->traced++;
    }
    memset(v->tobs, 0, p->n * sizeof(insn_access));
    if (v->traced >= opt.trace_ops) {
        fclose(v->trace);
        v->trace = NULL;
    }
}

/* The armed instruction completed; next_pc is where execution went after its block, mispred
 * whether its block's final branch was mispredicted. */
static void retire_armed(vcpu *v, uint64_t next_pc, bool mispred)
{
    const insn_desc *d = v->armed;
    const tb_desc *tb = v->armed_tb;
    uint64_t base = v->tb_base;               /* the armed block is still the current one */
    spu_op op;
    bool last = d->idx + 1 == tb->n;
    insn_op_describe(&d->s, &v->armed_mem, last ? next_pc : tb->insn[d->idx + 1].s.pc, true, last && mispred,
                     op_ctx(), &op);
    v->armed = NULL;
    v->armed_mem.valid = false;
    /* The instructions before the sample point and their time, then the sampled one. */
    report_until(v, v->next_sample);
    spu_retire(v->spu, &op);
    pmu_count_event(v->pmu, PMU_EV_INST_RETIRED, 1);
    v->reported++;
    uint64_t k = spu_ops_until_sample(v->spu);
    /* Another sample point inside the same block execution (interval < block length): it is
     * described from its encoding alone (no data address). */
    while (k != UINT64_MAX && v->reported + k < v->insns) {
        report_until(v, v->reported + k);
        insn_op_describe(&tb->insn[v->reported - base].s, NULL, 0, false, false, op_ctx(), &op);
        spu_retire(v->spu, &op);
        pmu_count_event(v->pmu, PMU_EV_INST_RETIRED, 1);
        v->reported++;
        v->sampled_by_desc++;
        k = spu_ops_until_sample(v->spu);
    }
    v->next_sample = k == UINT64_MAX ? UINT64_MAX : v->reported + k;
    set_slow(v);
}

/* The rare work at a block boundary: the thread's id on its first block, the armed sample's
 * retirement, the trace of the block that ended (p; mispred: its final branch). False when the
 * vCPU's profile is finished (nothing more is counted). */
static bool block_boundary(vcpu *v, const tb_desc *p, const tb_desc *tb, bool mispred)
{
    if (v->done)
        return false;
    if (!v->tid) {
        /* the first block this vCPU runs runs on its own thread: the guest thread's tid, which
         * Linux (CONFIG_PID_IN_CONTEXTIDR) keeps in CONTEXTIDR_EL1 for the CX packets */
        v->tid = (uint32_t)syscall(SYS_gettid);
        v->ctx.contextidr_el1 = v->tid;
        spu_set_pe_context(v->spu, &v->ctx);
    }
    if (v->armed)
        retire_armed(v, tb->pc, mispred);
    if (v->trace && p != &no_tb)
        trace_block(v, p, tb->pc, mispred);
    set_slow(v);
    return true;
}

/* The sample point is in block tb, which has just started: arm that instruction. */
static __attribute__((noinline)) void arm_sample(vcpu *v, const tb_desc *tb)
{
    v->armed = &tb->insn[v->next_sample - v->tb_base];
    v->armed_tb = tb;
    v->armed_mem.valid = false;
    set_slow(v);
}

/* Block tb starts after the boundary work (the rare path of tb_exec()). */
static __attribute__((noinline)) void tb_exec_slow(vcpu *v, const tb_desc *p, const tb_desc *tb, bool wrong)
{
    if (!block_boundary(v, p, tb, wrong))
        return;
    v->tb_base = v->insns;
    v->insns += tb->n;
    if (v->insns > v->next_sample)
        arm_sample(v, tb);
}

/* Every block: trains the predictor with the previous block's final branch, counts the block's
 * instructions and arms the sample point when it lies in this block. The rare work goes to
 * tail calls, so this path saves no registers. */
static void tb_exec(unsigned int idx, void *udata)
{
    const tb_desc *tb = udata;
    vcpu *v = vcpus[idx];
    const tb_desc *p = v->prev;
    v->prev = tb;
    /* The previous block's final branch resolved: this block's start is where it went. */
    bool wrong = false;
    if (p->br == TB_BR_COND)
        wrong = memsys_branch_cond_at(&v->ms, p->bp_index, tb->pc != p->fall);
    else if (p->br == TB_BR_INDIRECT)
        wrong = memsys_branch_indirect_at(&v->ms, p->bp_index, tb->pc);
    if (p->regs_written & v->ms.reg_live)
        memsys_regs_written(&v->ms, p->regs_written);
    if (v->slow) {
        tb_exec_slow(v, p, tb, wrong);
        return;
    }
    v->tb_base = v->insns;
    v->insns += tb->n;
    if (v->insns > v->next_sample)
        arm_sample(v, tb);
}

static __attribute__((noinline)) void mem_access_full(vcpu *v, const insn_desc *d, qemu_plugin_meminfo_t info,
                                                     uint64_t va)
{
    if (v->done)
        return;
    bool store = qemu_plugin_mem_is_store(info);
    bool armed = d == v->armed && !v->armed_mem.valid;
    if (!armed && !v->trace && !opt.cache)
        return;                                 /* cache=off: only sampled accesses are modelled */
    memsys_req q = { .va = va, .now = (v->tb_base + d->idx) * opt.cpi,
                     .addr_reg = { d->addr_reg[0], d->addr_reg[1] }, .dst_reg = { d->dst_reg[0], d->dst_reg[1] } };
    insn_access a = { .valid = true, .store = store, .size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info)),
                      .va = va, .acc = memsys_access_data(&v->ms, &q) };
    if (armed)
        v->armed_mem = a;
    if (v->trace && !v->tobs[d->idx].valid)
        v->tobs[d->idx] = a;
}

static void mem_access(unsigned int idx, qemu_plugin_meminfo_t info, uint64_t va, void *udata)
{
    const insn_desc *d = udata;
    vcpu *v = vcpus[idx];
    if (v->slow_mem) {
        mem_access_full(v, d, info, va);
        return;
    }
    (void)info;
    memsys_req q = { .va = va, .now = (v->tb_base + d->idx) * opt.cpi,
                     .addr_reg = { d->addr_reg[0], d->addr_reg[1] }, .dst_reg = { d->dst_reg[0], d->dst_reg[1] } };
    memsys_access_quiet(&v->ms, &q);
}

static uint8_t reg_if_loaded(uint8_t r, uint32_t overwritten)
{
    return r == A64_REG_NONE || ((overwritten >> r) & 1) ? MEMSYS_REG_NONE : r;
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
    /* GPRs whose value at this point of the block was computed by an instruction other than a
     * load (from other registers): a load in flight no longer delays an address made from them.
     * An instruction that also reads its destination (ADD X0, X0, #8) keeps the dependency. */
    uint32_t overwritten = 0;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
        insn_desc *x = &d->insn[i];
        x->s.pc = qemu_plugin_insn_vaddr(in);
        x->idx = (uint32_t)i;
        uint32_t op = 0;
        if (qemu_plugin_insn_size(in) == 4)
            memcpy(&op, qemu_plugin_insn_data(in), 4);   /* A64 is little-endian here */
        x->s.br = a64_decode_branch(op, x->s.pc);
        x->s.mem = a64_decode_mem(op);
        x->addr_reg[0] = x->addr_reg[1] = MEMSYS_REG_NONE;
        x->dst_reg[0] = x->dst_reg[1] = MEMSYS_DST_NONE;
        if (x->s.mem.is_mem) {
            x->addr_reg[0] = reg_if_loaded(x->s.mem.rn, overwritten);
            x->addr_reg[1] = reg_if_loaded(x->s.mem.rm, overwritten);
            if (x->s.mem.load && x->s.mem.rt != A64_REG_NONE) {
                x->dst_reg[0] = x->s.mem.rt;
                overwritten &= ~(1u << x->s.mem.rt);
            }
            if (x->s.mem.load && x->s.mem.rt2 != A64_REG_NONE) {
                x->dst_reg[1] = x->s.mem.rt2;
                overwritten &= ~(1u << x->s.mem.rt2);
            }
        } else {
            a64_write w = a64_decode_write(op);
            if (w.rd != A64_REG_NONE && !w.reads_rd)
                overwritten |= 1u << w.rd;
        }
        qemu_plugin_register_vcpu_mem_cb(in, mem_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, x);
    }
    d->regs_written = overwritten;
    if (n) {
        const insn_desc *last = &d->insn[n - 1];
        d->fall = last->s.pc + 4;
        d->bp_index = (uint32_t)(last->s.pc >> 2) & (opt.ms.bp_entries - 1);
        if (last->s.br.conditional)
            d->br = TB_BR_COND;
        else if (last->s.br.indirect)
            d->br = TB_BR_INDIRECT;
    }
    pthread_mutex_lock(&lock);
    d->next_alloc = all_tbs;
    all_tbs = d;
    pthread_mutex_unlock(&lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, d);
}

/* ----- vCPU life ------------------------------------------------------------------------------ */

static void program(vcpu *v)
{
    /* As arm_spe_pmu_start() for an event with exclude_kernel: filters, PMSIRR_EL1, PMSICR_EL1
     * from the period, the buffer (arm_spe_perf_aux_output_begin), then PMSCR_EL1. */
    at_el(v, 1);
    uint64_t fcr = 0;
    if (opt.f_load || opt.f_store || opt.f_branch)
        fcr |= 1u << 1 | (opt.f_branch ? 1u << 16 : 0) | (opt.f_load ? 1u << 17 : 0) | (opt.f_store ? 1u << 18 : 0);
    if (opt.evfilter)
        fcr |= 1u << 0;
    if (opt.min_latency)
        fcr |= 1u << 2;
    wr(v, SPU_PMSFCR_EL1, fcr);
    wr(v, SPU_PMSEVFR_EL1, opt.evfilter);
    wr(v, SPU_PMSLATFR_EL1, opt.min_latency & 0xFFF);
    wr(v, SPU_PMSIRR_EL1, (uint64_t)opt.interval | (opt.rnd ? 1 : 0));
    wr(v, SPU_PMSICR_EL1, opt.interval);
    wr(v, SPU_PMBPTR_EL1, BUF_VA);
    wr(v, SPU_PMBLIMITR_EL1, (BUF_VA + opt.buffer_bytes) | 1);
    wr(v, SPU_PMBSR_EL1, 0);
    wr(v, SPU_PMSCR_EL1, (opt.ts ? 1u << 5 : 0) | (opt.cx ? 1u << 3 : 0) | (opt.pct ? 1u << 6 : 0) | 1u /* E0SPE */);
    at_el(v, 0);
    uint64_t k = spu_ops_until_sample(v->spu);
    v->next_sample = k == UINT64_MAX ? UINT64_MAX : v->reported + k;
}

static void vcpu_event(void *user, uint16_t event, uint64_t count);

static vcpu *vcpu_new(unsigned idx)
{
    vcpu *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->index = idx;
    pthread_mutex_lock(&lock);
    v->serial = n_serial++;
    pthread_mutex_unlock(&lock);
    v->buf = calloc(1, opt.buffer_bytes);
    spu_config sc = opt.spu;
    sc.pe_index = (uint8_t)v->serial;
    armprof_host_ops so = { .mem_write = buf_write, .irq = on_irq, .user = v };
    pmu_config pc;
    pmu_config_default(&pc);
    if (!v->buf || memsys_init(&v->ms, &opt.ms) || pmu_open(&pc, NULL, &v->pmu) != ARMPROF_OK) {
        say("vCPU %u: out of memory", idx);
        exit(1);
    }
    so.event = vcpu_event;                      /* SAMPLE_* events to this vCPU's PMU */
    armprof_err e = spu_open(&sc, &so, &v->spu);
    if (e != ARMPROF_OK) {
        char why[200] = "";
        spu_config_validate(&sc, why, sizeof why);
        say("SPU configuration: %s (%s)", armprof_strerror(e), why);
        exit(1);
    }
    armprof_pe_ctx_default(&v->ctx);
    v->ctx.el = 0;
    v->ctx.contextidr_el1 = 0;
    /* PMU: SAMPLE_POP, SAMPLE_FEED, SAMPLE_FILTRATE, SAMPLE_COLLISION, INST_RETIRED, CPU_CYCLES */
    static const uint16_t ev[6] = { ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED, ARMPROF_EV_SAMPLE_FILTRATE,
                                    ARMPROF_EV_SAMPLE_COLLISION, PMU_EV_INST_RETIRED, PMU_EV_CPU_CYCLES };
    at_el(v, 1);
    for (int i = 0; i < 6; i++)
        pmu_reg_write(v->pmu, PMU_PMEVTYPER_EL0(i), ev[i]);
    pmu_reg_write(v->pmu, PMU_PMCNTENSET_EL0, 0x3F);
    pmu_reg_write(v->pmu, PMU_PMCR_EL0, 1);
    if (v->serial == 0)
        snprintf(v->path, sizeof v->path, "%s/spe.bin", opt.out);
    else
        snprintf(v->path, sizeof v->path, "%s/spe_vcpu%u.bin", opt.out, v->serial);
    v->out = fopen(v->path, "wb");
    if (!v->out) {
        say("cannot create %s: %s", v->path, strerror(errno));
        exit(1);
    }
    if (opt.trace) {
        char tp[PATH_MAX + 64];
        snprintf(tp, sizeof tp, "%s/ops_vcpu%u.trc", opt.out, v->serial);
        v->trace = fopen(tp, "w");
        if (!v->trace || wl_trace_write_header(v->trace)) {
            say("cannot create %s: %s", tp, strerror(errno));
            exit(1);
        }
    }
    v->prev = &no_tb;
    program(v);
    set_slow(v);
    return v;
}

/* The SPU's event output goes to the PMU (the vCPU is the SPU's `user`). */
static void vcpu_event(void *user, uint16_t event, uint64_t count)
{
    vcpu *v = user;
    pmu_count_event(v->pmu, event, count);
}

/* Ends profiling on v as arm_spe_pmu_stop() does: the operation in flight completes, PSB CSYNC,
 * the buffer's contents are collected. */
static void vcpu_finish(vcpu *v)
{
    if (v->done)
        return;
    if (v->armed)
        retire_armed(v, v->armed->s.pc + 4, false);
    if (v->trace && v->prev != &no_tb)
        trace_block(v, v->prev, v->prev->insn[v->prev->n - 1].s.pc + 4, false);
    if (v->trace)
        fclose(v->trace);
    v->trace = NULL;
    report_until(v, v->insns);
    for (int guard = 0; guard < 64; guard++) {       /* let sampled operations complete */
        uint64_t c = spu_cycles_to_next_event(v->spu);
        if (c == UINT64_MAX)
            break;
        spu_advance(v->spu, c ? c : 1);
        if (v->irq)
            service(v);
    }
    at_el(v, 1);
    spu_psb_csync(v->spu);
    uint64_t sr = rd(v, SPU_PMBSR_EL1);
    if (sr & (1ull << 17))
        service(v);
    else if (!((sr >> 19) & 1))
        dump(v, rd(v, SPU_PMBPTR_EL1));
    spu_get_stats(v->spu, &v->final);
    if (v->out && fclose(v->out))
        say("cannot write %s", v->path);
    v->out = NULL;
    v->done = true;
    set_slow(v);
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int idx)
{
    (void)id;
    if (idx >= MAX_VCPUS) {
        say("vCPU %u: more than %d vCPUs are not supported", idx, MAX_VCPUS);
        exit(1);
    }
    vcpu *v = vcpu_new(idx);
    pthread_mutex_lock(&lock);
    vcpu *old = vcpus[idx];
    vcpus[idx] = v;
    pthread_mutex_unlock(&lock);
    if (old) {
        /* QEMU reuses the index of a thread that exited: the old unit's profile is complete */
        vcpu_finish(old);
        pthread_mutex_lock(&lock);
        if (n_finished < MAX_VCPUS)
            finished[n_finished++] = old;
        pthread_mutex_unlock(&lock);
    }
}

static void vcpu_exit(qemu_plugin_id_t id, unsigned int idx)
{
    (void)id;
    if (idx < MAX_VCPUS && vcpus[idx])
        vcpu_finish(vcpus[idx]);
}

/* ----- Exit: summary and perf.data -------------------------------------------------------------- */

static int read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    size_t r;
    while (p && (r = fread(p + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *np = realloc(p, cap *= 2);
            if (!np) {
                free(p);
                p = NULL;
            }
            p = np;
        }
    }
    fclose(f);
    *data = p;
    *len = n;
    return p ? 0 : -1;
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    vcpu *all[2 * MAX_VCPUS];
    unsigned n = 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < n_finished; i++)
        all[n++] = finished[i];
    for (unsigned i = 0; i < MAX_VCPUS; i++)
        if (vcpus[i])
            all[n++] = vcpus[i];
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < n; i++)
        vcpu_finish(all[i]);

    /* Summary (JSON) */
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/armprof-qemu.json", opt.out);
    FILE *j = fopen(path, "w");
    uint64_t tot_insns = 0, tot_samples = 0, tot_records = 0;
    if (j) {
        fprintf(j, "{\n  \"interval\": %u, \"rnd\": %s, \"cpi\": %u, \"buffer_bytes\": %" PRIu64 ",\n  \"vcpus\": [\n",
                opt.interval, opt.rnd ? "true" : "false", opt.cpi, opt.buffer_bytes);
    }
    for (unsigned i = 0; i < n; i++) {
        vcpu *v = all[i];
        const spu_stats *s = &v->final;
        uint64_t pmc[6] = { 0 };
        for (int c = 0; c < 6; c++)
            pmu_reg_peek(v->pmu, PMU_PMEVCNTR_EL0(c), &pmc[c]);
        tot_insns += v->insns;
        tot_samples += s->feed;
        tot_records += s->records_written;
        if (j)
            fprintf(j,
                    "    {\"vcpu\": %u, \"cpu\": %u, \"tid\": %u, \"file\": \"%s\", \"insns\": %" PRIu64
                    ", \"population\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"collisions\": %" PRIu64
                    ", \"filtered_out\": %" PRIu64 ", \"records_written\": %" PRIu64
                    ", \"records_discarded\": %" PRIu64 ", \"bytes_written\": %" PRIu64 ", \"bytes_dumped\": %" PRIu64
                    ", \"pmbirq\": %" PRIu64 ", \"serviced\": %" PRIu64 ", \"fatal\": %" PRIu64
                    ", \"sampled_without_data\": %" PRIu64 ",\n     \"pmu\": {\"SAMPLE_POP\": %" PRIu64
                    ", \"SAMPLE_FEED\": %" PRIu64 ", \"SAMPLE_FILTRATE\": %" PRIu64 ", \"SAMPLE_COLLISION\": %" PRIu64
                    ", \"INST_RETIRED\": %" PRIu64 ", \"CPU_CYCLES\": %" PRIu64 "},\n"
                    "     \"memsys\": {\"accesses\": %" PRIu64 ", \"l1d_miss\": %" PRIu64 ", \"l2_miss\": %" PRIu64
                    ", \"llc_miss\": %" PRIu64 ", \"tlb_miss\": %" PRIu64 ", \"branches\": %" PRIu64
                    ", \"mispredicts\": %" PRIu64 ", \"stall_cycles\": %" PRIu64 ", \"mshr_stall\": %" PRIu64
                    ", \"queue_cycles\": %" PRIu64 "}}%s\n",
                    v->index, v->serial, v->tid, v->path, v->insns, s->population, s->feed, s->collisions,
                    s->filtered_out, s->records_written, s->records_discarded, s->bytes_written, v->dumped,
                    v->irqs, v->serviced, v->fatal, v->sampled_by_desc, pmc[0], pmc[1], pmc[2], pmc[3], pmc[4],
                    pmc[5], v->ms.accesses, v->ms.l1_miss, v->ms.l2_miss, v->ms.llc_miss, v->ms.tlb_miss,
                    v->ms.branches, v->ms.mispredicts, v->ms.stall, v->ms.mshr_stall, v->ms.queue_cycles,
                    i + 1 < n ? "," : "");
    }
    if (j) {
        fprintf(j, "  ],\n  \"insns\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"records_written\": %" PRIu64 "\n}\n",
                tot_insns, tot_samples, tot_records);
        fclose(j);
    }

    /* perf.data: one AUX trace per vCPU, the process's mappings as MMAP2 */
    perf_export_buf *bufs = calloc(n ? n : 1, sizeof *bufs);
    uint8_t **datas = calloc(n ? n : 1, sizeof *datas);
    size_t nb = 0;
    for (unsigned i = 0; bufs && datas && i < n; i++) {
        size_t len = 0;
        if (all[i]->serial >= PERF_EXPORT_MAX_CPUS) {
            say("perf.data holds %d vCPUs: %s left out", PERF_EXPORT_MAX_CPUS, all[i]->path);
            continue;
        }
        if (read_file(all[i]->path, &datas[nb], &len))
            continue;
        bufs[nb] = (perf_export_buf){ .data = datas[nb], .len = len, .cpu = all[i]->serial,
                                      .tid = all[i]->tid };
        nb++;
    }
    char err[256];
    perf_export_mmap *maps = NULL;
    int nm = guest_maps_collect(qemu_plugin_path_to_binary(), qemu_plugin_start_code(), &maps, err, sizeof err);
    if (nm < 0) {
        say("perf.data without mappings: %s", err);
        nm = 0;
    }
    const char *exe = qemu_plugin_path_to_binary();
    const char *base = exe ? strrchr(exe, '/') : NULL;
    base = base ? base + 1 : (exe ? exe : "guest");
    /* The event as `perf record -e arm_spe/.../u` opens it for the options the unit ran with:
     * EL0 only (exclude_kernel), jitter, type filters, event filter, minimum latency. */
    perf_export_opts po = { .pid = (uint32_t)getpid(), .comm = base, .timer_hz = 1000000000ull,
                            .mmaps = maps, .n_mmaps = (size_t)nm, .user_only = 1,
                            .config = (opt.pct ? PERF_EXPORT_SPE_PCT_ENABLE : 0) |
                                      (opt.rnd ? PERF_EXPORT_SPE_JITTER : 0) |
                                      (opt.f_branch ? PERF_EXPORT_SPE_BRANCH_FILTER : 0) |
                                      (opt.f_load ? PERF_EXPORT_SPE_LOAD_FILTER : 0) |
                                      (opt.f_store ? PERF_EXPORT_SPE_STORE_FILTER : 0),
                            .config1 = opt.evfilter, .config2 = opt.min_latency & 0xFFF };
    snprintf(path, sizeof path, "%s/perf.data", opt.out);
    if (nb && perf_export_write_cpus(path, bufs, nb, &po, err, sizeof err))
        say("%s", err);
    guest_maps_free(maps, (size_t)nm);
    for (size_t i = 0; i < nb; i++)
        free(datas[i]);
    free(datas);
    free(bufs);
    if (opt.stats)
        say("%u vCPU(s), %" PRIu64 " instructions, %" PRIu64 " samples, %" PRIu64
            " records written; wrote %s/perf.data, %s/spe.bin, %s/armprof-qemu.json",
            n, tot_insns, tot_samples, tot_records, opt.out, opt.out, opt.out);
    /* Nothing is freed: another guest thread may still be in a callback until the process
     * ends, and the process ends right after this callback. */
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (info->version.cur < QEMU_PLUGIN_VERSION || info->version.min > QEMU_PLUGIN_VERSION) {
        say("written for QEMU plugin API version %d (QEMU 7.2); this QEMU provides versions %d to %d",
            QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
        return -1;
    }
    if (!info->target_name || strcmp(info->target_name, "aarch64")) {
        say("the guest is '%s': armprof-qemu profiles AArch64 guests (qemu-aarch64)",
            info->target_name ? info->target_name : "?");
        return -1;
    }
    if (info->system_emulation) {
        say("system emulation is not supported: run the program under qemu-aarch64 (qemu-user)");
        return -1;
    }
    memset(&opt, 0, sizeof opt);
    opt.interval = 4096;
    opt.ts = true;
    opt.rnd = true;             /* jitter: a fixed period aliases with loops whose length divides it */
    opt.cx = true;
    opt.cache = true;
    opt.stats = true;
    opt.buffer_bytes = 1024 * 1024;
    opt.cpi = 1;
    opt.trace_ops = 1000000;
    snprintf(opt.out, sizeof opt.out, ".");
    memsys_config_default(&opt.ms);
    spu_config_default(&opt.spu);
    opt.spu.lds = true;                         /* Data Source packets (PMSIDR_EL1.LDS) */
    for (int i = 0; i < argc; i++)
        if (parse_arg(argv[i]))
            return -1;
    if (opt.cpi == 0) {
        say("option 'cpi': must be at least 1");
        return -1;
    }
    char why[300];
    if (pa_check(&opt.ms, &opt.spu, opt.out, why, sizeof why)) {
        say("%s", why);
        return -1;
    }
    plugin_id = id;
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
