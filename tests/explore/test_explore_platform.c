/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_platform.c: --model platform: a 4-point sweep through armprof-vp whose CSV shows the relations (data lost never increases with buffer size), the same numbers on 1 and 2 workers and through the fork server as spawned, the generated scenario, and the parameters the platform lacks rejected with their line. */
#define _POSIX_C_SOURCE 200809L
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
#include "explore_csv.h"

#ifndef EXPLORE_TMP
#define EXPLORE_TMP "explore-tmp"
#endif
#ifndef ARMPROF_VP
#error "ARMPROF_VP: the armprof-vp to run"
#endif

/* A Profiling Buffer from 4 KiB (full every few hundred records) to 64 KiB (never full), the
 * interrupt latency long enough for the buffer-full time to matter. Platform-only keys (bus:)
 * pass through to armprof-vp. */
static const char *sweep_text =
    "name: platform-relations\n"
    "ops: 300000\n"
    "interval: 256\n"
    "irq_latency: 4000\n"
    "clock_ns: 0.5\n"
    "bus:\n"
    "  latency_ns: 12\n"
    "sweep:\n"
    "  buffer_bytes: [64K, 4K, 16K, 8K]\n";

static ex_sweep sw;
static csv t1, t2, t3; /* fork server on 1 and 2 workers; one process spawned per point */

static int run(const char *dir, unsigned jobs, csv *t)
{
    char err[1024] = "";
    ex_run_opts ro = { .outdir = dir, .jobs = jobs, .fresh = true, .vp_path = ARMPROF_VP };
    ex_run_stats st;
    if (ex_sweep_run(&sw, &ro, &st, err, sizeof(err))) {
        fprintf(stderr, "ex_sweep_run: %s\n", err);
        return -1;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/results.csv", dir);
    return csv_load(path, t) || t->nrow != 4 ? -1 : 0;
}

static int setup(void **s)
{
    (void)s;
    mkdir(EXPLORE_TMP, 0777);
    char err[1024] = "";
    if (ex_sweep_load_string("platform.yaml", sweep_text, &sw, err, sizeof(err)) ||
        ex_sweep_set_model(&sw, EX_MODEL_PLATFORM, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (run(EXPLORE_TMP "/platform-j1", 1, &t1) || run(EXPLORE_TMP "/platform-j2", 2, &t2))
        return -1;
    ex_platform_fork_server(false);
    int rc = run(EXPLORE_TMP "/platform-spawn", 2, &t3);
    ex_platform_fork_server(true);
    return rc ? -1 : 0;
}

static void scenario_text(void **s)
{
    (void)s;
    ex_point_cfg cfg;
    ex_point_build(&sw, 1, &cfg);
    char *y = ex_platform_scenario(&sw, &cfg);
    assert_non_null(y);
    char seed[64];
    snprintf(seed, sizeof(seed), "\nseed: %llu\n", (unsigned long long)ex_point_seed(&cfg));
    static const char *const want[] = { "\nops: 300000\n", "\nclock_ns: 0.5\n", "\nspe:\n", "\n  interval: 256\n",
                                        "\n  buffer_bytes: 4096\n", "\n  irq_latency: 4000\n",
                                        "\nbus: {latency_ns: 12}\n" };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(y, want[i]))
            fail_msg("no '%s' in the scenario:\n%s", want[i], y);
    assert_non_null(strstr(y, seed));
    assert_null(strstr(y, "trbe:")); /* the TRBE is off */
    free(y);
}

/* A larger Profiling Buffer fills less often (buffer full events, PMBSR_EL1.S == 1 with
 * profiling off): data lost and interrupts never increase with its size. */
static void lost_monotonic(void **s)
{
    (void)s;
    int cb = csv_col(&t1, "buffer_bytes"), cl = csv_col(&t1, "lost_pct"), cf = csv_col(&t1, "buffer_full_events");
    int ci = csv_col(&t1, "interrupts"), cu = csv_col(&t1, "unsampled_ops"), cw = csv_col(&t1, "records_written");
    assert_true(cb > 0 && cl > 0 && cf > 0 && ci > 0 && cu > 0 && cw > 0);
    static const double bufs[] = { 4096, 8192, 16384, 65536 };
    double prev_lost = INFINITY, prev_full = INFINITY, prev_written = 0;
    for (int b = 0; b < 4; b++) {
        int r = -1;
        for (int k = 0; k < 4; k++)
            if (t1.v[k][cb] == bufs[b])
                r = k;
        assert_true(r >= 0);
        assert_true(t1.v[r][cl] <= prev_lost);
        assert_true(t1.v[r][cf] <= prev_full);
        assert_true(t1.v[r][ci] == t1.v[r][cf]); /* every buffer full event raised PMBIRQ once */
        assert_true(t1.v[r][cw] >= prev_written);
        prev_lost = t1.v[r][cl];
        prev_full = t1.v[r][cf];
        prev_written = t1.v[r][cw];
    }
    int r4 = 0, r64 = 0;
    for (int k = 0; k < 4; k++) {
        if (t1.v[k][cb] == 4096)
            r4 = k;
        if (t1.v[k][cb] == 65536)
            r64 = k;
    }
    assert_true(t1.v[r4][cf] > 0 && t1.v[r4][cu] > 0); /* 4 KiB fills */
    assert_true(t1.v[r64][cf] == 0);                    /* 64 KiB never does */
    assert_true(t1.v[r4][cl] > t1.v[r64][cl]);
}

/* The same seed gives the same numbers whatever the number of workers (host time aside). */
static void same_on_1_and_2_workers(void **s)
{
    (void)s;
    assert_int_equal(t1.ncol, t2.ncol);
    int ch = csv_col(&t1, "host_seconds");
    assert_true(ch == t1.ncol - 1);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < ch; c++) {
            if (isnan(t1.v[r][c]) && isnan(t2.v[r][c]))
                continue;
            if (t1.v[r][c] != t2.v[r][c])
                fail_msg("row %d column %s: %g on 1 worker, %g on 2", r, t1.head[c], t1.v[r][c], t2.v[r][c]);
        }
}

/* A point through the fork server (armprof-vp --serve forks a child per point before
 * elaboration) gives exactly the numbers of armprof-vp spawned for it (host time aside). */
static void fork_server_same_as_spawn(void **s)
{
    (void)s;
    assert_int_equal(t1.ncol, t3.ncol);
    int ch = csv_col(&t1, "host_seconds");
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < ch; c++) {
            if (isnan(t1.v[r][c]) && isnan(t3.v[r][c]))
                continue;
            if (t1.v[r][c] != t3.v[r][c])
                fail_msg("row %d column %s: %g through the fork server, %g spawned", r, t1.head[c], t1.v[r][c],
                         t3.v[r][c]);
        }
    assert_true(t1.v[0][csv_col(&t1, "records_written")] > 0);
}

