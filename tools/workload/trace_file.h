/* SPDX-License-Identifier: Apache-2.0 */
/* trace_file.h: the operation-trace file (docs/trace-format.md): a reader that fills spu_op as the synthetic generator does, and a writer. */
#ifndef ARMPROF_TRACE_FILE_H
#define ARMPROF_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "armprof/spu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One retired operation per line (docs/trace-format.md):
 *   PC CLASS SUBCLASS TOTAL_LAT ISSUE_LAT [key=value ...] [exception] [not_retired]
 * CLASS: other | ldst | branch; keys: va, pa, pa_ns, xlat, src, target, target_el, target_ns,
 * ev. '#' starts a comment; blank lines are skipped; an optional first line "armprof-trace 1".
 */
#define WL_TRACE_MAGIC "armprof-trace"
#define WL_TRACE_VERSION 1

/* Every operation of a trace file, in order. */
typedef struct wl_trace {
    spu_op *ops;
    size_t count;
    size_t cap;
} wl_trace;

/* Loads the file into *t (which it initialises). Returns 0, or -1 with "PATH:LINE: what is
 * wrong" (or "PATH: ..." for the file as a whole) in err; *t is then empty. */
int wl_trace_load(const char *path, wl_trace *t, char *err, size_t errlen);
void wl_trace_free(wl_trace *t);

/* One line (NUL-terminated, newline optional): 1 with *op filled, 0 for a line with no
 * operation (blank, comment, header), -1 with the reason in why. */
int wl_trace_parse_line(const char *line, spu_op *op, char *why, size_t whylen);

/* The header line, and one operation as a line that parses back to the same spu_op. Return 0,
 * or -1 on a write error. */
int wl_trace_write_header(FILE *f);
int wl_trace_write_op(FILE *f, const spu_op *op);

#ifdef __cplusplus
}
#endif
#endif
