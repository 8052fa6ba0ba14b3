// SPDX-License-Identifier: Apache-2.0
// pagetable.h: builds VMSAv8-64 translation tables (4 KB granule) in simulated memory, for tests and scenarios.
#ifndef ARMPROF_PLATFORM_PAGETABLE_H
#define ARMPROF_PLATFORM_PAGETABLE_H

#include <cstdint>
#include <functional>

namespace armprof {

class Memory;

/*
 * Writes descriptors the way an OS would: tables are 4 KB pages taken from a pool of physical
 * memory, entries are 64-bit little-endian. Stage 1 and stage 2 tables share the format; only
 * the attribute bits differ (s1_attrs / s2_attrs). Stage 1 tables that live at IPAs need the
 * pool mapped at IPA == PA by stage 2 (map_identity on the stage 2 root does it).
 */
class PageTables {
public:
    using Read64 = std::function<uint64_t(uint64_t pa)>;
    using Write64 = std::function<void(uint64_t pa, uint64_t val)>;

    PageTables(Read64 rd, Write64 wr, uint64_t pool_lo, uint64_t pool_hi);
    // Direct access to a Memory mapped at `mem_base` on the bus.
    static PageTables for_memory(Memory &mem, uint64_t mem_base, uint64_t pool_lo, uint64_t pool_hi);

    // A zeroed table page from the pool (0 when the pool is exhausted).
    uint64_t alloc_table();
    // Maps [ia, ia + size) to [oa, ...) with leaves at `leaf_level` (3: 4 KB pages, 2: 2 MB
    // blocks, 1: 1 GB blocks) in the tables rooted at `root` that start at `start_level`.
    bool map(uint64_t root, unsigned start_level, uint64_t ia, uint64_t oa, uint64_t size,
             uint64_t attrs, unsigned leaf_level = 3);
    // Address of the descriptor for `ia` at `level` (0 when a table on the way is missing).
    uint64_t desc_addr(uint64_t root, unsigned start_level, uint64_t ia, unsigned level);

    // Lower and upper attributes of a stage 1 leaf: AttrIndx 0, Inner Shareable, AF, AP[2]
    // (read-only when !writable), DBM.
    static uint64_t s1_attrs(bool writable = true, bool af = true, bool dbm = false);
    // Stage 2 leaf: MemAttr Normal WB, Inner Shareable, AF, S2AP, DBM.
    static uint64_t s2_attrs(bool writable = true, bool af = true, bool dbm = false, bool readable = true);
    // First lookup level for an input size (4 KB granule): 48 -> 0, 39 -> 1, 30 -> 2.
    static unsigned start_level(unsigned input_bits);

    uint64_t read(uint64_t pa) const { return rd_(pa); }
    void write(uint64_t pa, uint64_t v) { wr_(pa, v); }
    uint64_t pool_next() const { return next_; }

private:
    Read64 rd_;
    Write64 wr_;
    uint64_t next_, end_;
};

} // namespace armprof

#endif