/* A failing point through a server is an error with its exit status; a server that cannot serve
 * (here one that exits at once) falls back to spawning the program per point. */
static void fork_server_failures(void **s)
{
    (void)s;
    static const char *const fakes[] = {
        /* serves, and every run exits 3 (wait status 3 << 8) */
        "#!/bin/sh\nif [ \"$1\" = --serve ]; then while read l; do echo 'status 768'; done; exit 0; fi\nexit 5\n",
        /* dies as a server; spawned per point it exits 4 */
        "#!/bin/sh\n[ \"$1\" = --serve ] && exit 0\necho 'armprof-vp: no such scenario'\nexit 4\n",
    };
    static const char *const want[] = { "armprof-vp exit 3", "armprof-vp exit 4: armprof-vp: no such scenario" };
    for (int k = 0; k < 2; k++) {
        char path[256];
        snprintf(path, sizeof(path), EXPLORE_TMP "/fake-vp-%d.sh", k);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(fakes[k], f);
        fclose(f);
        chmod(path, 0755);
        ex_point_cfg cfg;
        ex_point_build(&sw, 0, &cfg);
        ex_result r;
        char err[512] = "";
        assert_int_equal(ex_point_run_platform(&sw, &cfg, path, EXPLORE_TMP, &r, err, sizeof(err)), -1);
        if (!strstr(err, want[k]))
            fail_msg("expected \"%s\" in \"%s\"", want[k], err);
    }
}

