/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_sweep.c: a small sweep whose CSV shows the relations the hardware must show; same results on 1 and 2 workers; resume. */
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

#ifndef EXPLORE_TMP
#define EXPLORE_TMP "explore-tmp"
#endif

/* 24 operations per cycle against a 2..4 B/cycle drain path: drain 2 is just short of what the
 * samples need, so the FIFO depth matters there; the buffer group fills the Profiling Buffer.
 * Group 1 never fills its 64 MiB buffer, so all its points see the same sample points and the
 * FIFO/drain relation holds point for point (see docs/explore.md for overload, drain < demand). */
static const char *sweep_text =
    "name: relations\n"
    "ops: 2000000\n"
    "ops_per_cycle: 24\n"
    "interval: 256\n"
    "inflight: 4\n"
    "buffer_bytes: 64M\n"
    "fifo_bytes: 1024\n"
    "drain: 4\n"
    "irq_latency: 4000\n"
    "workload:\n"
    "  mix: compute\n"
    "sweep:\n"
    "  - drain: [2, 3, 4]\n"
    "    fifo_bytes: [64, 256, 1024, 4096]\n"
    "  - buffer_bytes: [4K, 16K, 64K]\n"
    "    irq_latency: [1000, 8000]\n";

static ex_sweep sw;

typedef struct table {
    int ncol, nrow;
    char *head[64];
    double v[64][64];
    char *text[64];     /* each row without its last column (host_seconds) */
} table;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

static void load_csv(const char *path, table *t)
{
    memset(t, 0, sizeof(*t));
    char *all = slurp(path);
    assert_non_null(all);
    char *save = NULL;
    int r = -1;
    for (char *line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save), r++) {
        char *last = strrchr(line, ',');
        assert_non_null(last);
        if (r >= 0) {
            t->text[r] = strndup(line, (size_t)(last - line));
            assert_true(r < 64);
        }
        int c = 0;
        char *s2 = NULL;
        for (char *f = strtok_r(line, ",", &s2); f; f = strtok_r(NULL, ",", &s2), c++) {
            assert_true(c < 64);
            if (r < 0)
                t->head[c] = strdup(f);
            else
                t->v[r][c] = strtod(f, NULL);
        }
        if (r < 0)
            t->ncol = c;
        else
            assert_int_equal(c, t->ncol);
    }
    t->nrow = r;
    free(all);
}

static void free_csv(table *t)
{
    for (int c = 0; c < t->ncol; c++)
        free(t->head[c]);
    for (int r = 0; r < t->nrow; r++)
        free(t->text[r]);
}

static int col(const table *t, const char *name)
{
    for (int c = 0; c < t->ncol; c++)
        if (!strcmp(t->head[c], name))
            return c;
    fail_msg("no column %s", name);
    return -1;
}

/* The row of group 1 with this drain and FIFO depth, or of group 2 with this buffer and latency. */
static int row(const table *t, const char *a, double av, const char *b, double bv, int from, int to)
{
    int ca = col(t, a), cb = col(t, b);
    for (int r = from; r < to; r++)
        if (t->v[r][ca] == av && t->v[r][cb] == bv)
            return r;
    fail_msg("no row %s=%g %s=%g", a, av, b, bv);
    return -1;
}

static int run(const char *dir, unsigned jobs, bool fresh, ex_run_stats *st)
{
    char err[1024] = "";
    ex_run_opts ro = { .outdir = dir, .jobs = jobs, .fresh = fresh, .plots = fresh && jobs == 1 };
    int rc = ex_sweep_run(&sw, &ro, st, err, sizeof(err));
    if (rc)
        print_error("ex_sweep_run: %s\n", err);
    return rc;
}

static int setup(void **s)
{
    (void)s;
    mkdir(EXPLORE_TMP, 0777);
    char err[512];
    return ex_sweep_load_string("relations.yaml", sweep_text, &sw, err, sizeof(err));
}

static const double drains[] = { 2, 3, 4 }, fifos[] = { 64, 256, 1024, 4096 };
static const double buffers[] = { 4096, 16384, 65536 }, lats[] = { 1000, 8000 };

