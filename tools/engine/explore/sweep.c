/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.c: reads a sweep file (a scenario plus `sweep:` parameter -> values) with libfyaml; errors name file and line. */
#define _POSIX_C_SOURCE 200809L
#include "explore.h"
#include "explore_int.h"

#include <errno.h>
#include <inttypes.h>
#include <libfyaml.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_file.h"

typedef struct ctx {
    const char *file;
    ex_sweep *sw;
    char *err;
    size_t errlen;
    bool scenario;              /* EX_LOAD_SCENARIO: one point, no `sweep:` */
    ex_load_error *le;          /* the error's parts (may be NULL) */
    const char *key, *val;      /* the key and value being read, for le (NULL: none) */
} ctx;

/* The key and value an error is about (either may be NULL). */
static void about(ctx *c, const char *key, const char *val)
{
    c->key = key;
    c->val = val;
}

/* 1-based line and column of a node (scalars: their token; collections: their first scalar). */
static void node_pos(struct fy_node *n, int *line, int *col)
{
    *line = 0;
    *col = 0;
    while (n) {
        if (fy_node_is_scalar(n)) {
            struct fy_token *t = fy_node_get_scalar_token(n);
            const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
            if (m) {
                *line = m->line + 1;
                *col = m->column + 1;
            }
            return;
        }
        void *it = NULL;
        if (fy_node_is_sequence(n)) {
            n = fy_node_sequence_iterate(n, &it);
        } else if (fy_node_is_mapping(n)) {
            struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
            n = p ? fy_node_pair_key(p) : NULL;
        } else {
            return;
        }
    }
}