/* The figures armprof-vp's summary does not give have no column (and are null in JSON). */
static void missing_metrics(void **s)
{
    (void)s;
    assert_int_equal(csv_col(&t1, "fifo_mean_bytes"), -1);
    assert_int_equal(csv_col(&t1, "fifo_p99_bytes"), -1);
    assert_int_equal(csv_col(&t1, "buffer_full_pct"), -1);
    assert_true(csv_col(&t1, "fifo_max_bytes") > 0);
    FILE *f = fopen(EXPLORE_TMP "/platform-j1/results.json", "r");
    assert_non_null(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_non_null(strstr(buf, "\"model\":\t\"platform\""));
}

static void expect_error(const char *text, const char *msg)
{
    static ex_sweep bad;
    char err[1024] = "";
    int rc = ex_sweep_load_string("bad.yaml", text, &bad, err, sizeof(err));
    assert_int_equal(rc, 0);
    rc = ex_sweep_set_model(&bad, EX_MODEL_PLATFORM, err, sizeof(err));
    assert_int_equal(rc, -1);
    if (!strstr(err, msg))
        fail_msg("expected \"%s\" in \"%s\"", msg, err);
}

static void unsupported_rejected(void **s)
{
    (void)s;
    expect_error("ops: 1000\nsweep:\n  buffer_bytes: [4K]\n  max_size: [6, 7]\n",
                 "bad.yaml:4: max_size: the platform model (--model platform) cannot sweep it");
    expect_error("ops: 1000\nalign: 2\nsweep:\n  buffer_bytes: [4K, 8K]\n",
                 "bad.yaml:2: align = 2: the platform model (--model platform) has no such setting");
    /* write_latency is the C level's cycle model: the platform takes write_latency_ns. */
    expect_error("ops: 1000\nsweep:\n  buffer_bytes: [4K]\n  write_latency: [0, uniform:10:20]\n",
                 "bad.yaml:4: write_latency: the platform model (--model platform) cannot sweep it");
    expect_error("ops: 1000\nworkload:\n  mix: memory\nsweep:\n  buffer_bytes: [4K, 8K]\n",
                 "bad.yaml:3: mix = memory: the platform model");
    expect_error("ops: 1000\nspe_enabled: false\nsweep:\n  trbe_buffer_bytes: [8K, 16K]\n",
                 "bad.yaml:2: spe_enabled = false: the platform model");
}

/* The memory-timing keys (issue 12) reach armprof-vp's scenario: memory.write_latency_ns,
 * bus.background_traffic, spe.write_bytes, spe.max_outstanding_writes and the FIFO depth, with
 * the platform's own keys of the same sections kept; and a run of them gives the timing columns.
 * More latency at a fixed FIFO never lowers collisions or the FIFO's high-water mark, at either
 * traffic share; more traffic lengthens the writes. (More traffic is not point for point
 * monotonic in collisions: the bursts shift which operations become records, seen 50 -> 45.) */
static void timing_keys(void **s)
{
    (void)s;
    static ex_sweep t;
    const char *text =
        "name: platform-timing\n"
        "ops: 200000\n"
        "ops_per_cycle: 4\n"
        "interval: 256\n"
        "clock_ns: 0.5\n"
        "timing: lt\n"
        "dmi: false\n"
        "spe:\n"
        "  write_bytes: 64\n"
        "  max_outstanding_writes: 2\n"
        "  fifo_bytes: 256\n"
        "bus:\n"
        "  latency_ns: 12\n"
        "  background_traffic: {share: 0.5, burst_bytes: 256}\n"
        "memory:\n"
        "  latency_ns: 20\n"
        "sweep:\n"
        "  memory.write_latency_ns: [0, 100, 400]\n"
        "  bus.background_traffic.share: [0.5, 0.9]\n";
    char err[1024] = "";
    assert_int_equal(ex_sweep_load_string("timing.yaml", text, &t, err, sizeof(err)), 0);
    /* background traffic needs the platform's bus: the C level says so, with the line */
    assert_int_equal(ex_sweep_set_model(&t, EX_MODEL_C, err, sizeof(err)), -1);
    if (!strstr(err, "timing.yaml:19: ") /* the swept share's line */ || !strstr(err, "background_traffic needs the platform's bus"))
        fail_msg("C level: %s", err);
    assert_int_equal(ex_sweep_set_model(&t, EX_MODEL_PLATFORM, err, sizeof(err)), 0);
    ex_point_cfg cfg;
    ex_point_build(&t, 4, &cfg); /* 400 ns, share 0.5 */
    char *y = ex_platform_scenario(&t, &cfg);
    assert_non_null(y);
    static const char *const want[] = { "\ntiming: lt\n", "\n  write_bytes: 64\n", "\n  max_outstanding_writes: 2\n",
                                        "\n  fifo_bytes: 256\n",
                                        "\nmemory: {latency_ns: 20, write_latency_ns: 400}\n",
                                        "\nbus: {latency_ns: 12, background_traffic: {share: 0.5, burst_bytes: 256}}\n" };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(y, want[i]))
            fail_msg("no '%s' in the scenario:\n%s", want[i], y);
    assert_null(strstr(y, "drain_bytes_per_cycle")); /* not set: the platform's default */
    free(y);
    ex_run_opts ro = { .outdir = EXPLORE_TMP "/platform-timing", .jobs = 2, .fresh = true, .vp_path = ARMPROF_VP };
    ex_run_stats st;
    if (ex_sweep_run(&t, &ro, &st, err, sizeof(err)))
        fail_msg("ex_sweep_run: %s", err);
    static csv r;
    assert_int_equal(csv_load(EXPLORE_TMP "/platform-timing/results.csv", &r), 0);
    assert_int_equal(r.nrow, 6);
    int cl = csv_col(&r, "write_latency_ns"), cb = csv_col(&r, "background_traffic");
    int cc = csv_col(&r, "collisions"), cf = csv_col(&r, "fifo_max_bytes");
    int cs = csv_col(&r, "writer_stall_cycles"), co = csv_col(&r, "outstanding_writes_max");
    int cm = csv_col(&r, "write_latency_mean_ns"), cx = csv_col(&r, "write_latency_max_ns");
    assert_true(cl > 0 && cb > 0 && cc > 0 && cf > 0 && cs > 0 && co > 0 && cm > 0 && cx > 0);
    static const double lat[] = { 0, 100, 400 }, share[] = { 0.5, 0.9 };
    int row[3][2];
    for (int l = 0; l < 3; l++)
        for (int b = 0; b < 2; b++) {
            row[l][b] = -1;
            for (int k = 0; k < r.nrow; k++)
                if (r.v[k][cl] == lat[l] && r.v[k][cb] == share[b])
                    row[l][b] = k;
            assert_true(row[l][b] >= 0);
            assert_true(r.v[row[l][b]][co] >= 1 && r.v[row[l][b]][co] <= 2);
            assert_true(r.v[row[l][b]][cx] >= lat[l]); /* the memory's latency, plus the bus */
        }
    for (int b = 0; b < 2; b++) {
        for (int l = 1; l < 3; l++) {
            /* more latency at a fixed FIFO: never fewer collisions, never a lower high-water mark */
            const double *p = r.v[row[l - 1][b]], *q = r.v[row[l][b]];
            assert_true(q[cc] >= p[cc]);
            /* a full FIFO's high-water mark is its depth less the part of a record that did not
             * fit (64 B records here): within that, it may fall by a few bytes */
            assert_true(q[cf] >= p[cf] || (p[cf] > 256 - 64 && q[cf] > 256 - 64));
            assert_true(q[cm] > p[cm]);
        }
        assert_true(r.v[row[2][b]][cc] > 2 * r.v[row[0][b]][cc]); /* the latency shows */
        assert_true(r.v[row[2][b]][cs] > r.v[row[0][b]][cs]);
    }
    /* 90 % of the bus taken by background bursts: the writes wait longer than at 50 % */
    for (int l = 0; l < 3; l++)
        assert_true(r.v[row[l][1]][cm] > r.v[row[l][0]][cm]);
    assert_true(r.v[row[0][1]][cc] > r.v[row[0][0]][cc]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenario_text),
        cmocka_unit_test(lost_monotonic),
        cmocka_unit_test(same_on_1_and_2_workers),
        cmocka_unit_test(fork_server_same_as_spawn),
        cmocka_unit_test(fork_server_failures),
        cmocka_unit_test(missing_metrics),
        cmocka_unit_test(unsupported_rejected),
        cmocka_unit_test(timing_keys),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
