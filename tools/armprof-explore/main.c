/* SPDX-License-Identifier: Apache-2.0 */
/* main.c: armprof-explore, one command that sweeps a design space and answers with tables, plots and a recommendation. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore.h"
#include "tool_io.h"

static volatile int stop_flag;

static void on_signal(int sig)
{
    stop_flag = sig;
}

static int close_stdout(void)
{
    return tool_close_stdout("armprof-explore");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: armprof-explore [options] SWEEP.yaml\n"
            "Runs every point of a design-space sweep through the C-level SPE and TRBE models\n"
            "(armprof-run's scenarios) or the SystemC platform (armprof-vp), in parallel, and\n"
            "writes OUT/results.csv, OUT/results.json, plots (PNG and\n"
            "SVG, through gnuplot) and OUT/recommendation.txt. Finished points are kept in\n"
            "OUT/points.jsonl: an interrupted sweep resumes where it stopped.\n\n"
            "  -j, --jobs N       worker threads (default: the machine's cores)\n"
            "  -o, --out DIR      output folder (default out/<sweep name>)\n"
            "      --fresh        forget finished points and run them all again\n"
            "      --no-plots     tables and recommendation only\n"
            "  -q, --quiet        no progress bar or summary\n"
            "      --model M      c (default): the fast C-level model; platform: armprof-vp, one\n"
            "                     process per point (only the parameters armprof-vp has)\n"
            "      --vp PATH      the armprof-vp to run (default: $ARMPROF_VP, else the one next\n"
            "                     to armprof-explore)\n"
            "      --slurm        run the points as one Slurm job array (sbatch --array) and merge\n"
            "                     them in a dependent job: OUT must be on a file system the nodes\n"
            "                     share; running the command again submits only missing points\n"
            "      --slurm-opt S  extra sbatch options for every job, e.g. \"-p long --cpus-per-task=4\"\n"
            "      --slurm-slice N  points per array task (default: about a minute of work each)\n"
            "      --wait         with --slurm: wait for the array here (task counts from squeue on\n"
            "                     a terminal) and write the outputs instead of a merge job\n"
            "      --list-params  the parameters a sweep file can set or sweep, and the metrics\n"
            "  -h, --help         this text\n"
            "exit status: 0 done, 1 a point or an output failed (the file and the reason are said),\n"
            "2 a bad option or sweep file, 130 / 143 interrupted by SIGINT / SIGTERM (run the same\n"
            "command again to resume; docs/exit-status.md).\n");
}

static void list_params(void)
{
    printf("parameters (scenario keys and sweep: keys; '-' and '_' are the same):\n");
    for (size_t p = 0; p < ex_param_count(); p++) {
        const ex_param_def *d = ex_param(p);
        char alias[48] = "";
        if (d->alias)
            snprintf(alias, sizeof(alias), " (or %s)", d->alias);
        char pk[64] = " [not in --model platform]";
        if (d->platform)
            snprintf(pk, sizeof(pk), " [platform: %s]", d->platform);
        printf("  %-24s %s%s%s%s\n", d->name, d->help, alias, d->seeds ? " [seeds the workload]" : "", pk);
    }
    printf("\nmetrics (CSV columns after the swept parameters):\n");
    for (int m = 0; m < EXM__COUNT; m++)
        printf("  %-24s %s\n", ex_metric_name(m), ex_metric_help(m));
}

int main(int argc, char **argv)
{
    ex_run_opts ro = { .jobs = 0, .progress = true, .plots = true, .summary = stdout, .stop = &stop_flag };
    const char *out = NULL;
    enum { O_FRESH = 256, O_NOPLOTS, O_MODEL, O_LIST, O_VP, O_SLURM, O_SLURM_OPT, O_SLURM_SLICE, O_WAIT,
           O_SLURM_TASK, O_SLURM_MERGE };
    bool slurm = false, slurm_merge = false;
    const char *slurm_task = NULL;
    ex_slurm_opts so = { 0 };
    ex_model model = EX_MODEL_C;
    const char *vp = NULL;
    static const struct option lo[] = {
        { "jobs", required_argument, 0, 'j' }, { "out", required_argument, 0, 'o' },
        { "fresh", no_argument, 0, O_FRESH }, { "no-plots", no_argument, 0, O_NOPLOTS },
        { "quiet", no_argument, 0, 'q' }, { "model", required_argument, 0, O_MODEL },
        { "list-params", no_argument, 0, O_LIST }, { "help", no_argument, 0, 'h' },
        { "vp", required_argument, 0, O_VP }, { "slurm", no_argument, 0, O_SLURM },
        { "slurm-opt", required_argument, 0, O_SLURM_OPT }, { "slurm-slice", required_argument, 0, O_SLURM_SLICE },
        { "wait", no_argument, 0, O_WAIT }, { "slurm-task", required_argument, 0, O_SLURM_TASK },
        { "slurm-merge", no_argument, 0, O_SLURM_MERGE }, { 0, 0, 0, 0 } };
    int ch;
    while ((ch = getopt_long(argc, argv, "j:o:qh", lo, NULL)) != -1) {
        switch (ch) {
        case 'j': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || v < 1 || v > 1024) {
                fprintf(stderr, "armprof-explore: --jobs expects 1 .. 1024, got '%s'\n", optarg);
                return 2;
            }
            ro.jobs = (unsigned)v;
            break;
        }
        case 'o': out = optarg; break;
        case O_FRESH: ro.fresh = true; break;
        case O_NOPLOTS: ro.plots = false; break;
        case 'q': ro.progress = false; ro.summary = NULL; break;
        case O_MODEL:
            if (!strcmp(optarg, "c"))
                break;
            if (!strcmp(optarg, "platform")) {
                model = EX_MODEL_PLATFORM;
                break;
            }
            fprintf(stderr, "armprof-explore: --model expects c or platform, got '%s'\n", optarg);
            return 2;
        case O_VP: vp = optarg; break;
        case O_SLURM: slurm = true; break;
        case O_SLURM_OPT: so.slurm_opt = optarg; break;
        case O_SLURM_SLICE: {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || v < 1) {
                fprintf(stderr, "armprof-explore: --slurm-slice expects a positive number of points, got '%s'\n", optarg);
                return 2;
            }
            so.slice = (size_t)v;
            break;
        }
        case O_WAIT: so.wait = true; break;
        case O_SLURM_TASK: slurm_task = optarg; break;
        case O_SLURM_MERGE: slurm_merge = true; break;
        case O_LIST: list_params(); return close_stdout() ? 1 : 0;
        case 'h': usage(stdout); return close_stdout() ? 1 : 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "armprof-explore: expected one sweep file\n");
        usage(stderr);
        return 2;
    }
    if (!slurm && (so.slurm_opt || so.slice || so.wait)) {
        fprintf(stderr, "armprof-explore: --slurm-opt, --slurm-slice and --wait go with --slurm\n");
        return 2;
    }
    static ex_sweep sw;
    char err[1024];
    if (ex_sweep_load(argv[optind], &sw, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (ex_sweep_set_model(&sw, model, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (model == EX_MODEL_PLATFORM) {
        if (!vp)
            vp = getenv("ARMPROF_VP");
        if (!vp || !*vp)
            vp = ex_default_vp_path();
        if (!vp || access(vp, X_OK) != 0) {
            fprintf(stderr, "armprof-explore: --model platform needs armprof-vp: %s%s\n",
                    vp ? vp : "none next to armprof-explore", vp ? " is not an executable" : "; name it with --vp");
            return 2;
        }
        ro.vp_path = vp;
        if (ro.progress && !slurm_task)
            fprintf(stderr, "armprof-explore: platform model: %s, a child forked per point\n", vp);
    } else if (ro.progress && sw.ignored[0]) {
        fprintf(stderr, "armprof-explore: the C-level model ignores the platform's %s\n", sw.ignored);
    }
    char outdir[4096];
    if (out)
        snprintf(outdir, sizeof(outdir), "%s", out);
    else
        snprintf(outdir, sizeof(outdir), "out/%s", sw.name);
    ro.outdir = outdir;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* Past a file-size limit a write fails with EFBIG (said, with the file) instead of SIGXFSZ
     * ending the process. */
    signal(SIGXFSZ, SIG_IGN);
    ex_run_stats st;
    ro.merge_only = slurm_merge;
    so.sweep_path = argv[optind];
    int rc = slurm_task ? ex_slurm_task(&sw, &ro, slurm_task, &st, err, sizeof(err))
             : slurm    ? ex_slurm_submit(&sw, &ro, &so, &st, err, sizeof(err))
                        : ex_sweep_run(&sw, &ro, &st, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "armprof-explore: %s\n", err);
        close_stdout();
        return st.interrupted && stop_flag > 0 ? 128 + stop_flag : 1;
    }
    if (slurm && !so.wait)
        return close_stdout() ? 1 : 0;
    if (ro.progress) {
        /* After the recommendation and the files (stdout, block-buffered in a log): the last line. */
        fflush(stdout);
        fprintf(stderr, "armprof-explore: %zu points (%zu run, %zu resumed) in %.2f s\n", st.points, st.ran,
                st.resumed, st.wall_seconds);
    }
    return close_stdout() ? 1 : 0;
}
