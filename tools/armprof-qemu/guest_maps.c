/* SPDX-License-Identifier: Apache-2.0 */
/* guest_maps.c: find the guest's AArch64 ELF file mappings in qemu-user's /proc/self/maps and describe them as perf MMAP2 events. */
#define _GNU_SOURCE
#include "guest_maps.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

/* The executable PT_LOAD segments' file ranges of an AArch64 ELF64 file; 0 if it is not one. */
typedef struct elf_info {
    int n;
    uint64_t off[8], filesz[8], vaddr[8];
} elf_info;

static int elf_exec_segments(const char *path, elf_info *ei)
{
    memset(ei, 0, sizeof(*ei));
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    Elf64_Ehdr eh;
    int ok = fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
             eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_AARCH64 &&
             eh.e_phentsize == sizeof(Elf64_Phdr);
    for (int i = 0; ok && i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof ph), SEEK_SET) || fread(&ph, sizeof ph, 1, f) != 1)
            break;
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ei->n < 8) {
            ei->off[ei->n] = ph.p_offset;
            ei->filesz[ei->n] = ph.p_filesz;
            ei->vaddr[ei->n] = ph.p_vaddr;
            ei->n++;
        }
    }
    fclose(f);
    return ok;
}

typedef struct raw_map {
    uint64_t lo, hi, off;
    char *path;
} raw_map;

void guest_maps_free(perf_export_mmap *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)m[i].filename);
    free(m);
}

int guest_maps_collect(const char *exe, uint64_t start_code, perf_export_mmap **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) {
        snprintf(err, errlen, "cannot read /proc/self/maps: %s", strerror(errno));
        return -1;
    }
    raw_map *raw = NULL;
    size_t nraw = 0, cap = 0;
    char line[4352];
    while (fgets(line, sizeof line, f)) {
        uint64_t lo, hi, off;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &lo, &hi, perms, &off, &pos) < 4 ||
            pos <= 0)
            continue;
        char *p = line + pos;
        p[strcspn(p, "\n")] = 0;
        if (p[0] != '/')
            continue;
        if (nraw == cap) {
            cap = cap ? 2 * cap : 64;
            raw_map *nr = realloc(raw, cap * sizeof *raw);
            if (!nr)
                break;
            raw = nr;
        }
        raw[nraw++] = (raw_map){ .lo = lo, .hi = hi, .off = off, .path = strdup(p) };
    }
    fclose(f);

    /* guest_base: where the executable's first executable segment sits on the host, minus
     * start_code (its guest address). */
    char exe_real[4096];
    int64_t guest_base = 0;
    if (exe && realpath(exe, exe_real)) {
        elf_info ei;
        if (elf_exec_segments(exe_real, &ei) && ei.n) {
            for (size_t i = 0; i < nraw; i++) {
                if (!raw[i].path || strcmp(raw[i].path, exe_real))
                    continue;
                uint64_t len = raw[i].hi - raw[i].lo;
                if (ei.off[0] >= raw[i].off && ei.off[0] < raw[i].off + len) {
                    uint64_t host = raw[i].lo + (ei.off[0] - raw[i].off) + (ei.vaddr[0] & 0xFFF) - (ei.off[0] & 0xFFF);
                    guest_base = (int64_t)(host - start_code);
                    break;
                }
            }
        }
    }

    perf_export_mmap *m = calloc(nraw ? nraw : 1, sizeof *m);
    size_t n = 0;
    const char *last = NULL;
    elf_info cur = { 0 };
    int cur_ok = 0;
    for (size_t i = 0; m && i < nraw; i++) {
        if (!raw[i].path)
            continue;
        if (!last || strcmp(last, raw[i].path)) {
            cur_ok = elf_exec_segments(raw[i].path, &cur);
            last = raw[i].path;
        }
        if (!cur_ok)
            continue;
        uint64_t len = raw[i].hi - raw[i].lo;
        int exec = 0;
        for (int s = 0; s < cur.n; s++)
            if (cur.off[s] < raw[i].off + len && cur.off[s] + cur.filesz[s] > raw[i].off)
                exec = 1;
        struct stat st;
        memset(&st, 0, sizeof st);
        stat(raw[i].path, &st);
        m[n] = (perf_export_mmap){
            .start = raw[i].lo - (uint64_t)guest_base, .len = len, .pgoff = raw[i].off,
            .maj = major(st.st_dev), .min = minor(st.st_dev), .ino = st.st_ino,
            .prot = PROT_READ | (exec ? PROT_EXEC : PROT_WRITE), .flags = MAP_PRIVATE,
            .data = !exec, .filename = strdup(raw[i].path),
        };
        n++;
    }
    for (size_t i = 0; i < nraw; i++)
        free(raw[i].path);
    free(raw);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *out = m;
    return (int)n;
}
