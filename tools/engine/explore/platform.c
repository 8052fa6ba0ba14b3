/* SPDX-License-Identifier: Apache-2.0 */
/* platform.c: a sweep point through the SystemC platform: armprof-vp in a child process on a generated scenario, its summary.json read back. */
#define _GNU_SOURCE /* mkdtemp, readlink */
#include "explore.h"
#include "explore_int.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/*
 * Why a child process running armprof-vp, and not the platform linked in: SystemC elaborates one
 * design per process (sc_main cannot run twice), so every point needs a process of its own
 * anyway. Executing the armprof-vp that was built next to armprof-explore costs a few
 * milliseconds a point, needs no SystemC in armprof-explore, isolates a crashing point, and runs
 * exactly the scenario reader and summary users see. Threads only wait for their child, so -j N
 * runs N simulations at once.
 */

const char *ex_default_vp_path(void)
{
    static char path[4200];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(path, sizeof(path), "%s/armprof-vp", self);
    return access(path, X_OK) == 0 ? path : NULL;
}

typedef struct sbuf {
    char *b;
    size_t n, cap;
    bool oom;
} sbuf;

static void put(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *s, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = s->oom ? -1 : vsnprintf(s->b + s->n, s->cap - s->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            s->oom = true;
            return;
        }
        if ((size_t)k < s->cap - s->n) {
            s->n += (size_t)k;
            return;
        }
        size_t cap = s->cap * 2 + (size_t)k + 64;
        char *nb = realloc(s->b, cap);
        if (!nb) {
            s->oom = true;
            return;
        }
        s->b = nb;
        s->cap = cap;
    }
}

/* Indented lines "k: v\n" of a section, each indented by two spaces. */
static void put_indented(sbuf *s, const char *lines)
{
    const char *p = lines;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        put(s, "  %.*s\n", (int)len, p);
        p += len + (e ? 1 : 0);
    }
}

char *ex_platform_scenario(const ex_sweep *sw, const ex_point_cfg *cfg)
{
    sbuf s = { .b = malloc(1024), .cap = 1024 };
    if (!s.b)
        return NULL;
    s.b[0] = '\0';
    char key[17];
    ex_point_key(cfg, key);
    put(&s, "# armprof-explore %s, point %s (generated)\nname: %s-%s\n", sw->name, key, sw->name, key);
    put(&s, "seed: %" PRIu64 "\n", ex_point_seed(cfg)); /* from the workload parameters, as the C-level model */
    put(&s, "clock_ns: %.17g\n", 1e9 / cfg->clock_hz);
    const char *unit[] = { "", "spe.", "trbe." };
    for (int u = 0; u < 3; u++) {
        if (u == 1)
            put(&s, "spe:\n");
        if (u == 2) {
            if (!cfg->trbe_enabled)
                break;
            put(&s, "trbe:\n");
        }
        for (size_t p = 0; p < ex_param_count(); p++) {
            const char *pk = ex_param(p)->platform;
            if (!pk || !strcmp(pk, "seed") || !strcmp(pk, "clock_ns"))
                continue;
            if (cfg->trace[0] && !strcmp(pk, "ops")) /* a replay: the file's lines * repeat */
                continue;
            if (ex_param_platform_if_set(p) && !ex_sweep_sets(sw, p)) /* the platform's own default */
                continue;
            size_t ul = strlen(unit[u]);
            if (u == 0 ? strchr(pk, '.') != NULL : strncmp(pk, unit[u], ul) != 0)
                continue;
            put(&s, "%s%s: %s\n", u ? "  " : "", pk + ul, ex_param_get(p, cfg).text);
        }
        if (u == 0 && cfg->trace[0]) {
            /* The scenario is in its own folder: the trace by its absolute path. */
            char abs[PATH_MAX];
            const char *tp = realpath(cfg->trace, abs) ? abs : cfg->trace;
            put(&s, "workload:\n  trace: '");
            for (const char *q = tp; *q; q++)
                put(&s, *q == '\'' ? "''" : "%c", *q);
            put(&s, "'\n  repeat: %" PRIu64 "\n", cfg->trace_repeat);
        }
        if (u == 0) {
            put(&s, "%s", sw->platform_top);
            /* bus: and memory: (flow style): the keys as written, then the parameters. */
            int wl = ex_param_find("write_latency_ns"), bs = ex_param_find("background_traffic");
            int bb = ex_param_find("background_burst_bytes"), bd = ex_param_find("background_seed");
            bool mem_lat = ex_sweep_sets(sw, (size_t)wl), bg = cfg->bg_share > 0;
            if (sw->platform_memory[0] || mem_lat)
                put(&s, "memory: {%s%s", sw->platform_memory, mem_lat && sw->platform_memory[0] ? ", " : "");
            if (mem_lat)
                put(&s, "write_latency_ns: %s", ex_param_get((size_t)wl, cfg).text);
            if (sw->platform_memory[0] || mem_lat)
                put(&s, "}\n");
            if (sw->platform_bus[0] || bg)
                put(&s, "bus: {%s%s", sw->platform_bus, bg && sw->platform_bus[0] ? ", " : "");
            if (bg) {
                put(&s, "background_traffic: {share: %s, burst_bytes: %s", ex_param_get((size_t)bs, cfg).text,
                    ex_param_get((size_t)bb, cfg).text);
                if (cfg->bg_seed)
                    put(&s, ", seed: %s", ex_param_get((size_t)bd, cfg).text);
                put(&s, "}");
            }
            if (sw->platform_bus[0] || bg)
                put(&s, "}\n");
        }
        else if (u == 1)
            put_indented(&s, sw->platform_spe);
        else
            put_indented(&s, sw->platform_trbe);
    }
    if (s.oom) {
        free(s.b);
        return NULL;
    }
    return s.b;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 4096) {
            char *nb = realloc(b, cap * 2 + 4096);
            if (!nb) {
                free(b);
                fclose(f);
                return NULL;
            }
            b = nb;
            cap = cap * 2 + 4096;
        }
        size_t k = fread(b + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    fclose(f);
    b[n] = '\0';
    return b;
}

