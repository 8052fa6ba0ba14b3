/* SPDX-License-Identifier: Apache-2.0 */
/* run_trbe.c: a TRBU over a flat memory, fed by a seeded synthetic trace source, serviced as Linux's coresight-trbe does. */
#define _POSIX_C_SOURCE 199309L
#include "run_trbe.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armprof/bits.h"
#include "armprof/rng.h"

#define RUN_TRBE_BASE 0x80000000ull
#define ETE_IGNORE 0x70                 /* the ETE Ignore packet the driver pads with */
#define TRACE_MIN_RUN 64                /* TRBE_TRACE_MIN_BUF_SIZE */

typedef struct run_ctx {
    const run_trbe_opts *o;
    run_trbe_result *r;
    trbu_t *t;
    uint8_t *mem;
    uint64_t size;
    uint64_t align;                     /* 2^TRBIDR_EL1.Align */
    uint64_t head;                      /* the perf AUX head: offset of the next byte to consume */
    uint64_t consumed;                  /* bytes consumed or skipped since the start (ring position) */
    bool irq;
} run_ctx;

static armprof_mem_result flat_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                     const armprof_regime *g)
{
    (void)g;
    run_ctx *c = user;
    armprof_mem_result res = { .status = ARMPROF_MEM_OK, .written = len };
    if (addr < RUN_TRBE_BASE || addr + len > RUN_TRBE_BASE + c->size) {
        res.status = ARMPROF_MEM_FAULT;
        res.ec = ARMPROF_EC_S1_ABORT;
        res.fsc = ARMPROF_FSC_TRANSLATION | 3;
        res.written = 0;
        return res;
    }
    memcpy(c->mem + (addr - RUN_TRBE_BASE), data, len);
    res.latency = c->o->write_latency;
    return res;
}

static void on_irq(void *user, bool level)
{
    run_ctx *c = user;
    if (level && !c->irq)
        c->r->irqs++;
    c->irq = level;
}

void run_trbe_opts_default(run_trbe_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->bytes = 16ull << 20;
    o->seed = 1;
    o->buffer_bytes = 256 << 10;
    o->mean_burst = 256;
    o->bytes_per_cycle = 4;
    o->trigger_every = 1 << 20;
    o->trigger_count = 0;
    o->tm = TRBU_TM_IGNORE;
    o->fm = TRBU_FM_FILL;
    o->irq_latency = 2000;
    trbu_config_default(&o->trbu);
}

static int fail(run_trbe_result *r, armprof_err e, const char *msg)
{
    r->error = e;
    snprintf(r->error_text, sizeof(r->error_text), "%s", msg);
    return 1;
}

/* The consumer copies [from, to) of the buffer out (the perf AUX buffer being read). */
static void consume(run_ctx *c, uint64_t from, uint64_t to)
{
    if (to <= from)
        return;
    if (c->o->dump)
        fwrite(c->mem + from, 1, (size_t)(to - from), c->o->dump);
    c->r->dumped_bytes += to - from;
    c->consumed += to - from;
}

static void reg_w(run_ctx *c, uint32_t enc, uint64_t v)
{
    trbu_reg_write(c->t, enc, v);
}
static uint64_t reg_r(run_ctx *c, uint32_t enc)
{
    uint64_t v = 0;
    trbu_reg_read(c->t, enc, &v);
    return v;
}

/* trbe_drain_and_disable_local(): TSB CSYNC, then TRBLIMITR_EL1.E = 0 keeping the limit. */
static void drain_and_disable(run_ctx *c)
{
    trbu_tsb_csync(c->t);
    reg_w(c, TRBU_TRBLIMITR_EL1, reg_r(c, TRBU_TRBLIMITR_EL1) & ~TRBLIMITR_EL1_E);
}

/* __arm_trbe_enable(): pad the head to the unit alignment (and past a too-short tail), then
 * trbe_enable_hw(): clear the status, base, write pointer, limit with Fill mode and E. */
