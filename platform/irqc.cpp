// SPDX-License-Identifier: Apache-2.0
// irqc.cpp: interrupt controller stub.
#include "irqc.h"

namespace armprof {

using namespace sc_core;

IrqCtrl::IrqCtrl(sc_module_name name, const std::vector<LineInfo> &info)
    : sc_module(name), lines("lines", info.size()), info_(info), last_(info.size(), false),
      asserts_(info.size(), 0)
{
    SC_HAS_PROCESS(IrqCtrl);
    SC_METHOD(on_change);
    for (auto &l : lines)
        sensitive << l;
    dont_initialize();
}

void IrqCtrl::on_change()
{
    for (size_t i = 0; i < lines.size(); i++) {
        bool v = lines[i].read();
        if (v == last_[i])
            continue;
        last_[i] = v;
        if (v)
            asserts_[i]++;
        Edge e{sc_time_stamp(), info_[i].pe, info_[i].intid, v};
        if (record_.size() < limit_)
            record_.push_back(e);
        if (listener_)
            listener_(e);
    }
}

uint64_t IrqCtrl::assertions(unsigned pe, unsigned intid) const
{
    for (size_t i = 0; i < info_.size(); i++)
        if (info_[i].pe == pe && info_[i].intid == intid)
            return asserts_[i];
    return 0;
}

bool IrqCtrl::level(unsigned pe, unsigned intid) const
{
    for (size_t i = 0; i < info_.size(); i++)
        if (info_[i].pe == pe && info_[i].intid == intid)
            return last_[i];
    return false;
}

} // namespace armprof