/* The last non-empty line of the child's log, for an error message. */
static void last_line(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    char *t = slurp(path);
    if (!t)
        return;
    size_t len = strlen(t);
    while (len && (t[len - 1] == '\n' || t[len - 1] == '\r'))
        t[--len] = '\0';
    char *nl = strrchr(t, '\n');
    char *cr = strrchr(nl ? nl : t, '\r');
    const char *l = cr ? cr + 1 : nl ? nl + 1 : t;
    snprintf(out, n, "%s", l);
    free(t);
}

/* Removes the point's folder: the files armprof-vp and this file wrote there, then the folder. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[4600];
            snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static double num(const cJSON *o, const char *k, bool *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v)) {
        *ok = false;
        return 0;
    }
    return v->valuedouble;
}

static double num2(const cJSON *o, const char *sect, const char *k, bool *ok)
{
    return num(cJSON_GetObjectItemCaseSensitive(o, sect), k, ok);
}

/* summary.json -> metrics: counts summed over the PEs. */
static int read_summary(const char *text, const ex_point_cfg *cfg, ex_result *res, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        snprintf(err, errlen, "summary.json is not JSON");
        return -1;
    }
    bool ok = true;
    double pes = num(root, "pes", &ok), sim_ns = num(root, "sim_time_ns", &ok);
    const cJSON *units = cJSON_GetObjectItemCaseSensitive(root, "units");
    double clock_ns = 1e9 / cfg->clock_hz;
    double cycles = sim_ns / clock_ns, secs = sim_ns * 1e-9;
    ex_spe_counts s = { .ops = (double)cfg->run.ops * pes, .cycles = cycles, .secs = secs };
    /* Memory timing (armprof-vp with issue 12's summary fields; NaN from an older one): stalls
     * summed over the PEs, the largest outstanding count, latency min / max over the PEs and the
     * mean weighted by each PE's bytes written. */
    bool tok = true;
    double lat_w = 0, lat_sum = 0;
    s.lat_min_ns = INFINITY;
    s.lat_max_ns = 0;
    ex_trbe_counts t = { .cycles = cycles, .secs = secs };
    for (unsigned i = 0; ok && i < (unsigned)pes; i++) {
        char name[32];
        snprintf(name, sizeof(name), "pe%u.spu", i);
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(units, name);
        if (!u) {
            ok = false;
            break;
        }
        s.feed += num(u, "feed", &ok);
        s.collisions += num(u, "collisions", &ok);
        s.written += num(u, "records_written", &ok);
        s.discarded += num(u, "records_discarded", &ok);
        for (int r = 0; r < SPU_DISCARD__COUNT; r++)
            s.discard[r] += num2(u, "discarded", spu_discard_reason_name((spu_discard_reason)r), &ok);
        s.population += num(u, "population", &ok);
        s.dl += num2(u, "driver", "dl", &ok);
        s.mgmt += num2(u, "management_events", "total", &ok);
        s.full += num2(u, "management_events", "buffer_full", &ok);
        s.fault += num2(u, "management_events", "fault", &ok);
        s.ext_abort += num2(u, "management_events", "ext_abort", &ok);
        s.irqs += num(u, "interrupts", &ok);
        double fm = num(u, "fifo_bytes_max", &ok);
        if (fm > s.fifo_max)
            s.fifo_max = fm;
        double bw = num(u, "bytes_written", &ok);
        s.bytes += bw;
        s.stall_cycles += num(u, "writer_stall_cycles", &tok);
        double om = num(u, "outstanding_writes_max", &tok);
        if (om > s.outstanding_max)
            s.outstanding_max = om;
        double lmin = num2(u, "write_latency_ns", "min", &tok), lmax = num2(u, "write_latency_ns", "max", &tok);
        lat_sum += num2(u, "write_latency_ns", "mean", &tok) * bw;
        lat_w += bw;
        if (bw > 0 && lmin < s.lat_min_ns)
            s.lat_min_ns = lmin;
        if (lmax > s.lat_max_ns)
            s.lat_max_ns = lmax;
        if (!cfg->trbe_enabled)
            continue;
        snprintf(name, sizeof(name), "pe%u.trbu", i);
        u = cJSON_GetObjectItemCaseSensitive(units, name);
        if (!u) {
            ok = false;
            break;
        }
        t.in += num(u, "bytes_in", &ok);
        t.written += num(u, "bytes_written", &ok);
        t.copied += num2(u, "driver", "bytes_dumped", &ok);
        t.discarded += num(u, "bytes_discarded", &ok);
        t.wraps += num(u, "wraps", &ok);
        t.mgmt += num2(u, "management_events", "total", &ok);
        t.irqs += num(u, "interrupts", &ok);
    }
    cJSON_Delete(root);
    if (!ok || pes < 1) {
        snprintf(err, errlen, "summary.json lacks a count armprof-explore reads (an older armprof-vp?)");
        return -1;
    }
    s.lat_mean_ns = lat_w > 0 ? lat_sum / lat_w : 0;
    if (isinf(s.lat_min_ns))
        s.lat_min_ns = 0;
    if (!tok)
        s.stall_cycles = s.outstanding_max = s.lat_min_ns = s.lat_mean_ns = s.lat_max_ns = NAN;
    ex_result_clear(res);
    ex_spe_metrics(&s, res->m);
    if (cfg->trbe_enabled) {
        ex_trbe_metrics(&t, res->m); /* Fill mode only: nothing is overwritten */
    }
    for (int m = 0; m < EXM__COUNT; m++)
        if (ex_metric_platform_missing(m))
            res->m[m] = NAN;
    res->m[EXM_CYCLES] = cycles;
    res->m[EXM_SIM_SECONDS] = secs;
    return 0;
}

