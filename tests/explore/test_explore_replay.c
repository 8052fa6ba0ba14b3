/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_replay.c: workload.trace in sweeps: a 2-point sweep over two trace files (different,
 * repeatable results, run = lines * repeat, the C-level model and the platform scenario), and the
 * errors: a missing or bad trace file and generator keys beside a trace, with the sweep file's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "explore.h"
#include "trace_file.h"

#ifndef EXPLORE_TMP
#define EXPLORE_TMP "explore-tmp"
#endif
#define DIR EXPLORE_TMP "/replay"
#define SWEEP DIR "/replay.yaml"

static ex_sweep sw;

/* lines operations: one load in four, latencies by line; `lat` shifts every latency so the two
 * files give different records. */
static void write_trace(const char *path, unsigned lines, unsigned lat)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    wl_trace_write_header(f);
    for (unsigned i = 0; i < lines; i++) {
        spu_op op;
        memset(&op, 0, sizeof(op));
        op.pc = 0xffff800000400000ull + 4ull * i;
        op.total_lat = lat + i % 30;
        op.issue_lat = 1;
        op.op_class = i % 4 ? SPE_CLASS_OTHER : SPE_CLASS_LDST;
        if (!(i % 4)) {
            op.data_va = 0x0000ffff00000000ull + 64ull * i;
            op.flags = SPU_OP_HAS_VA;
        }
        assert_int_equal(wl_trace_write_op(f, &op), 0);
    }
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    mkdir(EXPLORE_TMP, 0777);
    mkdir(DIR, 0777);
    write_trace(DIR "/short.trc", 2000, 4);
    write_trace(DIR "/long.trc", 3000, 200);
    FILE *f = fopen(DIR "/bad.trc", "w");
    if (!f)
        return -1;
    fputs("armprof-trace 1\n0x1000 other 0 4 1\n0x1004 load 0 4 1\n", f);
    return fclose(f);
}

static const char *const text =
    "name: replay\n"
    "spe: {interval: 1024, rnd: false, buffer_bytes: 4K}\n"
    "workload:\n"
    "  repeat: 50\n"
    "sweep:\n"
    "  workload.trace: [short.trc, long.trc]\n";

/* Two files, two points: each runs its file's lines * repeat operations (paths relative to the
 * sweep file), the results differ, and running a point again gives the same numbers. */
static void test_sweep_over_traces(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(ex_sweep_load_string(SWEEP, text, &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.npoints, 2);
    ex_result r[2], again;
    for (size_t i = 0; i < 2; i++) {
        ex_point_cfg cfg;
        ex_point_build(&sw, i, &cfg);
        assert_string_equal(cfg.trace, i ? DIR "/long.trc" : DIR "/short.trc");
        assert_int_equal(cfg.trace_repeat, 50);
        assert_int_equal(ex_point_run(&cfg, &r[i], err, sizeof(err)), 0);
        assert_int_equal(ex_point_run(&cfg, &again, err, sizeof(err)), 0);
        for (int m = 0; m < EXM__COUNT; m++)
            if (ex_metric_deterministic(m) && (r[i].m[m] == r[i].m[m] || again.m[m] == again.m[m]))
                assert_true(r[i].m[m] == again.m[m]);
        /* RND = 0, interval 1024: one sample point per 1024 operations of the population. */
        double ops = i ? 3000.0 * 50 : 2000.0 * 50;
        double points = r[i].m[EXM_SAMPLES] + r[i].m[EXM_COLLISIONS];
        assert_true(points <= ops / 1024 && points >= ops / 1024 - 1 - r[i].m[EXM_UNSAMPLED_OPS] / 1024);
    }
    /* The longer file runs longer and its operations take longer: different cycles and records. */
    assert_true(r[1].m[EXM_CYCLES] > r[0].m[EXM_CYCLES]);
    assert_true(r[1].m[EXM_SAMPLES] != r[0].m[EXM_SAMPLES]);
    /* Different files, different keys and seeds; the generator's sweeps keep theirs (no trace). */
    ex_point_cfg a, b;
    ex_point_build(&sw, 0, &a);
    ex_point_build(&sw, 1, &b);
    char ka[17], kb[17];
    ex_point_key(&a, ka);
    ex_point_key(&b, kb);
    assert_string_not_equal(ka, kb);
    assert_true(ex_point_seed(&a) != ex_point_seed(&b));
}

/* The platform scenario of a point replays the file by its absolute path, with repeat, no ops. */
static void test_platform_scenario(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(ex_sweep_load_string(SWEEP, text, &sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_set_model(&sw, EX_MODEL_PLATFORM, err, sizeof(err)), 0);
    ex_point_cfg cfg;
    ex_point_build(&sw, 1, &cfg);
    char *sc = ex_platform_scenario(&sw, &cfg);
    assert_non_null(sc);
    char abs[4096];
    assert_non_null(realpath(DIR "/long.trc", abs));
    char want[4200];
    snprintf(want, sizeof(want), "workload:\n  trace: '%s'\n  repeat: 50\n", abs);
    assert_non_null(strstr(sc, want));
    assert_null(strstr(sc, "\nops:"));
    free(sc);
}

static void expect_error(const char *yaml, const char *want)
{
    char err[512] = "";
    assert_int_equal(ex_sweep_load_string(SWEEP, yaml, &sw, err, sizeof(err)), -1);
    assert_string_equal(err, want);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
    expect_error("sweep:\n  workload.trace: [short.trc, missing.trc]\n",
                 SWEEP ":2:31: workload.trace: " DIR "/missing.trc: cannot open: No such file or directory");
    expect_error("workload:\n  trace: bad.trc\nsweep:\n  interval: [1024]\n",
                 SWEEP ":2:10: workload.trace: " DIR "/bad.trc:3: CLASS: unknown class 'load' (other, ldst or branch)");
    expect_error("workload:\n  trace: short.trc\n  p_load: 0.5\nsweep:\n  interval: [1024]\n",
                 SWEEP ":3: workload.p_load: not used with workload.trace (line 2): the trace file gives the "
                 "operations, not the generator");
    expect_error("ops: 1000\nsweep:\n  workload.trace: [short.trc]\n",
                 SWEEP ":1: ops: not used with workload.trace (line 3): a replay runs the file's operations * "
                 "workload.repeat");
    expect_error("sweep:\n  mix: [compute, memory]\n  workload.trace: [short.trc]\n",
                 SWEEP ":2: mix: not used with workload.trace (line 3): the trace file gives the operations, "
                 "not the generator");
    expect_error("workload:\n  repeat: 3\nsweep:\n  interval: [1024]\n",
                 SWEEP ":2: workload.repeat: only with workload.trace (it repeats the trace file)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_over_traces),
        cmocka_unit_test(test_platform_scenario),
        cmocka_unit_test(test_errors_name_the_line),
    };
    return cmocka_run_group_tests_name("explore_replay", tests, setup, NULL);
}
