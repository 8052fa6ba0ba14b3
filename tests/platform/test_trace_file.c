/* SPDX-License-Identifier: Apache-2.0 */
/* test_trace_file.c: the operation-trace file: a synthetic workload written and read back gives the same spu_op for every operation; bad files give an error naming the file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trace_file.h"
#include "workload.h"

static void same_op(const spu_op *a, const spu_op *b)
{
    assert_int_equal(a->pc, b->pc);
    assert_int_equal(a->op_class, b->op_class);
    assert_int_equal(a->op_subclass, b->op_subclass);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->events, b->events);
    assert_int_equal(a->total_lat, b->total_lat);
    assert_int_equal(a->issue_lat, b->issue_lat);
    assert_int_equal(a->xlat_lat, b->xlat_lat);
    assert_int_equal(a->data_va, b->data_va);
    assert_int_equal(a->data_pa, b->data_pa);
    assert_int_equal(a->data_pa_ns, b->data_pa_ns);
    assert_int_equal(a->target, b->target);
    assert_int_equal(a->target_el, b->target_el);
    assert_int_equal(a->target_ns, b->target_ns);
    assert_int_equal(a->data_source, b->data_source);
}

/* Every kind of operation the generator makes (atomics, SIMD, tags, exceptions, branches with
 * targets, data sources) survives the file. */
static void test_round_trip_synthetic(void **state)
{
    (void)state;
    enum { N = 20000 };
    wl_config c;
    wl_config_default(&c);
    c.seed = 7;
    c.va_tag = 0x5A;
    c.p_exception = 0.01;
    wl_gen g;
    wl_init(&g, &c);
    static spu_op ops[N];
    FILE *f = fopen("test_trace_rt.trc", "w");
    assert_non_null(f);
    assert_int_equal(wl_trace_write_header(f), 0);
    for (unsigned i = 0; i < N; i++) {
        wl_next(&g, &ops[i]);
        assert_int_equal(wl_trace_write_op(f, &ops[i]), 0);
    }
    assert_int_equal(fclose(f), 0);
    wl_trace t;
    char err[256] = "";
    assert_int_equal(wl_trace_load("test_trace_rt.trc", &t, err, sizeof err), 0);
    assert_int_equal(t.count, N);
    unsigned exc = 0, tgt = 0, atomics = 0;
    for (unsigned i = 0; i < N; i++) {
        same_op(&ops[i], &t.ops[i]);
        exc += !!(ops[i].flags & SPU_OP_EXCEPTION);
        tgt += !!(ops[i].flags & SPU_OP_HAS_TARGET);
        atomics += ops[i].op_class == SPE_CLASS_LDST && (ops[i].op_subclass & SPE_LDST_EXTENDED);
    }
    assert_true(exc > 0 && tgt > 0 && atomics > 0);
    wl_trace_free(&t);
    remove("test_trace_rt.trc");
}