/*
 * The fork server (armprof-vp --serve, platform/vp/serve.cpp): each worker thread keeps one
 * armprof-vp loaded; a point is one request line, the server forks a child before elaboration
 * and answers with its wait status. The child runs exactly `armprof-vp SCENARIO --out DIR
 * --quiet`, without the process start-up and dynamic linking (2/3 of a small point's cost).
 * A server that cannot start or dies is replaced; when none can run, points are spawned.
 */
static volatile int fork_server_off = -1; /* -1: not decided (ARMPROF_EXPLORE_SPAWN=1 turns it off) */

void ex_platform_fork_server(bool on) { fork_server_off = !on; }

typedef struct vp_server {
    pid_t pid;
    int fd;     /* a socket: requests are sent with MSG_NOSIGNAL (a dead server is no SIGPIPE) */
    FILE *from; /* the responses, through a dup of fd */
    char vp[4096];
} vp_server;

static pthread_key_t server_key;
static pthread_once_t server_once = PTHREAD_ONCE_INIT;

/* Returns the signal that ended the server (0: it exited). */
static int server_close(vp_server *v)
{
    if (v->fd > 0)
        close(v->fd); /* end of input: the server exits */
    if (v->from)
        fclose(v->from);
    int st = 0;
    if (v->pid > 0)
        while (waitpid(v->pid, &st, 0) < 0 && errno == EINTR)
            ;
    v->fd = -1;
    v->from = NULL;
    v->pid = 0;
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static void server_free(void *p)
{
    if (p) {
        server_close(p);
        free(p);
    }
}

static void server_key_init(void) { pthread_key_create(&server_key, server_free); }

static int server_start(vp_server *v, const char *vp_path)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
    /* The server itself says nothing but the SystemC banner; each child writes its own log. */
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = { (char *)vp_path, (char *)"--serve", NULL };
    /* LD_BIND_NOW: the server resolves every symbol once, so the children do not each bind them. */
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **envp = calloc(ne + 2, sizeof(*envp));
    int rc = -1;
    if (envp) {
        size_t k = 0;
        for (size_t i = 0; i < ne; i++)
            if (strncmp(environ[i], "LD_BIND_NOW=", 12))
                envp[k++] = environ[i];
        envp[k++] = (char *)"LD_BIND_NOW=1";
        envp[k] = NULL;
        rc = posix_spawn(&v->pid, vp_path, &fa, NULL, argv, envp);
        free(envp);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        v->pid = 0;
        v->fd = -1;
        return -1;
    }
    v->fd = sv[0];
    int rd = fcntl(sv[0], F_DUPFD_CLOEXEC, 0);
    v->from = rd >= 0 ? fdopen(rd, "r") : NULL;
    snprintf(v->vp, sizeof(v->vp), "%s", vp_path);
    if (!v->from) {
        if (rd >= 0)
            close(rd);
        server_close(v);
        return -1;
    }
    return 0;
}