static void enable(run_ctx *c)
{
    if (c->head & (c->align - 1)) {
        uint64_t to = (c->head + c->align - 1) & ~(c->align - 1);
        if (to > c->size)
            to = c->size;
        memset(c->mem + c->head, ETE_IGNORE, (size_t)(to - c->head));
        c->r->pad_bytes += to - c->head;
        consume(c, c->head, to);
        c->head = to;
    }
    if (c->size - c->head < TRACE_MIN_RUN) {
        memset(c->mem + c->head, ETE_IGNORE, (size_t)(c->size - c->head));
        c->r->pad_bytes += c->size - c->head;
        consume(c, c->head, c->size);
        c->head = 0;
    }
    if (c->head == c->size)
        c->head = 0;
    uint64_t sr = reg_r(c, TRBU_TRBSR_EL1);
    sr &= ~(TRBSR_IRQ | TRBSR_TRG | TRBSR_WRAP | TRBSR_EC | TRBSR_BSC | TRBSR_S | TRBSR_EA);
    reg_w(c, TRBU_TRBLIMITR_EL1, reg_r(c, TRBU_TRBLIMITR_EL1) & ~TRBLIMITR_EL1_E);
    reg_w(c, TRBU_TRBSR_EL1, sr);
    reg_w(c, TRBU_TRBBASER_EL1, RUN_TRBE_BASE);
    reg_w(c, TRBU_TRBPTR_EL1, RUN_TRBE_BASE + c->head);
    reg_w(c, TRBU_TRBTRG_EL1, c->o->trigger_count);
    reg_w(c, TRBU_TRBLIMITR_EL1, ((RUN_TRBE_BASE + c->size) & TRBLIMITR_EL1_LIMIT) |
                                     ap_field_prep(TRBLIMITR_EL1_FM, c->o->fm) |
                                     ap_field_prep(TRBLIMITR_EL1_TM, c->o->tm) | TRBLIMITR_EL1_E);
}

/* Wrap and Circular Buffer modes (coresight-trbe uses neither): with the unit disabled and
 * drained, copy out the newest bytes since the last copy, at most one buffer of them; older ones
 * were overwritten by the unit. Every byte the unit or the driver wrote advanced the ring. */
static void ring_collect(run_ctx *c)
{
    trbu_stats st;
    trbu_get_stats(c->t, &st);
    uint64_t w = st.bytes_written + c->r->pad_bytes;
    uint64_t avail = w - c->consumed, p = w % c->size;
    if (avail > c->size) {
        c->r->overwritten_bytes += avail - c->size;
        avail = c->size;
    }
    if (avail <= p) {
        consume(c, p - avail, p);
    } else {
        consume(c, c->size - (avail - p), c->size);
        consume(c, 0, p);
    }
    c->consumed = w;
    c->head = p;
}

/* The Wrap / Circular handler: TRBIRQ on a wrap (Wrap mode), a trigger, fault or abort; the
 * newest bytes are copied out and the unit re-enabled at its write pointer. */
static void ring_irq_handler(run_ctx *c)
{
    drain_and_disable(c);
    uint64_t sr = reg_r(c, TRBU_TRBSR_EL1);
    unsigned ec = (unsigned)ap_field_get(TRBSR_EC, sr);
    if (!(sr & TRBSR_IRQ))
        c->r->spurious++;
    else if ((sr & (TRBSR_TRG | TRBSR_EA)) || ec != 0)
        c->r->fatal++;
    else if (sr & TRBSR_WRAP)
        c->r->serviced_wraps++;
    else
        c->r->spurious++;
    ring_collect(c);
    enable(c);
}