static int fail(ctx *c, struct fy_node *at, int line, const char *fmt, ...)
{
    int col = 0;
    if (at)
        node_pos(at, &line, &col);
    if (c->le) {
        c->le->line = line;
        c->le->column = col;
        snprintf(c->le->key, sizeof(c->le->key), "%s", c->key ? c->key : "");
        snprintf(c->le->value, sizeof(c->le->value), "%s", c->val ? c->val : "");
    }
    int k;
    if (col)
        k = snprintf(c->err, c->errlen, "%s:%d:%d: ", c->file, line, col);
    else if (line)
        k = snprintf(c->err, c->errlen, "%s:%d: ", c->file, line);
    else
        k = snprintf(c->err, c->errlen, "%s: ", c->file);
    if (k < 0 || (size_t)k >= c->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static int line_of(struct fy_node *n)
{
    int l, c;
    node_pos(n, &l, &c);
    return l;
}

static const char *scalar(struct fy_node *n)
{
    return n && fy_node_is_scalar(n) ? fy_node_get_scalar0(n) : NULL;
}

/* The closest parameter name, for "did you mean". */
static const char *suggest(const char *name)
{
    const char *best = NULL;
    size_t bestd = 4;
    for (size_t q = 0; q < 2 * ex_param_count(); q++) {
        size_t p = q / 2;
        const char *cand = q % 2 ? ex_param(p)->alias : ex_param(p)->name;
        if (!cand)
            continue;
        size_t la = strlen(name), lb = strlen(cand);
        if (la > 40 || lb > 40)
            continue;
        size_t d[41][41];
        for (size_t i = 0; i <= la; i++)
            d[i][0] = i;
        for (size_t j = 0; j <= lb; j++)
            d[0][j] = j;
        for (size_t i = 1; i <= la; i++)
            for (size_t j = 1; j <= lb; j++) {
                size_t x = d[i - 1][j] + 1, y = d[i][j - 1] + 1, z = d[i - 1][j - 1] + (name[i - 1] != cand[j - 1]);
                d[i][j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
            }
        if (d[la][lb] < bestd) {
            bestd = d[la][lb];
            best = cand;
        }
    }
    return best;
}

static int unknown(ctx *c, struct fy_node *key, const char *name)
{
    if (c->key != name)
        about(c, name, NULL);
    const char *s = suggest(strncmp(name, "spe.", 4) ? name : name + 4);
    if (s)
        return fail(c, key, 0, "unknown parameter '%s' (did you mean '%s'?)", name, s);
    return fail(c, key, 0, "unknown parameter '%s' (armprof-explore --list-params shows them)", name);
}

/* workload.trace: a path relative to the sweep file's folder (as armprof-vp's scenarios), and
 * the whole file read now, so a bad file or line stops the sweep before anything runs, with the
 * sweep file's line. */
static int check_trace(ctx *c, int p, ex_val *v, struct fy_node *at)
{
    if (ex_param(p)->kind != EX_TEXT)
        return 0;
    const char *slash = strrchr(c->file, '/');
    if (v->text[0] != '/' && slash) {
        char full[sizeof(v->text)];
        int n = snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - c->file), c->file, v->text);
        if (n < 0 || (size_t)n >= sizeof(full))
            return fail(c, at, 0, "%s: the path is too long", ex_param(p)->name);
        memcpy(v->text, full, sizeof(full));
    }
    wl_trace t;
    char why[512];
    if (wl_trace_load(v->text, &t, why, sizeof(why)))
        return fail(c, at, 0, "%s: %s", ex_param(p)->name, why);
    wl_trace_free(&t);
    return 0;
}

/* name: value in the scenario part. */
static int set_fixed(ctx *c, const char *prefix, struct fy_node *key, struct fy_node *val)
{
    char name[96];
    snprintf(name, sizeof(name), "%s%s", prefix, scalar(key));
    int p = ex_param_find(name);
    const char *text = scalar(val);
    about(c, name, text);
    if (p < 0)
        return unknown(c, key, name);
    if (!text)
        return fail(c, key, 0, "%s takes a single value here; lists of values go under 'sweep:'", name);
    char why[256];
    if (ex_param_parse((size_t)p, text, &c->sw->fixed_val[p], why, sizeof(why)))
        return fail(c, val, 0, "%s", why);
    if (check_trace(c, p, &c->sw->fixed_val[p], val))
        return -1;
    if (c->sw->fixed[p])
        return fail(c, key, 0, "%s is already set on line %d", name, c->sw->fixed_line[p]);
    c->sw->fixed[p] = true;
    c->sw->fixed_line[p] = line_of(key);
    about(c, NULL, NULL);
    return 0;
}

/* One mapping of parameter -> list of values: one cross product (a group). */
static int parse_group(ctx *c, struct fy_node *key, struct fy_node *map)
{
    ex_sweep *sw = c->sw;
    if (sw->ngroups == EX_MAX_GROUPS)
        return fail(c, map, 0, "too many sweep groups (at most %d)", EX_MAX_GROUPS);
    ex_group *gr = &sw->groups[sw->ngroups];
    memset(gr, 0, sizeof(*gr));
    void *it = NULL;
    struct fy_node_pair *pr;
    while ((pr = fy_node_mapping_iterate(map, &it))) {
        struct fy_node *k = fy_node_pair_key(pr), *v = fy_node_pair_value(pr);
        const char *name = scalar(k);
        if (!name)
            return fail(c, k, line_of(key), "a sweep parameter name must be a plain name");
        about(c, name, NULL);
        int p = ex_param_find(name);
        if (p < 0)
            return unknown(c, k, name);
        int a;
        for (a = 0; a < sw->naxes; a++)
            if (sw->axes[a].param == p)
                break;
        for (int q = 0; q < gr->nax; q++)
            if (gr->axis[q] == a)
                return fail(c, k, 0, "%s is swept twice in this group (first on line %d)", ex_param(p)->name,
                            sw->axes[a].line);
        if (a == sw->naxes) {
            if (sw->naxes == EX_MAX_AXES)
                return fail(c, k, 0, "too many swept parameters (at most %d)", EX_MAX_AXES);
            memset(&sw->axes[a], 0, sizeof(sw->axes[a]));
            sw->axes[a].param = p;
            sw->axes[a].line = line_of(k);
            sw->naxes++;
        }
        ex_axis *ax = &sw->axes[a];
        int q = gr->nax++;
        gr->axis[q] = a;
        if (!v || !fy_node_is_sequence(v))
            return fail(c, v && scalar(v) ? v : k, 0,
                        "%s: a swept parameter takes a list of values, e.g. [1, 2, 4]", ex_param(p)->name);
        void *jt = NULL;
        struct fy_node *item;
        while ((item = fy_node_sequence_iterate(v, &jt))) {
            const char *text = scalar(item);
            about(c, name, text);
            if (!text)
                return fail(c, item, line_of(k), "%s: each value must be a single scalar", ex_param(p)->name);
            char why[256];
            ex_val ev;
            if (ex_param_parse((size_t)p, text, &ev, why, sizeof(why)))
                return fail(c, item, 0, "%s", why);
            if (check_trace(c, p, &ev, item))
                return -1;
            int vi;
            for (vi = 0; vi < ax->nvals; vi++)
                if (!strcmp(ax->vals[vi].text, ev.text))
                    break;
            for (int j = 0; j < gr->nsel[q]; j++)
                if (gr->sel[q][j] == vi)
                    return fail(c, item, 0, "%s: value %s is listed twice", ex_param(p)->name, ev.text);
            if (vi == ax->nvals) {
                if (ax->nvals == EX_MAX_VALUES)
                    return fail(c, item, 0, "%s: too many values (at most %d)", ex_param(p)->name, EX_MAX_VALUES);
                ax->vals[ax->nvals++] = ev;
            }
            gr->sel[q][gr->nsel[q]++] = vi;
        }
        about(c, name, NULL);
        if (gr->nsel[q] == 0)
            return fail(c, k, 0, "%s: the list of values is empty", ex_param(p)->name);
    }
    about(c, NULL, NULL);
    if (gr->nax == 0)
        return fail(c, key, 0, "the sweep group is empty: name at least one parameter and its values");
    size_t n = 1;
    for (int q = 0; q < gr->nax; q++) {
        n *= (size_t)gr->nsel[q];
        if (n > 1000000)
            return fail(c, key, 0, "the sweep has more than a million points");
    }
    gr->first = sw->npoints;
    gr->npoints = n;
    sw->npoints += n;
    if (sw->npoints > 1000000)
        return fail(c, key, 0, "the sweep has more than a million points");
    sw->ngroups++;
    return 0;
}

/* sweep: a mapping (one cross product) or a list of mappings (several, run one after another). */
static int parse_sweep(ctx *c, struct fy_node *key, struct fy_node *v)
{
    if (v && fy_node_is_mapping(v))
        return parse_group(c, key, v);
    if (v && fy_node_is_sequence(v)) {
        void *it = NULL;
        struct fy_node *g;
        bool any = false;
        while ((g = fy_node_sequence_iterate(v, &it))) {
            if (!fy_node_is_mapping(g))
                return fail(c, g, line_of(key), "each item of a 'sweep:' list is a mapping of parameter -> values");
            if (parse_group(c, key, g))
                return -1;
            any = true;
        }
        if (any)
            return 0;
    }
    return fail(c, key, 0, "'sweep:' must be a mapping of parameter names to lists of values "
                "(or a list of such mappings)");
}

static int parse_real_key(ctx *c, struct fy_node *k, struct fy_node *v, double lo, double hi, double *out)
{
    const char *t = scalar(v);
    char *end;
    double x = t ? strtod(t, &end) : 0;
    about(c, scalar(k), t);
    if (!t || end == t || *end || x < lo || x > hi)
        return fail(c, v ? v : k, 0, "%s expects a number in [%g, %g]", scalar(k), lo, hi);
    about(c, NULL, NULL);
    *out = x;
    return 0;
}

static int parse_recommend(ctx *c, struct fy_node *key, struct fy_node *map)
{
    if (!fy_node_is_mapping(map))
        return fail(c, key, 0, "'recommend:' must be a mapping (max_collision_pct, max_lost_pct)");
    void *it = NULL;
    struct fy_node_pair *pr;
    while ((pr = fy_node_mapping_iterate(map, &it))) {
        struct fy_node *k = fy_node_pair_key(pr), *v = fy_node_pair_value(pr);
        const char *name = scalar(k);
        if (name && !strcmp(name, "max_collision_pct")) {
            if (parse_real_key(c, k, v, 0, 100, &c->sw->max_collision_pct))
                return -1;
        } else if (name && !strcmp(name, "max_lost_pct")) {
            if (parse_real_key(c, k, v, 0, 100, &c->sw->max_lost_pct))
                return -1;
        } else {
            return fail(c, k, 0, "unknown key '%s' under recommend: (max_collision_pct, max_lost_pct)",
                        name ? name : "?");
        }
    }
    return 0;
}

/* seeds: N, how many seeds each point runs with (the seed axis, add_seed_axis()). */
static int parse_seeds(ctx *c, struct fy_node *k, struct fy_node *v)
{
    const char *t = scalar(v);
    about(c, "seeds", t);
    if (c->scenario)
        return fail(c, k, 0, "a scenario is one point: 'seeds:' belongs in a sweep");
    char *end;
    errno = 0;
    long n = t ? strtol(t, &end, 10) : 0;
    if (!t || end == t || *end || errno || n < 1 || n > EX_MAX_VALUES)
        return fail(c, v ? v : k, 0, "seeds expects a whole number of seeds per point, 1 .. %d", EX_MAX_VALUES);
    about(c, NULL, NULL);
    c->sw->seeds = (int)n;
    c->sw->seeds_line = line_of(k);
    return 0;
}

/* seeds: N > 1 adds the sweep seed as the last axis of every group, with the values S .. S+N-1
 * (S: the scenario's seed): every point runs with N seeds, each a point of its own (key, seed,
 * row of results.csv), next to each other. Seed S is the point without `seeds:`, with its key:
 * its result resumes. */
static int add_seed_axis(ctx *c)
{
    ex_sweep *sw = c->sw;
    int sp = ex_param_find("seed");
    about(c, "seeds", NULL);
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].param == sp) {
            return fail(c, NULL, sw->seeds_line, "seeds: %d and a swept seed (line %d) both choose the seeds: "
                        "use one", sw->seeds, sw->axes[a].line);
        }
    if (sw->naxes == EX_MAX_AXES)
        return fail(c, NULL, sw->seeds_line, "too many swept parameters with the seed axis (at most %d)", EX_MAX_AXES);
    ex_point_cfg def;
    ex_point_cfg_default(&def);
    uint64_t base = sw->fixed[sp] ? sw->fixed_val[sp].u : def.seed;
    if (base > UINT64_MAX - (uint64_t)(sw->seeds - 1))
        return fail(c, NULL, sw->seeds_line, "seeds: %d from seed %" PRIu64 " passes 2^64 - 1", sw->seeds, base);
    ex_axis *ax = &sw->axes[sw->naxes];
    memset(ax, 0, sizeof(*ax));
    ax->param = sp;
    ax->line = sw->seeds_line;
    for (int k = 0; k < sw->seeds; k++) {
        char text[32], why[128];
        snprintf(text, sizeof(text), "%" PRIu64, base + (uint64_t)k);
        if (ex_param_parse((size_t)sp, text, &ax->vals[k], why, sizeof(why)))
            return fail(c, NULL, sw->seeds_line, "seeds: %s", why);
    }
    ax->nvals = sw->seeds;
    int a = sw->naxes++;
    sw->npoints = 0;
    for (int g = 0; g < sw->ngroups; g++) {
        ex_group *gr = &sw->groups[g];
        if (gr->nax == EX_MAX_AXES)
            return fail(c, NULL, sw->seeds_line, "too many swept parameters with the seed axis (at most %d)",
                        EX_MAX_AXES);
        int q = gr->nax++;
        gr->axis[q] = a;
        gr->nsel[q] = sw->seeds;
        for (int k = 0; k < sw->seeds; k++)
            gr->sel[q][k] = k;
        gr->first = sw->npoints;
        gr->npoints *= (size_t)sw->seeds;
        sw->npoints += gr->npoints;
        if (sw->npoints > 1000000)
            return fail(c, NULL, sw->seeds_line, "the sweep has more than a million points with %d seeds each",
                        sw->seeds);
    }
    about(c, NULL, NULL);
    return 0;
}