/* Writes `text` to a file and loads it: the error must be exactly `want` (path:line: what). */
static void load_fails(const char *text, const char *want)
{
    const char *path = "test_trace_bad.trc";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    wl_trace t;
    char err[256] = "";
    assert_int_equal(wl_trace_load(path, &t, err, sizeof err), -1);
    assert_string_equal(err, want);
    assert_int_equal(t.count, 0);
    assert_null(t.ops);
    remove(path);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
    const char *head = "armprof-trace 1\n# comment\n0x1000 other 0 4 1\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s0x1004 ldst 0 8 2 va=0x12G4\n", head);
    load_fails(buf, "test_trace_bad.trc:4: va: not an unsigned number: '0x12G4'");
    snprintf(buf, sizeof buf, "%s\n0x1004 load 0 8 2\n", head);
    load_fails(buf, "test_trace_bad.trc:5: CLASS: unknown class 'load' (other, ldst or branch)");
    snprintf(buf, sizeof buf, "%s0x1004 ldst 0x01\n", head);
    load_fails(buf, "test_trace_bad.trc:4: truncated line: TOTAL_LAT missing (expected PC CLASS SUBCLASS TOTAL_LAT ISSUE_LAT)");
    snprintf(buf, sizeof buf, "%s0x1008 branch 0 6 1 tgt=0x2000\n", head);
    load_fails(buf, "test_trace_bad.trc:4: unknown key 'tgt' (va, pa, pa_ns, xlat, src, target, target_el, target_ns, ev)");
    snprintf(buf, sizeof buf, "%s0x1008 ldst 0x100 6 1\n", head);
    load_fails(buf, "test_trace_bad.trc:4: SUBCLASS: 0x100 is larger than 255");
    load_fails("armprof-trace 2\n", "test_trace_bad.trc:1: header: expected 'armprof-trace 1'");
    load_fails("# nothing\n\n", "test_trace_bad.trc: no operations in the file");
    /* Bytes that are not text are shown escaped, never raw (a binary file given as a trace). */
    snprintf(buf, sizeof buf, "%s0x10\xff\x1b[31m other 0 4 1\n", head);
    load_fails(buf, "test_trace_bad.trc:4: PC: not an unsigned number: '0x10\\xff\\x1b[31m'");
    snprintf(buf, sizeof buf, "%s0x1008 oth\x01" "er 0 4 1\n", head);
    load_fails(buf, "test_trace_bad.trc:4: CLASS: unknown class 'oth\\x01er' (other, ldst or branch)");
    snprintf(buf, sizeof buf, "%s0x1008 other 0 4 1 \xc3\xa9=1\n", head);
    load_fails(buf, "test_trace_bad.trc:4: unknown key '\\xc3\\xa9' (va, pa, pa_ns, xlat, src, target, target_el, target_ns, ev)");
    snprintf(buf, sizeof buf, "%s0x1008 other 0 4 1 \x7f\n", head);
    load_fails(buf, "test_trace_bad.trc:4: '\\x7f': expected key=value, exception or not_retired");
    snprintf(buf, sizeof buf, "%s\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f other 0 4 1\n", head);
    load_fails(buf, "test_trace_bad.trc:4: PC: not an unsigned number: "
                    "'\\x80\\x81\\x82\\x83\\x84\\x85\\x86\\x87\\x88\\x89...'");
    wl_trace t;
    char err[256] = "";
    assert_int_equal(wl_trace_load("no/such/file.trc", &t, err, sizeof err), -1);
    assert_string_equal(err, "no/such/file.trc: cannot open: No such file or directory");
    /* A folder: the reason, not "read error". */
    assert_int_equal(wl_trace_load(".", &t, err, sizeof err), -1);
    assert_string_equal(err, ".:1: Is a directory");
}

/* The fields of a line land where the generator puts them (flags follow the keys present). */
static void test_line_fields(void **state)
{
    (void)state;
    spu_op op;
    char why[200];
    assert_int_equal(wl_trace_parse_line("  # only a comment\n", &op, why, sizeof why), 0);
    assert_int_equal(wl_trace_parse_line("0x40 ldst 0x11 200 50 va=0x7f00 pa=0x9f00 pa_ns=0 xlat=31 src=14 "
                                         "ev=0x20c # LLC miss\n", &op, why, sizeof why), 1);
    assert_int_equal(op.pc, 0x40);
    assert_int_equal(op.op_class, SPE_CLASS_LDST);
    assert_int_equal(op.op_subclass, 0x11);
    assert_int_equal(op.total_lat, 200);
    assert_int_equal(op.issue_lat, 50);
    assert_int_equal(op.flags, SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT | SPU_OP_HAS_DSRC);
    assert_int_equal(op.data_va, 0x7f00);
    assert_int_equal(op.data_pa, 0x9f00);
    assert_false(op.data_pa_ns);
    assert_int_equal(op.xlat_lat, 31);
    assert_int_equal(op.data_source, 14);
    assert_int_equal(op.events, 0x20c);
    assert_int_equal(wl_trace_parse_line("0x44 branch 3 6 1 target=0x80 target_el=2 exception not_retired",
                                         &op, why, sizeof why), 1);
    assert_int_equal(op.flags, SPU_OP_HAS_TARGET | SPU_OP_EXCEPTION | SPU_OP_NOT_RETIRED);
    assert_int_equal(op.target, 0x80);
    assert_int_equal(op.target_el, 2);
    assert_true(op.target_ns);
    assert_int_equal(wl_trace_parse_line("0x48 other 0 4 1 pa_ns=1", &op, why, sizeof why), -1);
    assert_string_equal(why, "pa_ns without pa");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_synthetic),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_line_fields),
    };
    return cmocka_run_group_tests_name("trace_file", tests, NULL, NULL);
}