/* arm_trbe_irq_handler(). */
static void irq_handler(run_ctx *c)
{
    if (c->o->fm != TRBU_FM_FILL) {
        ring_irq_handler(c);
        return;
    }
    drain_and_disable(c);
    uint64_t sr = reg_r(c, TRBU_TRBSR_EL1);
    if (!(sr & TRBSR_IRQ)) {
        c->r->spurious++;
        return;
    }
    reg_w(c, TRBU_TRBSR_EL1, sr & ~TRBSR_IRQ);
    uint64_t ptr = reg_r(c, TRBU_TRBPTR_EL1) - RUN_TRBE_BASE;
    unsigned ec = (unsigned)ap_field_get(TRBSR_EC, sr);
    bool fatal = (sr & (TRBSR_TRG | TRBSR_EA)) || ec == ARMPROF_EC_S1_ABORT ||
                 ec == ARMPROF_EC_S2_ABORT;
    if (!fatal && (sr & TRBSR_WRAP) && ec == 0 &&
        ap_field_get(TRBSR_BSC, sr) == TRBU_BSC_FILLED && ptr == 0) {
        /* trbe_handle_overflow(): the whole rest of the buffer is trace */
        consume(c, c->head, c->size);
        c->head = 0;
        c->r->serviced_wraps++;
    } else if (fatal) {
        /* trbe_stop_and_truncate_event() (a Detected Trigger, a fault or an abort), then perf
         * schedules the event in again. What was written up to the write pointer is kept; a
         * buffer full event in the same syndrome means up to the Limit pointer. */
        uint64_t end = ptr;
        if ((sr & TRBSR_WRAP) && ec == 0 && ap_field_get(TRBSR_BSC, sr) == TRBU_BSC_FILLED && ptr == 0)
            end = c->size;
        if (end > c->head && end <= c->size)
            consume(c, c->head, end);
        c->head = end < c->size ? end : 0;
        c->r->fatal++;
    } else {
        c->r->spurious++;
    }
    enable(c);
}

/* Time passes for the unit; the interrupt handler runs irq_latency cycles after TRBIRQ rose. */
static void tick(run_ctx *c, uint64_t cyc, bool stopped, uint64_t *irq_at)
{
    trbu_advance(c->t, cyc);
    c->r->cycles += cyc;
    if (stopped)
        c->r->stopped_cycles += cyc;
    if (c->irq && *irq_at == UINT64_MAX)
        *irq_at = c->r->cycles + c->o->irq_latency;
    if (*irq_at != UINT64_MAX && c->r->cycles >= *irq_at) {
        *irq_at = UINT64_MAX;
        irq_handler(c);
    }
}

