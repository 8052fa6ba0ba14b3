/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_timing.c: memory-timing sweeps at C level: new parameters, monotonic latency relations, zero-latency identity, and the per-latency FIFO recommendation checked by hand. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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

/* 24 operations per cycle, one sample per 256 operations: the records need about 2.3 B/cycle.
 * 16 writes of 64-byte lines in flight carry 2.56 B/cycle at 200 ns (400 cycles at 2 GHz): from
 * 150 ns on a shallow FIFO cannot absorb the bursts of samples, from about 210 ns the memory is
 * the bottleneck whatever the depth. The buffer never fills (64 MiB), so every point sees the
 * same operations. */
#define SCENARIO                                                                                      \
    "ops: 2400000\n"                                                                                  \
    "ops_per_cycle: 24\n"                                                                             \
    "interval: 256\n"                                                                                 \
    "inflight: 4\n"                                                                                   \
    "buffer_bytes: 64M\n"                                                                             \
    "clock_hz: 2e9\n"                                                                                 \
    "spe:\n"                                                                                          \
    "  write_bytes: 64\n"                                                                             \
    "  max_outstanding_writes: 16\n"                                                                  \
    "workload:\n"                                                                                     \
    "  mix: compute\n"

static const char *mono_text =
    "name: timing-mono\n" SCENARIO
    "sweep:\n"
    "  fifo_bytes: [64, 256, 1024, 4096]\n"
    "  memory.write_latency_ns: [400, 0, 100, 150, 175, 200, 225, 300]\n";

static const double lats[] = { 0, 100, 150, 175, 200, 225, 300, 400 };
static const double fifos[] = { 64, 256, 1024, 4096 };
#define NLAT 8
#define NFIFO 4

static csv mono;

