/* SPDX-License-Identifier: Apache-2.0 */
/* qemu_plugin_api.h: armprof's own declarations of the TCG plugin C API exported by QEMU 7.2 (API version 1). */
/*
 * Debian ships no qemu-plugin.h, so the subset of the API that armprof uses is declared here
 * from QEMU's plugin documentation (docs/devel/tcg-plugins.rst, "Plugin API"). Every function
 * below is a symbol that qemu-aarch64 7.2 exports to the plugins it dlopen()s; the plugin is
 * linked with them left undefined and resolved at load time.
 *
 * Versioning: a plugin exports `int qemu_plugin_version` with the API level it was written for.
 * QEMU refuses to load a plugin without that symbol, or whose level is outside the range
 * [info->version.min, info->version.cur] that it passes to qemu_plugin_install(). The plugin
 * checks the same range itself, so a mismatch gets armprof's own message too.
 */
#ifndef ARMPROF_QEMU_PLUGIN_API_H
#define ARMPROF_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API level these declarations describe (QEMU 7.2). */
#define QEMU_PLUGIN_VERSION 1

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* Opaque id QEMU gives the plugin at install time; passed back in registrations. */
typedef uint64_t qemu_plugin_id_t;

/* What QEMU tells the plugin at install time (valid only during qemu_plugin_install). */
typedef struct qemu_info_t {
    const char *target_name;        /* guest architecture, "aarch64" */
    struct {
        int min;                    /* oldest API level this QEMU still accepts */
        int cur;                    /* newest API level this QEMU provides */
    } version;
    bool system_emulation;          /* false under qemu-user (linux-user) */
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;                   /* system emulation only */
    };
} qemu_info_t;

/* Exported by the plugin. */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv);

/* Callback shapes. */
typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);

/* Opaque handles, valid only inside the translation callback that received them. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;

/* Whether an execution callback touches the guest registers (it cannot in 7.2: NO_REGS). */
enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS = 0,
    QEMU_PLUGIN_CB_R_REGS = 1,
    QEMU_PLUGIN_CB_RW_REGS = 2
};

/* Which accesses a memory callback is called for. */
enum qemu_plugin_mem_rw {
    QEMU_PLUGIN_MEM_R = 1,
    QEMU_PLUGIN_MEM_W = 2,
    QEMU_PLUGIN_MEM_RW = 3
};

/* The one inline operation: *(uint64_t *)ptr += imm, emitted into the translated code. */
enum qemu_plugin_op {
    QEMU_PLUGIN_INLINE_ADD_U64 = 0
};

/* Lifetime and vCPU callbacks. */
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

/* Translation: called once per translated block, before it first runs. */
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);

/* Execution instrumentation, registered from the translation callback. A block callback runs
 * each time the block starts executing; an instruction callback before the instruction runs. */
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);

/* Queries on a block and its instructions (translation time). */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);   /* opcode bytes */
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);  /* may be NULL */

/* Memory accesses: `info` packs size, sign, endianness and direction of one access. */
typedef uint32_t qemu_plugin_meminfo_t;
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);        /* log2 bytes */
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
/* Called after each access of the instruction it is registered on, with the guest VA. */
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);

/* System emulation: the physical side of an access, valid only inside the memory callback
 * (NULL under linux-user); the guest physical address of `vaddr`. */
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

/* Unregisters every callback of the plugin, flushes the translated code once every vCPU is at a
 * safe point, then calls cb (where the plugin may register callbacks again). */
void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);

/* System calls of the guest (linux-user): arguments before, return value after. */
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num,
                                              uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                              uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index,
                                                  int64_t num, int64_t ret);
void qemu_plugin_register_vcpu_syscall_ret_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_ret_cb_t cb);

/* Output through QEMU's log (stderr unless -D redirects it). */
void qemu_plugin_outs(const char *string);
/* Parses "on"/"off"/"true"/"false" for option `name`; false when `val` is none of them. */
bool qemu_plugin_bool_parse(const char *name, const char *val, bool *ret);

/* linux-user: the guest program and where its code was loaded (guest virtual addresses). */
const char *qemu_plugin_path_to_binary(void);
uint64_t qemu_plugin_start_code(void);
uint64_t qemu_plugin_end_code(void);
uint64_t qemu_plugin_entry_code(void);

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_QEMU_PLUGIN_API_H */