/* Scenario keys of armprof-vp (examples/default.yaml) that only the platform uses. The C-level
 * model ignores them (and says so); the platform model gets them as they are written. */
static const char *const platform_keys[] = { "pes", "quantum_ns", "pe_threads", "dmi", "smmu", "pmu", "faults",
                                             "spe.restart_after_fault", "spe.hw_flag_update", "spe.ppi",
                                             "spe.el2_pmscr", "trbe.ppi", NULL };

static int append(char *buf, size_t cap, const char *key, const char *text)
{
    size_t n = strlen(buf);
    int k = snprintf(buf + n, cap - n, "%s: %s\n", key, text);
    return k < 0 || (size_t)k >= cap - n ? -1 : 0;
}

/* 1: a platform-only key (kept for the platform model), 0: not one, -1: error (set). */
static int platform_only(ctx *c, const char *name, struct fy_node *key, struct fy_node *val)
{
    for (int i = 0; platform_keys[i]; i++)
        if (!strcmp(name, platform_keys[i])) {
            size_t n = strlen(c->sw->ignored);
            snprintf(c->sw->ignored + n, sizeof(c->sw->ignored) - n, "%s%s", n ? ", " : "", name);
            char *text = val ? fy_emit_node_to_string(val, FYECF_MODE_FLOW_ONELINE | FYECF_WIDTH_INF |
                                                               FYECF_NO_ENDING_NEWLINE) : NULL;
            if (!text)
                return fail(c, key, 0, "%s: cannot read its value", name);
            int rc;
            if (!strncmp(name, "spe.", 4))
                rc = append(c->sw->platform_spe, sizeof(c->sw->platform_spe), name + 4, text);
            else if (!strncmp(name, "trbe.", 5))
                rc = append(c->sw->platform_trbe, sizeof(c->sw->platform_trbe), name + 5, text);
            else
                rc = append(c->sw->platform_top, sizeof(c->sw->platform_top), name, text);
            free(text);
            if (rc)
                return fail(c, key, 0, "%s: the platform's settings are too long for armprof-explore", name);
            return 1;
        }
    return 0;
}

