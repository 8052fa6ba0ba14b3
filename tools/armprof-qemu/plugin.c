/* SPDX-License-Identifier: Apache-2.0 */
/* plugin.c: armprof-qemu, a QEMU 7.2 TCG plugin that profiles a qemu-user AArch64 program with one SPU and PMU per guest vCPU. */
/*
 * How instructions reach the SPU (docs/qemu.md):
 *  - Each translated block (TB) gets one execution callback. A vCPU keeps `until`, the number of
 *    operations the SPU can skip before its next sample (spu_ops_until_sample()); a block that
 *    ends before the sample point only subtracts its length, so unsampled instructions cost one
 *    callback per block and no call into the SPU. The count is handed over with spu_skip() (O(1))
 *    when the sample point arrives.
 *  - The block that holds the sample point "arms" that instruction. Its memory callback (QEMU calls
 *    it after the access) supplies the data VA, size and direction; the next block's start PC is
 *    the instruction's next PC, which says whether a conditional branch was taken and where an
 *    indirect branch went. Then the operation is described and spu_retire()d.
 *  - Every memory access goes through the cache and TLB model, and every block ending in a branch
 *    trains the branch predictor, so their state is warm when a sample is taken.
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
#include "memsys.h"
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

static int parse_u64(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || end == v || *v == '-')
        return -1;
    uint64_t mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1024, end++;
    else if (*end == 'm' || *end == 'M') mul = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G') mul = 1024ull * 1024 * 1024, end++;
    if (*end)
        return -1;
    if (x > UINT64_MAX / mul)
        return -1;
    *out = x * mul;
    return 0;
}

static int parse_u32(const char *v, uint32_t *out)
{
    uint64_t x;
    if (parse_u64(v, &x) || x > UINT32_MAX)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

static int parse_bool(const char *k, const char *v, bool *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "yes")) { *out = true; return 0; }
    if (!strcmp(v, "0") || !strcmp(v, "no")) { *out = false; return 0; }
    return qemu_plugin_bool_parse(k, v, out) ? 0 : -1;
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
    "line, l1d, l1d_ways, l1d_lat, l2, l2_ways, l2_lat, llc, llc_ways, llc_lat, dram_lat, tlb, tlb_ways, "
    "tlb_lat, walk_lat, bp_entries, mispredict_lat, fifo, inflight, trace, trace_ops";

/* One key=value argument. 0, or -1 after an error message that names the option. */
static int parse_arg(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq) {
        say("option '%s': expected key=value (keys: %s)", arg, usage_keys);
        return -1;
    }
    char key[64];
    size_t kl = (size_t)(eq - arg);
    if (kl >= sizeof key)
        kl = sizeof key - 1;
    memcpy(key, arg, kl);
    key[kl] = 0;
    const char *v = eq + 1;
    int bad = 0;
    memsys_config *m = &opt.ms;
    struct { const char *name; uint32_t *p; } u32s[] = {
        { "cpi", &opt.cpi }, { "min_latency", &opt.min_latency },
        { "line", &m->line_bytes }, { "l1d", &m->l1d_bytes }, { "l1d_ways", &m->l1d_ways },
        { "l1d_lat", &m->l1d_lat }, { "l2", &m->l2_bytes }, { "l2_ways", &m->l2_ways },
        { "l2_lat", &m->l2_lat }, { "llc", &m->llc_bytes }, { "llc_ways", &m->llc_ways },
        { "llc_lat", &m->llc_lat }, { "dram_lat", &m->dram_lat }, { "tlb", &m->tlb_entries },
        { "tlb_ways", &m->tlb_ways }, { "tlb_lat", &m->tlb_lat }, { "walk_lat", &m->walk_lat },
        { "bp_entries", &m->bp_entries }, { "mispredict_lat", &m->mispredict_lat },
        { "fifo", &opt.spu.fifo_bytes }, { "inflight", &opt.spu.max_inflight },
    };
    for (size_t i = 0; i < sizeof u32s / sizeof u32s[0]; i++)
        if (!strcmp(key, u32s[i].name)) {
            if (parse_u32(v, u32s[i].p)) {
                say("option '%s': '%s' is not a number (a K, M or G suffix multiplies by 1024^n)", key, v);
                return -1;
            }
            return 0;
        }
    if (!strcmp(key, "interval")) {
        bad = parse_u32(v, &opt.interval);
        if (!bad && (opt.interval < 256 || opt.interval % 256 || opt.interval > 0xFFFFFF00u)) {
            say("option 'interval': %s is not a multiple of 256 from 256 to 4294967040 "
                "(PMSIRR_EL1.INTERVAL counts units of 256 operations)", v);
            return -1;
        }
    } else if (!strcmp(key, "rnd")) bad = parse_bool(key, v, &opt.rnd);
    else if (!strcmp(key, "ts")) bad = parse_bool(key, v, &opt.ts);
    else if (!strcmp(key, "cx")) bad = parse_bool(key, v, &opt.cx);
    else if (!strcmp(key, "pct")) bad = parse_bool(key, v, &opt.pct);
    else if (!strcmp(key, "cache")) bad = parse_bool(key, v, &opt.cache);
    else if (!strcmp(key, "stats")) bad = parse_bool(key, v, &opt.stats);
    else if (!strcmp(key, "trace")) bad = parse_bool(key, v, &opt.trace);
    else if (!strcmp(key, "trace_ops")) bad = parse_u64(v, &opt.trace_ops);
    else if (!strcmp(key, "filter")) {
        if (parse_filter(v)) {
            say("option 'filter': '%s' is not a list of load, store, branch (e.g. filter=load,store)", v);
            return -1;
        }
    } else if (!strcmp(key, "event_filter")) bad = parse_u64(v, &opt.evfilter);
    else if (!strcmp(key, "buffer")) {
        bad = parse_u64(v, &opt.buffer_bytes);
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
        say("unknown option '%s' (keys: %s)", key, usage_keys);
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
    uint64_t pc;
    a64_branch br;
    uint32_t idx;               /* position in its block */
} insn_desc;

