/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_parse.c: sweep files: values, groups and seeds of the points; every bad file gets an error naming file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "explore.h"

static ex_sweep sw; /* large: keep it off the stack */

static void test_good_file(void **s)
{
    (void)s;
    char err[512] = "";
    const char *text =
        "name: demo\n"
        "ops: 100000\n"
        "ops-per-cycle: 4\n"              /* '-' and '_' are the same */
        "buffer_bytes: 64K\n"             /* byte suffixes */
        "workload:\n"
        "  mix: memory\n"
        "  p_load: 0.5\n"
        "recommend: { max_collision_pct: 2.5 }\n"
        "sweep:\n"
        "  fifo_bytes: [128, 1K]\n"
        "  drain: [1, 2, 4]\n";
    assert_int_equal(ex_sweep_load_string("demo.yaml", text, &sw, err, sizeof(err)), 0);
    assert_string_equal(sw.name, "demo");
    assert_int_equal(sw.npoints, 6);
    assert_int_equal(sw.naxes, 2);
    assert_int_equal(sw.axes[0].line, 10);
    assert_int_equal(sw.axes[1].line, 11);
    assert_true(sw.max_collision_pct == 2.5);
    assert_true(sw.max_lost_pct == 1.0);
    /* The last axis varies fastest; the scenario holds where nothing is swept. */
    ex_point_cfg c;
    ex_point_build(&sw, 0, &c);
    assert_int_equal(c.run.spu.fifo_bytes, 128);
    assert_int_equal(c.run.spu.drain_bytes_per_cycle, 1);
    ex_point_build(&sw, 5, &c);
    assert_int_equal(c.run.spu.fifo_bytes, 1024);
    assert_int_equal(c.run.spu.drain_bytes_per_cycle, 4);
    assert_int_equal(c.run.ops, 100000);
    assert_int_equal(c.run.ops_per_cycle, 4);
    assert_int_equal(c.run.buffer_bytes, 65536);
    assert_true(c.run.wl.p_load == 0.5);   /* workload.p_load refines the memory mix */
    assert_true(c.run.wl.p_l1_miss == 0.25); /* from the memory mix */
}

/* Points that differ only in the hardware share a seed; workload parameters change it; the
 * key changes with any parameter. */
static void test_seeds_and_keys(void **s)
{
    (void)s;
    char err[512] = "";
    const char *text = "sweep:\n  fifo_bytes: [128, 256]\n  mix: [default, compute]\n";
    assert_int_equal(ex_sweep_load_string("k.yaml", text, &sw, err, sizeof(err)), 0);
    ex_point_cfg a, b, c;
    ex_point_build(&sw, 0, &a); /* 128, default */
    ex_point_build(&sw, 2, &b); /* 256, default */
    ex_point_build(&sw, 1, &c); /* 128, compute */
    assert_int_equal(b.run.spu.fifo_bytes, 256);
    assert_int_equal(c.mix, 1);
    assert_true(ex_point_seed(&a) == ex_point_seed(&b));
    assert_true(ex_point_seed(&a) != ex_point_seed(&c));
    char ka[17], kb[17], kc[17];
    ex_point_key(&a, ka);
    ex_point_key(&b, kb);
    ex_point_key(&c, kc);
    assert_string_not_equal(ka, kb);
    assert_string_not_equal(ka, kc);
    a.seed = 2; /* the sweep seed changes every point's seed */
    assert_true(ex_point_seed(&a) != ex_point_seed(&b));
}

/* A list of mappings: several cross products; a point of one group takes the scenario value of
 * the parameters only another group sweeps. */
static void test_groups(void **s)
{
    (void)s;
    char err[512] = "";
    const char *text =
        "fifo_bytes: 512\n"
        "irq_latency: 3000\n"
        "sweep:\n"
        "  - fifo_bytes: [64, 128]\n"
        "    drain: [1, 2]\n"
        "  - buffer_bytes: [4K, 8K, 16K]\n"
        "    irq_latency: [1000, 2000]\n"
        "    fifo_bytes: [128, 256]\n";
    assert_int_equal(ex_sweep_load_string("g.yaml", text, &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.ngroups, 2);
    assert_int_equal(sw.npoints, 4 + 12);
    assert_int_equal(sw.naxes, 4);
    assert_int_equal(sw.axes[0].nvals, 3); /* fifo_bytes: 64, 128, 256 */
    int idx[EX_MAX_AXES];
    ex_point_indices(&sw, 3, idx);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 1);
    assert_int_equal(idx[2], -1);
    assert_int_equal(idx[3], -1);
    ex_point_cfg c;
    ex_point_build(&sw, 3, &c);
    assert_int_equal(c.run.irq_latency, 3000);
    ex_point_build(&sw, 4, &c);
    assert_int_equal(c.run.buffer_bytes, 4096);
    assert_int_equal(c.run.irq_latency, 1000);
    assert_int_equal(c.run.spu.fifo_bytes, 128);
    assert_int_equal(c.run.spu.drain_bytes_per_cycle, 16); /* unit default */
    ex_point_build(&sw, 15, &c);
    assert_int_equal(c.run.buffer_bytes, 16384);
    assert_int_equal(c.run.irq_latency, 2000);
    assert_int_equal(c.run.spu.fifo_bytes, 256);
}

