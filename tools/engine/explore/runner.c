/* SPDX-License-Identifier: Apache-2.0 */
/* runner.c: runs a sweep's points on worker threads, one JSON line per finished point, resuming finished ones. */
#define _POSIX_C_SOURCE 200809L
#include "explore.h"
#include "explore_int.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct pool {
    const ex_sweep *sw;
    const ex_run_opts *ro;
    ex_result *res;
    bool *have;
    size_t *todo;           /* indices of the points still to run */
    size_t ntodo, next, finished, failed;
    FILE *state;
    pthread_mutex_t mu;
    double t0, last_draw;
    bool tty;
    int last_decile;
    int last_len;           /* columns of the progress line on the terminal now */
    int state_errno;        /* the first write error of the state file (0: none) */
    char first_err[512];
} pool;

/* One line of the state file: the point's key, index, parameters and metrics. */
static char *point_line(const ex_sweep *sw, size_t i, const char *key, const ex_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "key", key);
    cJSON_AddNumberToObject(j, "index", (double)i);
    cJSON *p = cJSON_AddObjectToObject(j, "params");
    ex_point_cfg cfg;
    ex_point_build(sw, i, &cfg);
    for (int a = 0; a < sw->naxes; a++)
        cJSON_AddStringToObject(p, ex_param(sw->axes[a].param)->name,
                                ex_param_get((size_t)sw->axes[a].param, &cfg).text);
    cJSON *m = cJSON_AddObjectToObject(j, "metrics");
    for (int k = 0; k < EXM__COUNT; k++) {
        if (isnan(r->m[k]))
            cJSON_AddNullToObject(m, ex_metric_name(k)); /* not measured */
        else
            cJSON_AddNumberToObject(m, ex_metric_name(k), r->m[k]);
    }
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

static void fmt_time(char *b, size_t n, double s)
{
    if (s < 0 || s > 1e7)
        snprintf(b, n, "--:--");
    else if (s >= 3600)
        snprintf(b, n, "%d:%02d:%02d", (int)(s / 3600), (int)(s / 60) % 60, (int)s % 60);
    else
        snprintf(b, n, "%02d:%02d", (int)(s / 60), (int)s % 60);
}

int ex_term_width(int fd)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    char *end;
    long n = c ? strtol(c, &end, 10) : 0;
    if (c && end != c && !*end && n > 0 && n < 10000)
        return (int)n;
    return 80;
}

void ex_term_line(FILE *f, const char *text, int width, int *last_len)
{
    /* At most width - 1 columns: a line that fills the last column wraps on many terminals, and
     * the next \r then redraws only its second part. */
    int room = width > 1 ? width - 1 : 1;
    int n = (int)strlen(text);
    if (n > room)
        n = room;
    int pad = last_len && *last_len > n ? *last_len - n : 0;
    fprintf(f, "\r%.*s%*s", n, text, pad, "");
    if (pad)
        fprintf(f, "\r%.*s", n, text);
    if (last_len)
        *last_len = n;
}

/* The progress text for a terminal `width` columns wide: the bar, the points done, the share, the
 * rate, the time elapsed and the ETA; to fit in width - 1 columns the bar narrows (down to 10),
 * then the time elapsed goes, then the rate, then the bar. */
