/* SPDX-License-Identifier: Apache-2.0 */
/* trbu_env.h: a TRBU under test over the fake memory (trbu_fake.h), with register, programming and trace-byte helpers shared by the TRBU tests. */
#ifndef ARMPROF_TESTS_TRBU_ENV_H
#define ARMPROF_TESTS_TRBU_ENV_H

#include "armprof/trbu.h"
#include "armprof/bits.h"
#include "trbu_fake.h"

#define BASE 0x10000ull
#define LIMIT 0x12000ull /* 8 KiB buffer */

typedef struct env {
    fake f;
    trbu_config cfg;
    trbu_t *t;
    uint8_t seq;            /* next pattern byte */
} env;

static inline env *env_new(const trbu_config *cfg)
{
    env *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    if (cfg)
        e->cfg = *cfg;
    else
        trbu_config_default(&e->cfg);
    e->f.align_unit = 1u << e->cfg.align;
    armprof_host_ops ops = fake_ops(&e->f);
    assert_int_equal(trbu_open(&e->cfg, &ops, &e->t), ARMPROF_OK);
    return e;
}
static inline void env_free(env *e)
{
    trbu_close(e->t);
    free(e);
}

/* Register write from EL3 (no traps), then back to the caller's context. */
static inline void wr(trbu_t *t, uint32_t enc, uint64_t v)
{
    armprof_pe_ctx c = *trbu_get_pe_context(t), c3 = c;
    c3.el = 3;
    trbu_set_pe_context(t, &c3);
    assert_int_equal(trbu_reg_write(t, enc, v), ARMPROF_OK);
    trbu_set_pe_context(t, &c);
}
static inline uint64_t rd(const trbu_t *t, uint32_t enc)
{
    uint64_t v;
    assert_int_equal(trbu_reg_peek(t, enc, &v), ARMPROF_OK);
    return v;
}
static inline uint64_t limitr(uint64_t limit, unsigned fm, unsigned tm, bool e)
{
    return (limit & TRBLIMITR_EL1_LIMIT) | ap_field_prep(TRBLIMITR_EL1_FM, fm) |
           ap_field_prep(TRBLIMITR_EL1_TM, tm) | ap_field_prep(TRBLIMITR_EL1_E, e);
}
static inline void program(env *e, uint64_t ptr, unsigned fm, unsigned tm, uint32_t trg)
{
    wr(e->t, TRBU_TRBLIMITR_EL1, 0);
    wr(e->t, TRBU_TRBSR_EL1, 0);
    wr(e->t, TRBU_TRBBASER_EL1, BASE);
    wr(e->t, TRBU_TRBPTR_EL1, ptr);
    wr(e->t, TRBU_TRBTRG_EL1, trg);
    wr(e->t, TRBU_TRBLIMITR_EL1, limitr(LIMIT, fm, tm, true));
}
static inline size_t push(env *e, size_t n)
{
    uint8_t buf[8192];
    assert_true(n <= sizeof(buf));
    for (size_t i = 0; i < n; i++)
        buf[i] = e->seq++;
    return trbu_trace_bytes(e->t, buf, n);
}
/* The pattern bytes [from, from+n) of the stream are at addr. */
static inline void assert_pattern(env *e, uint64_t addr, uint8_t from, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fake_at(&e->f, addr)[i] != (uint8_t)(from + i))
            fail_msg("byte %zu at 0x%llx: 0x%02x, expected 0x%02x", i, (unsigned long long)addr,
                     fake_at(&e->f, addr)[i], (uint8_t)(from + i));
}
static inline void assert_accounting(env *e)
{
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    uint64_t held = st.bytes_in + st.bytes_padded - st.bytes_written - st.bytes_discarded;
    assert_true(held < (1u << e->cfg.align) + 1);
}
#define SR_EC(v) ap_field_get(TRBSR_EC, (v))
#define SR_MSS(v) ap_field_get(TRBSR_MSS, (v))

#endif
