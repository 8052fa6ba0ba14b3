/* SPDX-License-Identifier: Apache-2.0 */
/* tool_util.h: run a command line from a test, capturing its output and exit status; temp files. */
#ifndef ARMPROF_TESTS_TOOL_UTIL_H
#define ARMPROF_TESTS_TOOL_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `cmd` with sh, returns its exit status (or -1) and, in *out (malloc'd, NUL-terminated),
 * its standard output; standard error is appended when `with_stderr`. */
static inline int tool_run(const char *cmd, char **out, int with_stderr)
{
    char full[4096];
    snprintf(full, sizeof full, "%s%s", cmd, with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
        }
    }
    int st = pclose(p);
    if (b)
        b[n] = '\0';
    if (out)
        *out = b;
    else
        free(b);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fresh temporary directory; path written to buf. */
static inline int tool_tmpdir(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/armprof-spe-test-XXXXXX");
    return mkdtemp(buf) ? 0 : -1;
}

static inline int tool_write(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(b, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

static inline size_t tool_count(const char *hay, const char *needle)
{
    size_t c = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        c++;
    return c;
}

#endif
