/* SPDX-License-Identifier: Apache-2.0 */
/* spe_fmt.h: decoded SPE records as JSON lines, CSV rows and a summary (shared by armprof-decode and bench-decode). */
#ifndef ARMPROF_SPE_FMT_H
#define ARMPROF_SPE_FMT_H

#include <stdint.h>
#include <stdio.h>

#include "armprof/spe.h"

/* Longest line spe_fmt_json() / spe_fmt_csv() can write. */
#define SPE_FMT_LINE_MAX 2048

/* Saturated counters (seed 001 §5.3.4: with 12-bit counters, PMSIDR_EL1.CountSize 0b0010, COUNT
 * 0xFFF means the count saturated; with 16-bit ones 0xFFFF). `count_max` is 0xFFF or 0xFFFF. */
enum { SPE_FMT_SAT_TOTAL = 1, SPE_FMT_SAT_ISSUE = 2, SPE_FMT_SAT_XLAT = 4 };
static inline unsigned spe_fmt_saturated(const spe_decoded *d, uint16_t count_max)
{
    return ((d->have & SPE_R_TOTAL_LAT) && d->rec.total_lat == count_max ? SPE_FMT_SAT_TOTAL : 0u) |
           ((d->have & SPE_R_ISSUE_LAT) && d->rec.issue_lat == count_max ? SPE_FMT_SAT_ISSUE : 0u) |
           ((d->have & SPE_R_XLAT_LAT) && d->rec.xlat_lat == count_max ? SPE_FMT_SAT_XLAT : 0u);
}

/* One record as a JSON object and a newline; returns the bytes written to buf (SPE_FMT_LINE_MAX).
 * Saturated counters are listed in "saturated" (["total","issue","xlat"]); spe_fmt_json() assumes
 * 12-bit counters (count_max 0xFFF). */
size_t spe_fmt_json(const spe_decoded *r, char *buf);
size_t spe_fmt_json_ex(const spe_decoded *r, char *buf, uint16_t count_max);
/* The CSV header line and one record as a CSV row (both end in a newline). The last column,
 * "saturated", names the saturated counters joined by '|' (e.g. "total|xlat"), empty if none. */
const char *spe_fmt_csv_header(void);
size_t spe_fmt_csv(const spe_decoded *r, char *buf);
size_t spe_fmt_csv_ex(const spe_decoded *r, char *buf, uint16_t count_max);

/* PC as Linux perf shows it: bits [55:0], and bits [63:56] all ones for a Non-secure EL1 or EL2
 * address (arm_spe_calc_ip() in tools/perf/util/arm-spe-decoder). */
uint64_t spe_fmt_perf_ip(uint64_t addr55, unsigned el, int ns);

#define SPE_LAT_BUCKETS 17   /* 0, 1, 2-3, 4-7, ..., 32768-65535 */

typedef struct spe_summary {
    uint64_t records, bytes;
    uint64_t by_class[4];          /* SPE_CLASS_*; [3]: no Operation Type packet */
    uint64_t ldst_load, ldst_store;
    uint64_t br_cond, br_indirect;
    uint64_t by_el[4];
    uint64_t events[64];
    uint64_t lat_n[3], lat_sum[3], lat_max[3];
    uint64_t lat_hist[3][SPE_LAT_BUCKETS];
    uint64_t with_ts, with_end;
    uint64_t ignored, notes, errors;
    uint16_t count_max;            /* set by the caller: 0xFFF (12-bit counters, also when 0) or 0xFFFF */
    uint64_t sat[3];               /* saturated total / issue / translation counters */
    uint64_t sat_records;          /* records with at least one saturated counter */
} spe_summary;

void spe_summary_add(spe_summary *s, const spe_decoded *r);
void spe_summary_print(const spe_summary *s, FILE *f);

#endif
