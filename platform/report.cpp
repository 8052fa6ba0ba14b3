// SPDX-License-Identifier: Apache-2.0
// report.cpp: register names for reports (from armprof/sysreg.h) and the report of a refused register access.
#include "report.h"

#include <cstdio>

#include "armprof/sysreg.h"

namespace armprof {
namespace report {

std::string sysreg_name(uint32_t enc)
{
#define X(r)                                                                                       \
    if (enc == SYS_##r)                                                                            \
        return #r;
    ARMPROF_SYSREG_LIST(X)
#undef X
    char b[40];
#define X(r, fmt, first, last)                                                                     \
    for (unsigned n = (first); n <= (last); n++)                                                   \
        if (enc == SYS_##r(n)) {                                                                   \
            std::snprintf(b, sizeof b, fmt, n);                                                    \
            return b;                                                                              \
        }
    ARMPROF_SYSREG_LIST_N(X)
#undef X
    std::snprintf(b, sizeof b, "S%u_%u_C%u_C%u_%u", ARMPROF_SYSREG_OP0(enc), ARMPROF_SYSREG_OP1(enc),
                  ARMPROF_SYSREG_CRN(enc), ARMPROF_SYSREG_CRM(enc), ARMPROF_SYSREG_OP2(enc));
    return b;
}

static const char *outcome(armprof_err e)
{
    switch (e) {
    case ARMPROF_ERR_UNDEFINED: return "UNDEFINED";
    case ARMPROF_ERR_TRAP_EL2: return "trapped to EL2";
    case ARMPROF_ERR_TRAP_EL3: return "trapped to EL3";
    case ARMPROF_ERR_READONLY: return "UNDEFINED (a read-only register)";
    case ARMPROF_ERR_NV2_MEM: return "redirected to memory by FEAT_NV2 (the host performs it)";
    case ARMPROF_ERR_NOREG: return "no such register in this unit";
    default: return armprof_strerror(e);
    }
}

void refused_access(const char *type, const char *module, bool write, uint32_t enc, armprof_err e,
                    const armprof_pe_ctx *ctx, const std::string &rule)
{
    if (!is_refusal(e) || sc_core::sc_report_handler::get_verbosity_level() < sc_core::SC_MEDIUM)
        return;
    std::string m = std::string(module) + ": " + (write ? "MSR " : "MRS ") + sysreg_name(enc);
    if (ctx)
        m += " at EL" + std::to_string(ctx->el) + " (" + armprof_security_name(armprof_pe_security(ctx)) + ")";
    m += std::string(" refused: ") + outcome(e) + ". Rule: " + rule;
    SC_REPORT_INFO_VERB(type, m.c_str(), sc_core::SC_MEDIUM);
}

} // namespace report
} // namespace armprof