int run_trbe(const run_trbe_opts *o, run_trbe_result *r)
{
    memset(r, 0, sizeof(*r));
    char why[160];
    if (!o || o->buffer_bytes < 8192 || (o->buffer_bytes & 4095) || o->mean_burst == 0 ||
        o->mean_burst > 32768 || o->bytes_per_cycle == 0)
        return fail(r, ARMPROF_ERR_INVAL,
                    "buffer_bytes: a multiple of 4 KiB >= 8 KiB; mean_burst 1..32768; bytes_per_cycle >= 1");
    if (o->tm != TRBU_TM_STOP && o->tm != TRBU_TM_IRQ && o->tm != TRBU_TM_IGNORE)
        return fail(r, ARMPROF_ERR_INVAL, "tm: TRBU_TM_STOP, TRBU_TM_IRQ or TRBU_TM_IGNORE");
    if (o->fm != TRBU_FM_FILL && o->fm != TRBU_FM_WRAP && o->fm != TRBU_FM_CIRCULAR)
        return fail(r, ARMPROF_ERR_INVAL, "fm: TRBU_FM_FILL, TRBU_FM_WRAP or TRBU_FM_CIRCULAR");
    armprof_err e = trbu_config_validate(&o->trbu, why, sizeof(why));
    if (e != ARMPROF_OK)
        return fail(r, e, why);

    run_ctx c = { .o = o, .r = r, .size = o->buffer_bytes };
    c.mem = calloc(1, (size_t)o->buffer_bytes);
    uint8_t *burst = malloc(2 * (size_t)o->mean_burst);
    if (!c.mem || !burst) {
        free(c.mem);
        free(burst);
        return fail(r, ARMPROF_ERR_NOMEM, "out of memory");
    }
    c.align = 1ull << o->trbu.align;
    armprof_host_ops ops = { .mem_write = flat_write, .irq = on_irq, .user = &c };
    e = trbu_open(&o->trbu, &ops, &c.t);
    if (e != ARMPROF_OK) {
        free(c.mem);
        free(burst);
        return fail(r, e, "trbu_open failed");
    }
    armprof_pe_ctx pe;
    armprof_pe_ctx_default(&pe);             /* EL1 Non-secure owns the buffer */
    trbu_set_pe_context(c.t, &pe);
    r->buffer_base = RUN_TRBE_BASE;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ap_prng64 rng = { .state = o->seed };
    uint64_t produced = 0, since_trig = 0, next_trig = 0;
    uint64_t irq_at = UINT64_MAX, refused = 0;
    if (o->trigger_every)
        next_trig = 1 + ap_prng64_below(&rng, 2 * o->trigger_every);
    enable(&c);
    while (produced < o->bytes) {
        if (o->stop && *o->stop) {
            r->interrupted = true;
            break;
        }
        uint64_t n = 1 + ap_prng64_below(&rng, 2 * (uint64_t)o->mean_burst - 1);
        if (n > o->bytes - produced)
            n = o->bytes - produced;
        /* Trace-like bytes: runs of repeated packets with some noise. */
        for (uint64_t i = 0; i < n; i++)
            burst[i] = (uint8_t)((produced + i) % 29 == 0 ? ap_prng64_next(&rng) : (produced + i) & 0x7F);
        size_t got = trbu_trace_bytes(c.t, burst, (size_t)n);
        while (got < n) {
            /* Refused (back-pressure) or discarded with a reason: only refused bytes are
             * offered again, when the unit's next write is accepted. */
            trbu_stats st;
            trbu_get_stats(c.t, &st);
            if (st.bytes_refused == refused)
                break;
            refused = st.bytes_refused;
            uint64_t d = trbu_cycles_to_next_event(c.t);
            d = d == UINT64_MAX || d == 0 ? 1 : d;
            r->source_stall_cycles += d;
            tick(&c, d, false, &irq_at);
            got += trbu_trace_bytes(c.t, burst + got, (size_t)(n - got));
        }
        produced += n;
        bool stopped = trbu_collection_stopped(c.t);
        since_trig += n;
        if (o->trigger_every && since_trig >= next_trig) {
            trbu_trigger(c.t);
            since_trig = 0;
            next_trig = 1 + ap_prng64_below(&rng, 2 * o->trigger_every);
        }
        uint64_t cyc = n / o->bytes_per_cycle ? n / o->bytes_per_cycle : 1;
        tick(&c, cyc, stopped, &irq_at);
    }
    /* The end of the session: a pending interrupt first, then arm_trbe_update_buffer(). */
    if (c.irq)
        irq_handler(&c);
    drain_and_disable(&c);
    if (o->fm != TRBU_FM_FILL) {
        ring_collect(&c);
    } else {
        uint64_t sr = reg_r(&c, TRBU_TRBSR_EL1);
        uint64_t ptr = reg_r(&c, TRBU_TRBPTR_EL1) - RUN_TRBE_BASE;
        if (sr & TRBSR_IRQ) {
            reg_w(&c, TRBU_TRBSR_EL1, sr & ~TRBSR_IRQ);
            if ((sr & TRBSR_WRAP) && ptr == 0)
                ptr = c.size;
        }
        if (ptr > c.head && ptr <= c.size)
            consume(&c, c.head, ptr);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->host_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

    trbu_get_stats(c.t, &r->st);
    trbu_reg_peek(c.t, TRBU_TRBSR_EL1, &r->trbsr);
    trbu_reg_peek(c.t, TRBU_TRBPTR_EL1, &r->trbptr);
    trbu_reg_peek(c.t, TRBU_TRBLIMITR_EL1, &r->trblimitr);
    trbu_reg_peek(c.t, TRBU_TRBBASER_EL1, &r->trbbaser);
    trbu_close(c.t);
    free(c.mem);
    free(burst);
    r->error = ARMPROF_OK;
    return 0;
}