/* Every bad file: the error starts with "FILE:LINE" and says what is wrong. */
typedef struct bad_case {
    const char *what;
    const char *text;
    const char *where;    /* expected prefix: file:line[:col] */
    const char *message;  /* expected substring */
} bad_case;

static const bad_case bad[] = {
    { "YAML syntax", "ops: 1000\nsweep:\n  fifo_bytes: [64, 128\n", "b.yaml:", "YAML error" },
    { "unknown scenario key", "opps: 1000\nsweep:\n  drain: [1]\n", "b.yaml:1:1:", "unknown parameter 'opps' (did you mean 'ops'?)" },
    { "unknown swept key", "sweep:\n  drain: [1]\n  fifo_byts: [64]\n", "b.yaml:3:3:", "did you mean 'fifo_bytes'" },
    { "unknown section", "platform:\n  smmu: true\nsweep:\n  drain: [1]\n", "b.yaml:1:1:", "unknown section 'platform'" },
    { "value not a number", "sweep:\n  drain: [1, two]\n", "b.yaml:2:14:", "drain expects a whole number" },
    { "value out of range", "sweep:\n  max_size: [6, 12]\n", "b.yaml:2:17:", "max_size = 12 is out of range [4, 11]" },
    { "interval below 256", "interval: 100\nsweep:\n  drain: [1]\n", "b.yaml:1:11:", "interval = 100 is out of range" },
    /* The interval rule of armprof-vp's spe.interval and armprof-run's --interval: 256 .. 0xFFFFFF00. */
    { "interval 255", "interval: 255\nsweep:\n  drain: [1]\n", "b.yaml:1:11:",
      "interval = 255 is out of range [256, 4294967040]" },
    { "interval past 0xFFFFFF00", "sweep:\n  interval: [256, 4294967041]\n", "b.yaml:2:19:",
      "interval = 4294967041 is out of range [256, 4294967040]" },
    { "buffer not 4 KiB", "sweep:\n  buffer_bytes: [4K, 5000]\n", "b.yaml:2:22:", "not a multiple of 4096" },
    { "bad boolean", "rnd: maybe\nsweep:\n  drain: [1]\n", "b.yaml:1:6:", "rnd expects true or false" },
    { "bad mix", "workload:\n  mix: scalar\nsweep:\n  drain: [1]\n", "b.yaml:2:8:", "mix expects one of" },
    { "probability above 1", "workload:\n  p_load: 1.5\nsweep:\n  drain: [1]\n", "b.yaml:2:11:", "workload.p_load = 1.5 is out of range" },
    { "scalar under sweep", "sweep:\n  drain: 4\n", "b.yaml:2:10:", "takes a list of values" },
    { "empty list", "sweep:\n  drain: []\n", "b.yaml:2:3:", "the list of values is empty" },
    { "value twice", "sweep:\n  drain: [1, 2, 1]\n", "b.yaml:2:17:", "value 1 is listed twice" },
    { "swept twice in a group", "sweep:\n  drain: [1]\n  drain_bytes_per_cycle: [2]\n", "b.yaml:3:3:", "swept twice" },
    { "list under a scenario key", "ops: [1, 2]\nsweep:\n  drain: [1]\n", "b.yaml:1:1:", "takes a single value here" },
    { "key set twice", "ops: 1000\nops: 2000\nsweep:\n  drain: [1]\n", "b.yaml:2:1:", "duplicate key" },
    { "no sweep", "ops: 1000\n", "b.yaml:1:1:", "no 'sweep:' mapping" },
    { "sweep not a mapping", "sweep: 3\n", "b.yaml:1:1:", "'sweep:' must be a mapping" },
    { "not a mapping", "- 1\n- 2\n", "b.yaml:1:3:", "a sweep file is a mapping" },
    { "invalid unit config", "max_size: 11\nsweep:\n  fifo_bytes: [4096, 1024]\n", "b.yaml:3:", "point 1 (fifo_bytes=1024) is not a valid unit configuration" },
    { "align above MaxSize", "sweep:\n  max_size: [4]\n  align: [6]\n", "b.yaml:3:", "not a valid unit configuration" },
    { "bad recommend key", "recommend:\n  max_colision_pct: 1\nsweep:\n  drain: [1]\n", "b.yaml:2:3:", "unknown key 'max_colision_pct'" },
    { "recommend out of range", "recommend:\n  max_lost_pct: 120\nsweep:\n  drain: [1]\n", "b.yaml:2:17:", "max_lost_pct expects a number in [0, 100]" },
    /* memory timing (issue 12) */
    { "write_bytes not a power of two", "sweep:\n  write_bytes: [64, 48]\n", "b.yaml:2:21:", "write_bytes = 48 is neither 0 (one write per record) nor a power of two 16 .. 4096" },
    { "write_bytes above 4 KiB", "sweep:\n  write_bytes: [8192]\n", "b.yaml:2:17:", "write_bytes = 8192 is out of range [0, 4096]" },
    { "no outstanding write", "max_outstanding_writes: 0\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:1:25:", "max_outstanding_writes = 0 is out of range [1, 256]" },
    { "outstanding under spe:", "spe:\n  max_outstanding_writes: 300\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:2:27:", "max_outstanding_writes = 300 is out of range [1, 256]" },
    { "uniform bounds reversed", "sweep:\n  write_latency: [100, uniform:30:10]\n", "b.yaml:2:24:", "write_latency: uniform:A:B expects integers 0 <= A <= B" },
    { "unknown distribution", "sweep:\n  write_latency: [gamma:3]\n", "b.yaml:2:19:", "expected fixed:CYCLES, uniform:A:B or exp:MEAN, got 'gamma:3'" },
    { "negative latency", "memory:\n  write_latency_ns: -5\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:2:21:", "write_latency_ns = -5 is out of range [0, 1e+06]" },
    { "latency too long", "write_latency_ns: 1e7\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:1:19:", "write_latency_ns = 1e7 is out of range" },
    { "traffic share above 1", "sweep:\n  background_traffic: [0, 1.5]\n", "b.yaml:2:27:", "background_traffic = 1.5 is out of range [0, 1]" },
    { "traffic not a mapping", "bus:\n  background_traffic: 0.5\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:2:23:", "bus.background_traffic: a mapping (share, burst_bytes, seed)" },
    { "traffic key misspelt", "bus:\n  background_traffic: {shares: 0.5}\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:2:24:", "unknown parameter 'bus.background_traffic.shares' (did you mean 'bus.background_traffic.share'?)" },
    { "burst of 0 bytes", "bus:\n  background_traffic:\n    burst_bytes: 0\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:3:18:", "background_burst_bytes = 0 is out of range [1, 4096]" },
    { "memory not a mapping", "memory: 3\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:1:1:", "'memory:' must be a mapping" },
    { "two latency models", "write_latency: exp:100\nsweep:\n  write_latency_ns: [0, 50]\n", "b.yaml:3:", "point 1 (write_latency_ns=50) is not a valid unit configuration: write_latency_ns and write_latency are both set" },
    { "bad timing", "timing: fast\nsweep:\n  fifo_bytes: [64]\n", "b.yaml:1:9:", "timing expects one of lt, at, off; got 'fast'" },
};

