/* SPDX-License-Identifier: Apache-2.0 */
/* count_plugin.c: libarmprof-qemu-count.so, a bare instruction-counting QEMU plugin: the reference count for the tests and the yardstick for the bench. */
/*
 * Each instruction gets an inline add (no callback), so the count is QEMU's own count of executed
 * guest instructions. Options: out=FILE writes "insns N" there (default: stderr); mode=tb counts
 * with one inline add per translated block instead (the cheapest possible counter); mode=cb calls
 * a function before every instruction (the shape of QEMU's own tests/plugin/insn.c by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t insns;   /* not atomic: exact for one vCPU (the tests count single-threaded programs) */
static char out_path[4096];
static int per_tb, per_cb;

static void insn_cb(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    (void)ud;
    insns++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (per_tb) {
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
        return;
    }
    for (size_t i = 0; i < n && per_cb; i++)
        qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), insn_cb, QEMU_PLUGIN_CB_NO_REGS, NULL);
    for (size_t i = 0; i < n && !per_cb; i++)
        qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, i), QEMU_PLUGIN_INLINE_ADD_U64,
                                                   &insns, 1);
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    FILE *f = out_path[0] ? fopen(out_path, "w") : stderr;
    if (!f) {
        fprintf(stderr, "armprof-qemu-count: cannot create %s\n", out_path);
        return;
    }
    fprintf(f, "insns %llu\n", (unsigned long long)insns);
    if (f != stderr)
        fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (info->version.cur < QEMU_PLUGIN_VERSION || info->version.min > QEMU_PLUGIN_VERSION) {
        fprintf(stderr, "armprof-qemu-count: written for plugin API version %d; this QEMU provides %d to %d\n",
                QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "out=", 4)) {
            snprintf(out_path, sizeof out_path, "%s", argv[i] + 4);
        } else if (!strcmp(argv[i], "mode=tb")) {
            per_tb = 1;
        } else if (!strcmp(argv[i], "mode=insn")) {
            per_tb = 0;
        } else if (!strcmp(argv[i], "mode=cb")) {
            per_cb = 1;
        } else {
            fprintf(stderr, "armprof-qemu-count: unknown option '%s' (out=FILE, mode=insn|tb|cb)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
