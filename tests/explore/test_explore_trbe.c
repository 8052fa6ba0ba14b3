/* SPDX-License-Identifier: Apache-2.0 */
/* test_explore_trbe.c: TRBE sweep parameters (buffer size, mode, interrupt latency): the relations of Fill / Wrap / Circular Buffer mode in the CSV; bad values rejected with their line. */
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

/* 1 MiB of trace at 4 B/cycle, the TRBE only. Group 1: Fill mode (Linux's coresight-trbe) over
 * buffer size x interrupt latency; group 2: Wrap and Circular Buffer mode. */
static const char *sweep_text =
    "name: trbe-relations\n"
    "spe_enabled: false\n"
    "trbe:\n"
    "  bytes: 1M\n"
    "  bytes_per_cycle: 4\n"
    "  mean_burst: 256\n"
    "  irq_latency: 4000\n"
    "sweep:\n"
    "  - trbe_mode: [fill]\n"
    "    trbe_buffer_bytes: [8K, 16K, 32K, 64K, 256K]\n"
    "    trbe_irq_latency: [500, 4000]\n"
    "  - trbe_mode: [wrap, circular]\n"
    "    trbe_buffer_bytes: [8K, 64K, 256K]\n";

static csv t;
static int c_mode, c_buf, c_lat, c_in, c_written, c_copied, c_disc, c_over, c_lost, c_wraps, c_mgmt, c_irqs, c_full;