static void test_bad_files(void **s)
{
    (void)s;
    int failures = 0;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char err[512] = "";
        int rc = ex_sweep_load_string("b.yaml", bad[i].text, &sw, err, sizeof(err));
        if (rc != -1 || strncmp(err, bad[i].where, strlen(bad[i].where)) != 0 || !strstr(err, bad[i].message))
            print_error("%s: rc=%d, error '%s' (expected '%s...%s')", bad[i].what, rc, err, bad[i].where,
                     bad[i].message), failures++;
        /* every message names a line */
        const char *p = err + strlen("b.yaml:");
        if (!(p[0] >= '1' && p[0] <= '9'))
            fail_msg("%s: no line number in '%s'", bad[i].what, err);
    }
    assert_int_equal(failures, 0);
}

/* A scenario file of the platform (armprof-vp) plus `sweep:` is a sweep file: its `spe:` keys
 * are the same parameters, clock_ns sets the clock, platform-only keys are listed as ignored. */
static void test_platform_scenario(void **s)
{
    (void)s;
    char path[1024];
    snprintf(path, sizeof(path), "%s/default.yaml", EXAMPLES_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof(text) - 200, f);
    fclose(f);
    text[n] = '\0';
    strcat(text, "\nsweep:\n  spe.buffer_bytes: [16K, 64K]\n  fifo_bytes: [256, 512]\n");
    char err[512] = "";
    if (ex_sweep_load_string("default.yaml", text, &sw, err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(sw.npoints, 4);
    ex_point_cfg c;
    ex_point_build(&sw, 3, &c);
    assert_int_equal(c.run.buffer_bytes, 65536);
    assert_int_equal(c.run.spu.fifo_bytes, 512);
    assert_int_equal(c.run.interval, 1024);      /* spe.interval */
    assert_int_equal(c.run.irq_latency, 2000);   /* spe.irq_latency */
    assert_int_equal(c.run.ops, 20000000);
    assert_true(c.clock_hz == 1e9);              /* clock_ns: 1 */
    assert_non_null(strstr(sw.ignored, "pes"));
    assert_non_null(strstr(sw.ignored, "smmu"));
    assert_non_null(strstr(sw.ignored, "spe.ppi"));
    /* and an unknown key under spe: is still an error with its line */
    char err2[512] = "";
    assert_int_equal(ex_sweep_load_string("s.yaml", "spe:\n  intervall: 512\nsweep:\n  drain: [1]\n", &sw, err2,
                                          sizeof(err2)), -1);
    assert_non_null(strstr(err2, "s.yaml:2:3: unknown parameter 'spe.intervall'"));
}

/* The memory-timing parameters (issue 12) in both spellings: the platform's sections (spe:,
 * memory:, bus: with background_traffic:) and flat names; the platform's other keys of memory: and
 * bus: are kept for armprof-vp and listed as ignored at C level. */
static void test_timing_params(void **s)
{
    (void)s;
    const char *text =
        "timing: at\n"
        "spe:\n"
        "  write_bytes: 64\n"
        "  max_outstanding_writes: 8\n"
        "memory:\n"
        "  latency_ns: 20\n"
        "  write_latency_ns: 150\n"
        "bus:\n"
        "  latency_ns: 12\n"
        "  background_traffic: {share: 0.25, burst_bytes: 128, seed: 7}\n"
        "sweep:\n"
        "  write_bytes: [0, 16, 4K]\n"
        "  bus.background_traffic.share: [0, 0.5]\n";
    char err[512] = "";
    if (ex_sweep_load_string("t.yaml", text, &sw, err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(sw.npoints, 6);
    ex_point_cfg c;
    ex_point_build(&sw, 5, &c);
    assert_int_equal(c.run.spu.write_bytes, 4096);
    assert_int_equal(c.run.spu.max_outstanding_writes, 8);
    assert_true(c.write_latency_ns == 150);
    assert_true(c.bg_share == 0.5);
    assert_int_equal(c.bg_burst, 128);
    assert_int_equal(c.bg_seed, 7);
    assert_int_equal(c.timing, 1); /* at */
    assert_non_null(strstr(sw.ignored, "memory.latency_ns"));
    assert_non_null(strstr(sw.ignored, "bus.latency_ns"));
    assert_string_equal(sw.platform_memory, "latency_ns: 20");
    assert_string_equal(sw.platform_bus, "latency_ns: 12");
    /* write_latency: cycles, fixed or a distribution; canonical text, the mean as its number */
    static const struct { const char *in, *canon; unsigned kind; uint32_t a, b; double mean; } lat[] = {
        { "250", "fixed:250", SPE_LAT_FIXED, 250, 250, 250 },
        { "fixed:0", "fixed:0", SPE_LAT_FIXED, 0, 0, 0 },
        { "uniform:100:300", "uniform:100:300", SPE_LAT_UNIFORM, 100, 300, 200 },
        { "exp:64", "exp:64", SPE_LAT_EXP, 64, 64 * 64, 64 },
    };
    int p = ex_param_find("write_latency");
    assert_true(p >= 0);
    for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
        ex_val v;
        char why[256];
        assert_int_equal(ex_param_parse((size_t)p, lat[i].in, &v, why, sizeof(why)), 0);
        assert_string_equal(v.text, lat[i].canon);
        assert_true(v.d == lat[i].mean);
        ex_point_cfg_default(&c);
        ex_param_apply((size_t)p, &c, &v);
        assert_int_equal(c.run.lat_kind, lat[i].kind);
        assert_int_equal(c.run.write_latency, lat[i].a);
        assert_int_equal(c.run.write_latency_max, lat[i].b);
        assert_string_equal(ex_param_get((size_t)p, &c).text, lat[i].canon);
    }
}

static void test_missing_file(void **s)
{
    (void)s;
    char err[512] = "";
    assert_int_equal(ex_sweep_load("/nonexistent/sweep.yaml", &sw, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent/sweep.yaml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_seeds_and_keys),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_platform_scenario),
        cmocka_unit_test(test_timing_params),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests_name("explore_parse", tests, NULL, NULL);
}
