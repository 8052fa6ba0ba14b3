/* SPDX-License-Identifier: Apache-2.0 */
/* trace_file.c: operation-trace file reader (errors name file and line) and writer. */
#define _POSIX_C_SOURCE 200809L
#include "trace_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/spe.h"

static int fail(char *why, size_t n, const char *fmt, ...)
{
    if (why && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* `tok` for a message: bytes outside printable ASCII (and backslashes) as \xNN, at most about 40
 * characters, so that a file that is not a trace puts no raw bytes on a terminal. */
static const char *shown(const char *tok, char *buf, size_t cap)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)tok; *p && k + 8 < cap; p++) {
        if (k >= 40) {
            k += (size_t)snprintf(buf + k, cap - k, "...");
            break;
        }
        if (*p >= 0x20 && *p < 0x7f && *p != '\\')
            buf[k++] = (char)*p;
        else
            k += (size_t)snprintf(buf + k, cap - k, "\\x%02x", *p);
    }
    buf[k] = 0;
    return buf;
}

/* The next whitespace-separated token of *p (up to a '#'), copied into tok; false at the end. */
static bool next_token(const char **p, char *tok, size_t cap)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (!*s || *s == '#')
        return false;
    size_t n = 0;
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n' && *s != '#') {
        if (n + 1 < cap)
            tok[n++] = *s;
        s++;
    }
    tok[n] = 0;
    *p = s;
    return true;
}

/* An unsigned number (decimal, 0x hex or 0 octal) no larger than max. */
static int number(const char *tok, const char *what, uint64_t max, uint64_t *out, char *why, size_t n)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(tok, &end, 0);
    char b[64];
    if (!*tok || *end || errno || tok[0] == '-' || tok[0] == '+')
        return fail(why, n, "%s: not an unsigned number: '%s'", what, shown(tok, b, sizeof b));
    if (v > max)
        return fail(why, n, "%s: %s is larger than %llu", what, shown(tok, b, sizeof b), (unsigned long long)max);
    *out = v;
    return 0;
}

static const char *const class_names[] = {"other", "ldst", "branch"};

int wl_trace_parse_line(const char *line, spu_op *op, char *why, size_t whylen)
{
    char tok[128], b[64];
    const char *p = line;
    if (!next_token(&p, tok, sizeof tok))
        return 0; /* blank or comment */
    if (!strcmp(tok, WL_TRACE_MAGIC)) {
        uint64_t v;
        if (!next_token(&p, tok, sizeof tok) || number(tok, "version", 255, &v, why, whylen) || v != WL_TRACE_VERSION)
            return fail(why, whylen, "header: expected '" WL_TRACE_MAGIC " %d'", WL_TRACE_VERSION);
        return 0;
    }
    memset(op, 0, sizeof *op);
    /* pa_ns / target_el / target_ns default to Non-secure EL1 when pa / target is given. */
    int pa_ns = -1, target_el = -1, target_ns = -1;
    static const char *const fields[] = {"PC", "CLASS", "SUBCLASS", "TOTAL_LAT", "ISSUE_LAT"};
    uint64_t v;
    for (unsigned i = 0; i < 5; i++) {
        if (i && !next_token(&p, tok, sizeof tok))
            return fail(why, whylen, "truncated line: %s missing (expected PC CLASS SUBCLASS TOTAL_LAT ISSUE_LAT)",
                        fields[i]);
        switch (i) {
        case 0:
            if (number(tok, "PC", UINT64_MAX, &v, why, whylen))
                return -1;
            op->pc = v;
            break;
        case 1: {
            unsigned c;
            for (c = 0; c < 3 && strcmp(tok, class_names[c]); c++)
                ;
            if (c == 3)
                return fail(why, whylen, "CLASS: unknown class '%s' (other, ldst or branch)", shown(tok, b, sizeof b));
            op->op_class = (uint8_t)c;
            break;
        }
        case 2:
            if (number(tok, "SUBCLASS", 0xFF, &v, why, whylen))
                return -1;
            op->op_subclass = (uint8_t)v;
            break;
        case 3:
            if (number(tok, "TOTAL_LAT", UINT32_MAX, &v, why, whylen))
                return -1;
            op->total_lat = (uint32_t)v;
            break;
        default:
            if (number(tok, "ISSUE_LAT", UINT32_MAX, &v, why, whylen))
                return -1;
            op->issue_lat = (uint32_t)v;
            break;
        }
    }
    while (next_token(&p, tok, sizeof tok)) {
        if (!strcmp(tok, "exception")) {
            op->flags |= SPU_OP_EXCEPTION;
            continue;
        }
        if (!strcmp(tok, "not_retired")) {
            op->flags |= SPU_OP_NOT_RETIRED;
            continue;
        }
        char *eq = strchr(tok, '=');
        if (!eq)
            return fail(why, whylen, "'%s': expected key=value, exception or not_retired", shown(tok, b, sizeof b));
        *eq = 0;
        const char *k = tok, *val = eq + 1;
        if (!strcmp(k, "va")) {
            if (number(val, "va", UINT64_MAX, &v, why, whylen))
                return -1;
            op->data_va = v;
            op->flags |= SPU_OP_HAS_VA;
        } else if (!strcmp(k, "pa")) {
            if (number(val, "pa", UINT64_MAX, &v, why, whylen))
                return -1;
            op->data_pa = v;
            op->flags |= SPU_OP_HAS_PA;
        } else if (!strcmp(k, "pa_ns")) {
            if (number(val, "pa_ns", 1, &v, why, whylen))
                return -1;
            pa_ns = (int)v;
        } else if (!strcmp(k, "xlat")) {
            if (number(val, "xlat", UINT32_MAX, &v, why, whylen))
                return -1;
            op->xlat_lat = (uint32_t)v;
            op->flags |= SPU_OP_HAS_XLAT;
        } else if (!strcmp(k, "src")) {
            if (number(val, "src", 0xFFFF, &v, why, whylen))
                return -1;
            op->data_source = (uint16_t)v;
            op->flags |= SPU_OP_HAS_DSRC;
        } else if (!strcmp(k, "target")) {
            if (number(val, "target", UINT64_MAX, &v, why, whylen))
                return -1;
            op->target = v;
            op->flags |= SPU_OP_HAS_TARGET;
        } else if (!strcmp(k, "target_el")) {
            if (number(val, "target_el", 3, &v, why, whylen))
                return -1;
            target_el = (int)v;
        } else if (!strcmp(k, "target_ns")) {
            if (number(val, "target_ns", 1, &v, why, whylen))
                return -1;
            target_ns = (int)v;
        } else if (!strcmp(k, "ev")) {
            if (number(val, "ev", UINT64_MAX, &v, why, whylen))
                return -1;
            op->events = v;
        } else {
            return fail(why, whylen, "unknown key '%s' (va, pa, pa_ns, xlat, src, target, target_el, target_ns, ev)",
                        shown(k, b, sizeof b));
        }
    }
    if (pa_ns >= 0 && !(op->flags & SPU_OP_HAS_PA))
        return fail(why, whylen, "pa_ns without pa");
    if ((target_el >= 0 || target_ns >= 0) && !(op->flags & SPU_OP_HAS_TARGET))
        return fail(why, whylen, "target_el / target_ns without target");
    if (op->flags & SPU_OP_HAS_PA)
        op->data_pa_ns = pa_ns != 0;
    if (op->flags & SPU_OP_HAS_TARGET) {
        op->target_el = (uint8_t)(target_el < 0 ? 1 : target_el);
        op->target_ns = target_ns != 0;
    }
    return 1;
}