static int run_sweep(const char *name, const char *text, const char *dir, csv *t)
{
    static ex_sweep sw;
    char err[1024] = "";
    if (ex_sweep_load_string(name, text, &sw, err, sizeof(err)) ||
        ex_sweep_set_model(&sw, EX_MODEL_C, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    ex_run_opts ro = { .outdir = dir, .jobs = 2, .fresh = true, .plots = false };
    ex_run_stats st;
    if (ex_sweep_run(&sw, &ro, &st, err, sizeof(err))) {
        fprintf(stderr, "ex_sweep_run: %s\n", err);
        return -1;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/results.csv", dir);
    return csv_load(path, t);
}

static int setup(void **s)
{
    (void)s;
    mkdir(EXPLORE_TMP, 0777);
    return run_sweep("mono.yaml", mono_text, EXPLORE_TMP "/timing-mono", &mono);
}

static int row_of(const csv *t, double lat, double fifo)
{
    int cl = csv_col(t, "write_latency_ns"), cf = csv_col(t, "fifo_bytes");
    for (int r = 0; r < t->nrow; r++)
        if (t->v[r][cl] == lat && t->v[r][cf] == fifo)
            return r;
    return -1;
}

/* More memory latency at a fixed FIFO depth never lowers collisions or the FIFO's high-water
 * mark, and the latency shows (issue 12's monotonic relation). The writer's stall cycles are not
 * monotonic: past the knee, more collisions leave fewer records to write. */
static void latency_monotonic(void **s)
{
    (void)s;
    assert_int_equal(mono.nrow, NLAT * NFIFO);
    int cc = csv_col(&mono, "collisions"), cm = csv_col(&mono, "fifo_max_bytes");
    int cs = csv_col(&mono, "writer_stall_cycles");
    assert_true(cc > 0 && cm > 0 && cs > 0);
    for (int f = 0; f < NFIFO; f++) {
        for (int l = 1; l < NLAT; l++) {
            int a = row_of(&mono, lats[l - 1], fifos[f]), b = row_of(&mono, lats[l], fifos[f]);
            assert_true(a >= 0 && b >= 0);
            if (mono.v[b][cc] < mono.v[a][cc] || mono.v[b][cm] < mono.v[a][cm])
                fail_msg("fifo %g: latency %g -> %g ns: collisions %g -> %g, fifo max %g -> %g, stalls %g -> %g",
                         fifos[f], lats[l - 1], lats[l], mono.v[a][cc], mono.v[b][cc], mono.v[a][cm], mono.v[b][cm],
                         mono.v[a][cs], mono.v[b][cs]);
        }
        int z = row_of(&mono, 0, fifos[f]), h = row_of(&mono, 400, fifos[f]);
        assert_true(mono.v[h][cc] > 50 * mono.v[z][cc]); /* the memory is the bottleneck at 400 ns */
        assert_true(mono.v[h][cm] == fifos[f]);          /* ... and the FIFO stays full */
        assert_true(mono.v[z][cs] == 0);                 /* no latency: the writer never waits */
        assert_true(mono.v[h][cs] > 0);
    }
    /* at 200 ns the memory keeps up on average but not through bursts: each deeper FIFO collides
     * less, and 4 KiB no more than without latency */
    for (int f = 1; f < NFIFO; f++)
        assert_true(mono.v[row_of(&mono, 200, fifos[f])][cc] < mono.v[row_of(&mono, 200, fifos[f - 1])][cc]);
    assert_true(mono.v[row_of(&mono, 200, 4096)][cc] == mono.v[row_of(&mono, 0, 4096)][cc]);
}

/* The timing metrics of a fixed latency: every write takes the latency (but those PSB CSYNC
 * hurries at a buffer service: the mean is at most the latency), never more than 16 in flight. */
static void timing_metrics(void **s)
{
    (void)s;
    int co = csv_col(&mono, "outstanding_writes_max"), cmax = csv_col(&mono, "write_latency_max_ns");
    int cmean = csv_col(&mono, "write_latency_mean_ns");
    assert_true(co > 0 && cmax > 0 && cmean > 0);
    for (int l = 0; l < NLAT; l++) {
        int r = row_of(&mono, lats[l], 1024);
        assert_true(mono.v[r][cmax] == lats[l]); /* 2 GHz: lats[l] * 2 cycles of 0.5 ns */
        assert_true(mono.v[r][cmean] <= lats[l] && mono.v[r][cmean] >= 0.9 * lats[l]);
        assert_true(mono.v[r][co] >= 1 && mono.v[r][co] <= 16);
        if (lats[l] >= 100)
            assert_true(mono.v[r][co] == 16); /* all 16 lines in flight at some point */
    }
}

/* Latency 0, spelt three ways (write_latency_ns 0, write_latency fixed:0, timing: off over 200
 * ns), gives exactly the numbers of the same sweep without memory-timing keys. */
static void zero_latency_identity(void **s)
{
    (void)s;
    static const char *const texts[] = {
        "name: z0\nops: 1200000\nops_per_cycle: 24\ninterval: 256\nbuffer_bytes: 16K\nirq_latency: 3000\n"
        "sweep:\n  fifo_bytes: [64, 1024]\n",
        "name: z1\nops: 1200000\nops_per_cycle: 24\ninterval: 256\nbuffer_bytes: 16K\nirq_latency: 3000\n"
        "write_latency_ns: 0\nsweep:\n  fifo_bytes: [64, 1024]\n",
        "name: z2\nops: 1200000\nops_per_cycle: 24\ninterval: 256\nbuffer_bytes: 16K\nirq_latency: 3000\n"
        "write_latency: fixed:0\nsweep:\n  fifo_bytes: [64, 1024]\n",
        "name: z3\nops: 1200000\nops_per_cycle: 24\ninterval: 256\nbuffer_bytes: 16K\nirq_latency: 3000\n"
        "timing: off\nwrite_latency_ns: 200\nsweep:\n  fifo_bytes: [64, 1024]\n",
    };
    static csv t[4];
    for (int i = 0; i < 4; i++) {
        char dir[256];
        snprintf(dir, sizeof(dir), EXPLORE_TMP "/timing-zero-%d", i);
        assert_int_equal(run_sweep("z.yaml", texts[i], dir, &t[i]), 0);
        assert_int_equal(t[i].nrow, 2);
    }
    int host = csv_col(&t[0], "host_seconds"), full = csv_col(&t[0], "buffer_full_events");
    assert_true(t[0].v[0][full] > 0); /* the buffer fills: management events are part of the identity */
    for (int i = 1; i < 4; i++) {
        assert_int_equal(t[i].ncol, t[0].ncol);
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < t[0].ncol; c++) {
                if (c == host)
                    continue;
                assert_string_equal(t[i].head[c], t[0].head[c]);
                if (!(t[i].v[r][c] == t[0].v[r][c] || (isnan(t[i].v[r][c]) && isnan(t[0].v[r][c]))))
                    fail_msg("sweep %d row %d %s: %g, without timing keys %g", i, r, t[0].head[c], t[i].v[r][c],
                             t[0].v[r][c]);
            }
    }
}

/* Keys: a timing parameter at its default leaves the key as it was (state files of sweeps
 * without memory timing still resume); any other value changes it; none changes the seed. */
static void keys_and_seeds(void **s)
{
    (void)s;
    static ex_sweep a, b;
    char err[512] = "";
    assert_int_equal(ex_sweep_load_string("a.yaml", "ops: 1000\nsweep:\n  fifo_bytes: [64]\n", &a, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_load_string("b.yaml",
                                          "ops: 1000\nwrite_bytes: 0\nmax_outstanding_writes: 1\ntiming: lt\n"
                                          "sweep:\n  fifo_bytes: [64]\n  write_latency_ns: [0, 50]\n"
                                          "  write_latency: [0]\n",
                                          &b, err, sizeof(err)), 0);
    ex_point_cfg ca, c0, c50;
    ex_point_build(&a, 0, &ca);
    ex_point_build(&b, 0, &c0);
    ex_point_build(&b, 1, &c50);
    char ka[17], k0[17], k50[17];
    ex_point_key(&ca, ka);
    ex_point_key(&c0, k0);
    ex_point_key(&c50, k50);
    assert_string_equal(ka, k0);
    assert_string_not_equal(k0, k50);
    assert_true(ex_point_seed(&c0) == ex_point_seed(&c50));
}

/* The latency distributions (C level): a uniform latency stays within its bounds; the same
 * point gives the same numbers twice (the draws are seeded from the point). */
static void distributions(void **s)
{
    (void)s;
    const char *text = "name: dist\n" SCENARIO
                       "fifo_bytes: 1024\n"
                       "sweep:\n"
                       "  write_latency: [uniform:100:300, exp:200, 200]\n";
    static csv t1, t2;
    assert_int_equal(run_sweep("d.yaml", text, EXPLORE_TMP "/timing-dist-1", &t1), 0);
    assert_int_equal(run_sweep("d.yaml", text, EXPLORE_TMP "/timing-dist-2", &t2), 0);
    assert_int_equal(t1.nrow, 3);
    int cmax = csv_col(&t1, "write_latency_max_ns"), cmean = csv_col(&t1, "write_latency_mean_ns");
    int cc = csv_col(&t1, "collisions"), host = csv_col(&t1, "host_seconds");
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < t1.ncol; c++)
            if (c != host)
                assert_true(t1.v[r][c] == t2.v[r][c]);
    /* Rows in the order listed. Answers take effect in issue order, so a write behind a slower
     * one waits for it: the measured latency is at least the drawn one's mean and at most the
     * largest draw. Uniform 100..300 cycles = 50..150 ns (mean 100 ns): */
    assert_true(t1.v[0][cmax] <= 150 && t1.v[0][cmax] > 140);
    assert_true(t1.v[0][cmean] >= 95 && t1.v[0][cmean] < 150);
    /* exponential, mean 200 cycles = 100 ns, capped at 64 x the mean: a long tail */
    assert_true(t1.v[1][cmax] > 300 && t1.v[1][cmax] <= 64 * 100);
    assert_true(t1.v[1][cmean] >= 95);
    assert_true(t1.v[2][cmax] == 100);
    /* at the same mean, the exponential's tail (in-order answers) costs collisions the fixed
     * latency does not: 16 lines in flight carry 100 ns, but not the queue behind a slow write */
    assert_true(t1.v[1][cc] > 10 * t1.v[2][cc]);
}

/* ----- The recommendation, checked by hand ------------------------------------------------------ */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char b[65536];
    size_t n = fread(b, 1, sizeof(b) - 1, f);
    fclose(f);
    b[n] = '\0';
    return b;
}

/* Collision rates made up for a 3 x 3 x 2 sweep, listed out of order. Per latency, the
 * recommendation scans from the deepest FIFO down and stops at the first depth whose worst point
 * (over the drain axis) is not under 1 %; "best" is the lowest worst point of any depth:
 *   0 ns:   64 B worst 0.5 (drain 8), 256 B 0.2, 1 KiB 0.1       -> 64 B, worst point 0.5 %
 *   100 ns: 64 B 5, 256 B worst 0.8 (drain 16), 1 KiB 0.9         -> 256 B, worst point 0.8 %
 *   200 ns: 64 B 30, 256 B 0.5, 1 KiB worst 2 (drain 8)           -> none; best 256 B with 0.5 %
 * and the plot's data is the mean over the drain axis, one block per latency in ascending order. */
static double made_up(double lat, double fifo, double drain)
{
    if (lat == 0)
        return fifo == 64 ? (drain == 8 ? 0.5 : 0.3) : fifo == 256 ? 0.2 : 0.1;
    if (lat == 100)
        return fifo == 64 ? 5 : fifo == 256 ? (drain == 16 ? 0.8 : 0.4) : 0.9;
    return fifo == 64 ? 30 : fifo == 256 ? 0.5 : (drain == 8 ? 2 : 0.6);
}

static void recommendation_by_hand(void **s)
{
    (void)s;
    static ex_sweep sw;
    char err[1024] = "";
    assert_int_equal(ex_sweep_load_string("r.yaml",
                                          "name: reco\nrecommend:\n  max_collision_pct: 1\nsweep:\n"
                                          "  write_latency_ns: [100, 0, 200]\n  fifo_bytes: [1K, 64, 256]\n"
                                          "  drain: [16, 8]\n",
                                          &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.npoints, 18);
    static ex_result res[18];
    for (size_t i = 0; i < sw.npoints; i++) {
        ex_point_cfg c;
        ex_point_build(&sw, i, &c);
        ex_result_clear(&res[i]);
        res[i].m[EXM_COLLISION_PCT] = made_up(c.write_latency_ns, c.run.spu.fifo_bytes, c.run.spu.drain_bytes_per_cycle);
    }
    const char *dir = EXPLORE_TMP "/timing-reco";
    mkdir(dir, 0777);
    bool plotted;
    assert_int_equal(ex_write_outputs(&sw, res, dir, true, &plotted, NULL, err, sizeof(err)), 0);
    char *t = slurp(EXPLORE_TMP "/timing-reco/recommendation.txt");
    assert_non_null(t);
    const char *want =
        "armprof-explore reco (18 points, C-level model)\n"
        "write_latency_ns 0 ns: the smallest record FIFO depth with collisions under 1 % is 64 B (worst point 0.5 %)\n"
        "write_latency_ns 100 ns: the smallest record FIFO depth with collisions under 1 % is 256 B (worst point 0.8 %)\n"
        "write_latency_ns 200 ns: no swept record FIFO depth keeps collisions under 1 % (best: 256 B with 0.5 %)\n";
    assert_string_equal(t, want);
    /* the plot: one data block per latency, ascending, each the mean over the drain axis */
    t = slurp(EXPLORE_TMP "/timing-reco/collisions_vs_fifo.dat");
    assert_non_null(t);
    const char *b0 = strstr(t, "# write_latency_ns 0\n"), *b1 = strstr(t, "# write_latency_ns 100\n");
    const char *b2 = strstr(t, "# write_latency_ns 200\n");
    assert_true(b0 && b1 && b2 && b0 < b1 && b1 < b2);
    /* depth, mean, worst point, points, lowest and highest seed's mean (one seed: the mean), the
     * mark (1: recommended, 2: best when none meets 1 %), the values on the log axis (floor 0.1) */
    assert_non_null(strstr(b0, "\n64 0.4 0.5 2 0.4 0.4 1 0.4 0.4 0.4\n256 0.2 0.2 2 0.2 0.2 0 0.2 0.2 0.2\n"
                               "1024 0.1 0.1 2 0.1 0.1 0 0.1 0.1 0.1\n"));
    assert_non_null(strstr(b2, "\n64 30 30 2 30 30 0 30 30 30\n256 0.5 0.5 2 0.5 0.5 2 0.5 0.5 0.5\n"
                               "1024 1.3 2 2 1.3 1.3 0 1.3 1.3 1.3\n"));
    t = slurp(EXPLORE_TMP "/timing-reco/collisions_vs_fifo.plt");
    assert_non_null(t);
    assert_non_null(strstr(t, "title 'write latency 0 ns'"));
    assert_non_null(strstr(t, "title 'write latency 200 ns'"));
}

/* A real tiny sweep: its recommendation lines are the ones the CSV gives by the rule above. */
static void recommendation_from_csv(void **s)
{
    (void)s;
    const char *text = "name: reco-run\n" SCENARIO
                       "recommend:\n  max_collision_pct: 2\n"
                       "sweep:\n"
                       "  write_latency_ns: [0, 175, 300]\n"
                       "  fifo_bytes: [64, 256, 4096]\n";
    static csv t;
    assert_int_equal(run_sweep("rr.yaml", text, EXPLORE_TMP "/timing-reco-run", &t), 0);
    int cp = csv_col(&t, "collision_pct");
    static const double l3[] = { 0, 175, 300 }, f3[] = { 64, 256, 4096 };
    static const char *const fb[] = { "64 B", "256 B", "4 KiB" };
    char want[2048];
    int k = snprintf(want, sizeof(want), "armprof-explore reco-run (9 points, C-level model)\n");
    for (int l = 0; l < 3; l++) {
        int pick = -1, best = 2;
        for (int f = 2; f >= 0; f--) /* the lowest rate; between equal ones the deeper FIFO */
            if (t.v[row_of(&t, l3[l], f3[f])][cp] < t.v[row_of(&t, l3[l], f3[best])][cp])
                best = f;
        for (int f = 2; f >= 0; f--) {
            if (!(t.v[row_of(&t, l3[l], f3[f])][cp] < 2))
                break;
            pick = f;
        }
        if (pick >= 0)
            k += snprintf(want + k, sizeof(want) - (size_t)k,
                          "write_latency_ns %g ns: the smallest record FIFO depth with collisions under 2 %% is %s "
                          "(worst point %.3g %%)\n",
                          l3[l], fb[pick], t.v[row_of(&t, l3[l], f3[pick])][cp]);
        else
            k += snprintf(want + k, sizeof(want) - (size_t)k,
                          "write_latency_ns %g ns: no swept record FIFO depth keeps collisions under 2 %% (best: %s "
                          "with %.3g %%)\n",
                          l3[l], fb[best], t.v[row_of(&t, l3[l], f3[best])][cp]);
    }
    char *got = slurp(EXPLORE_TMP "/timing-reco-run/recommendation.txt");
    assert_non_null(got);
    /* a line with no depth that meets the target goes on with what would (test_explore_seeds
     * checks those figures): compare up to there */
    char *more = strstr(got, "; the records need ");
    assert_non_null(more);
    assert_non_null(strstr(more, "Little's law puts "));
    char cut[2048];
    snprintf(cut, sizeof(cut), "%.*s%s", (int)(more - got), got, strchr(more, '\n'));
    assert_string_equal(cut, want);
    /* the three regimes: no latency needs the smallest FIFO, 175 ns a deeper one, 300 ns none */
    got = cut;
    assert_non_null(strstr(got, "write_latency_ns 0 ns: the smallest record FIFO depth with collisions under 2 % is 64 B"));
    assert_non_null(strstr(got, "write_latency_ns 175 ns: the smallest record FIFO depth with collisions under 2 % is 4 KiB"));
    assert_non_null(strstr(got, "write_latency_ns 300 ns: no swept record FIFO depth"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latency_monotonic),
        cmocka_unit_test(timing_metrics),
        cmocka_unit_test(zero_latency_identity),
        cmocka_unit_test(keys_and_seeds),
        cmocka_unit_test(distributions),
        cmocka_unit_test(recommendation_by_hand),
        cmocka_unit_test(recommendation_from_csv),
    };
    return cmocka_run_group_tests_name("explore_timing", tests, setup, NULL);
}