static int setup(void **s)
{
    (void)s;
    mkdir(EXPLORE_TMP, 0777);
    static ex_sweep sw;
    char err[1024] = "";
    if (ex_sweep_load_string("trbe.yaml", sweep_text, &sw, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    ex_run_opts ro = { .outdir = EXPLORE_TMP "/trbe", .jobs = 2, .fresh = true };
    ex_run_stats st;
    if (ex_sweep_run(&sw, &ro, &st, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (csv_load(EXPLORE_TMP "/trbe/results.csv", &t) || t.nrow != 16)
        return -1;
    c_mode = csv_col(&t, "trbe_mode");
    c_buf = csv_col(&t, "trbe_buffer_bytes");
    c_lat = csv_col(&t, "trbe_irq_latency");
    c_in = csv_col(&t, "trbe_bytes_in");
    c_written = csv_col(&t, "trbe_bytes_written");
    c_copied = csv_col(&t, "trbe_bytes_copied");
    c_disc = csv_col(&t, "trbe_bytes_discarded");
    c_over = csv_col(&t, "trbe_bytes_overwritten");
    c_lost = csv_col(&t, "trbe_bytes_lost");
    c_wraps = csv_col(&t, "trbe_wraps");
    c_mgmt = csv_col(&t, "trbe_management_events");
    c_irqs = csv_col(&t, "trbe_interrupts");
    c_full = csv_col(&t, "trbe_buffer_full_pct");
    return 0;
}

/* The row with this mode (column 1 text), buffer size and (when >= 0) latency. */
static int row(const char *mode, double buf, double lat)
{
    for (int r = 0; r < t.nrow; r++)
        if (!strcmp(t.key[r], mode) && t.v[r][c_buf] == buf && (lat < 0 || t.v[r][c_lat] == lat))
            return r;
    fail_msg("no row %s %g %g", mode, buf, lat);
    return -1;
}

static void columns(void **s)
{
    (void)s;
    assert_int_equal(c_mode, 1);
    int cols[] = { c_buf, c_lat, c_in, c_written, c_copied, c_disc, c_over, c_lost, c_wraps, c_mgmt, c_irqs, c_full };
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
        assert_true(cols[i] > 0);
    /* the SPU did not run (spe_enabled: false): no SPE column */
    assert_int_equal(csv_col(&t, "collisions"), -1);
    assert_int_equal(csv_col(&t, "records_written"), -1);
}

/* Fill mode (D6.5, buffer full event): collection stops at every wrap until the driver restarts
 * it, so for a fixed trace stream the bytes lost never increase with the buffer size, and never
 * decrease with the interrupt latency. Nothing is ever overwritten. */
static void fill_lost_monotonic(void **s)
{
    (void)s;
    static const double bufs[] = { 8192, 16384, 32768, 65536, 262144 }, lats[] = { 500, 4000 };
    for (int l = 0; l < 2; l++) {
        double prev = INFINITY;
        for (int b = 0; b < 5; b++) {
            int r = row("fill", bufs[b], lats[l]);
            assert_true(t.v[r][c_in] == 1048576);
            assert_true(t.v[r][c_over] == 0);
            assert_true(t.v[r][c_lost] == t.v[r][c_disc]);
            /* every byte is written or discarded (no padding in this configuration) */
            assert_true(t.v[r][c_written] + t.v[r][c_disc] == t.v[r][c_in]);
            assert_true(t.v[r][c_copied] == t.v[r][c_written]);
            /* each buffer full event is one management event, one TRBIRQ, one wrap (TM ignore) */
            assert_true(t.v[r][c_mgmt] == t.v[r][c_wraps]);
            assert_true(t.v[r][c_irqs] == t.v[r][c_wraps]);
            assert_true(t.v[r][c_lost] <= prev);
            assert_true((t.v[r][c_lost] > 0) == (t.v[r][c_full] > 0));
            prev = t.v[r][c_lost];
        }
        assert_true(t.v[row("fill", 8192, lats[l])][c_lost] > t.v[row("fill", 262144, lats[l])][c_lost]);
    }
    for (int b = 0; b < 5; b++)
        assert_true(t.v[row("fill", bufs[b], 500)][c_lost] <= t.v[row("fill", bufs[b], 4000)][c_lost]);
}

/* Wrap mode (buffer wrap event): TRBSR_EL1.S unchanged, collection never stops, nothing is
 * discarded; what the driver misses is overwritten. Circular Buffer mode: no management event,
 * no interrupt; only the last buffer-full of trace survives (copied at the end). */
static void wrap_and_circular(void **s)
{
    (void)s;
    static const double bufs[] = { 8192, 65536, 262144 };
    for (int b = 0; b < 3; b++) {
        int w = row("wrap", bufs[b], -1), c = row("circular", bufs[b], -1);
        assert_true(t.v[w][c_disc] == 0);
        assert_true(t.v[w][c_written] == t.v[w][c_in]);
        assert_true(t.v[w][c_mgmt] == t.v[w][c_wraps]);
        /* every byte written is copied out or overwritten; the driver's ETE Ignore padding at a
         * restart (at most 64 bytes per interrupt) is copied too */
        double ring = t.v[w][c_copied] + t.v[w][c_over];
        assert_true(ring >= t.v[w][c_written] && ring <= t.v[w][c_written] + 64 * (t.v[w][c_irqs] + 1));
        assert_true(t.v[w][c_wraps] >= 1 && t.v[w][c_wraps] * bufs[b] <= ring);
        assert_true(t.v[w][c_full] == 0);

        assert_true(t.v[c][c_mgmt] == 0);
        assert_true(t.v[c][c_irqs] == 0);
        assert_true(t.v[c][c_disc] == 0);
        assert_true(t.v[c][c_wraps] == 1048576 / bufs[b]);
        assert_true(t.v[c][c_copied] == bufs[b]);
        assert_true(t.v[c][c_over] == 1048576 - bufs[b]);
        assert_true(t.v[c][c_lost] == t.v[c][c_over]);
        /* the driver copies out at every wrap: never less than a snapshot at the end */
        assert_true(t.v[w][c_lost] <= t.v[c][c_lost]);
    }
    /* Wrap mode loses bytes only while the handler is late: a buffer larger than the bytes
     * written in one interrupt latency (4000 cycles x 4 B) loses about one latency's worth. */
    assert_true(t.v[row("wrap", 262144, -1)][c_lost] <= 4000 * 4 + 4096);
    assert_true(t.v[row("wrap", 8192, -1)][c_lost] > t.v[row("wrap", 262144, -1)][c_lost]);
}

static void expect_error(const char *text, const char *msg, ex_model model)
{
    static ex_sweep sw;
    char err[1024] = "";
    int rc = ex_sweep_load_string("bad.yaml", text, &sw, err, sizeof(err));
    if (rc == 0 && model != EX_MODEL_C)
        rc = ex_sweep_set_model(&sw, model, err, sizeof(err));
    assert_int_equal(rc, -1);
    if (!strstr(err, msg))
        fail_msg("expected \"%s\" in \"%s\"", msg, err);
}

static void bad_values(void **s)
{
    (void)s;
    expect_error("ops: 1000\ntrbe:\n  buffer_bytes: 12000\nsweep:\n  trbe_mode: [fill]\n",
                 "bad.yaml:3:17: trbe_buffer_bytes = 12000 is not a multiple of 4096", EX_MODEL_C);
    expect_error("ops: 1000\nsweep:\n  trbe_buffer_bytes: [8K, 4K]\n",
                 "bad.yaml:3:27: trbe_buffer_bytes = 4K is out of range [8192, ", EX_MODEL_C);
    expect_error("ops: 1000\nsweep:\n  trbe_mode: [fill, ring]\n",
                 "bad.yaml:3:21: trbe_mode expects one of fill, wrap, circular; got 'ring'", EX_MODEL_C);
    expect_error("ops: 1000\nsweep:\n  trbe_tm: [stop, never]\n",
                 "bad.yaml:3:19: trbe_tm expects one of stop, irq, ignore; got 'never'", EX_MODEL_C);
    expect_error("ops: 1000\nsweep:\n  trbe_bytes_per_cycle: [0]\n",
                 "bad.yaml:3:26: trbe_bytes_per_cycle = 0 is out of range", EX_MODEL_C);
    expect_error("ops: 1000\ntrbe:\n  mean_burst: 40000\nsweep:\n  trbe_mode: [fill]\n",
                 "bad.yaml:3:15: trbe_mean_burst = 40000 is out of range [1, 32768]", EX_MODEL_C);
    expect_error("ops: 1000\ntrbe:\n  bufer_bytes: 8K\nsweep:\n  trbe_mode: [fill]\n",
                 "bad.yaml:3:3: unknown parameter 'trbe.bufer_bytes'", EX_MODEL_C);
    expect_error("ops: 1000\nspe_enabled: false\ntrbe_enabled: false\nsweep:\n  interval: [256]\n",
                 "nothing to run", EX_MODEL_C);
    /* The platform's TRBE driver programs Fill mode only */
    expect_error("ops: 1000\nsweep:\n  trbe_mode: [fill, wrap]\n",
                 "bad.yaml:3: trbe_mode: the platform model (--model platform) cannot sweep it", EX_MODEL_PLATFORM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(columns),
        cmocka_unit_test(fill_lost_monotonic),
        cmocka_unit_test(wrap_and_circular),
        cmocka_unit_test(bad_values),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
