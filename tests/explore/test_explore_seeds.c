/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_seeds.c: seeds: N (a seed axis; min/max per point; the worst-seed recommendation), the plot data's error-bar and recommended-size columns, and the Little's-law figures of a recommendation checked by hand. */
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

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char b[1 << 17];
    size_t n = fread(b, 1, sizeof(b) - 1, f);
    fclose(f);
    b[n] = '\0';
    return b;
}

static int axis_of(const ex_sweep *sw, const char *name)
{
    int p = ex_param_find(name);
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].param == p)
            return a;
    return -1;
}

/* ----- The seed axis -------------------------------------------------------------------------- */

static void seed_axis(void **s)
{
    (void)s;
    static ex_sweep sw, one;
    char err[1024] = "";
    const char *base = "name: seeds\nseed: 5\nops: 100000\n"
                       "sweep:\n  - fifo_bytes: [64, 256]\n    drain: [2, 4]\n  - buffer_bytes: [8K, 16K, 32K]\n";
    char text[512];
    snprintf(text, sizeof(text), "seeds: 3\n%s", base);
    assert_int_equal(ex_sweep_load_string("s.yaml", text, &sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_load_string("o.yaml", base, &one, err, sizeof(err)), 0);
    /* every configuration three times: (2 x 2 + 3) x 3 points, the seed the last axis */
    assert_int_equal(one.npoints, 7);
    assert_int_equal(sw.npoints, 21);
    assert_int_equal(sw.seeds, 3);
    int sa = axis_of(&sw, "seed");
    assert_int_equal(sa, sw.naxes - 1);
    assert_int_equal(sw.axes[sa].nvals, 3);
    assert_string_equal(sw.axes[sa].vals[0].text, "5");
    assert_string_equal(sw.axes[sa].vals[2].text, "7");
    assert_int_equal(sw.axes[sa].line, 1);
    /* the seeds of a configuration are neighbours; the first is the point without seeds: */
    for (size_t j = 0; j < one.npoints; j++) {
        ex_point_cfg a, b;
        ex_point_build(&one, j, &a);
        char ka[17], kb[17];
        ex_point_key(&a, ka);
        for (int k = 0; k < 3; k++) {
            ex_point_build(&sw, 3 * j + (size_t)k, &b);
            assert_int_equal(b.seed, 5 + (uint64_t)k);
            assert_int_equal(b.run.spu.fifo_bytes, a.run.spu.fifo_bytes);
            assert_int_equal(b.run.spu.drain_bytes_per_cycle, a.run.spu.drain_bytes_per_cycle);
            assert_int_equal(b.run.buffer_bytes, a.run.buffer_bytes);
            ex_point_key(&b, kb);
            /* same key (a result from before `seeds:` resumes) for seed 5, a new one otherwise */
            assert_int_equal(strcmp(ka, kb) == 0, k == 0);
            /* each seed its own operations: the point's seed differs */
            assert_int_equal(ex_point_seed(&a) == ex_point_seed(&b), k == 0);
        }
    }
    /* seeds: 1 is the sweep without the key */
    snprintf(text, sizeof(text), "seeds: 1\n%s", base);
    assert_int_equal(ex_sweep_load_string("s1.yaml", text, &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.npoints, 7);
    assert_int_equal(axis_of(&sw, "seed"), -1);
}

/* Adding seeds (or a value to an axis) renumbers the points; a finished point resumes by its key
 * wherever it now is, so only the new ones run. */
static void seeds_resume(void **s)
{
    (void)s;
    static ex_sweep sw;
    char err[1024] = "";
    const char *dir = EXPLORE_TMP "/seeds-resume";
    ex_run_opts ro = { .outdir = dir, .jobs = 2, .fresh = true };
    ex_run_stats st;
    const char *base = "ops: 200000\nsweep:\n  drain: [2, 4]\n  fifo_bytes: [256, 1024]\n";
    assert_int_equal(ex_sweep_load_string("r.yaml", base, &sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_run(&sw, &ro, &st, err, sizeof(err)), 0);
    assert_int_equal(st.ran, 4);
    ro.fresh = false;
    assert_int_equal(ex_sweep_load_string("r.yaml", "seeds: 3\nops: 200000\nsweep:\n  drain: [2, 4]\n"
                                          "  fifo_bytes: [256, 1024]\n", &sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_run(&sw, &ro, &st, err, sizeof(err)), 0);
    assert_int_equal(st.resumed, 4);
    assert_int_equal(st.ran, 8);
    assert_int_equal(ex_sweep_load_string("r.yaml", "seeds: 3\nops: 200000\nsweep:\n  drain: [2, 3, 4]\n"
                                          "  fifo_bytes: [256, 1024]\n", &sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_run(&sw, &ro, &st, err, sizeof(err)), 0);
    assert_int_equal(st.resumed, 12);
    assert_int_equal(st.ran, 6);
}

static void seed_errors(void **s)
{
    (void)s;
    static const struct {
        const char *text, *msg;
        unsigned flags;
    } bad[] = {
        { "ops: 100000\nseeds: 0\nsweep:\n  fifo_bytes: [64]\n",
          "e.yaml:2:8: seeds expects a whole number of seeds per point, 1 .. 64", 0 },
        { "ops: 100000\nseeds: 65\nsweep:\n  fifo_bytes: [64]\n",
          "e.yaml:2:8: seeds expects a whole number of seeds per point, 1 .. 64", 0 },
        { "ops: 100000\nseeds: two\nsweep:\n  fifo_bytes: [64]\n",
          "e.yaml:2:8: seeds expects a whole number of seeds per point, 1 .. 64", 0 },
        { "ops: 100000\nseeds: [1, 2]\nsweep:\n  fifo_bytes: [64]\n",
          "e.yaml:2:9: seeds expects a whole number of seeds per point, 1 .. 64", 0 },
        { "ops: 100000\nseeds: 3\nsweep:\n  fifo_bytes: [64]\n  seed: [1, 2]\n",
          "e.yaml:2: seeds: 3 and a swept seed (line 5) both choose the seeds: use one", 0 },
        { "ops: 100000\nseed: 18446744073709551614\nseeds: 3\nsweep:\n  fifo_bytes: [64]\n",
          "e.yaml:3: seeds: 3 from seed 18446744073709551614 passes 2^64 - 1", 0 },
        { "ops: 100000\nseeds: 3\n", "e.yaml:2:1: a scenario is one point: 'seeds:' belongs in a sweep",
          EX_LOAD_SCENARIO },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        static ex_sweep sw;
        char err[1024] = "";
        ex_load_error le;
        assert_int_equal(ex_sweep_load_ex(NULL, "e.yaml", bad[i].text, bad[i].flags, &sw, &le, err, sizeof(err)), -1);
        assert_string_equal(err, bad[i].msg);
        assert_string_equal(le.key, "seeds");
    }
}

/* ----- A real sweep with seeds: min/max per point, the worst seed ------------------------------- */

/* examples/fifo-timing.yaml's core with fewer operations: 150 ns is near the knee, where the
 * seeds disagree about the FIFO depth; 225 ns is past it. */
static const char *seeds_text =
    "name: seeds-run\n"
    "seeds: 3\n"
    "ops: 6000000\n"
    "ops_per_cycle: 24\n"
    "interval: 256\n"
    "rnd: true\n"
    "inflight: 4\n"
    "buffer_bytes: 64M\n"
    "clock_hz: 2e9\n"
    "spe: {drain: 16, write_bytes: 64, max_outstanding_writes: 16}\n"
    "workload: {mix: compute}\n"
    "recommend: {max_collision_pct: 1}\n"
    "sweep:\n"
    "  memory.write_latency_ns: [150, 225]\n"
    "  fifo_bytes: [64, 256, 512, 1024, 4096]\n";

static const double lat2[] = { 150, 225 }, fifo5[] = { 64, 256, 512, 1024, 4096 };
static const char *const fifo5_text[] = { "64 B", "256 B", "512 B", "1 KiB", "4 KiB" };

static void seeds_min_max_and_worst_seed(void **s)
{
    (void)s;
    static ex_sweep sw;
    char err[1024] = "";
    assert_int_equal(ex_sweep_load_string("sr.yaml", seeds_text, &sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_set_model(&sw, EX_MODEL_C, err, sizeof(err)), 0);
    assert_int_equal(sw.npoints, 30);
    const char *dir = EXPLORE_TMP "/seeds-run";
    ex_run_opts ro = { .outdir = dir, .jobs = 2, .fresh = true, .plots = true };
    ex_run_stats st;
    assert_int_equal(ex_sweep_run(&sw, &ro, &st, err, sizeof(err)), 0);
    static csv t;
    assert_int_equal(csv_load(EXPLORE_TMP "/seeds-run/results.csv", &t), 0);
    assert_int_equal(t.nrow, 30);
    int cl = csv_col(&t, "write_latency_ns"), cf = csv_col(&t, "fifo_bytes"), cs = csv_col(&t, "seed");
    int cp = csv_col(&t, "collision_pct");
    assert_true(cl >= 0 && cf >= 0 && cs >= 0 && cp >= 0);
    /* per point: the lowest, mean and highest seed, from the CSV */
    double lo[2][5], hi[2][5], mean[2][5], first[2][5];
    for (int l = 0; l < 2; l++)
        for (int f = 0; f < 5; f++) {
            int n = 0;
            lo[l][f] = INFINITY;
            hi[l][f] = -INFINITY;
            mean[l][f] = 0;
            for (int r = 0; r < t.nrow; r++) {
                if (t.v[r][cl] != lat2[l] || t.v[r][cf] != fifo5[f])
                    continue;
                double v = t.v[r][cp];
                lo[l][f] = fmin(lo[l][f], v);
                hi[l][f] = fmax(hi[l][f], v);
                mean[l][f] += v / 3;
                if (t.v[r][cs] == 1)
                    first[l][f] = v;
                n++;
            }
            assert_int_equal(n, 3);
            /* the seeds see different operations: they do not all agree */
            if (l == 0 && f == 0)
                assert_true(lo[l][f] < hi[l][f]);
        }
    /* the recommendation takes the worst seed: the rule of docs/explore.md on the per-point maximum */
    char want[2][512];
    int pick_worst[2], pick_first[2];
    for (int l = 0; l < 2; l++) {
        int pick = -1, pf = -1, best = 4;
        for (int f = 4; f >= 0; f--)
            if (hi[l][f] < hi[l][best])
                best = f;
        for (int f = 4; f >= 0 && hi[l][f] < 1; f--)
            pick = f;
        for (int f = 4; f >= 0 && first[l][f] < 1; f--)
            pf = f;
        pick_worst[l] = pick;
        pick_first[l] = pf;
        if (pick >= 0)
            snprintf(want[l], sizeof(want[l]), "write_latency_ns %g ns: the smallest record FIFO depth with collisions "
                     "under 1 %% is %s (worst point %.3g %%, worst of 3 seeds)", lat2[l], fifo5_text[pick], hi[l][pick]);
        else
            snprintf(want[l], sizeof(want[l]), "write_latency_ns %g ns: no swept record FIFO depth keeps collisions "
                     "under 1 %% (best: %s with %.3g %%, worst of 3 seeds); the records need", lat2[l], fifo5_text[best],
                     hi[l][best]);
    }
    /* 150 ns: met, at a depth seed 1 alone would call too deep by one step or more (the worst seed
     * decides); 225 ns: not met with any depth */
    assert_true(pick_worst[0] >= 0 && pick_worst[0] > pick_first[0]);
    assert_int_equal(pick_worst[1], -1);
    char *txt = slurp(EXPLORE_TMP "/seeds-run/recommendation.txt");
    assert_non_null(txt);
    char *l150 = strstr(txt, "write_latency_ns 150 ns:"), *l225 = strstr(txt, "write_latency_ns 225 ns:");
    assert_true(l150 && l225);
    assert_int_equal(strncmp(l150, want[0], strlen(want[0])), 0);
    assert_int_equal(l150[strlen(want[0])], '\n');
    assert_int_equal(strncmp(l225, want[1], strlen(want[1])), 0);
    ex_result *res = calloc(sw.npoints, sizeof(*res));
    assert_non_null(res);
    for (int r = 0; r < t.nrow; r++) {
        ex_result_clear(&res[(size_t)t.v[r][0]]);
        for (int c = 1; c < t.ncol; c++) {
            int m;
            for (m = 0; m < EXM__COUNT; m++)
                if (!strcmp(ex_metric_name(m), t.head[c]))
                    res[(size_t)t.v[r][0]].m[m] = t.v[r][c];
        }
    }
    ex_reco *reco = NULL;
    int nreco = ex_recommend(&sw, res, &reco);
    assert_int_equal(nreco, 2);
    assert_int_equal(reco[0].seeds, 3);
    assert_true(reco[0].met);
    assert_true(fabs(reco[0].worst - hi[0][pick_worst[0]]) < 1e-4 * hi[0][pick_worst[0]]);
    free(reco);
    free(res);

    /* the plot data: per latency block and depth, the mean, the worst point, the points, the
     * lowest and highest seed, the mark (1: recommended, 2: best when none is), the plotted values */
    char *dat = slurp(EXPLORE_TMP "/seeds-run/collisions_vs_fifo.dat");
    assert_non_null(dat);
    assert_non_null(strstr(dat, "# fifo_bytes collision_pct_mean collision_pct_max points collision_pct_seed_min "
                                "collision_pct_seed_max recommended plot_y plot_y_min plot_y_max\n"));
    for (int l = 0; l < 2; l++) {
        char head[64];
        snprintf(head, sizeof(head), "# write_latency_ns %g\n", lat2[l]);
        char *b = strstr(dat, head);
        assert_non_null(b);
        b += strlen(head);
        for (int f = 0; f < 5; f++) {
            double x, mn, mx, smin, smax, y, ylo, yhi;
            int n, mark;
            assert_int_equal(sscanf(b, "%lf %lf %lf %d %lf %lf %d %lf %lf %lf", &x, &mn, &mx, &n, &smin, &smax, &mark,
                                    &y, &ylo, &yhi), 10);
            assert_true(x == fifo5[f] && n == 3);
            assert_true(fabs(mn - mean[l][f]) < 1e-4 * (mean[l][f] + 1e-9));
            assert_true(fabs(mx - hi[l][f]) < 1e-4 * (hi[l][f] + 1e-9));
            assert_true(fabs(smin - lo[l][f]) < 1e-4 * (lo[l][f] + 1e-9));
            assert_true(fabs(smax - hi[l][f]) < 1e-4 * (hi[l][f] + 1e-9));
            int want_mark = pick_worst[l] >= 0 ? (f == pick_worst[l]) : 0;
            if (pick_worst[l] < 0) { /* the best depth: the lowest worst point (the deeper between equal ones) */
                int best = 4;
                for (int g = 4; g >= 0; g--)
                    if (hi[l][g] < hi[l][best])
                        best = g;
                want_mark = f == best ? 2 : 0;
            }
            assert_int_equal(mark, want_mark);
            /* the log axis' floor is 0.1 (a decade under the 1 % target): values at or over it as they are */
            assert_true(y == fmax(mn, 0.1) && ylo == fmax(smin, 0.1) && yhi == fmax(smax, 0.1));
            b = strchr(b, '\n') + 1;
        }
    }
    char *plt = slurp(EXPLORE_TMP "/seeds-run/collisions_vs_fifo.plt");
    assert_non_null(plt);
    assert_non_null(strstr(plt, "set logscale y 10\nset yrange [0.1:100]\n"));
    assert_non_null(strstr(plt, "index 0 using 1:8:9:10 with yerrorlines lt 1"));
    assert_non_null(strstr(plt, "index 1 using 1:($7 == 2 ? $8 : NaN) with points lt 2"));
    assert_non_null(strstr(plt, "mean of 3 seeds; bars: lowest to highest seed"));
}

/* ----- Little's law, by hand --------------------------------------------------------------------
 * Made-up counts: 800 samples and 200 collisions (20 %), 800 records written, none discarded, the
 * writer writing 1.6 B/cycle. The records need 1.6 x 1000 / 800 = 2 B/cycle: 4 GB/s at 2 GHz. */
static void made_up_counts(ex_result *r, double collisions)
{
    ex_result_clear(r);
    r->m[EXM_SAMPLES] = 800;
    r->m[EXM_COLLISIONS] = collisions;
    r->m[EXM_COLLISION_PCT] = 100 * collisions / (800 + collisions);
    r->m[EXM_RECORDS_WRITTEN] = 800;
    r->m[EXM_RECORDS_DISCARDED] = 0;
    r->m[EXM_BUS_BYTES_PER_CYCLE] = 1.6;
    r->m[EXM_CYCLES] = 1e6;
    ex_result_derive(r);
}

static int made_up_reco(const char *text, double lat_ns, ex_reco **reco, ex_sweep *sw)
{
    char err[1024] = "";
    assert_int_equal(ex_sweep_load_string("h.yaml", text, sw, err, sizeof(err)), 0);
    static ex_result res[8];
    assert_true(sw->npoints <= 8);
    for (size_t i = 0; i < sw->npoints; i++) {
        made_up_counts(&res[i], 200);
        res[i].m[EXM_WRITE_LAT_MEAN_NS] = lat_ns;
    }
    return ex_recommend(sw, res, reco);
}

static void littles_law_by_hand(void **s)
{
    (void)s;
    ex_result r;
    made_up_counts(&r, 200);
    assert_true(r.m[EXM_RECORD_BYTES_PER_CYCLE] == 2.0);
    made_up_counts(&r, 0);
    assert_true(r.m[EXM_RECORD_BYTES_PER_CYCLE] == 1.6);

    static ex_sweep sw;
    ex_reco *reco = NULL;
    /* Memory: 8 writes of 64 B over 200 ns = 400 cycles carry 8 x 64 / 400 = 1.28 B/cycle (156 %
     * in use). Little's law: 2 x 400 = 800 B in flight, 12.5 -> 13 writes of 64 B for the mean
     * rate; at 90 % use 800 / 0.9 = 888.9 B: 13.9 -> 14 writes, or 8 writes of 111.1 -> 128 B, or
     * a latency of at most 0.9 x 8 x 64 / 2 = 230.4 cycles = 115.2 ns. */
    assert_int_equal(made_up_reco("clock_hz: 2e9\nwrite_bytes: 64\nmax_outstanding_writes: 8\ndrain: 16\n"
                                  "sweep:\n  write_latency_ns: [200]\n  fifo_bytes: [256, 1K]\n", 200, &reco, &sw), 1);
    assert_false(reco[0].met);
    assert_int_equal(reco[0].limit, EX_LIMIT_MEMORY);
    assert_true(reco[0].record_bytes_per_cycle == 2.0);
    assert_true(reco[0].record_gbytes_per_s == 4.0);
    assert_true(reco[0].write_latency_cycles == 400);
    assert_true(reco[0].write_bytes == 64 && reco[0].outstanding_writes == 8 && reco[0].drain == 16);
    assert_true(reco[0].capacity_bytes_per_cycle == 1.28);
    assert_true(reco[0].bytes_in_flight == 800);
    assert_true(reco[0].min_outstanding_writes == 13);
    assert_true(reco[0].need_outstanding_writes == 14);
    assert_true(reco[0].need_write_bytes == 128);
    assert_true(fabs(reco[0].max_write_latency_ns - 115.2) < 1e-9);
    assert_true(isnan(reco[0].need_drain) && isnan(reco[0].need_buffer_bytes));
    assert_true(reco[0].best_size == 1024); /* equal worst points: the deeper */
    assert_string_equal(reco[0].text,
                        "write_latency_ns 200 ns: no swept record FIFO depth keeps collisions under 1 % (best: 1 KiB "
                        "with 20 %); the records need 2 B/cycle (4 GB/s at 2 GHz), and 8 writes of 64 B in flight over "
                        "400 cycles (200 ns) carry 1.28 (156 % in use): Little's law puts 2 x 400 = 800 B in flight (13 "
                        "writes of 64 B); at 90 % use, so that a FIFO absorbs the bursts, 889 B: 14 outstanding writes "
                        "of 64 B, or 8 of 128 B, or a write latency of at most 115 ns");
    free(reco);

    /* Drain: no memory latency, a drain of 2 B/cycle: 100 % in use; 2 / 0.9 = 2.22 -> 3 B/cycle. */
    assert_int_equal(made_up_reco("clock_hz: 1e9\nsweep:\n  drain: [2]\n  fifo_bytes: [256, 1K]\n", 0, &reco, &sw), 1);
    assert_int_equal(reco[0].limit, EX_LIMIT_DRAIN);
    assert_true(reco[0].need_drain == 3 && reco[0].record_gbytes_per_s == 2.0);
    assert_true(isnan(reco[0].need_outstanding_writes));
    assert_string_equal(reco[0].text,
                        "drain 2 B/cycle: no swept record FIFO depth keeps collisions under 1 % (best: 1 KiB with 20 %); "
                        "the records need 2 B/cycle (2 GB/s at 1 GHz), 100 % of the drain's 2 B/cycle: a drain of at "
                        "least 3 B/cycle (at most 90 % in use, so that a FIFO absorbs the bursts)");
    free(reco);

    /* Slots: a drain of 4 B/cycle carries the 2 B/cycle at 50 %: the write path is not the limit. */
    assert_int_equal(made_up_reco("inflight: 6\nsweep:\n  drain: [4]\n  fifo_bytes: [256, 1K]\n", 0, &reco, &sw), 1);
    assert_int_equal(reco[0].limit, EX_LIMIT_SLOTS);
    assert_true(isnan(reco[0].need_drain) && isnan(reco[0].need_outstanding_writes));
    assert_non_null(strstr(reco[0].text, "; the records need 2 B/cycle (4 GB/s at 2 GHz) and the write path carries 4 "
                                         "(50 % in use): the collisions are sampled operations holding all 6 in-flight "
                                         "slots (sweep inflight)"));
    free(reco);

    /* Data lost: the records write 1 B/cycle over the run with PMBSR_EL1.S = 1 half the time: 2
     * B/cycle while profiling; an interrupt latency of 4096 cycles misses 8192 B; no collisions,
     * so a 2 % target needs 8192 x (100 / 2 - 1) = 401408 B = 392 KiB (512 KiB as a power of two). */
    {
        char err[1024] = "";
        assert_int_equal(ex_sweep_load_string("b.yaml", "recommend: {max_lost_pct: 2}\nsweep:\n  irq_latency: [4096]\n"
                                              "  buffer_bytes: [64K, 128K]\n", &sw, err, sizeof(err)), 0);
        static ex_result res[2];
        for (int i = 0; i < 2; i++) {
            ex_result_clear(&res[i]);
            res[i].m[EXM_SAMPLES] = 1000;
            res[i].m[EXM_COLLISIONS] = 0;
            res[i].m[EXM_COLLISION_PCT] = 0;
            res[i].m[EXM_RECORDS_WRITTEN] = 1000;
            res[i].m[EXM_RECORDS_DISCARDED] = 0;
            res[i].m[EXM_BUS_BYTES_PER_CYCLE] = 1.0;
            res[i].m[EXM_BUFFER_FULL_PCT] = 50;
            res[i].m[EXM_LOST_PCT] = i ? 30 : 40;
            ex_result_derive(&res[i]);
        }
        assert_int_equal(ex_recommend(&sw, res, &reco), 1);
        assert_int_equal(reco[0].limit, EX_LIMIT_BUFFER);
        assert_true(reco[0].record_bytes_per_cycle == 2.0 && reco[0].bytes_in_flight == 8192);
        assert_true(reco[0].need_buffer_bytes == 401408);
        assert_string_equal(reco[0].text,
                            "irq_latency 4096 cycles: no swept Profiling Buffer keeps data lost under 2 % (best: 128 "
                            "KiB with 30 %); the records fill 2 B/cycle while profiling, so each interrupt's 4096 "
                            "cycles miss 8192 B; with 0 % of collisions that leaves 2 % to the buffer: at least 392 KiB "
                            "(512 KiB as a power of two)");
        free(reco);
    }
}

/* The figures applied: 225 ns with 16 line writes in flight meets no target (the memory carries
 * less than the records need); with the writes in flight the recommendation asks for, a FIFO
 * that the sweep has meets it, on every seed. */
static int run_reco(const char *text, ex_reco **reco, ex_sweep *sw)
{
    char err[1024] = "";
    assert_int_equal(ex_sweep_load_string("a.yaml", text, sw, err, sizeof(err)), 0);
    assert_int_equal(ex_sweep_set_model(sw, EX_MODEL_C, err, sizeof(err)), 0);
    ex_result *res = calloc(sw->npoints, sizeof(*res));
    assert_non_null(res);
    ex_run_opts ro = { .outdir = NULL, .jobs = 2, .results = res };
    ex_run_stats st;
    assert_int_equal(ex_sweep_run(sw, &ro, &st, err, sizeof(err)), 0);
    int n = ex_recommend(sw, res, reco);
    free(res);
    return n;
}

static void needs_applied(void **s)
{
    (void)s;
    static ex_sweep sw;
    const char *common = "seeds: 2\nops: 6000000\nops_per_cycle: 24\ninterval: 256\nrnd: true\ninflight: 4\n"
                         "buffer_bytes: 64M\nclock_hz: 2e9\nworkload: {mix: compute}\n"
                         "spe: {drain: 16, write_bytes: 64}\nmemory: {write_latency_ns: 225}\n";
    char text[1024];
    snprintf(text, sizeof(text), "%smax_outstanding_writes: 16\nsweep:\n  fifo_bytes: [1K, 4K, 8K]\n", common);
    ex_reco *reco = NULL;
    assert_int_equal(run_reco(text, &reco, &sw), 1);
    assert_false(reco[0].met);
    assert_int_equal(reco[0].limit, EX_LIMIT_MEMORY);
    double need = reco[0].need_outstanding_writes;
    /* the records need about 2.3 B/cycle (docs/explore.md): 2.3 x 450 / 0.9 / 64 = 18 */
    assert_true(need == 18);
    free(reco);
    snprintf(text, sizeof(text), "%smax_outstanding_writes: %g\nsweep:\n  fifo_bytes: [1K, 4K, 8K]\n", common, need);
    assert_int_equal(run_reco(text, &reco, &sw), 1);
    assert_true(reco[0].met);
    free(reco);
}

/* The heat map's data: the seeds' spread per cell and the recommended buffer per latency. */
static void heatmap_marks(void **s)
{
    (void)s;
    static ex_sweep sw;
    char err[1024] = "";
    assert_int_equal(ex_sweep_load_string("hm.yaml", "name: hm\nseeds: 2\nrecommend: {max_lost_pct: 2}\nsweep:\n"
                                          "  irq_latency: [1000, 8000]\n  buffer_bytes: [16K, 64K, 256K]\n",
                                          &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.npoints, 12);
    int ba = axis_of(&sw, "buffer_bytes"), la = axis_of(&sw, "irq_latency"), sa = axis_of(&sw, "seed");
    static ex_result res[12];
    /* lost % = latency / size in KiB / 20, plus 0.5 on the second seed:
     *   1000: 16K 3.125 / 3.625, 64K 0.781 / 1.281, 256K 0.195 / 0.695 -> 64K (worst 1.28)
     *   8000: 16K 25 / 25.5, 64K 6.25 / 6.75, 256K 1.5625 / 2.0625     -> none; best 256K (2.06) */
    for (size_t i = 0; i < sw.npoints; i++) {
        int idx[EX_MAX_AXES];
        ex_point_indices(&sw, i, idx);
        ex_result_clear(&res[i]);
        double lat = sw.axes[la].vals[idx[la]].d, kib = sw.axes[ba].vals[idx[ba]].d / 1024;
        res[i].m[EXM_LOST_PCT] = lat / kib / 20 + 0.5 * idx[sa];
    }
    const char *dir = EXPLORE_TMP "/seeds-heat";
    mkdir(dir, 0777);
    bool plotted;
    assert_int_equal(ex_write_outputs(&sw, res, dir, true, &plotted, NULL, err, sizeof(err)), 0);
    char *dat = slurp(EXPLORE_TMP "/seeds-heat/lost_heatmap.dat");
    assert_non_null(dat);
    assert_non_null(strstr(dat, "0 0 3.375 16384 1000 3.125 3.625 0\n"));
    assert_non_null(strstr(dat, "1 0 1.03125 65536 1000 0.78125 1.28125 1\n"));
    assert_non_null(strstr(dat, "2 0 0.4453125 262144 1000 0.1953125 0.6953125 0\n"));
    assert_non_null(strstr(dat, "1 1 6.5 65536 8000 6.25 6.75 0\n"));
    assert_non_null(strstr(dat, "2 1 1.8125 262144 8000 1.5625 2.0625 2\n"));
    char *plt = slurp(EXPLORE_TMP "/seeds-heat/lost_heatmap.plt");
    assert_non_null(plt);
    assert_non_null(strstr(plt, "($8 == 1 ? 0.44 : NaN)"));
    assert_non_null(strstr(plt, "($8 == 2 ? 0.44 : NaN)"));
}

int main(void)
{
    mkdir(EXPLORE_TMP, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_axis),
        cmocka_unit_test(seed_errors),
        cmocka_unit_test(seeds_resume),
        cmocka_unit_test(seeds_min_max_and_worst_seed),
        cmocka_unit_test(littles_law_by_hand),
        cmocka_unit_test(needs_applied),
        cmocka_unit_test(heatmap_marks),
    };
    return cmocka_run_group_tests_name("explore_seeds", tests, NULL, NULL);
}
