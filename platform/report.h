// SPDX-License-Identifier: Apache-2.0
// report.h: the platform's errors and warnings through SystemC's report handler (SC_REPORT_*), message types under "armprof/".
#ifndef ARMPROF_PLATFORM_REPORT_H
#define ARMPROF_PLATFORM_REPORT_H

#include <cstdint>
#include <stdexcept>
#include <string>

#include <systemc>

#include "armprof/armprof.h"

/*
 * A platform selects what happens with sc_core::sc_report_handler::set_actions(type, severity,
 * actions) (silence with SC_DO_NOTHING, escalate a warning with SC_THROW or SC_STOP, ...) or
 * sees every report in its own handler (sc_report_handler::set_handler). Types:
 *   armprof/spu, armprof/trbu, armprof/pmu  the unit wrappers and the C models' diagnostics
 *   armprof/memory                          Memory
 *   armprof/rtl                             the Verilated RTL sampler (SpuRtl, the RTL-clocked PE)
 *   armprof/soc                             Platform (soc.h)
 * Errors are conditions a module cannot continue from (a unit that cannot be opened with its
 * configuration). With SystemC's default actions an error is thrown as sc_core::sc_report
 * (displayed if nobody catches it); when the platform's actions for the type neither throw nor
 * stop, the module throws std::invalid_argument with the same message anyway, as it cannot be
 * built. Warnings are the C models' log messages at ARMPROF_LOG_WARN (CONSTRAINED UNPREDICTABLE
 * choices, programming errors of the software); ERROR (the reason of a call that fails, which
 * the module reports itself) and INFO become SC_INFO at SC_HIGH verbosity, DEBUG at SC_DEBUG.
 * An escalated warning (SC_THROW) leaves the model in the middle of the call that logged it:
 * treat it as the end of the simulation.
 * Scenario checks of Platform (bad YAML values) stay std::invalid_argument, the message alone.
 */
namespace armprof {
namespace report {

inline constexpr char kSpu[] = "armprof/spu";
inline constexpr char kTrbu[] = "armprof/trbu";
inline constexpr char kPmu[] = "armprof/pmu";
inline constexpr char kMemory[] = "armprof/memory";
inline constexpr char kRtl[] = "armprof/rtl";
inline constexpr char kSoc[] = "armprof/soc";

// A C model's log message, for the module M (an sc_module) whose armprof_host_ops.user is `this`.
template <class M, const char *Type>
void model_log(void *user, armprof_log_level level, const char *msg)
{
    const int verb = level == ARMPROF_LOG_DEBUG ? sc_core::SC_DEBUG : sc_core::SC_HIGH;
    if (level != ARMPROF_LOG_WARN && sc_core::sc_report_handler::get_verbosity_level() < verb)
        return; // an info nobody would see
    const std::string m = std::string(static_cast<M *>(user)->name()) + ": " + msg;
    switch (level) {
    case ARMPROF_LOG_WARN: SC_REPORT_WARNING(Type, m.c_str()); break;
    case ARMPROF_LOG_ERROR: // the call that logs it fails, and the module reports that as SC_ERROR
    case ARMPROF_LOG_INFO: SC_REPORT_INFO_VERB(Type, m.c_str(), sc_core::SC_HIGH); break;
    default: SC_REPORT_INFO_VERB(Type, m.c_str(), sc_core::SC_DEBUG); break;
    }
}

// The name of a System register of the units (armprof/sysreg.h: "PMBSR_EL1", "PMEVCNTR3_EL0"), or
// Arm's generic S<op0>_<op1>_C<CRn>_C<CRm>_<op2> for any other encoding.
std::string sysreg_name(uint32_t enc);

// A register access a unit refused (armprof_err UNDEFINED, TRAP_EL2, TRAP_EL3, READONLY, NV2_MEM,
// NOREG; others are not refusals and give nothing): an SC_INFO of `type` at SC_MEDIUM verbosity,
// shown with SystemC's default settings, e.g.
//   top.spu: MSR PMBLIMITR_EL1 at EL0 (Non-secure) refused: UNDEFINED. Rule: <rule>
// where the module's `rule` names the access check that applies (the Arm pseudocode function)
// and the PE-context controls it reads, as they are. sc_report_handler::set_actions(type,
// SC_INFO, SC_DO_NOTHING) or a verbosity below SC_MEDIUM hides it.
void refused_access(const char *type, const char *module, bool write, uint32_t enc, armprof_err e,
                    const armprof_pe_ctx *ctx, const std::string &rule);
inline bool is_refusal(armprof_err e)
{
    return e == ARMPROF_ERR_UNDEFINED || e == ARMPROF_ERR_TRAP_EL2 || e == ARMPROF_ERR_TRAP_EL3 ||
           e == ARMPROF_ERR_READONLY || e == ARMPROF_ERR_NV2_MEM || e == ARMPROF_ERR_NOREG;
}

} // namespace report
} // namespace armprof

// SC_REPORT_ERROR of `message` (a std::string expression) with the caller's file and line; then,
// if the platform's handler returned, std::invalid_argument(message).
#define ARMPROF_REPORT_ERROR(type, message)                                                        \
    do {                                                                                           \
        const std::string armprof_report_msg_ = (message);                                         \
        SC_REPORT_ERROR(type, armprof_report_msg_.c_str());                                        \
        throw std::invalid_argument(armprof_report_msg_);                                          \
    } while (0)

#endif