typedef struct tb_desc {
    struct tb_desc *next_alloc; /* every description, for freeing at exit */
    uint64_t pc;
    uint32_t n;
    bool ends_in_branch;
    insn_desc insn[];
} tb_desc;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tb_desc *all_tbs;

/* ----- Per-vCPU state ------------------------------------------------------------------------- */

/* What the memory callbacks saw of one instruction's execution (its first access). */
typedef struct mem_obs {
    bool valid, store;
    uint8_t size;
    uint64_t va;
    memsys_access acc;
} mem_obs;

/* TCG's most instructions in one block (TCG_MAX_INSNS). */
#define MAX_TB_INSNS 512

typedef struct vcpu {
    unsigned index;             /* QEMU's vcpu_index */
    unsigned serial;            /* CPU number in perf.data and the file names (creation order) */
    uint32_t tid;               /* the guest thread (host tid under qemu-user) */
    bool done;
    spu_t *spu;
    pmu_t *pmu;
    memsys ms;
    armprof_pe_ctx ctx;
    /* sampling */
    uint64_t until;             /* operations to count before the next sample point */
    uint64_t pending;           /* counted, not yet reported to the SPU */
    uint64_t insns;             /* instructions executed */
    uint64_t reported;          /* instructions the SPU and PMU have been told about */
    const tb_desc *prev;
    const insn_desc *armed;     /* the instruction at the sample point, in the current block */
    const tb_desc *armed_tb;
    mem_obs armed_mem;
    bool armed_mispred;
    /* operation trace (docs/trace-format.md) */
    FILE *trace;
    uint64_t traced;            /* operations written */
    bool prev_mispred;          /* the previous block's final branch was mispredicted */
    mem_obs tobs[MAX_TB_INSNS]; /* per instruction of the current block, while tracing */
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

/* The counted instructions and the time they took reach the SPU and the PMU. */
static void sync_units(vcpu *v)
{
    if (v->pending) {
        uint64_t k = spu_skip(v->spu, v->pending);
        (void)k;
        v->pending = 0;
    }
    uint64_t n = v->insns - v->reported;
    v->reported = v->insns;
    if (n) {
        pmu_count_event(v->pmu, PMU_EV_INST_RETIRED, n);
        spu_advance(v->spu, n * opt.cpi);
        pmu_advance(v->pmu, n * opt.cpi);
    }
    if (v->irq)
        service(v);
}

static uint16_t data_source(memsys_level l)
{
    /* Neoverse data source encodings, as Linux perf decodes them for Neoverse N1 (the MIDR in
     * perf.data): L1D 0x0, L2 0x8, system-level cache 0xb, DRAM 0xe. */
    static const uint16_t enc[] = { 0x0, 0x8, 0xb, 0xe };
    return enc[l];
}

/* The SPU operation for instruction d. `m` is what its memory callback saw (NULL or not valid:
 * none); `next_pc` is where execution went after it when `known`, then a conditional branch's
 * direction and an indirect branch's target come from it; `mispred` from the predictor. */
static void describe(const insn_desc *d, const mem_obs *m, uint64_t next_pc, bool known, bool mispred,
                     spu_op *op)
{
    memset(op, 0, sizeof *op);
    op->pc = d->pc;
    op->issue_lat = 1;
    op->total_lat = opt.cpi;
    op->events = 1ull << SPE_EV_RETIRED;
    if (m && m->valid) {
        const memsys_access *a = &m->acc;
        op->op_class = SPE_CLASS_LDST;
        op->op_subclass = (uint8_t)(SPE_LDST_GP | (m->store ? SPE_LDST_ST : 0));
        op->flags |= SPU_OP_HAS_VA | SPU_OP_HAS_XLAT | SPU_OP_HAS_DSRC;
        op->data_va = m->va;
        op->xlat_lat = a->xlat_lat;
        op->total_lat = a->total_lat;
        op->data_source = data_source(a->level);
        op->events |= 1ull << SPE_EV_L1D_ACCESS | 1ull << SPE_EV_TLB_ACCESS;
        if (a->level != MS_L1D)
            op->events |= 1ull << SPE_EV_L1D_REFILL;
        if (a->tlb_miss)
            op->events |= 1ull << SPE_EV_TLB_WALK;
        if (a->level >= MS_LLC)
            op->events |= 1ull << SPE_EV_LLC_ACCESS;
        if (a->level == MS_DRAM)
            op->events |= 1ull << SPE_EV_LLC_MISS;
    } else if (d->br.kind != A64_NOT_BRANCH) {
        op->op_class = SPE_CLASS_BRANCH;
        op->op_subclass = a64_branch_subclass(&d->br);
        uint64_t fall = d->pc + 4;
        bool taken = true;
        if (known && d->br.conditional)
            taken = next_pc != fall || d->br.target == fall;
        if (d->br.conditional && !taken)
            op->events |= 1ull << SPE_EV_NOT_TAKEN;
        if (!d->br.indirect || known) {
            op->flags |= SPU_OP_HAS_TARGET;
            op->target = d->br.indirect ? next_pc : d->br.target;
            op->target_el = 0;
            op->target_ns = true;
        }
        if (mispred) {
            op->events |= 1ull << SPE_EV_MISPREDICTED;
            op->total_lat += opt.ms.mispredict_lat;
        }
    } else {
        op->op_class = SPE_CLASS_OTHER;
    }
}

/* While tracing: the operations of block p, now that the next block (at next_pc) has started. */
static void trace_block(vcpu *v, const tb_desc *p, uint64_t next_pc)
{
    for (uint32_t i = 0; i < p->n && v->traced < opt.trace_ops; i++) {
        bool last = i + 1 == p->n;
        spu_op op;
        describe(&p->insn[i], &v->tobs[i], last ? next_pc : p->insn[i + 1].pc, true, last && v->prev_mispred, &op);
        if (wl_trace_write_op(v->trace, &op))
            say("vCPU %u: cannot write the trace", v->index);
        v->traced++;
    }
    memset(v->tobs, 0, p->n * sizeof(mem_obs));
    if (v->traced >= opt.trace_ops) {
        fclose(v->trace);
        v->trace = NULL;
    }
}

/* The armed instruction completed; next_pc is where execution went after its block. */
static void retire_armed(vcpu *v, uint64_t next_pc)
{
    const insn_desc *d = v->armed;
    const tb_desc *tb = v->armed_tb;
    spu_op op;
    /* next PC of the sampled instruction: the next block's start if it ends its block */
    bool last = d->idx + 1 == tb->n;
    describe(d, &v->armed_mem, last ? next_pc : tb->insn[d->idx + 1].pc, true, last && v->armed_mispred, &op);
    v->armed = NULL;
    v->armed_mem.valid = false;
    v->armed_mispred = false;
    /* Report the instructions before the sample point and their time, then the sampled one. */
    uint64_t rest = tb->n - d->idx - 1;       /* after it in its block: already in v->insns */
    v->insns -= rest + 1;
    sync_units(v);
    spu_retire(v->spu, &op);
    pmu_count_event(v->pmu, PMU_EV_INST_RETIRED, 1);
    spu_advance(v->spu, opt.cpi);
    pmu_advance(v->pmu, opt.cpi);
    v->insns += rest + 1;
    v->reported += 1;
    uint64_t k = spu_ops_until_sample(v->spu);
    uint32_t i = d->idx + 1;
    /* Another sample point inside the same block execution (interval < block length): it is
     * described from its encoding alone (no data address). */
    while (k != UINT64_MAX && rest > k) {
        spu_skip(v->spu, k);
        i += (uint32_t)k;
        rest -= k + 1;
        describe(&tb->insn[i], NULL, 0, false, false, &op);
        spu_retire(v->spu, &op);
        v->sampled_by_desc++;
        i++;
        k = spu_ops_until_sample(v->spu);
    }
    v->pending = k == UINT64_MAX ? 0 : rest;
    v->until = k == UINT64_MAX ? UINT64_MAX : k - rest;
}

static void tb_exec(unsigned int idx, void *udata)
{
    const tb_desc *tb = udata;
    vcpu *v = vcpus[idx];
    if (!v || v->done)
        return;
    if (!v->tid) {
        /* the first block this vCPU runs runs on its own thread: the guest thread's tid, which
         * Linux (CONFIG_PID_IN_CONTEXTIDR) keeps in CONTEXTIDR_EL1 for the CX packets */
        v->tid = (uint32_t)syscall(SYS_gettid);
        v->ctx.contextidr_el1 = v->tid;
        spu_set_pe_context(v->spu, &v->ctx);
    }
    const tb_desc *p = v->prev;
    if (p) {
        v->prev_mispred = false;
        if (p->ends_in_branch) {
            const insn_desc *b = &p->insn[p->n - 1];
            bool wrong;
            if (b->br.conditional)
                wrong = memsys_branch_cond(&v->ms, b->pc, tb->pc != b->pc + 4);
            else if (b->br.indirect)
                wrong = memsys_branch_indirect(&v->ms, b->pc, tb->pc);
            else
                wrong = false;
            if (v->armed == b)
                v->armed_mispred = wrong;
            v->prev_mispred = wrong;
        }
        if (v->armed)
            retire_armed(v, tb->pc);
        if (v->trace)
            trace_block(v, p, tb->pc);
    }
    v->prev = tb;
    v->insns += tb->n;
    if (tb->n <= v->until) {
        v->until -= tb->n;                     /* the fast path: no sample point in this block */
        v->pending += tb->n;
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
    vcpu *v = vcpus[idx];
    if (!v || v->done)
        return;
    if (udata == v->armed || v->trace) {
        memsys_access a = memsys_access_data(&v->ms, va);
        const insn_desc *d = udata;
        mem_obs *m = v->trace ? &v->tobs[d->idx] : &v->armed_mem;
        if (udata == v->armed && !v->armed_mem.valid)
            v->armed_mem = (mem_obs){ .valid = true, .store = qemu_plugin_mem_is_store(info),
                                      .size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info)),
                                      .va = va, .acc = a };
        if (v->trace && !m->valid)
            *m = (mem_obs){ .valid = true, .store = qemu_plugin_mem_is_store(info),
                            .size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info)), .va = va, .acc = a };
    } else if (opt.cache) {
        memsys_access_data(&v->ms, va);
    }
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
        x->pc = qemu_plugin_insn_vaddr(in);
        x->idx = (uint32_t)i;
        uint32_t op = 0;
        if (qemu_plugin_insn_size(in) == 4)
            memcpy(&op, qemu_plugin_insn_data(in), 4);   /* A64 is little-endian here */
        x->br = a64_decode_branch(op, x->pc);
        qemu_plugin_register_vcpu_mem_cb(in, mem_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, x);
    }
    d->ends_in_branch = n && d->insn[n - 1].br.kind != A64_NOT_BRANCH;
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
    v->until = spu_ops_until_sample(v->spu);
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
    program(v);
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
        retire_armed(v, v->armed->pc + 4);
    if (v->trace && v->prev)
        trace_block(v, v->prev, v->prev->insn[v->prev->n - 1].pc + 4);
    if (v->trace)
        fclose(v->trace);
    v->trace = NULL;
    sync_units(v);
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
                    ", \"mispredicts\": %" PRIu64 "}}%s\n",
                    v->index, v->serial, v->tid, v->path, v->insns, s->population, s->feed, s->collisions,
                    s->filtered_out, s->records_written, s->records_discarded, s->bytes_written, v->dumped,
                    v->irqs, v->serviced, v->fatal, v->sampled_by_desc, pmc[0], pmc[1], pmc[2], pmc[3], pmc[4],
                    pmc[5], v->ms.accesses, v->ms.l1_miss, v->ms.l2_miss, v->ms.llc_miss, v->ms.tlb_miss,
                    v->ms.branches, v->ms.mispredicts, i + 1 < n ? "," : "");
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
    perf_export_opts po = { .pid = (uint32_t)getpid(), .comm = base, .timer_hz = 1000000000ull,
                            .mmaps = maps, .n_mmaps = (size_t)nm,
                            /* PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, as perf record sets them for
                             * arm_spe: perf report --mem-mode requires them */
                            .extra_sample_type = (1u << 3) | (1u << 15) };
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
    char why[200];
    if (memsys_config_check(&opt.ms, why, sizeof why)) {
        say("option %s", why);
        return -1;
    }
    armprof_err e = spu_config_validate(&opt.spu, why, sizeof why);
    if (e != ARMPROF_OK) {
        say("option 'fifo' or 'inflight': %s (%s)", why, armprof_strerror(e));
        return -1;
    }
    struct stat st;
    if (stat(opt.out, &st) || !S_ISDIR(st.st_mode)) {
        if (mkdir(opt.out, 0777) && errno != EEXIST) {
            say("option 'out': cannot create directory %s: %s", opt.out, strerror(errno));
            return -1;
        }
    }
    plugin_id = id;
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