/* spe: and trbe: sections, in the platform's scenario format. */
static int parse_unit_section(ctx *c, const char *unit, struct fy_node *v)
{
    void *jt = NULL;
    struct fy_node_pair *sp;
    while ((sp = fy_node_mapping_iterate(v, &jt))) {
        struct fy_node *sk = fy_node_pair_key(sp);
        const char *sn = scalar(sk);
        if (!sn)
            return fail(c, sk, 0, "keys must be plain names");
        char full[96], prefix[16];
        snprintf(full, sizeof(full), "%s.%s", unit, sn);
        snprintf(prefix, sizeof(prefix), "%s.", unit);
        int po = platform_only(c, full, sk, fy_node_pair_value(sp));
        if (po < 0)
            return -1;
        if (po)
            continue;
        if (set_fixed(c, prefix, sk, fy_node_pair_value(sp)))
            return -1;
    }
    return 0;
}

/* bus: and memory: (armprof-vp's sections): memory.write_latency_ns and bus.background_traffic's
 * keys are parameters; the other keys go to armprof-vp as written (flow-style items in
 * platform_bus / platform_memory), and the C-level model ignores them. */
static int parse_platform_section(ctx *c, const char *sect, struct fy_node *key, struct fy_node *v)
{
    if (!v || !fy_node_is_mapping(v))
        return fail(c, key, 0, "'%s:' must be a mapping (armprof-vp's scenario format)", sect);
    char *buf = !strcmp(sect, "bus") ? c->sw->platform_bus : c->sw->platform_memory;
    size_t cap = !strcmp(sect, "bus") ? sizeof(c->sw->platform_bus) : sizeof(c->sw->platform_memory);
    void *jt = NULL;
    struct fy_node_pair *sp;
    while ((sp = fy_node_mapping_iterate(v, &jt))) {
        struct fy_node *sk = fy_node_pair_key(sp), *sv = fy_node_pair_value(sp);
        const char *sn = scalar(sk);
        if (!sn)
            return fail(c, sk, 0, "keys must be plain names");
        char full[96], prefix[48];
        snprintf(full, sizeof(full), "%s.%s", sect, sn);
        if (!strcmp(full, "bus.background_traffic")) {
            if (!sv || !fy_node_is_mapping(sv))
                return fail(c, sv && scalar(sv) ? sv : sk, 0,
                            "bus.background_traffic: a mapping (share, burst_bytes, seed)");
            void *kt = NULL;
            struct fy_node_pair *bp;
            while ((bp = fy_node_mapping_iterate(sv, &kt))) {
                if (!scalar(fy_node_pair_key(bp)))
                    return fail(c, fy_node_pair_key(bp), 0, "keys must be plain names");
                if (set_fixed(c, "bus.background_traffic.", fy_node_pair_key(bp), fy_node_pair_value(bp)))
                    return -1;
            }
            continue;
        }
        if (ex_param_find(full) >= 0) {
            snprintf(prefix, sizeof(prefix), "%s.", sect);
            if (set_fixed(c, prefix, sk, sv))
                return -1;
            continue;
        }
        char *text = sv ? fy_emit_node_to_string(sv, FYECF_MODE_FLOW_ONELINE | FYECF_WIDTH_INF |
                                                         FYECF_NO_ENDING_NEWLINE) : NULL;
        if (!text)
            return fail(c, sk, 0, "%s: cannot read its value", full);
        size_t n = strlen(buf);
        int k = snprintf(buf + n, cap - n, "%s%s: %s", n ? ", " : "", sn, text);
        free(text);
        if (k < 0 || (size_t)k >= cap - n)
            return fail(c, sk, 0, "%s: the platform's settings are too long for armprof-explore", full);
        n = strlen(c->sw->ignored);
        snprintf(c->sw->ignored + n, sizeof(c->sw->ignored) - n, "%s%s", n ? ", " : "", full);
    }
    return 0;
}

