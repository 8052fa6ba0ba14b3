/* SPDX-License-Identifier: Apache-2.0 */
/* pectx.c: the PE-context input shared by every unit, and the states derived from it. */
#include "armprof/armprof.h"

#include <string.h>

void armprof_pe_ctx_default(armprof_pe_ctx *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->have_el2 = true;
    ctx->have_el3 = true;
    ctx->have_secure = true;
    ctx->el = 1;
    ctx->scr_ns = true;
    ctx->mdcr3_nspb = 0x3;   /* Non-secure owns the Profiling Buffer */
    ctx->mdcr3_nstb = 0x3;   /* Non-secure owns the Trace Buffer */
    ctx->mdcr2_e2pb = 0x3;   /* EL1 owns it, no trap of EL1 accesses */
    ctx->mdcr2_e2tb = 0x3;
    ctx->mdcr3_pmsse = 0x3;
    ctx->mdcr2_pmsse = 0x3;
    ctx->mdcr2_hpmn = ARMPROF_MDCR2_HPMN_N; /* resets to PMCR_EL0.N: no counter reserved for EL2 */
    ctx->timer_enabled = true;
}

armprof_security armprof_pe_security(const armprof_pe_ctx *ctx)
{
    if (!ctx->have_el3)
        return ctx->scr_ns ? ARMPROF_NONSECURE : ARMPROF_SECURE;
    if (ctx->el == 3)
        return ctx->have_rme ? ARMPROF_ROOT : ARMPROF_SECURE;
    if (ctx->have_rme && ctx->scr_nse)
        return ctx->scr_ns ? ARMPROF_REALM : ARMPROF_SECURE; /* {NSE,NS}={1,0} reserved: treat as Secure */
    return ctx->scr_ns ? ARMPROF_NONSECURE : ARMPROF_SECURE;
}

bool armprof_pe_el2_enabled(const armprof_pe_ctx *ctx, armprof_security ss)
{
    if (!ctx->have_el2)
        return false;
    if (ss == ARMPROF_SECURE)
        return !ctx->have_el3 || ctx->scr_eel2;
    return true;
}
