/* SPDX-License-Identifier: Apache-2.0 */
/* qemu_spe_api.h: armprof's declarations of the SPE backend interface that qemu/patches adds to qemu-system-aarch64 (target/arm/spe.h, version 1). */
/*
 * The patch series (qemu/patches, GPL-2.0-or-later like QEMU) gives an AArch64 CPU the
 * Statistical Profiling Extension's System registers, ID field, PMBIRQ output and device-tree
 * node, and leaves what the unit does to a backend. libarmprof-qemu-system.so is that backend:
 * it registers the operations below when QEMU installs it as a TCG plugin, and QEMU calls them
 * on the vCPU's own thread. The layouts here must match the patch's; the version number says
 * which, and QEMU refuses a backend of another version.
 */
#ifndef ARMPROF_QEMU_SPE_API_H
#define ARMPROF_QEMU_SPE_API_H

#include <stdbool.h>
#include <stdint.h>

#define ARM_SPE_BACKEND_VERSION 1

/* The PE state the unit depends on, as QEMU sees it when it calls. */
typedef struct ARMSPECPUState {
    uint64_t pc;
    uint8_t el;                 /* PSTATE.EL */
    bool aarch32;
    bool secure;                /* current Security state is Secure */
    bool have_el2;
    bool have_el3;
    bool el2_enabled;
    bool os_lock;               /* OSLSR_EL1.OSLK */
    uint64_t scr_el3;
    uint64_t hcr_el2;           /* effective value */
    uint64_t mdcr_el2;
    uint64_t mdcr_el3;
    uint64_t contextidr_el1;
    uint64_t contextidr_el2;
    uint64_t cntvoff_el2;
    uint64_t virtual_ns;        /* QEMU_CLOCK_VIRTUAL */
    uint64_t cntfrq_hz;         /* system counter frequency */
} ARMSPECPUState;

typedef enum ARMSPEAccess {
    ARM_SPE_ACCESS_OK = 0,
    ARM_SPE_ACCESS_UNDEFINED = 1,
    ARM_SPE_ACCESS_TRAP_EL2 = 2,
    ARM_SPE_ACCESS_TRAP_EL3 = 3
} ARMSPEAccess;

typedef enum ARMSPERegime {
    ARM_SPE_REGIME_EL10 = 0,
    ARM_SPE_REGIME_EL2 = 1,
    ARM_SPE_REGIME_EL20 = 2
} ARMSPERegime;

typedef struct ARMSPEBufferWrite {
    uint64_t addr;              /* VA, or IPA/PA when nvm */
    const void *data;
    uint32_t len;
    ARMSPERegime regime;
    bool secure;                /* owning Security state */
    bool stage2;
    bool nvm;
} ARMSPEBufferWrite;

typedef enum ARMSPEWriteStatus {
    ARM_SPE_WRITE_OK = 0,
    ARM_SPE_WRITE_FAULT = 1,
    ARM_SPE_WRITE_EXT_ABORT = 2
} ARMSPEWriteStatus;

typedef struct ARMSPEWriteResult {
    ARMSPEWriteStatus status;
    uint32_t written;           /* bytes written before the fault */
    uint32_t fsc;               /* long-descriptor fault status code, level included */
    bool stage2;                /* at stage 2 */
    bool s1ptw;                 /* on a stage 2 walk for a stage 1 table */
    uint64_t pa;                /* physical address of the first byte */
} ARMSPEWriteResult;

typedef struct ARMSPEBackendOps {
    uint32_t version;
    int (*cpu_realize)(void *opaque, int cpu_index, const char **err);
    void (*cpu_reset)(void *opaque, int cpu_index);
    ARMSPEAccess (*access)(void *opaque, int cpu_index, uint32_t enc, bool isread, const ARMSPECPUState *st);
    uint64_t (*read)(void *opaque, int cpu_index, uint32_t enc, const ARMSPECPUState *st);
    void (*write)(void *opaque, int cpu_index, uint32_t enc, uint64_t value, const ARMSPECPUState *st);
    void (*el_change)(void *opaque, int cpu_index, const ARMSPECPUState *st);
} ARMSPEBackendOps;

/* Exported by the patched qemu-system-aarch64 to its plugins. */
int arm_spe_backend_register(const ARMSPEBackendOps *ops, void *opaque);
void arm_spe_cpu_state(int cpu_index, ARMSPECPUState *st);
void arm_spe_buffer_write(int cpu_index, const ARMSPEBufferWrite *w, ARMSPEWriteResult *res);
void arm_spe_set_irq(int cpu_index, bool level);

#endif