bool ex_sweep_sets(const ex_sweep *sw, size_t p)
{
    if (p < EX_MAX_PARAMS && sw->fixed[p])
        return true;
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].param == (int)p)
            return true;
    return false;
}

/* Every point must be a valid unit configuration (and, with model checks, one the model can run:
 * background traffic needs the platform's bus, write_latency is the C level's): all are checked
 * before anything runs, naming the line of the parameter that makes the point invalid. */
static int check_points(ctx *c, bool model_checks)
{
    ex_sweep *sw = c->sw;
    for (size_t i = 0; i < sw->npoints; i++) {
        ex_point_cfg cfg;
        ex_point_build(sw, i, &cfg);
        char why[200];
        if (model_checks ? ex_point_validate(&cfg, why, sizeof(why)) : ex_point_validate_unit(&cfg, why, sizeof(why))) {
            int idx[EX_MAX_AXES];
            ex_point_indices(sw, i, idx);
            char where[256] = "";
            size_t k = 0;
            int line = 0;
            for (int a = 0; a < sw->naxes && k < sizeof(where); a++) {
                if (idx[a] < 0)
                    continue;
                k += (size_t)snprintf(where + k, sizeof(where) - k, "%s%s=%s", k ? ", " : "",
                                      ex_param(sw->axes[a].param)->name, sw->axes[a].vals[idx[a]].text);
                line = sw->axes[a].line;
                about(c, ex_param(sw->axes[a].param)->name, sw->axes[a].vals[idx[a]].text);
            }
            if (!line) /* nothing swept makes it invalid: the scenario part does */
                for (size_t p = 0; p < ex_param_count(); p++)
                    if (sw->fixed[p] && sw->fixed_line[p] > line)
                        line = sw->fixed_line[p];
            /* A message that names its parameter: that parameter's line, key and value. */
            size_t wl = strcspn(why, " :");
            ex_val kv;
            for (size_t p = 0; p < ex_param_count(); p++)
                if (strlen(ex_param(p)->name) == wl && !strncmp(why, ex_param(p)->name, wl)) {
                    kv = ex_param_get(p, &cfg);
                    about(c, ex_param(p)->name, kv.text);
                    if (sw->fixed[p])
                        line = sw->fixed_line[p];
                    for (int a = 0; a < sw->naxes; a++)
                        if (sw->axes[a].param == (int)p)
                            line = sw->axes[a].line;
                }
            return fail(c, NULL, line, "point %zu (%s) is not a valid %s: %s", i, where,
                        model_checks ? "point for this model" : "unit configuration", why);
        }
    }
    return 0;
}

