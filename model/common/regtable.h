/* SPDX-License-Identifier: Apache-2.0 */
/* regtable.h: a unit's register access table and the one generic read/write path over it. */
#ifndef ARMPROF_COMMON_REGTABLE_H
#define ARMPROF_COMMON_REGTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armprof/armprof.h"

/*
 * One entry per System register, in the style of QEMU's register access tables: the table is
 * the single source of truth for encodings, reset values and RES0/RES1/read-only bits, and
 * tests walk the same table. Values live in the unit's own array at `slot`. An AP_REG_ALIAS
 * entry (PMSCR_EL12) shares the slot of the register it aliases and takes that register's masks
 * and hooks; only its own `check` (access pseudocode) applies before them.
 *
 * The write path, in this fixed order:
 *   1. `check` (access pseudocode): ARMPROF_ERR_NOREG (the register does not exist in this
 *      configuration) aborts the write;
 *   2. AP_REG_RO registers refuse the write with ARMPROF_ERR_UNDEFINED: an ID register has no
 *      MSR form, and an unallocated encoding is UNDEFINED at every Exception level, before any
 *      trap the register's MRS form has;
 *   3. the other outcomes of `check` (UNDEFINED / traps / NV2 redirection) abort the write;
 *   4. v = (new & ~(res0 | ro)) | (old & ro) | res1, with the unit's config-dependent RES0
 *      bits from `res0_extra`;
 *   5. `prewrite` may adjust v (e.g. a reserved field value);
 *   6. store; 7. `postwrite` runs side effects (re-evaluate enables, drive the IRQ).
 * The read path: `check`, then `read` (computed registers) or the stored value.
 * Steps 1-3 (the read path's `check`) are ap_reg_check(), which has no effect: a host asks it
 * before the access (QEMU's accessfn) and gets exactly what the access would return.
 */
typedef struct ap_regdef ap_regdef;

typedef armprof_err (*ap_reg_check_fn)(void *unit, const ap_regdef *r, bool write);
typedef uint64_t (*ap_reg_read_fn)(void *unit, const ap_regdef *r, uint64_t stored);
typedef uint64_t (*ap_reg_prewrite_fn)(void *unit, const ap_regdef *r, uint64_t old, uint64_t v);
typedef void (*ap_reg_postwrite_fn)(void *unit, const ap_regdef *r, uint64_t old, uint64_t v);
typedef uint64_t (*ap_reg_mask_fn)(void *unit, const ap_regdef *r);

enum {
    AP_REG_RO = 1u << 0,      /* read-only register (ID registers) */
    AP_REG_ALIAS = 1u << 1,   /* shares its slot with another entry; not reset separately */
    AP_REG_NORESET = 1u << 2  /* value is UNKNOWN at reset: reset leaves the stored value */
};

struct ap_regdef {
    const char *name;         /* Arm's name, e.g. "PMBSR_EL1" */
    uint32_t enc;             /* ARMPROF_SYSREG(op0, op1, CRn, CRm, op2) */
    uint16_t slot;            /* index into the unit's value array */
    uint16_t flags;           /* AP_REG_* */
    uint64_t reset;           /* value after reset (ID registers: filled by the unit) */
    uint64_t res0;            /* RES0 bits, whatever the configuration */
    uint64_t res1;            /* RES1 bits */
    uint64_t ro;              /* read-only bits within a writable register */
    ap_reg_check_fn check;
    ap_reg_read_fn read;
    ap_reg_prewrite_fn prewrite;
    ap_reg_postwrite_fn postwrite;
    ap_reg_mask_fn res0_extra; /* RES0 bits that depend on the configuration */
};

typedef struct ap_regfile {
    const ap_regdef *defs;
    size_t count;
    uint64_t *vals;           /* the unit's storage, indexed by slot */
    void *unit;               /* passed to every hook */
} ap_regfile;

const ap_regdef *ap_reg_find(const ap_regfile *rf, uint32_t enc);
const ap_regdef *ap_reg_find_name(const ap_regfile *rf, const char *name);
/* Effective RES0 mask of a register (static | config-dependent). */
uint64_t ap_reg_res0(const ap_regfile *rf, const ap_regdef *r);
/* The outcome of the access checks of a read (is_write false) or write of `enc`, with no effect:
 * ARMPROF_ERR_NOREG, _UNDEFINED, _TRAP_EL2, _TRAP_EL3, _NV2_MEM or ARMPROF_OK. ap_reg_read() and
 * ap_reg_write() begin with it. */
armprof_err ap_reg_check(const ap_regfile *rf, uint32_t enc, bool is_write);
armprof_err ap_reg_read(const ap_regfile *rf, uint32_t enc, uint64_t *out);
armprof_err ap_reg_write(ap_regfile *rf, uint32_t enc, uint64_t val);
/* Write without the access check or hooks (reset, restore, indirect writes by the unit). */
void ap_reg_set_raw(ap_regfile *rf, const ap_regdef *r, uint64_t val);
/* Load every non-alias register with its reset value (AP_REG_NORESET ones only when `cold`). */
void ap_reg_reset(ap_regfile *rf, bool cold);

#endif
