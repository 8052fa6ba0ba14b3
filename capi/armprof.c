/* SPDX-License-Identifier: Apache-2.0 */
/* armprof.c: names for the shared C API enums. */
#include "armprof/armprof.h"

const char *armprof_strerror(armprof_err err)
{
    switch (err) {
    case ARMPROF_OK: return "success";
    case ARMPROF_ERR_INVAL: return "invalid argument";
    case ARMPROF_ERR_NOMEM: return "out of memory";
    case ARMPROF_ERR_NOREG: return "no such register in this unit";
    case ARMPROF_ERR_UNDEFINED: return "register access is UNDEFINED";
    case ARMPROF_ERR_TRAP_EL2: return "register access traps to EL2";
    case ARMPROF_ERR_TRAP_EL3: return "register access traps to EL3";
    case ARMPROF_ERR_READONLY: return "register is read-only";
    case ARMPROF_ERR_CFG_RESERVED: return "configuration: reserved ID field value";
    case ARMPROF_ERR_CFG_ALIGN: return "configuration: Align larger than MaxSize or unsupported";
    case ARMPROF_ERR_CFG_FIFO: return "configuration: record FIFO depth or drain rate invalid";
    case ARMPROF_ERR_CFG_RANGE: return "configuration: value out of range";
    case ARMPROF_ERR_CFG_FEATURE: return "configuration: feature combination not allowed";
    case ARMPROF_ERR_STATE_CORRUPT: return "checkpoint state is corrupt";
    case ARMPROF_ERR_STATE_MISMATCH: return "checkpoint state is from a unit of another configuration";
    case ARMPROF_ERR_BUFSZ: return "buffer too small";
    case ARMPROF_ERR_BUSY: return "not allowed in the current state";
    case ARMPROF_ERR_NV2_MEM: return "register access redirected to memory by FEAT_NV2";
    case ARMPROF_ERR__COUNT: break;
    }
    return "unknown error";
}

const char *armprof_security_name(armprof_security ss)
{
    switch (ss) {
    case ARMPROF_SECURE: return "Secure";
    case ARMPROF_NONSECURE: return "Non-secure";
    case ARMPROF_REALM: return "Realm";
    case ARMPROF_ROOT: return "Root";
    }
    return "unknown";
}