static int parse_root(ctx *c, struct fy_node *root)
{
    if (!root)
        return fail(c, NULL, 0, "empty %s", c->scenario ? "scenario" : "sweep file");
    if (!fy_node_is_mapping(root))
        return fail(c, root, 0, "%s", c->scenario ? "a scenario is a mapping of parameters to values"
                                                  : "a sweep file is a mapping: scenario keys and a 'sweep:' mapping");
    bool have_sweep = false;
    void *it = NULL;
    struct fy_node_pair *pr;
    while ((pr = fy_node_mapping_iterate(root, &it))) {
        struct fy_node *k = fy_node_pair_key(pr), *v = fy_node_pair_value(pr);
        const char *name = scalar(k);
        if (!name)
            return fail(c, k, 0, "keys must be plain names");
        about(c, name, scalar(v));
        if (!strcmp(name, "sweep")) {
            if (c->scenario) {
                about(c, "sweep", NULL);
                return fail(c, k, 0, "a scenario is one point: 'sweep:' belongs in a sweep");
            }
            if (parse_sweep(c, k, v))
                return -1;
            have_sweep = true;
        } else if (!strcmp(name, "recommend")) {
            if (parse_recommend(c, k, v))
                return -1;
        } else if (!strcmp(name, "seeds")) {
            if (parse_seeds(c, k, v))
                return -1;
        } else if (!strcmp(name, "name") || !strcmp(name, "description")) {
            const char *t = scalar(v);
            if (!t)
                return fail(c, k, 0, "%s must be text", name);
            if (!strcmp(name, "name"))
                snprintf(c->sw->name, sizeof(c->sw->name), "%s", t);
        } else if (!strcmp(name, "workload")) {
            if (!v || !fy_node_is_mapping(v))
                return fail(c, k, 0, "'workload:' must be a mapping (mix, p_load, lat_l1_miss, ...)");
            void *jt = NULL;
            struct fy_node_pair *wp;
            while ((wp = fy_node_mapping_iterate(v, &jt))) {
                struct fy_node *wk = fy_node_pair_key(wp);
                const char *wn = scalar(wk);
                if (!wn)
                    return fail(c, wk, 0, "keys must be plain names");
                /* `mix` may sit in the workload section or at the top level */
                if (set_fixed(c, strcmp(wn, "mix") ? "workload." : "", wk, fy_node_pair_value(wp)))
                    return -1;
            }
        } else if (!strcmp(name, "bus") || !strcmp(name, "memory")) {
            if (parse_platform_section(c, name, k, v))
                return -1;
        } else if ((!strcmp(name, "spe") || !strcmp(name, "trbe")) && v && fy_node_is_mapping(v)) {
            if (parse_unit_section(c, name, v))
                return -1;
        } else if (!strcmp(name, "clock_ns")) {
            /* The platform's PE clock period: the C-level model's clock_hz. */
            const char *t = scalar(v);
            char *end;
            double ns = t ? strtod(t, &end) : 0;
            if (!t || end == t || *end || !(ns >= 0.01 && ns <= 1000))
                return fail(c, v ? v : k, 0, "clock_ns expects a number in [0.01, 1000]");
            char hz[32];
            snprintf(hz, sizeof(hz), "%.10g", 1e9 / ns);
            char why[256];
            int p = ex_param_find("clock_hz");
            if (ex_param_parse((size_t)p, hz, &c->sw->fixed_val[p], why, sizeof(why)))
                return fail(c, v, 0, "%s", why);
            c->sw->fixed[p] = true;
            c->sw->fixed_line[p] = line_of(k);
        } else {
            int po = platform_only(c, name, k, v);
            if (po < 0)
                return -1;
            if (po)
                continue;
            if (v && !fy_node_is_scalar(v) && ex_param_find(name) < 0)
                return fail(c, k, 0, "unknown section '%s' (armprof-explore reads: the parameters, spe:, trbe:, "
                            "workload:, sweep:, recommend:, and the platform's sections)", name);
            if (set_fixed(c, "", k, v))
                return -1;
        }
    }
    about(c, NULL, NULL);
    if (c->scenario) {
        c->sw->npoints = 1; /* no axes: the scenario's values */
    } else if (!have_sweep) {
        return fail(c, root, 0, "no 'sweep:' mapping: name at least one parameter and its values");
    }
    ex_sweep *sw = c->sw;
    /* Any trbe_ parameter turns the TRBE run on unless trbe_enabled says otherwise. */
    int te = ex_param_find("trbe_enabled");
    bool te_set = sw->fixed[te], any_trbe = false;
    for (size_t p = 0; p < ex_param_count(); p++)
        if (!strncmp(ex_param(p)->name, "trbe_", 5) && (int)p != te && sw->fixed[p])
            any_trbe = true;
    for (int a = 0; a < sw->naxes; a++) {
        if (sw->axes[a].param == te)
            te_set = true;
        else if (!strncmp(ex_param(sw->axes[a].param)->name, "trbe_", 5))
            any_trbe = true;
    }
    /* workload.trace gives the operations: the generator's keys (mix, workload.p_*, lat_*) and
     * ops would be silently unused beside it, so they are errors naming their line; and
     * workload.repeat means nothing without a trace. */
    {
        int tp = ex_param_find("workload.trace"), rp = ex_param_find("workload.repeat");
        int tline = sw->fixed[tp] ? sw->fixed_line[tp] : 0;
        for (int a = 0; a < sw->naxes; a++)
            if (sw->axes[a].param == tp)
                tline = sw->axes[a].line;
        for (size_t p = 0; p < ex_param_count(); p++) {
            const char *n = ex_param(p)->name;
            bool gen = !strcmp(n, "mix") || !strcmp(n, "ops") || (!strncmp(n, "workload.", 9) && (int)p != tp &&
                                                                   (int)p != rp);
            if (!(gen && tline) && !((int)p == rp && !tline))
                continue;
            int line = sw->fixed[p] ? sw->fixed_line[p] : 0;
            for (int a = 0; a < sw->naxes; a++)
                if (sw->axes[a].param == (int)p)
                    line = sw->axes[a].line;
            if (!line)
                continue;
            about(c, n, sw->fixed[p] ? sw->fixed_val[p].text : NULL);
            if ((int)p == rp)
                return fail(c, NULL, line, "workload.repeat: only with workload.trace (it repeats the trace file)");
            if (!strcmp(n, "ops"))
                return fail(c, NULL, line, "ops: not used with workload.trace (line %d): a replay runs the file's "
                            "operations * workload.repeat", tline);
            return fail(c, NULL, line, "%s: not used with workload.trace (line %d): the trace file gives the "
                        "operations, not the generator", n, tline);
        }
    }
    if (sw->seeds > 1 && add_seed_axis(c))
        return -1;
    if (any_trbe && !te_set) {
        char why[64];
        ex_param_parse((size_t)te, "true", &sw->fixed_val[te], why, sizeof(why));
        sw->fixed[te] = true;
    }
    return check_points(c, false);
}

