/* SPDX-License-Identifier: Apache-2.0 */
/* explore_csv.h: reads an armprof-explore results.csv (empty cells are NaN) for the explore tests. */
#ifndef EXPLORE_CSV_H
#define EXPLORE_CSV_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_MAX_COLS 80
#define CSV_MAX_ROWS 64

typedef struct csv {
    int ncol, nrow;
    char head[CSV_MAX_COLS][40];
    char key[CSV_MAX_ROWS][48];  /* the text of column 1 (the first swept parameter) */
    double v[CSV_MAX_ROWS][CSV_MAX_COLS];
} csv;

/* 0 on success; -1 when the file is missing or malformed. */
static inline int csv_load(const char *path, csv *t)
{
    memset(t, 0, sizeof(*t));
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    int r = -1;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (r >= CSV_MAX_ROWS)
            break;
        int c = 0;
        char *p = line;
        for (;;) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            if (c >= CSV_MAX_COLS)
                break;
            if (r < 0)
                snprintf(t->head[c], sizeof(t->head[c]), "%.39s", p);
            else {
                t->v[r][c] = *p ? strtod(p, NULL) : NAN;
                if (c == 1)
                    snprintf(t->key[r], sizeof(t->key[r]), "%.47s", p);
            }
            c++;
            if (!comma)
                break;
            p = comma + 1;
        }
        if (r < 0)
            t->ncol = c;
        else if (c != t->ncol) {
            fclose(f);
            return -1;
        }
        r++;
    }
    fclose(f);
    t->nrow = r;
    return 0;
}

/* Column index by name, or -1. */
static inline int csv_col(const csv *t, const char *name)
{
    for (int c = 0; c < t->ncol; c++)
        if (!strcmp(t->head[c], name))
            return c;
    return -1;
}

#endif
