// SPDX-License-Identifier: Apache-2.0
// irqc.h: interrupt controller stub: per-PE PPI inputs (PMBIRQ, TRBIRQ, ...) and a record of every edge.
#ifndef ARMPROF_PLATFORM_IRQC_H
#define ARMPROF_PLATFORM_IRQC_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

namespace armprof {

// PPI INTIDs. PMBIRQ is a PPI whose number the SBSA allocates (seed 001, 3.5: 21); the TRBIRQ
// PPI number is not defined by the architecture (IHHRLX), so it is a platform choice.
enum : unsigned { PPI_PMBIRQ_DEFAULT = 21, PPI_TRBIRQ_DEFAULT = 31, PPI_PMUIRQ_DEFAULT = 23 };

/*
 * A stub of a GIC's PPI inputs: level-sensitive lines, one set per PE. It holds no priority or
 * masking; it records each edge (time, PE, INTID, level) and counts assertions, and calls an
 * optional listener so a CPU model can take the interrupt.
 */
class IrqCtrl : public sc_core::sc_module {
public:
    sc_core::sc_vector<sc_core::sc_in<bool>> lines;

    struct LineInfo { unsigned pe, intid; std::string name; };
    // One input per entry of `info`, in that order.
    IrqCtrl(sc_core::sc_module_name name, const std::vector<LineInfo> &info);

    struct Edge { sc_core::sc_time when; unsigned pe, intid; bool level; };
    const std::vector<Edge> &record() const { return record_; }
    uint64_t assertions(unsigned pe, unsigned intid) const;
    bool level(unsigned pe, unsigned intid) const;
    void set_listener(std::function<void(const Edge &)> fn) { listener_ = std::move(fn); }
    void set_record_limit(size_t n) { limit_ = n; }  // keep the first n edges (counts continue)
    const std::vector<LineInfo> &info() const { return info_; }

private:
    void on_change();
    std::vector<LineInfo> info_;
    std::vector<bool> last_;
    std::vector<uint64_t> asserts_;
    std::vector<Edge> record_;
    size_t limit_ = 1u << 20;
    std::function<void(const Edge &)> listener_;
};

} // namespace armprof

#endif