static int load(const char *name, const char *path, const char *text, unsigned flags, ex_sweep *sw,
                ex_load_error *le, char *err, size_t errlen)
{
    if (le)
        memset(le, 0, sizeof(*le));
    memset(sw, 0, sizeof(*sw));
    snprintf(sw->file, sizeof(sw->file), "%s", name);
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    snprintf(sw->name, sizeof(sw->name), "%s", base);
    char *dot = strrchr(sw->name, '.');
    if (dot && dot != sw->name)
        *dot = '\0';
    sw->max_collision_pct = 1.0;
    sw->max_lost_pct = 1.0;
    sw->seeds = 1;
    ctx c = { .file = name, .sw = sw, .err = err, .errlen = errlen, .scenario = (flags & EX_LOAD_SCENARIO) != 0,
              .le = le };

    if (path) {
        FILE *f = fopen(path, "r");
        if (!f)
            return fail(&c, NULL, 0, "cannot open: %s", strerror(errno));
        fclose(f);
    }
    struct fy_diag_cfg dc;
    fy_diag_cfg_default(&dc);
    dc.fp = NULL;
    struct fy_diag *diag = fy_diag_create(&dc);
    if (!diag)
        return fail(&c, NULL, 0, "cannot set up the YAML parser");
    fy_diag_set_collect_errors(diag, true);
    struct fy_parse_cfg pc = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG, .diag = diag };
    struct fy_document *doc = path ? fy_document_build_from_file(&pc, path)
                                   : fy_document_build_from_string(&pc, text, FY_NT);
    int rc;
    if (!doc) {
        void *it = NULL;
        struct fy_diag_error *e = fy_diag_errors_iterate(diag, &it);
        if (e) {
            snprintf(err, errlen, "%s:%d:%d: YAML error: %s", name, e->line, e->column, e->msg);
            if (le) {
                le->line = e->line;
                le->column = e->column;
            }
        }
        else
            fail(&c, NULL, 0, "cannot read the file (missing, unreadable or not YAML)");
        rc = -1;
    } else {
        rc = parse_root(&c, fy_document_root(doc));
        fy_document_destroy(doc);
    }
    fy_diag_destroy(diag);
    return rc;
}

