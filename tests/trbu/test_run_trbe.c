/* SPDX-License-Identifier: Apache-2.0 */
/* test_run_trbe.c: the armprof-run --trbe driver: every written byte consumed once, events serviced, runs reproducible. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_trbe.h"

static void small(run_trbe_opts *o)
{
    run_trbe_opts_default(o);
    o->bytes = 2u << 20;
    o->buffer_bytes = 64u << 10;
    o->trigger_every = 256u << 10;
}

static void check_consistent(const run_trbe_opts *o, const run_trbe_result *r)
{
    assert_int_equal(r->error, ARMPROF_OK);
    /* every refused offer is offered again: the source's bytes plus the refusals */
    assert_int_equal(r->st.bytes_in, o->bytes + r->st.bytes_refused);
    /* Fill mode never overwrites: every byte the unit wrote is read out once, plus the
     * driver's alignment padding */
    assert_int_equal(r->dumped_bytes, r->st.bytes_written + r->pad_bytes);
    assert_true(r->serviced_wraps <= r->st.buffer_full_events);
    assert_int_equal(r->serviced_wraps + r->fatal + r->spurious, r->irqs);
    assert_int_equal(r->st.bytes_in + r->st.bytes_padded,
                     r->st.bytes_written + r->st.bytes_discarded + r->st.bytes_refused);
    assert_int_equal(r->trblimitr & 1, 0);              /* left disabled */
}

static void test_linux_like_run(void **s)
{
    (void)s;
    run_trbe_opts o;
    small(&o);
    o.trigger_every = 0;                                /* Linux never programs ETE triggers */
    FILE *d1 = tmpfile(), *d2 = tmpfile();
    o.dump = d1;
    run_trbe_result a, b;
    assert_int_equal(run_trbe(&o, &a), 0);
    check_consistent(&o, &a);
    assert_true(a.serviced_wraps >= 2 * o.bytes / o.buffer_bytes / 3);
    assert_int_equal(a.st.wraps, a.st.buffer_full_events);
    assert_int_equal(a.serviced_wraps, a.st.buffer_full_events);
    assert_int_equal(a.fatal, 0);
    assert_int_equal((uint64_t)ftell(d1), a.dumped_bytes);
    /* the same seed gives the same run, byte for byte */
    o.dump = d2;
    assert_int_equal(run_trbe(&o, &b), 0);
    assert_memory_equal(&a.st, &b.st, sizeof(a.st));
    assert_int_equal(ftell(d2), ftell(d1));
    rewind(d1);
    rewind(d2);
    for (long i = 0; i < ftell(d2) || !feof(d1); i++) {
        int x = fgetc(d1), y = fgetc(d2);
        assert_int_equal(x, y);
        if (x == EOF)
            break;
    }
    fclose(d1);
    fclose(d2);
}

static void test_ignore_trigger_run(void **s)
{
    (void)s;
    run_trbe_opts o;
    small(&o);                                          /* Detected Triggers, Ignore trigger */
    run_trbe_result r;
    assert_int_equal(run_trbe(&o, &r), 0);
    check_consistent(&o, &r);
    assert_true(r.st.detected_triggers >= 2);
    assert_true(r.st.trigger_events > 0);               /* TRB_TRIG only, no flush */
    assert_int_equal(r.st.flushes, 0);
    assert_int_equal(r.st.trigger_mgmt_events, 0);
}

static void test_stop_on_trigger_run(void **s)
{
    (void)s;
    run_trbe_opts o;
    small(&o);
    o.tm = TRBU_TM_STOP;
    o.trigger_count = 4096;
    run_trbe_result r;
    assert_int_equal(run_trbe(&o, &r), 0);
    check_consistent(&o, &r);
    assert_true(r.st.trigger_mgmt_events > 0);
    assert_true(r.fatal > 0);                           /* TRG set: the driver truncates */
}

/* Memory timing: with latency 0 the run is the functional one (any max_outstanding_writes);
 * with latency the same trace is written (same bytes in trbe.bin's order, same events), the
 * writer stalls, the source is back-pressured, and more outstanding writes stall it less. */
static void test_write_latency_run(void **s)
{
    (void)s;
    run_trbe_opts o;
    small(&o);
    o.trigger_every = 0;
    run_trbe_result base, z, l1, l4;
    assert_int_equal(run_trbe(&o, &base), 0);
    o.trbu.max_outstanding_writes = 4;
    assert_int_equal(run_trbe(&o, &z), 0);
    assert_int_equal(z.st.bytes_written, base.st.bytes_written);
    assert_int_equal(z.dumped_bytes, base.dumped_bytes);
    assert_int_equal(z.cycles, base.cycles);
    assert_int_equal(z.irqs, base.irqs);
    assert_int_equal(z.st.bytes_refused, 0);
    assert_int_equal(z.source_stall_cycles, 0);
    assert_int_equal(z.st.write_latency_max, 0);
    o.bytes_per_cycle = 64;                             /* trace faster than one write per latency */
    o.write_latency = 40;
    o.trbu.max_outstanding_writes = 1;
    assert_int_equal(run_trbe(&o, &l1), 0);
    check_consistent(&o, &l1);
    o.trbu.max_outstanding_writes = 4;
    assert_int_equal(run_trbe(&o, &l4), 0);
    check_consistent(&o, &l4);
    /* 40 cycles each, but writes the driver's TSB CSYNC found outstanding are accepted then */
    assert_int_equal(l1.st.write_latency_max, 40);
    assert_true(l1.st.write_latency_sum > 35 * l1.st.port_writes);
    assert_int_equal(l1.st.outstanding_writes_max, 1);
    assert_true(l4.st.outstanding_writes_max > 1 && l4.st.outstanding_writes_max <= 4);
    assert_true(l1.st.bytes_refused > 0);
    assert_true(l1.source_stall_cycles > 0 && l1.st.writer_stall_cycles > 0);
    assert_true(l4.source_stall_cycles < l1.source_stall_cycles);
    assert_true(l1.st.buf_bytes_max > 64);
    /* Fill mode, nothing lost to timing: every byte of the source is written or discarded
     * while stopped, as without latency. */
    assert_int_equal(l1.st.bytes_written + l1.st.bytes_discarded, o.bytes + l1.st.bytes_padded);
}

static void test_bad_options(void **s)
{
    (void)s;
    run_trbe_opts o;
    small(&o);
    o.buffer_bytes = 5000;
    run_trbe_result r;
    assert_int_equal(run_trbe(&o, &r), 1);
    assert_int_equal(r.error, ARMPROF_ERR_INVAL);
    small(&o);
    o.trbu.align = 13;
    assert_int_equal(run_trbe(&o, &r), 1);
    assert_int_equal(r.error, ARMPROF_ERR_CFG_ALIGN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linux_like_run),
        cmocka_unit_test(test_ignore_trigger_run),
        cmocka_unit_test(test_stop_on_trigger_run),
        cmocka_unit_test(test_write_latency_run),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests_name("run_trbe", tests, NULL, NULL);
}
