/* SPDX-License-Identifier: Apache-2.0 */
/* test_trbu_rules.c: prioritization of trace buffer management events (seed 004 D6.5.1: RMKCHT, RGTMJD). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/trbu.h"
#include "armprof/bits.h"
#include "trbu_fake.h"

#define BASE 0x10000ull
#define LIMIT 0x12000ull /* 8 KiB buffer */

typedef struct env {
    fake f;
    trbu_config cfg;
    trbu_t *t;
    uint8_t seq;
} env;

static env *env_new(const trbu_config *cfg)
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

static void wr(env *e, uint32_t enc, uint64_t v)
{
    armprof_pe_ctx c = *trbu_get_pe_context(e->t), c3 = c;
    c3.el = 3;
    trbu_set_pe_context(e->t, &c3);
    assert_int_equal(trbu_reg_write(e->t, enc, v), ARMPROF_OK);
    trbu_set_pe_context(e->t, &c);
}

static uint64_t rd(env *e, uint32_t enc)
{
    uint64_t v;
    assert_int_equal(trbu_reg_peek(e->t, enc, &v), ARMPROF_OK);
    return v;
}

/* Fill mode, Ignore trigger, the write pointer at ptr. */
static void program_fill(env *e, uint64_t ptr)
{
    wr(e, TRBU_TRBLIMITR_EL1, 0);
    wr(e, TRBU_TRBSR_EL1, 0);
    wr(e, TRBU_TRBBASER_EL1, BASE);
    wr(e, TRBU_TRBPTR_EL1, ptr);
    wr(e, TRBU_TRBLIMITR_EL1, (LIMIT & TRBLIMITR_EL1_LIMIT) | ap_field_prep(TRBLIMITR_EL1_FM, TRBU_FM_FILL) |
                                  ap_field_prep(TRBLIMITR_EL1_TM, TRBU_TM_IGNORE) | TRBLIMITR_EL1_E);
}

static size_t push(env *e, size_t n)
{
    uint8_t buf[512];
    assert_true(n <= sizeof(buf));
    for (size_t i = 0; i < n; i++)
        buf[i] = e->seq++;
    return trbu_trace_bytes(e->t, buf, n);
}

/* RMKCHT: of the synchronous events one write can cause, the fault is reported: the write that
 * would have reached the Limit pointer (a Fill mode buffer full, RMBSHC) faults instead, so
 * TRBSR_EL1 holds the MMU fault, TRBPTR_EL1 the faulting address, WRAP stays 0 and no TRB_WRAP. */
static void test_fault_outranks_wrap_RMKCHT(void **s)
{
    (void)s;
    env *e = env_new(NULL);                             /* Align 6: 64-byte writes */
    program_fill(e, LIMIT - 64);
    fake_inject(&e->f, LIMIT - 64, ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT,
                ARMPROF_FSC_PERMISSION | 3, false, 0);
    push(e, 64);
    uint64_t sr = rd(e, TRBU_TRBSR_EL1);
    assert_int_equal(sr, TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, ARMPROF_EC_S1_ABORT) |
                         (ARMPROF_FSC_PERMISSION | 3));
    assert_int_equal(sr & TRBSR_WRAP, 0);
    assert_int_equal(rd(e, TRBU_TRBPTR_EL1), LIMIT - 64);
    assert_int_equal(e->f.ev_wrap, 0);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.fault_events, 1);
    assert_int_equal(st.buffer_full_events, 0);
    /* without the fault the same write is the buffer full event */
    trbu_close(e->t);
    free(e);
    e = env_new(NULL);
    program_fill(e, LIMIT - 64);
    push(e, 64);
    assert_int_equal(rd(e, TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_WRAP | TRBSR_S | TRBU_BSC_FILLED);
    assert_int_equal(e->f.ev_wrap, 1);
    trbu_close(e->t);
    free(e);
}

/* RGTMJD: an asynchronous External abort is not prioritized against synchronous events: a
 * synchronous fault on a later write is reported at once, while the abort is still on its way,
 * and the abort does not displace its syndrome when it arrives (TRBSR_EL1.S is already 1). */
static void test_async_not_prioritized_RGTMJD(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.ea_async = true;
    c.ea_async_cycles = 50;
    env *e = env_new(&c);
    program_fill(e, BASE);
    fake_inject(&e->f, BASE + 64, ARMPROF_MEM_EXT_ABORT, 0, ARMPROF_FSC_AEA_WRITE, true, 0);
    push(e, 128);
    assert_int_equal(rd(e, TRBU_TRBSR_EL1), 0);         /* the abort is on its way */
    fake_inject(&e->f, BASE + 128, ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT,
                ARMPROF_FSC_TRANSLATION | 3, false, 0);
    push(e, 64);
    uint64_t want = TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, ARMPROF_EC_S1_ABORT) |
                    (ARMPROF_FSC_TRANSLATION | 3);
    assert_int_equal(rd(e, TRBU_TRBSR_EL1), want);      /* reported now, EA clear */
    assert_int_equal(rd(e, TRBU_TRBPTR_EL1), BASE + 128);
    trbu_advance(e->t, 50);
    /* The abort arrives with S already 1: it is recorded (EA = 1, counted) but EC, FSC and
     * TRBPTR_EL1 stay those of the synchronous fault that came first. */
    assert_int_equal(rd(e, TRBU_TRBSR_EL1), want | TRBSR_EA);
    assert_int_equal(rd(e, TRBU_TRBPTR_EL1), BASE + 128);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.fault_events, 1);
    assert_int_equal(st.ext_abort_events, 1);
    trbu_close(e->t);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_outranks_wrap_RMKCHT),
        cmocka_unit_test(test_async_not_prioritized_RGTMJD),
    };
    return cmocka_run_group_tests_name("trbu_rules", tests, NULL, NULL);
}