static void test_relations(void **s)
{
    (void)s;
    ex_run_stats st;
    assert_int_equal(run(EXPLORE_TMP "/j1", 1, true, &st), 0);
    assert_int_equal(st.points, 18);
    assert_int_equal(st.ran, 18);
    table t;
    load_csv(EXPLORE_TMP "/j1/results.csv", &t);
    assert_int_equal(t.nrow, 18);
    int coll = col(&t, "collisions"), lost = col(&t, "lost_pct"), mg = col(&t, "management_events");
    int full = col(&t, "buffer_full_pct"), fp99 = col(&t, "fifo_p99_bytes"), fmax = col(&t, "fifo_max_bytes");
    /* For a fixed workload, collisions never increase with FIFO depth ... */
    for (int d = 0; d < 3; d++)
        for (int f = 1; f < 4; f++) {
            double a = t.v[row(&t, "drain", drains[d], "fifo_bytes", fifos[f - 1], 0, 12)][coll];
            double b = t.v[row(&t, "drain", drains[d], "fifo_bytes", fifos[f], 0, 12)][coll];
            if (b > a)
                fail_msg("drain %g: collisions rose from %g to %g as the FIFO grew to %g", drains[d], a, b, fifos[f]);
        }
    /* ... nor with drain bandwidth. */
    for (int f = 0; f < 4; f++)
        for (int d = 1; d < 3; d++) {
            double a = t.v[row(&t, "drain", drains[d - 1], "fifo_bytes", fifos[f], 0, 12)][coll];
            double b = t.v[row(&t, "drain", drains[d], "fifo_bytes", fifos[f], 0, 12)][coll];
            if (b > a)
                fail_msg("FIFO %g: collisions rose from %g to %g as drain grew to %g", fifos[f], a, b, drains[d]);
        }
    /* The relations are not vacuous: a short drain path collides more, and a deeper FIFO helps it. */
    int r_small = row(&t, "drain", 2, "fifo_bytes", 64, 0, 12), r_deep = row(&t, "drain", 2, "fifo_bytes", 4096, 0, 12);
    int r_fast = row(&t, "drain", 4, "fifo_bytes", 64, 0, 12);
    assert_true(t.v[r_small][coll] > t.v[r_deep][coll]);
    assert_true(t.v[r_deep][coll] > 10 * t.v[r_fast][coll]);
    /* Occupancy never exceeds the FIFO; a 64-byte FIFO under pressure sits near full. */
    for (int r = 0; r < 12; r++) {
        double depth = t.v[r][col(&t, "fifo_bytes")];
        assert_true(t.v[r][fmax] <= depth);
        assert_true(t.v[r][fp99] <= t.v[r][fmax]);
    }
    assert_true(t.v[r_small][fp99] >= 32);
    /* Group 1 never fills its buffer: no management event, nothing lost but collisions. */
    for (int r = 0; r < 12; r++) {
        assert_true(t.v[r][mg] == 0);
        assert_true(t.v[r][full] == 0);
    }
    /* Data lost never increases with buffer size, and grows with interrupt latency. */
    for (int l = 0; l < 2; l++)
        for (int b = 1; b < 3; b++) {
            double x = t.v[row(&t, "buffer_bytes", buffers[b - 1], "irq_latency", lats[l], 12, 18)][lost];
            double y = t.v[row(&t, "buffer_bytes", buffers[b], "irq_latency", lats[l], 12, 18)][lost];
            if (y > x)
                fail_msg("latency %g: data lost rose from %g %% to %g %% as the buffer grew to %g", lats[l], x, y,
                         buffers[b]);
        }
    for (int b = 0; b < 3; b++) {
        double x = t.v[row(&t, "buffer_bytes", buffers[b], "irq_latency", 1000, 12, 18)][lost];
        double y = t.v[row(&t, "buffer_bytes", buffers[b], "irq_latency", 8000, 12, 18)][lost];
        assert_true(y > x);
    }
    int r4k = row(&t, "buffer_bytes", 4096, "irq_latency", 8000, 12, 18);
    int r64k = row(&t, "buffer_bytes", 65536, "irq_latency", 8000, 12, 18);
    assert_true(t.v[r4k][lost] > 2 * t.v[r64k][lost]);
    assert_true(t.v[r4k][mg] > t.v[r64k][mg]);
    assert_true(t.v[r4k][full] > 0);
    free_csv(&t);

    /* The outputs: JSON, recommendation, plots as PNG and SVG. */
    assert_true(st.plotted);
    static const char *const files[] = { "results.json", "recommendation.txt", "collisions_vs_fifo.png",
                                         "collisions_vs_fifo.svg", "lost_heatmap.png", "lost_heatmap.svg" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char p[512];
        snprintf(p, sizeof(p), EXPLORE_TMP "/j1/%s", files[i]);
        char *b = slurp(p);
        if (!b || !b[0])
            fail_msg("%s missing or empty", p);
        if (strstr(files[i], ".png"))
            assert_memory_equal(b, "\x89PNG", 4);
        if (strstr(files[i], ".svg"))
            assert_non_null(strstr(b, "<svg"));
        free(b);
    }
    char *reco = slurp(EXPLORE_TMP "/j1/recommendation.txt");
    assert_non_null(strstr(reco, "drain 4 B/cycle: the smallest record FIFO depth with collisions under 1 % is 64 B"));
    assert_non_null(strstr(reco, "drain 2 B/cycle: no swept record FIFO depth keeps collisions under 1 %"));
    free(reco);
}