/* One run through this thread's server: 0 with the child's wait status, -1 when the server
 * is unusable (it is closed; the caller may retry once with a new one), or the signal that
 * stopped it (SIGINT, SIGTERM, SIGHUP: Ctrl-C reaches the whole process group) when the point
 * must not be run again. */
static int server_run(vp_server *v, const char *vp_path, const char *log, const char *scen, const char *dir,
                      int *status)
{
    if (v->pid && strcmp(v->vp, vp_path))
        server_close(v);
    if (!v->pid && server_start(v, vp_path))
        return -1;
    char req[13000];
    int n = snprintf(req, sizeof(req), "%s\t%s\t--out\t%s\t--quiet\n", log, scen, dir);
    for (int off = 0; n > 0 && off < n;) {
        ssize_t w = send(v->fd, req + off, (size_t)(n - off), MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            server_close(v);
            return -1;
        }
        off += (int)w;
    }
    char line[256];
    while (fgets(line, sizeof(line), v->from)) {
        if (!strncmp(line, "status ", 7)) { /* other lines: the SystemC banner */
            *status = atoi(line + 7);
            return 0;
        }
    }
    int sig = server_close(v); /* the server died */
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? sig : -1;
}

static bool fork_server_on(void)
{
    if (fork_server_off < 0) {
        const char *e = getenv("ARMPROF_EXPLORE_SPAWN");
        fork_server_off = e && *e && strcmp(e, "0");
    }
    return !fork_server_off;
}

