/* SPDX-License-Identifier: Apache-2.0 */
/* plugin_args.c: parsing of the QEMU plugins' key=value arguments (plugin_args.h). */
#include "plugin_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qemu_plugin_api.h"

int pa_split(const char *arg, char *key, size_t keylen, const char **value)
{
    const char *eq = strchr(arg, '=');
    if (!eq || !keylen)
        return -1;
    size_t kl = (size_t)(eq - arg);
    if (kl >= keylen)
        kl = keylen - 1;
    memcpy(key, arg, kl);
    key[kl] = 0;
    *value = eq + 1;
    return 0;
}

int pa_u64(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || end == v || *v == '-')
        return -1;
    uint64_t mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1024, end++;
    else if (*end == 'm' || *end == 'M') mul = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G') mul = 1024ull * 1024 * 1024, end++;
    if (*end || x > UINT64_MAX / mul)
        return -1;
    *out = x * mul;
    return 0;
}

int pa_u32(const char *v, uint32_t *out)
{
    uint64_t x;
    if (pa_u64(v, &x) || x > UINT32_MAX)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

int pa_bool(const char *key, const char *v, bool *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "yes")) { *out = true; return 0; }
    if (!strcmp(v, "0") || !strcmp(v, "no")) { *out = false; return 0; }
    return qemu_plugin_bool_parse(key, v, out) ? 0 : -1;
}

const char pa_memsys_keys[] =
    "line, l1d, l1d_ways, l1d_lat, l2, l2_ways, l2_lat, llc, llc_ways, llc_lat, dram_lat, tlb, tlb_ways, "
    "tlb_lat, walk_lat, bp_entries, mispredict_lat, mshrs, l2_bw, llc_bw, dram_bw";

uint32_t *pa_memsys_field(memsys_config *m, const char *key)
{
    const struct { const char *name; uint32_t *p; } f[] = {
        { "line", &m->line_bytes }, { "l1d", &m->l1d_bytes }, { "l1d_ways", &m->l1d_ways },
        { "l1d_lat", &m->l1d_lat }, { "l2", &m->l2_bytes }, { "l2_ways", &m->l2_ways },
        { "l2_lat", &m->l2_lat }, { "llc", &m->llc_bytes }, { "llc_ways", &m->llc_ways },
        { "llc_lat", &m->llc_lat }, { "dram_lat", &m->dram_lat }, { "tlb", &m->tlb_entries },
        { "tlb_ways", &m->tlb_ways }, { "tlb_lat", &m->tlb_lat }, { "walk_lat", &m->walk_lat },
        { "bp_entries", &m->bp_entries }, { "mispredict_lat", &m->mispredict_lat },
        { "mshrs", &m->mshrs }, { "l2_bw", &m->l2_bw }, { "llc_bw", &m->llc_bw }, { "dram_bw", &m->dram_bw },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!strcmp(key, f[i].name))
            return f[i].p;
    return NULL;
}

int pa_check(const memsys_config *ms, const spu_config *spu, const char *out, char *why, size_t whylen)
{
    char w[200];
    if (memsys_config_check(ms, w, sizeof w)) {
        snprintf(why, whylen, "option %s", w);
        return -1;
    }
    armprof_err e = spu_config_validate(spu, w, sizeof w);
    if (e != ARMPROF_OK) {
        snprintf(why, whylen, "SPU configuration (options 'fifo', 'inflight', ...): %s (%s)", w,
                 armprof_strerror(e));
        return -1;
    }
    struct stat st;
    if (*out && (stat(out, &st) || !S_ISDIR(st.st_mode)) && mkdir(out, 0777) && errno != EEXIST) {
        snprintf(why, whylen, "option 'out': cannot create directory %s: %s", out, strerror(errno));
        return -1;
    }
    return 0;
}