/* The same seed gives the same results on 1 and 2 workers (all but host time). */
static void test_workers(void **s)
{
    (void)s;
    ex_run_stats st;
    assert_int_equal(run(EXPLORE_TMP "/j2", 2, true, &st), 0);
    table a, b;
    load_csv(EXPLORE_TMP "/j1/results.csv", &a);
    load_csv(EXPLORE_TMP "/j2/results.csv", &b);
    assert_string_equal(a.head[a.ncol - 1], "host_seconds");
    assert_int_equal(a.nrow, b.nrow);
    for (int r = 0; r < a.nrow; r++)
        assert_string_equal(a.text[r], b.text[r]);
    free_csv(&a);
    free_csv(&b);
}

/* An interrupted sweep (7 whole lines and a torn 8th in the state file) resumes: it runs only
 * the 11 missing points and ends with the same table. */
static void test_resume(void **s)
{
    (void)s;
    char *state = slurp(EXPLORE_TMP "/j2/points.jsonl");
    assert_non_null(state);
    char *p = state;
    for (int i = 0; i < 7; i++) {
        p = strchr(p, '\n');
        assert_non_null(p);
        p++;
    }
    FILE *f = fopen(EXPLORE_TMP "/j2/points.jsonl", "w");
    assert_non_null(f);
    fwrite(state, 1, (size_t)(p - state), f);
    fwrite(p, 1, 25, f); /* torn line */
    fclose(f);
    free(state);
    ex_run_stats st;
    assert_int_equal(run(EXPLORE_TMP "/j2", 2, false, &st), 0);
    assert_int_equal(st.resumed, 7);
    assert_int_equal(st.ran, 11);
    table a, b;
    load_csv(EXPLORE_TMP "/j1/results.csv", &a);
    load_csv(EXPLORE_TMP "/j2/results.csv", &b);
    for (int r = 0; r < a.nrow; r++)
        assert_string_equal(a.text[r], b.text[r]);
    free_csv(&a);
    free_csv(&b);
    /* Nothing left to do. */
    assert_int_equal(run(EXPLORE_TMP "/j2", 2, false, &st), 0);
    assert_int_equal(st.resumed, 18);
    assert_int_equal(st.ran, 0);
    /* An edited file reruns only the points it changed (irq_latency 8000 -> 16000). */
    char *text = strdup(sweep_text);
    char *at = strstr(text, "8000]");
    assert_non_null(at);
    memcpy(at, "9999]", 5);
    char err[512];
    assert_int_equal(ex_sweep_load_string("relations.yaml", text, &sw, err, sizeof(err)), 0);
    free(text);
    assert_int_equal(run(EXPLORE_TMP "/j2", 2, false, &st), 0);
    assert_int_equal(st.resumed, 15);
    assert_int_equal(st.ran, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relations),
        cmocka_unit_test(test_workers),
        cmocka_unit_test(test_resume),
    };
    return cmocka_run_group_tests_name("explore_sweep", tests, setup, NULL);
}
