/* SPDX-License-Identifier: Apache-2.0 */
/* slurm.c: armprof-explore --slurm: a sweep as one Slurm job array (sbatch --array), a results file per task, a merge job. */
#define _GNU_SOURCE /* realpath, getline */
#include "explore.h"
#include "explore_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Layout under OUTDIR (a file system every node of the cluster shares):
 *   slurm/tasks-<stamp>.txt        line k: the point indices task k runs (one submission)
 *   slurm/task-<stamp>.sh          the array's batch script: armprof-explore --slurm-task ...
 *   slurm/merge-<stamp>.sh         the merge job's batch script: armprof-explore --slurm-merge ...
 *   slurm/results/<job>_<task>.jsonl  a task's finished points (lines of points.jsonl)
 *   slurm/log/<job>_<task>.log, slurm/log/merge-<job>.log   the jobs' output
 *   slurm/active                   "<array job> <merge job>" of the last submission
 * Every run without --slurm-task first appends slurm/results/ to points.jsonl (and removes those
 * files), so a local run, a merge and a resubmission all resume from the same state. Nothing but
 * sbatch and squeue is used: the cluster's own scheduler does the work.
 */

static const char *self_exe(void)
{
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    return self;
}

/* s in single quotes for sh. */
static void shq(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    if (o + 1 < cap)
        out[o++] = '\'';
    for (; *s && o + 5 < cap; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    if (o + 1 < cap)
        out[o++] = '\'';
    out[o] = '\0';
}

/* Runs a shell command; its stdout (trimmed) in out, its stderr to ours. Returns the exit status
 * (-1: could not run). */
static int run_cmd(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = 0;
    if (out && cap) {
        n = fread(out, 1, cap - 1, p);
        out[n] = '\0';
        while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
            out[--n] = '\0';
    }
    char sink[512];
    while (fread(sink, 1, sizeof(sink), p) > 0)
        ;
    int st = pclose(p);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

size_t ex_slurm_slice(const ex_sweep *sw, size_t npoints)
{
    if (!npoints)
        return 1;
    /* Host seconds of a point, roughly: the C-level model retires ~500 M (skipped) operations a second here;
     * the platform adds a process and an elaboration (~0.1 s) and runs ~3 M operations a second. */
    double cost = 0;
    for (size_t i = 0; i < sw->npoints; i++) {
        ex_point_cfg cfg;
        ex_point_build(sw, i, &cfg);
        double ops = cfg.run.ops ? (double)cfg.run.ops : 1e6;
        cost += sw->model == EX_MODEL_PLATFORM ? 0.1 + ops / 3e6 : 0.002 + ops / 500e6;
    }
    cost /= (double)sw->npoints;
    size_t slice = cost > 0 ? (size_t)(60.0 / cost) : npoints;
    size_t most = (npoints + 31) / 32; /* at least 32 tasks when there are 32 points */
    if (slice > most)
        slice = most;
    if (slice < 1)
        slice = 1;
    if ((npoints + slice - 1) / slice > 1000) /* Slurm's default MaxArraySize is 1001 */
        slice = (npoints + 999) / 1000;
    return slice;
}

static int mkdir1(const char *d, char *err, size_t errlen)
{
    if (mkdir(d, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", d, strerror(errno));
        return -1;
    }
    return 0;
}

/* True when job id still has tasks pending or running (squeue lists it). */
static bool job_active(const char *id)
{
    char cmd[256], out[4096];
    snprintf(cmd, sizeof(cmd), "squeue -h -j %s -o %%i 2>/dev/null", id);
    return run_cmd(cmd, out, sizeof(out)) == 0 && out[0];
}

static bool state_done(const char *s)
{
    static const char *const fin[] = { "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                                       "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", NULL };
    for (int i = 0; fin[i]; i++)
        if (!strncmp(s, fin[i], strlen(fin[i])))
            return true;
    return false;
}

/* Waits until the array has no task pending or running, with its task counts from squeue on a
 * terminal. Returns 0, or -1 when interrupted. */
static int wait_array(const char *job, size_t ntasks, const ex_run_opts *ro, char *err, size_t errlen)
{
    bool tty = ro->progress && isatty(STDERR_FILENO);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "squeue -h -r -t all -j %s -o '%%i %%T' 2>/dev/null", job);
    size_t bufcap = 64 + ntasks * 64;
    char *buf = malloc(bufcap);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fails = 0, last_len = 0;
    for (;;) {
        if (ro->stop && *ro->stop) {
            free(buf);
            if (tty)
                fputc('\n', stderr);
            snprintf(err, errlen, "interrupted: Slurm job %s goes on; run the same command again when it has "
                     "ended to merge (it submits only points still missing), or scancel %s", job, job);
            return -1;
        }
        int rc = run_cmd(cmd, buf, bufcap);
        size_t done = 0, failed = 0, running = 0, pending = 0;
        if (rc == 0) {
            fails = 0;
            for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
                char *st = strchr(l, ' ');
                if (!st)
                    continue;
                st++;
                if (!strncmp(st, "COMPLETED", 9))
                    done++;
                else if (state_done(st))
                    failed++;
                else if (!strncmp(st, "PENDING", 7))
                    pending++;
                else
                    running++;
            }
        } else if (++fails < 5) {
            sleep(1); /* squeue can fail for a moment; after 5 in a row the job is gone */
            continue;
        }
        if (tty) {
            size_t gone = ntasks > done + failed + running + pending ? ntasks - done - failed - running - pending : 0;
            char line[256];
            snprintf(line, sizeof(line), "Slurm job %s: %zu tasks: %zu done, %zu failed, %zu running, %zu pending",
                     job, ntasks, done + gone, failed, running, pending);
            ex_term_line(stderr, line, ex_term_width(STDERR_FILENO), &last_len);
            fflush(stderr);
        }
        if (running + pending == 0)
            break;
        sleep(1);
    }
    if (tty)
        fputc('\n', stderr);
    free(buf);
    return 0;
}

int ex_slurm_submit(const ex_sweep *sw, const ex_run_opts *ro, const ex_slurm_opts *so, ex_run_stats *st,
                    char *err, size_t errlen)
{
    memset(st, 0, sizeof(*st));
    st->points = sw->npoints;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const char *exe = self_exe();
    if (!exe) {
        snprintf(err, errlen, "cannot find armprof-explore's own path (/proc/self/exe)");
        return -1;
    }
    /* Absolute paths: the tasks run elsewhere (in the output folder, on other nodes). */
    char sweep[PATH_MAX], out[PATH_MAX], vp[PATH_MAX] = "";
    if (!realpath(so->sweep_path, sweep)) {
        snprintf(err, errlen, "%s: %s", so->sweep_path, strerror(errno));
        return -1;
    }
    {
        char tmp[PATH_MAX + 16];
        snprintf(tmp, sizeof(tmp), "%s", ro->outdir);
        for (char *p = tmp + 1; *p; p++)
            if (*p == '/') {
                *p = '\0';
                mkdir(tmp, 0777);
                *p = '/';
            }
        if (mkdir1(tmp, err, errlen) || !realpath(tmp, out)) {
            if (!err[0])
                snprintf(err, errlen, "%s: %s", ro->outdir, strerror(errno));
            return -1;
        }
    }
    if (ro->vp_path && !realpath(ro->vp_path, vp)) {
        snprintf(err, errlen, "%s: %s", ro->vp_path, strerror(errno));
        return -1;
    }
    char d[PATH_MAX + 64], active[PATH_MAX + 64];
    snprintf(d, sizeof(d), "%s/slurm", out);
    if (mkdir1(d, err, errlen))
        return -1;
    snprintf(d, sizeof(d), "%s/slurm/results", out);
    if (mkdir1(d, err, errlen))
        return -1;
    snprintf(d, sizeof(d), "%s/slurm/log", out);
    if (mkdir1(d, err, errlen))
        return -1;

    /* A submission still queued or running owns the results folder: refuse a second one. */
    snprintf(active, sizeof(active), "%s/slurm/active", out);
    FILE *af = fopen(active, "r");
    if (af) {
        char a[64] = "", m[64] = "";
        int k = fscanf(af, "%63s %63s", a, m);
        fclose(af);
        if ((k >= 1 && job_active(a)) || (k >= 2 && strcmp(m, "-") && job_active(m))) {
            snprintf(err, errlen, "Slurm job %s%s%s of an earlier submission to %s is still queued or running: "
                     "wait for it (squeue -j %s) or cancel it (scancel %s)", a, k >= 2 && strcmp(m, "-") ? " / " : "",
                     k >= 2 && strcmp(m, "-") ? m : "", out, a, a);
            return -1;
        }
    }

    /* The points still without a result (the state file and earlier tasks' results). */
    size_t *todo = NULL, ntodo = 0;
    ex_run_opts plan = *ro;
    plan.outdir = out;
    plan.plan = &todo;
    plan.nplan = &ntodo;
    if (ex_sweep_run(sw, &plan, st, err, errlen))
        return -1;
    if (ntodo == 0) {
        free(todo);
        if (ro->progress)
            fprintf(stderr, "armprof-explore: every point already has a result in %s: nothing to submit\n", out);
        ex_run_opts m = *ro;
        m.outdir = out;
        m.fresh = false;
        m.merge_only = true;
        return ex_sweep_run(sw, &m, st, err, errlen);
    }
    size_t slice = so->slice ? so->slice : ex_slurm_slice(sw, ntodo);
    size_t ntasks = (ntodo + slice - 1) / slice;

    char stamp[64];
    snprintf(stamp, sizeof(stamp), "%ld-%ld", (long)time(NULL), (long)getpid());
    char tasks[PATH_MAX + 128], script[PATH_MAX + 128], merge[PATH_MAX + 128];
    snprintf(tasks, sizeof(tasks), "%s/slurm/tasks-%s.txt", out, stamp);
    snprintf(script, sizeof(script), "%s/slurm/task-%s.sh", out, stamp);
    snprintf(merge, sizeof(merge), "%s/slurm/merge-%s.sh", out, stamp);
    FILE *f = fopen(tasks, "w");
    if (!f) {
        free(todo);
        snprintf(err, errlen, "cannot write %s: %s", tasks, strerror(errno));
        return -1;
    }
    for (size_t t = 0; t < ntasks; t++) {
        for (size_t k = t * slice; k < ntodo && k < (t + 1) * slice; k++)
            fprintf(f, "%s%zu", k == t * slice ? "" : " ", todo[k]);
        fputc('\n', f);
    }
    free(todo);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tasks, strerror(errno));
        return -1;
    }

    /* The batch scripts: the same program, sweep, model and armprof-vp. */
    char q_exe[PATH_MAX * 2], q_sweep[PATH_MAX * 2], q_out[PATH_MAX * 2], q_vp[PATH_MAX * 2], q_tasks[PATH_MAX * 2];
    shq(q_exe, sizeof(q_exe), exe);
    shq(q_sweep, sizeof(q_sweep), sweep);
    shq(q_out, sizeof(q_out), out);
    shq(q_vp, sizeof(q_vp), vp);
    shq(q_tasks, sizeof(q_tasks), tasks);
    char model[PATH_MAX * 2 + 32] = "";
    if (sw->model == EX_MODEL_PLATFORM)
        snprintf(model, sizeof(model), " --model platform --vp %s", q_vp);
    for (int pass = 0; pass < 2; pass++) {
        const char *path = pass ? merge : script;
        f = fopen(path, "w");
        if (!f) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        fprintf(f, "#!/bin/sh\n# armprof-explore --slurm: %s\n", pass ? "the merge job: gathers the tasks' results, writes the outputs"
                                                                     : "one array task runs one line of the task file");
        if (pass)
            fprintf(f, "exec %s --slurm-merge%s -o %s%s %s\n", q_exe, ro->plots ? "" : " --no-plots", q_out, model,
                    q_sweep);
        else
            fprintf(f, "exec %s --slurm-task %s -q -o %s%s %s\n", q_exe, q_tasks, q_out, model, q_sweep);
        if (fclose(f) != 0 || chmod(path, 0755) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
    }

    char name[128];
    snprintf(name, sizeof(name), "armprof-explore-%s", sw->name);
    char q_name[300];
    shq(q_name, sizeof(q_name), name);
    const char *opt = so->slurm_opt ? so->slurm_opt : "";
    size_t cmdcap = 8 * PATH_MAX + strlen(opt);
    char *cmd = malloc(cmdcap);
    if (!cmd) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char q_script[PATH_MAX * 2], q_log[PATH_MAX * 2], lg[PATH_MAX + 64];
    shq(q_script, sizeof(q_script), script);
    snprintf(lg, sizeof(lg), "%s/slurm/log/%%A_%%a.log", out);
    shq(q_log, sizeof(q_log), lg);
    snprintf(cmd, cmdcap, "sbatch --parsable --array=0-%zu --job-name=%s --output=%s --chdir=%s %s %s", ntasks - 1,
             q_name, q_log, q_out, opt, q_script);
    char job[256] = "", mjob[256] = "-";
    int rc = run_cmd(cmd, job, sizeof(job));
    job[strspn(job, "0123456789")] = '\0';
    if (rc != 0 || !job[0]) {
        free(cmd);
        if (rc == 127)
            snprintf(err, errlen, "sbatch not found: put the cluster's Slurm commands (sbatch, squeue) on the PATH "
                     "(Debian: slurm-client); nothing submitted");
        else
            snprintf(err, errlen, "sbatch failed (exit status %d; Slurm's message is above): nothing submitted", rc);
        return -1;
    }
    if (!so->wait) {
        char q_merge[PATH_MAX * 2];
        shq(q_merge, sizeof(q_merge), merge);
        snprintf(lg, sizeof(lg), "%s/slurm/log/merge-%%j.log", out);
        shq(q_log, sizeof(q_log), lg);
        snprintf(cmd, cmdcap, "sbatch --parsable --dependency=afterany:%s --job-name=%s-merge --output=%s --chdir=%s %s %s",
                 job, q_name, q_log, q_out, opt, q_merge);
        rc = run_cmd(cmd, mjob, sizeof(mjob));
        mjob[strspn(mjob, "0123456789")] = '\0';
        if (rc != 0 || !mjob[0]) {
            free(cmd);
            snprintf(err, errlen, "sbatch of the merge job failed (exit status %d; Slurm's message is above); the "
                     "array is job %s: when it has ended, run the same command again to merge", rc, job);
            return -1;
        }
    }
    free(cmd);
    af = fopen(active, "w");
    if (af) {
        fprintf(af, "%s %s\n", job, mjob);
        fclose(af);
    }
    if (ro->progress)
        fprintf(stderr, "armprof-explore: Slurm job array %s: %zu points to run (%zu already done) in %zu tasks of %zu\n",
                job, ntasks ? ntodo : 0, st->resumed, ntasks, slice);
    if (!so->wait) {
        if (ro->summary)
            fprintf(ro->summary, "submitted: job array %s (%zu tasks), merge job %s writes %s/results.csv when it "
                    "ends (log: %s/slurm/log/merge-%s.log)\n", job, ntasks, mjob, out, out, mjob);
        return 0;
    }
    if (wait_array(job, ntasks, ro, err, errlen)) {
        st->interrupted = true;
        return -1;
    }
    ex_run_opts m = *ro;
    m.outdir = out;
    m.fresh = false;
    m.merge_only = true;
    size_t resumed0 = st->resumed;
    rc = ex_sweep_run(sw, &m, st, err, errlen);
    st->ran = st->resumed >= resumed0 ? st->resumed - resumed0 : 0; /* the points the tasks ran */
    st->resumed = resumed0;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc;
}

int ex_slurm_task(const ex_sweep *sw, const ex_run_opts *ro, const char *task_file, ex_run_stats *st, char *err,
                  size_t errlen)
{
    memset(st, 0, sizeof(*st));
    const char *tid = getenv("SLURM_ARRAY_TASK_ID"), *jid = getenv("SLURM_ARRAY_JOB_ID");
    if (!tid || !jid) {
        snprintf(err, errlen, "--slurm-task runs inside a Slurm array task (SLURM_ARRAY_TASK_ID is not set)");
        return -1;
    }
    long want = strtol(tid, NULL, 10);
    FILE *f = fopen(task_file, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", task_file, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = -1;
    for (long k = 0; k <= want; k++)
        if ((n = getline(&line, &cap, f)) <= 0)
            break;
    fclose(f);
    if (n <= 0) {
        free(line);
        snprintf(err, errlen, "%s has no line for task %ld", task_file, want);
        return -1;
    }
    size_t *only = calloc((size_t)n, sizeof(*only)), nonly = 0;
    if (!only) {
        free(line);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (char *p = line, *end; *p; p = end) {
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p)
            break;
        if (v >= sw->npoints) {
            free(line);
            free(only);
            snprintf(err, errlen, "%s: task %ld names point %llu; the sweep has %zu (was the sweep file edited?)",
                     task_file, want, v, sw->npoints);
            return -1;
        }
        only[nonly++] = (size_t)v;
    }
    free(line);
    char results[PATH_MAX + 128];
    snprintf(results, sizeof(results), "%s/slurm/results/%s_%s.jsonl", ro->outdir, jid, tid);
    ex_run_opts t = *ro;
    t.only = only;
    t.nonly = nonly;
    t.state_path = results;
    t.fresh = false;
    const char *cpus = getenv("SLURM_CPUS_PER_TASK");
    t.jobs = cpus && atoi(cpus) > 0 ? (unsigned)atoi(cpus) : 1;
    int rc = ex_sweep_run(sw, &t, st, err, errlen);
    free(only);
    return rc;
}