static void progress_text(char *out, size_t len, int width, size_t done, size_t total, double frac, double rate,
                          const char *elap, const char *eta)
{
    char core[64], e[32], r[32], el[32];
    snprintf(core, sizeof(core), "%zu/%zu points %5.1f%%", done, total, 100 * frac);
    snprintf(e, sizeof(e), "  ETA %s", eta);
    snprintf(r, sizeof(r), "  %.1f points/s", rate);
    snprintf(el, sizeof(el), "  elapsed %s", elap);
    int room = width > 1 ? width - 1 : 1;
    /* the fields each try keeps: ETA, rate, elapsed; the bar takes what is left */
    static const bool with[][3] = { { 1, 1, 1 }, { 1, 1, 0 }, { 1, 0, 0 }, { 0, 0, 0 } };
    for (size_t t = 0; t < sizeof(with) / sizeof(with[0]); t++) {
        int rest = (int)strlen(core) + (with[t][0] ? (int)strlen(e) : 0) + (with[t][1] ? (int)strlen(r) : 0) +
                   (with[t][2] ? (int)strlen(el) : 0);
        int barw = room - rest - 3; /* "[" bar "] " */
        if (barw > 30)
            barw = 30;
        if (barw < 10 && t + 1 < sizeof(with) / sizeof(with[0]))
            continue;
        if (barw < 10) { /* no bar: the counts and what else fits */
            snprintf(out, len, "%s%s", core, (int)(strlen(core) + strlen(e)) <= room ? e : "");
            return;
        }
        char bar[31];
        int fill = (int)(frac * barw);
        for (int i = 0; i < barw; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[barw] = '\0';
        snprintf(out, len, "[%s] %s%s%s%s", bar, core, with[t][1] ? r : "", with[t][2] ? el : "", with[t][0] ? e : "");
        return;
    }
}

/* Progress bar and ETA on stderr: redrawn in place on a terminal, fitted to its width (again at
 * every redraw, so a resized terminal is followed); one whole line per 10 % otherwise (a log).
 * Called with the mutex held. */
static void draw(pool *pl, bool final)
{
    if (!pl->ro->progress)
        return;
    double t = now_s(), el = t - pl->t0;
    if (!final && pl->tty && t - pl->last_draw < 0.1)
        return;
    size_t done = pl->finished, total = pl->ntodo;
    double frac = total ? (double)done / (double)total : 1.0;
    int decile = (int)(frac * 10);
    if (!pl->tty && decile == pl->last_decile)
        return;
    pl->last_draw = t;
    pl->last_decile = decile;
    double rate = el > 0 ? (double)done / el : 0;
    char eta[16], elap[16];
    fmt_time(eta, sizeof(eta), rate > 0 ? (double)(total - done) / rate : -1);
    fmt_time(elap, sizeof(elap), el);
    char line[256];
    if (pl->tty) {
        int w = ex_term_width(STDERR_FILENO);
        progress_text(line, sizeof(line), w, done, total, frac, rate, elap, final ? "00:00" : eta);
        ex_term_line(stderr, line, w, &pl->last_len);
        if (final)
            fputc('\n', stderr);
    } else {
        progress_text(line, sizeof(line), 1000, done, total, frac, rate, elap, final ? "00:00" : eta);
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}

static void *worker(void *arg)
{
    pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        bool stop = pl->ro->stop && *pl->ro->stop;
        if (stop || pl->next == pl->ntodo) {
            pthread_mutex_unlock(&pl->mu);
            return NULL;
        }
        size_t i = pl->todo[pl->next++];
        pthread_mutex_unlock(&pl->mu);

        ex_point_cfg cfg;
        ex_point_build(pl->sw, i, &cfg);
        char key[17], err[256];
        ex_point_key(&cfg, key);
        ex_result r;
        const char *workdir = pl->ro->workdir ? pl->ro->workdir : pl->ro->outdir;
        int rc = cfg.model == EX_MODEL_PLATFORM
                     ? ex_point_run_platform(pl->sw, &cfg, pl->ro->vp_path, workdir, &r, err, sizeof(err))
                     : ex_point_run(&cfg, &r, err, sizeof(err));
        char *line = rc == 0 && pl->state ? point_line(pl->sw, i, key, &r) : NULL;

        pthread_mutex_lock(&pl->mu);
        if (rc == 0) {
            pl->res[i] = r;
            pl->have[i] = true;
            /* One whole line per point, flushed at once: an interrupted sweep loses at most the
             * points still running. */
            if (line && pl->state &&
                (fputs(line, pl->state) < 0 || fputc('\n', pl->state) == EOF || fflush(pl->state) != 0) &&
                !pl->state_errno)
                pl->state_errno = errno ? errno : EIO;
        } else if (pl->ro->stop && *pl->ro->stop) {
            /* interrupted (a child process gets the signal too): not finished, not failed */
            pthread_mutex_unlock(&pl->mu);
            continue;
        } else {
            pl->failed++;
            if (!pl->first_err[0])
                snprintf(pl->first_err, sizeof(pl->first_err), "point %zu: %s", i, err);
        }
        pl->finished++;
        if (pl->ro->done)
            __atomic_store_n(pl->ro->done, pl->finished, __ATOMIC_RELAXED);
        draw(pl, false);
        pthread_mutex_unlock(&pl->mu);
        cJSON_free(line);
    }
}

/* A point's key and index, sorted by key for load_state's look-up. */
typedef struct keyed {
    char key[17];
    size_t i;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Reads the state file: the result of a line goes to every point with its key (a key hashes
 * every parameter's value and the model, so a point's result is found whatever its index: after
 * an edit that renumbers the points, such as a value added to an axis or `seeds:`, only the new
 * points run); rewrites the file without a torn last line so new lines append cleanly. */
static int load_state(const ex_sweep *sw, const char *path, char (*keys)[17], ex_result *res, bool *have,
                      size_t *resumed, char *err, size_t errlen)
{
    *resumed = 0;
    keyed *order = malloc((sw->npoints ? sw->npoints : 1) * sizeof(*order));
    if (!order) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < sw->npoints; i++) {
        memcpy(order[i].key, keys[i], sizeof(order[i].key));
        order[i].i = i;
    }
    qsort(order, sw->npoints, sizeof(*order), by_key);
    FILE *f = fopen(path, "r");
    if (!f) {
        free(order);
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno)), -1);
    }
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *o = fopen(tmp, "w");
    if (!o) {
        fclose(f);
        free(order);
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] != '\n')
            break; /* torn last line of an interrupted run */
        cJSON *j = cJSON_Parse(line);
        cJSON *k = j ? cJSON_GetObjectItemCaseSensitive(j, "key") : NULL;
        cJSON *ix = j ? cJSON_GetObjectItemCaseSensitive(j, "index") : NULL;
        cJSON *m = j ? cJSON_GetObjectItemCaseSensitive(j, "metrics") : NULL;
        bool ok = cJSON_IsString(k) && cJSON_IsNumber(ix) && cJSON_IsObject(m);
        if (ok) {
            fputs(line, o);
            /* the first point with this key in `order` */
            size_t lo = 0, hi = sw->npoints;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(order[mid].key, k->valuestring) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < sw->npoints && !strcmp(order[lo].key, k->valuestring)) {
                ex_result r;
                bool all = true;
                for (int q = 0; q < EXM__COUNT && all; q++) {
                    cJSON *v = cJSON_GetObjectItemCaseSensitive(m, ex_metric_name(q));
                    if (!v && q == EXM_RECORD_BYTES_PER_CYCLE) { /* derived: computed below */
                        r.m[q] = NAN;
                        continue;
                    }
                    all = cJSON_IsNumber(v) || cJSON_IsNull(v);
                    if (all)
                        r.m[q] = cJSON_IsNull(v) ? NAN : v->valuedouble;
                }
                if (all) {
                    if (isnan(r.m[EXM_RECORD_BYTES_PER_CYCLE]))
                        ex_result_derive(&r);
                    for (size_t q = lo; q < sw->npoints && !strcmp(order[q].key, k->valuestring); q++)
                        if (!have[order[q].i]) {
                            res[order[q].i] = r;
                            have[order[q].i] = true;
                            (*resumed)++;
                        }
                }
            }
        }
        cJSON_Delete(j);
    }
    free(line);
    free(order);
    fclose(f);
    if (fclose(o) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rewrite %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int mkdirs(const char *dir, char *err, size_t errlen)
{
    char b[4096];
    snprintf(b, sizeof(b), "%s", dir);
    for (char *p = b + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(b, 0777) != 0 && errno != EEXIST)
                break;
            *p = '/';
        }
    if (mkdir(b, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Appends the whole lines of every .jsonl file in OUTDIR/slurm/results (the Slurm tasks' results) to the
 * state file and removes those files: their points then resume like any finished point. */
static int absorb_task_results(const char *outdir, const char *state_path, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/slurm/results", outdir);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    FILE *o = fopen(state_path, "a");
    if (!o) {
        closedir(d);
        snprintf(err, errlen, "cannot write %s: %s", state_path, strerror(errno));
        return -1;
    }
    char **done = NULL;
    size_t ndone = 0;
    struct dirent *e;
    int rc = 0;
    char *line = NULL;
    size_t cap = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".jsonl"))
            continue;
        char path[4500];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        ssize_t n;
        while ((n = getline(&line, &cap, f)) > 0)
            if (line[n - 1] == '\n') /* a torn last line (a killed task) is left out */
                fputs(line, o);
        fclose(f);
        char **nd = realloc(done, (ndone + 1) * sizeof(*nd));
        if (nd)
            done = nd;
        char *dup = nd ? strdup(path) : NULL;
        if (!dup) {
            rc = -1;
            snprintf(err, errlen, "out of memory");
            break;
        }
        done[ndone++] = dup;
    }
    closedir(d);
    free(line);
    if (fflush(o) != 0 || fsync(fileno(o)) != 0) {
        if (!rc)
            snprintf(err, errlen, "cannot write %s: %s", state_path, strerror(errno));
        rc = -1;
    }
    fclose(o);
    for (size_t i = 0; i < ndone; i++) {
        if (rc == 0)
            remove(done[i]); /* now in the state file */
        free(done[i]);
    }
    free(done);
    return rc;
}

int ex_sweep_run(const ex_sweep *sw, const ex_run_opts *ro, ex_run_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof(*st));
    st->points = sw->npoints;
    double t0 = now_s();
    if (ro->outdir && mkdirs(ro->outdir, err, errlen))
        return -1;
    char path[4096] = ""; /* the state file (none in memory) */
    if (ro->outdir && ro->state_path)
        snprintf(path, sizeof(path), "%s", ro->state_path);
    else if (ro->outdir)
        snprintf(path, sizeof(path), "%s/points.jsonl", ro->outdir);

    size_t n = sw->npoints;
    ex_result *res = calloc(n, sizeof(*res));
    bool *have = calloc(n, sizeof(*have));
    char (*keys)[17] = calloc(n, sizeof(*keys));
    size_t *todo = calloc(n, sizeof(*todo));
    int rc = -1;
    FILE *state = NULL;
    if (!res || !have || !keys || !todo) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        ex_point_cfg cfg;
        ex_point_build(sw, i, &cfg);
        ex_point_key(&cfg, keys[i]);
    }
    if (ro->outdir) {
        if (!ro->state_path && absorb_task_results(ro->outdir, path, err, errlen))
            goto out;
        if (ro->fresh)
            remove(path);
        if (!ro->fresh && load_state(sw, path, keys, res, have, &st->resumed, err, errlen))
            goto out;
        state = fopen(path, "a");
        if (!state) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            goto out;
        }
    }

    pool pl = { .sw = sw, .ro = ro, .res = res, .have = have, .todo = todo, .state = state };
    if (ro->only) {
        for (size_t k = 0; k < ro->nonly; k++)
            if (ro->only[k] < n && !have[ro->only[k]])
                todo[pl.ntodo++] = ro->only[k];
    } else {
        for (size_t i = 0; i < n; i++)
            if (!have[i])
                todo[pl.ntodo++] = i;
    }
    if (ro->plan) {
        *ro->plan = todo;
        *ro->nplan = pl.ntodo;
        todo = NULL;
        rc = 0;
        goto out;
    }
    if (ro->merge_only && pl.ntodo) {
        snprintf(err, errlen, "%zu of %zu points have no result (failed or cancelled Slurm tasks); run the same "
                 "armprof-explore --slurm command again to submit only those", pl.ntodo, n);
        st->resumed = n - pl.ntodo;
        goto out;
    }
    pthread_mutex_init(&pl.mu, NULL);
    pl.t0 = now_s();
    pl.tty = isatty(STDERR_FILENO);
    pl.last_decile = -1;
    unsigned jobs = ro->jobs;
    if (!jobs) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = c > 0 ? (unsigned)c : 1;
    }
    if (jobs > pl.ntodo)
        jobs = pl.ntodo ? (unsigned)pl.ntodo : 1;
    if (ro->progress && st->resumed && !ro->merge_only)
        fprintf(stderr, "armprof-explore: %zu of %zu points already done (%s), %zu to run\n",
                st->resumed, n, path, pl.ntodo);
    if (pl.ntodo) {
        pthread_t *th = calloc(jobs, sizeof(*th));
        unsigned started = 0;
        if (th)
            for (; started < jobs; started++)
                if (pthread_create(&th[started], NULL, worker, &pl) != 0)
                    break;
        if (started == 0)
            worker(&pl); /* no threads: run here */
        for (unsigned t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        free(th);
        pthread_mutex_lock(&pl.mu);
        draw(&pl, true);
        pthread_mutex_unlock(&pl.mu);
    }
    pthread_mutex_destroy(&pl.mu);
    if (state && fclose(state) != 0 && !pl.state_errno)
        pl.state_errno = errno ? errno : EIO;
    state = NULL;
    if (ro->results || ro->have)
        for (size_t i = 0; i < n; i++) {
            if (ro->results && have[i])
                ro->results[i] = res[i];
            if (ro->have)
                ro->have[i] = have[i];
        }
    if (pl.state_errno) { /* the results are here, but a resumed sweep would not find them */
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(pl.state_errno));
        goto out;
    }
    st->ran = pl.finished - pl.failed;
    st->failed = pl.failed;
    st->interrupted = pl.finished < pl.ntodo;
    if (pl.failed) {
        snprintf(err, errlen, "%zu point(s) failed; first: %s", pl.failed, pl.first_err);
        goto out;
    }
    if (st->interrupted) {
        snprintf(err, errlen, "interrupted: %zu of %zu points done; run the same command again to resume",
                 st->resumed + st->ran, n);
        goto out;
    }
    if (ro->state_path || !ro->outdir) { /* a Slurm task (the merge writes the outputs), or in memory */
        rc = 0;
        goto out;
    }
    if (ex_write_outputs(sw, res, ro->outdir, ro->plots, &st->plotted, ro->summary, err, errlen))
        goto out;
    rc = 0;
out:
    if (state)
        fclose(state);
    free(res);
    free(have);
    free(keys);
    free(todo);
    st->wall_seconds = now_s() - t0;
    return rc;
}