void wl_trace_free(wl_trace *t)
{
    free(t->ops);
    memset(t, 0, sizeof *t);
}

int wl_trace_load(const char *path, wl_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0;
    char why[200];
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        spu_op op;
        int r = wl_trace_parse_line(line, &op, why, sizeof why);
        if (r < 0) {
            rc = fail(err, errlen, "%s:%lu: %s", path, lineno, why);
            break;
        }
        if (r == 0)
            continue;
        if (t->count == t->cap) {
            size_t nc = t->cap ? 2 * t->cap : 1024;
            spu_op *n = realloc(t->ops, nc * sizeof *n);
            if (!n) {
                rc = fail(err, errlen, "%s:%lu: out of memory", path, lineno);
                break;
            }
            t->ops = n;
            t->cap = nc;
        }
        t->ops[t->count++] = op;
    }
    if (!rc && ferror(f))
        rc = fail(err, errlen, "%s:%lu: %s", path, lineno + 1, strerror(errno ? errno : EIO));
    if (!rc && !t->count)
        rc = fail(err, errlen, "%s: no operations in the file", path);
    free(line);
    fclose(f);
    if (rc)
        wl_trace_free(t);
    return rc;
}

int wl_trace_write_header(FILE *f)
{
    return fprintf(f, "%s %d\n# PC CLASS SUBCLASS TOTAL_LAT ISSUE_LAT [key=value ...] (docs/trace-format.md)\n",
                   WL_TRACE_MAGIC, WL_TRACE_VERSION) < 0 ? -1 : 0;
}

int wl_trace_write_op(FILE *f, const spu_op *op)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "0x%llx %s 0x%02x %u %u", (unsigned long long)op->pc,
                     op->op_class < 3 ? class_names[op->op_class] : "?", op->op_subclass, op->total_lat, op->issue_lat);
#define ADD(...) n += snprintf(buf + n, sizeof buf - (size_t)n, __VA_ARGS__)
    if (op->flags & SPU_OP_HAS_VA)
        ADD(" va=0x%llx", (unsigned long long)op->data_va);
    if (op->flags & SPU_OP_HAS_PA)
        ADD(" pa=0x%llx", (unsigned long long)op->data_pa);
    if ((op->flags & SPU_OP_HAS_PA) && !op->data_pa_ns)
        ADD(" pa_ns=0");
    if (op->flags & SPU_OP_HAS_XLAT)
        ADD(" xlat=%u", op->xlat_lat);
    if (op->flags & SPU_OP_HAS_DSRC)
        ADD(" src=%u", op->data_source);
    if (op->flags & SPU_OP_HAS_TARGET)
        ADD(" target=0x%llx", (unsigned long long)op->target);
    if ((op->flags & SPU_OP_HAS_TARGET) && op->target_el != 1)
        ADD(" target_el=%u", op->target_el);
    if ((op->flags & SPU_OP_HAS_TARGET) && !op->target_ns)
        ADD(" target_ns=0");
    if (op->events)
        ADD(" ev=0x%llx", (unsigned long long)op->events);
    if (op->flags & SPU_OP_EXCEPTION)
        ADD(" exception");
    if (op->flags & SPU_OP_NOT_RETIRED)
        ADD(" not_retired");
#undef ADD
    if (op->op_class >= 3)
        return -1;
    return fprintf(f, "%s\n", buf) < 0 ? -1 : 0;
}