int ex_sweep_load(const char *path, ex_sweep *sw, char *err, size_t errlen)
{
    return load(path, path, NULL, 0, sw, NULL, err, errlen);
}

int ex_sweep_load_string(const char *name, const char *text, ex_sweep *sw, char *err, size_t errlen)
{
    return load(name, NULL, text, 0, sw, NULL, err, errlen);
}

int ex_sweep_load_ex(const char *path, const char *name, const char *text, unsigned flags, ex_sweep *sw,
                     ex_load_error *le, char *err, size_t errlen)
{
    return load(path ? path : name, path, path ? NULL : text, flags, sw, le, err, errlen);
}

/* ----- The platform model ------------------------------------------------------------------ */

int ex_sweep_set_model(ex_sweep *sw, ex_model model, char *err, size_t errlen)
{
    return ex_sweep_set_model_ex(sw, model, NULL, err, errlen);
}

int ex_sweep_set_model_ex(ex_sweep *sw, ex_model model, ex_load_error *le, char *err, size_t errlen)
{
    sw->model = model;
    ctx c = { .file = sw->file, .sw = sw, .err = err, .errlen = errlen, .le = le };
    if (model != EX_MODEL_PLATFORM)
        return check_points(&c, true);
    ex_point_cfg def;
    ex_point_cfg_default(&def);
    /* A parameter armprof-vp has no key for may only hold the platform's own (built-in) value. */
    for (size_t p = 0; p < ex_param_count(); p++) {
        const ex_param_def *d = ex_param(p);
        if (d->platform)
            continue;
        ex_val builtin = ex_param_get(p, &def);
        if (sw->fixed[p])
            about(&c, d->name, sw->fixed_val[p].text);
        if (sw->fixed[p] && strcmp(sw->fixed_val[p].text, builtin.text))
            return fail(&c, NULL, sw->fixed_line[p],
                        "%s = %s: the platform model (--model platform) has no such setting (armprof-vp "
                        "always uses %s); remove it or use the C-level model", d->name, sw->fixed_val[p].text,
                        builtin.text);
        for (int a = 0; a < sw->naxes; a++)
            if (sw->axes[a].param == (int)p)
                for (int k = 0; k < sw->axes[a].nvals; k++)
                    if (strcmp(sw->axes[a].vals[k].text, builtin.text)) {
                        about(&c, d->name, sw->axes[a].vals[k].text);
                        return fail(&c, NULL, sw->axes[a].line,
                                    "%s: the platform model (--model platform) cannot sweep it (armprof-vp "
                                    "always uses %s); sweep it with the C-level model", d->name, builtin.text);
                    }
    }
    return check_points(&c, true);
}
