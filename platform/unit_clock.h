// SPDX-License-Identifier: Apache-2.0
// unit_clock.h: the clocking base of the unit wrappers (SpuModule, TrbuModule, PmuModule): time, self-wakeup, IRQ level, register socket.
#ifndef ARMPROF_PLATFORM_UNIT_CLOCK_H
#define ARMPROF_PLATFORM_UNIT_CLOCK_H

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "ap_tlm.h"

namespace armprof {

/*
 * What the three unit wrappers share: each owns one C model that counts cycles of `period`
 * and is told about time only by calls, never ticked.
 *  - advance_to(t) brings the model to SystemC time t (integer ticks / ticks per cycle); a
 *    no-op when the model is already there or beyond (temporal decoupling: a PE in a quantum
 *    keeper may have run it ahead).
 *  - reschedule() notifies the module's wake event at the model's next event (the cycles the
 *    model says it needs waking after; UINT64_MAX: none); on_wake(), an SC_METHOD on that
 *    event, brings the model to SystemC time, drives the IRQ level and reschedules.
 *  - irq: the level the model reports through armprof_host_ops.irq (cb_irq, user = the
 *    wrapper) is kept until flush_irq() drives it, so a driver ahead of SystemC can first sync
 *    its quantum keeper and the edge lands at its true time.
 *  - regs: register access by TLM, offset = encoding * 8, 8-byte accesses (reg_socket_access),
 *    at the transaction's time (SystemC time + delay).
 *
 * Derived (CRTP, so the calls the PE makes every quantum are direct and inlined, no virtual
 * call) supplies, privately with `friend class UnitClock<Derived>`:
 *    uint64_t clock_now() const;          the model's cycle count (*_now)
 *    void clock_advance(uint64_t n);      advance by n > 0 cycles (*_advance)
 *    uint64_t clock_next_event() const;   cycles to the next event that needs a wake, or UINT64_MAX
 *    void on_irq_edge();                  optional: after the IRQ output changed (statistics, waves)
 * and, public, reg_read(enc, &v) / reg_write(enc, v) for the socket. Its constructor opens the
 * model with ops.irq = &cb_irq, ops.user = this, and ends with start_clock().
 */
template <class Derived>
class UnitClock : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket_optional<UnitClock> regs; // System registers by encoding * 8
    sc_core::sc_out<bool> irq;                                // the unit's interrupt, a level

    sc_core::sc_time period() const { return period_; }

    // Time: bring the model to time t (no-op when it is already there or beyond).
    void advance_to(const sc_core::sc_time &t)
    {
        uint64_t target = t.value() / period_.value(); // integer time: SystemC ticks / ticks per cycle
        uint64_t now = self().clock_now();
        if (target > now)
            self().clock_advance(target - now);
    }
    // The model's time, exactly now * period in SystemC ticks. Below 2^52 ticks (75 simulated
    // minutes at 1 ps) sc_time's inline double product is exact and far cheaper than
    // sc_time::from_value() (a call into the library): the PE asks every iteration.
    sc_core::sc_time model_time() const
    {
        uint64_t n = self().clock_now(), per = period_.value(), v;
        if (!__builtin_mul_overflow(n, per, &v) && v < (uint64_t(1) << 52))
            return period_ * (double)n;
        return sc_core::sc_time::from_value(v); // (beyond the end of SystemC time: wraps)
    }

    // The level the model drives; pushed to `irq` by flush_irq().
    bool irq_level() const { return level_; }
    bool irq_changed() const { return level_ != driven_; }
    void flush_irq()
    {
        if (level_ != driven_) {
            driven_ = level_;
            irq.write(level_);
            self().on_irq_edge();
        }
    }

    // Schedules the self-wakeup at the model's next event.
    void reschedule()
    {
        uint64_t c = self().clock_next_event();
        if (c == UINT64_MAX)
            return;
        uint64_t cyc, at;
        if (__builtin_add_overflow(self().clock_now(), c ? c : 1, &cyc) ||
            __builtin_mul_overflow(cyc, period_.value(), &at))
            return; // beyond the end of SystemC time (e.g. a 64-bit counter's overflow)
        uint64_t now = sc_core::sc_time_stamp().value();
        wake_.notify(at > now ? sc_core::sc_time::from_value(at - now) : sc_core::SC_ZERO_TIME);
    }

protected:
    UnitClock(sc_core::sc_module_name name, sc_core::sc_time period)
        : sc_core::sc_module(name), regs("regs"), irq("irq"), period_(period)
    {
        regs.register_b_transport(this, &UnitClock::regs_b_transport);
    }

    // The wake process; `initialize`: also run once at the start of simulation (a configuration
    // made during elaboration is then scheduled). Called last in the derived constructor.
    void start_clock(bool initialize)
    {
        SC_HAS_PROCESS(UnitClock);
        SC_METHOD(on_wake);
        sensitive << wake_;
        if (!initialize)
            dont_initialize();
    }

    // armprof_host_ops.irq with user = the Derived wrapper.
    static void cb_irq(void *user, bool level)
    {
        UnitClock *c = static_cast<Derived *>(user);
        c->level_ = level;
    }
    // A level the model reports without a callback (e.g. after a reset).
    void set_irq_level(bool level) { level_ = level; }

    // Runs f on the model at the current SystemC time, then drives the IRQ and reschedules.
    template <class F>
    void at_now(F &&f)
    {
        advance_to(sc_core::sc_time_stamp());
        f();
        flush_irq();
        reschedule();
    }
    // After a direct access changed the model (no SystemC time of its own): IRQ and wake follow.
    void outputs_changed()
    {
        flush_irq();
        reschedule();
    }

    void on_irq_edge() {}

private:
    Derived &self() { return static_cast<Derived &>(*this); }
    const Derived &self() const { return static_cast<const Derived &>(*this); }

    void on_wake() { at_now([] {}); }

    void regs_b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay)
    {
        advance_to(sc_core::sc_time_stamp() + delay);
        reg_socket_access(self(), trans);
        flush_irq();
        reschedule();
    }

    sc_core::sc_time period_;
    bool level_ = false, driven_ = false;
    sc_core::sc_event wake_;
};

} // namespace armprof

#endif