/* Runs the point in dir (which exists); removes it after a good run unless keep. */
static int run_in(const ex_sweep *sw, const ex_point_cfg *cfg, const char *vp_path, const char *dir, bool keep,
                  ex_result *res, char **summary, char *err, size_t errlen)
{
    char scen[4300], log[4300], sum[4300];
    snprintf(scen, sizeof(scen), "%s/scenario.yaml", dir);
    snprintf(log, sizeof(log), "%s/armprof-vp.log", dir);
    snprintf(sum, sizeof(sum), "%s/summary.json", dir);
    char *text = ex_platform_scenario(sw, cfg);
    FILE *f = text ? fopen(scen, "w") : NULL;
    bool wrote = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        wrote = false;
    free(text);
    if (!wrote) {
        snprintf(err, errlen, "cannot write %s", scen);
        return -1;
    }

    double t0 = now_s();
    int status = 0, rc;
    bool served = false;
    if (fork_server_on() && !strchr(scen, '\t') && !strchr(dir, '\t') && !strchr(scen, '\n') &&
        !strchr(dir, '\n')) {
        pthread_once(&server_once, server_key_init);
        vp_server *v = pthread_getspecific(server_key);
        if (!v && (v = calloc(1, sizeof(*v))) != NULL) {
            v->fd = -1;
            if (pthread_setspecific(server_key, v) != 0) {
                free(v);
                v = NULL;
            }
        }
        int r = v ? server_run(v, vp_path, log, scen, dir, &status) : -1;
        if (v && r == -1)
            r = server_run(v, vp_path, log, scen, dir, &status);
        if (r > 0) {
            snprintf(err, errlen, "armprof-vp server stopped by signal %d (kept %s)", r, dir);
            return -1;
        }
        served = r == 0;
    }
    if (!served) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
        char *argv[] = { (char *)vp_path, scen, (char *)"--out", (char *)dir, (char *)"--quiet", NULL };
        pid_t pid;
        rc = posix_spawn(&pid, vp_path, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) {
            snprintf(err, errlen, "cannot run %s: %s", vp_path, strerror(rc));
            return -1;
        }
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    double host = now_s() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char l[256];
        last_line(log, l, sizeof(l));
        if (WIFSIGNALED(status))
            snprintf(err, errlen, "armprof-vp killed by signal %d (kept %s)", WTERMSIG(status), dir);
        else
            snprintf(err, errlen, "armprof-vp exit %d: %s (kept %s)", WEXITSTATUS(status), l, dir);
        return -1;
    }
    char *js = slurp(sum);
    if (!js) {
        snprintf(err, errlen, "armprof-vp wrote no %s", sum);
        return -1;
    }
    rc = read_summary(js, cfg, res, err, errlen);
    if (summary && !rc)
        *summary = js;
    else
        free(js);
    if (rc)
        return -1;
    res->m[EXM_HOST_SECONDS] = host; /* the child: (start-up when spawned), elaboration, run, summary */
    if (!keep)
        remove_dir(dir);
    return 0;
}

int ex_point_run_platform(const ex_sweep *sw, const ex_point_cfg *cfg, const char *vp_path, const char *workdir,
                          ex_result *res, char *err, size_t errlen)
{
    if (!vp_path) {
        snprintf(err, errlen, "no armprof-vp to run (build it, or name it with --vp or ARMPROF_VP)");
        return -1;
    }
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/vp-XXXXXX", workdir);
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a folder in %s: %s", workdir, strerror(errno));
        return -1;
    }
    return run_in(sw, cfg, vp_path, dir, false, res, NULL, err, errlen);
}

int ex_point_run_platform_in(const ex_sweep *sw, const ex_point_cfg *cfg, const char *vp_path, const char *dir,
                             ex_result *res, char **summary, char *err, size_t errlen)
{
    if (!vp_path) {
        snprintf(err, errlen, "no armprof-vp to run (build it, or name it with --vp or ARMPROF_VP)");
        return -1;
    }
    return run_in(sw, cfg, vp_path, dir, true, res, summary, err, errlen);
}
