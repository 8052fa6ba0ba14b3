/* SPDX-License-Identifier: Apache-2.0 */
/* spu_config.c: the unit's configuration: the IMPLEMENTATION DEFINED values PMSIDR_EL1 and
 * PMBIDR_EL1 advertise (seed 001 §4.3.1 PMBIDR_EL1, PMSIDR_EL1; REGISTERS.md), the model's own
 * microarchitecture (slots, record FIFO, writer), their checks, and the sizes of the unit's
 * buffers that follow from them. */
#include <stdio.h>
#include <string.h>

#include "common/state.h"
#include "spu_internal.h"

void spu_config_default(spu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->max_size = 6;          /* 64-byte records */
    cfg->count_size = 2;        /* 12-bit saturating counters */
    cfg->interval = 0;          /* minimum interval 256 */
    cfg->format = 0;
    cfg->ernd = false;
    cfg->lds = true;
    cfg->arch_inst = true;
    cfg->fe = cfg->ft = cfg->fl = true;
    cfg->align = 0;
    cfg->flag_update = true;
    cfg->ea = SPU_EA_REPORT;
    cfg->nvm_bit = 3;
    cfg->envm_bit = 8;
    cfg->rng_seed = 0;
    cfg->ptr_policy = SPU_PTR_BUFFER_FULL;
    cfg->max_inflight = 4;
    cfg->fifo_bytes = 1024;
    cfg->drain_bytes_per_cycle = 16;
    cfg->write_granule = 4096;
    cfg->write_bytes = 0;             /* one write per record, as before memory timing */
    cfg->max_outstanding_writes = 1;
    cfg->cycles_per_tick = 1;
}

static armprof_err cfg_fail(char *why, size_t n, armprof_err e, const char *msg)
{
    if (why && n)
        snprintf(why, n, "%s", msg);
    return e;
}

armprof_err spu_config_validate(const spu_config *cfg, char *why, size_t n)
{
    if (!cfg)
        return cfg_fail(why, n, ARMPROF_ERR_INVAL, "config is NULL");
    if (cfg->max_size < 4 || cfg->max_size > 11)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMSIDR_EL1.MaxSize must be 0b0100 (16 B) .. 0b1011 (2 KiB)");
    if (cfg->count_size != 2 && cfg->count_size != 3)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMSIDR_EL1.CountSize must be 0b0010 (12-bit) or 0b0011 (16-bit)");
    if (cfg->interval == 1 || cfg->interval > 8)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMSIDR_EL1.Interval must be 0b0000 or 0b0010 .. 0b1000");
    if (cfg->format > 15)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "PMSIDR_EL1.FORMAT is 4 bits");
    if (cfg->align > 11)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMBIDR_EL1.Align must be 0b0000 .. 0b1011 (2 KiB)");
    if (cfg->align > cfg->max_size)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_ALIGN,
                        "PMBIDR_EL1.Align larger than PMSIDR_EL1.MaxSize: no record could be padded");
    if (cfg->ea > SPU_EA_SERROR)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED, "PMBIDR_EL1.EA must be 0b0000..0b0010");
    if (cfg->fne && !cfg->feat_spev1p2)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FEATURE, "PMSIDR_EL1.FnE needs FEAT_SPEv1p2");
    /* Checked whatever feat_spe_nvm says: the enables shift by both. */
    if (cfg->nvm_bit < 3 || cfg->nvm_bit > 11 || cfg->nvm_bit == 5)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE,
                        "nvm_bit must be a RES0 bit of PMBLIMITR_EL1 in [11:3] other than PMFZ (5)");
    if (cfg->envm_bit < 8 || cfg->envm_bit > 63)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "envm_bit must be a RES0 bit of PMSCR_EL2 in [63:8]");
    if (cfg->ptr_policy > SPU_PTR_WRITE)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "ptr_policy out of range");
    if (cfg->max_inflight == 0 || cfg->max_inflight > 4096)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "max_inflight must be 1 .. 4096");
    if (cfg->fifo_bytes == 0)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO, "record FIFO depth is zero");
    if (cfg->fifo_bytes < (1u << cfg->max_size))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO,
                        "record FIFO smaller than one maximum-size record (2^MaxSize bytes)");
    if (cfg->fifo_bytes > (64u << 20))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO, "record FIFO larger than 64 MiB");
    if (cfg->drain_bytes_per_cycle == 0)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO, "record FIFO drain rate is zero");
    if (cfg->write_granule < 16 || (cfg->write_granule & (cfg->write_granule - 1)))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "write_granule must be a power of two >= 16");
    if (cfg->write_bytes && (cfg->write_bytes < 16 || (cfg->write_bytes & (cfg->write_bytes - 1)) ||
                             cfg->write_bytes > cfg->write_granule || cfg->write_bytes > 65536))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE,
                        "write_bytes must be 0 (one write per record) or a power of two, "
                        "16 .. write_granule (and <= 64 KiB)");
    if (cfg->max_outstanding_writes == 0 || cfg->max_outstanding_writes > 256)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "max_outstanding_writes must be 1 .. 256");
    if (cfg->cycles_per_tick == 0)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "cycles_per_tick is zero");
    return ARMPROF_OK;
}

/* A hash of everything that shapes the state layout and behaviour, for checkpoints. */
uint64_t spu_cfg_hash(const spu_config *c)
{
    uint64_t f[] = { spu_pmsidr_value(c), c->align, c->flag_update, c->ea, c->feat_spev1p2,
                     c->feat_spe_nvm, c->feat_ecv, c->nvm_bit, c->envm_bit, c->sample_next_op,
                     c->cu_fe_zero_discards, c->cu_ft_zero_discards, c->cu_fl_zero_discards,
                     c->ptr_policy, c->ts_when_timer_off, c->max_inflight, c->fifo_bytes,
                     c->drain_bytes_per_cycle, c->write_granule, c->cycles_per_tick,
                     c->write_bytes, c->max_outstanding_writes };
    return ap_fnv1a64(f, sizeof(f), AP_FNV_INIT);
}

/* =============================================================================================
 * Buffer sizes
 * ============================================================================================= */

uint32_t spu_fifo_ring_bytes(const spu_config *c) { return c->fifo_bytes + (1u << c->max_size); }

/* The writer's unissued bytes: a partial block (< write_bytes), the bytes that left the FIFO at
 * one edge whose drain began while the writer was ready (< fifo_bytes), and one record. */
uint32_t spu_wbuf_bytes(const spu_config *c)
{
    uint32_t need = (1u << c->max_size) + c->write_bytes + c->fifo_bytes, cap = 16;
    while (cap < need)
        cap <<= 1;
    return cap;
}

/* The largest single write: a record (write_bytes 0) or a block. */
uint32_t spu_wtmp_bytes(const spu_config *c)
{
    return c->write_bytes > (1u << c->max_size) ? c->write_bytes : (1u << c->max_size);
}
