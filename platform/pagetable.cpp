// SPDX-License-Identifier: Apache-2.0
// pagetable.cpp: VMSAv8-64 table builder.
#include "pagetable.h"

#include <cstring>

#include "armprof/bits.h"
#include "memory.h"

namespace armprof {

namespace {
constexpr uint64_t D_VALID = AP_BIT(0);
constexpr uint64_t D_TABLE = AP_BIT(1);
constexpr uint64_t D_ATTRINDX = AP_GENMASK(4, 2);
constexpr uint64_t D_AP = AP_GENMASK(7, 6);
constexpr uint64_t D_SH = AP_GENMASK(9, 8);
constexpr uint64_t D_AF = AP_BIT(10);
constexpr uint64_t D_DBM = AP_BIT(51);
constexpr uint64_t D_ADDR = AP_GENMASK(47, 12);
inline unsigned level_shift(unsigned level) { return 12u + 9u * (3u - level); }
} // namespace

PageTables::PageTables(Read64 rd, Write64 wr, uint64_t pool_lo, uint64_t pool_hi)
    : rd_(std::move(rd)), wr_(std::move(wr)), next_((pool_lo + 0xFFF) & ~0xFFFull), end_(pool_hi)
{
}

PageTables PageTables::for_memory(Memory &mem, uint64_t mem_base, uint64_t pool_lo, uint64_t pool_hi)
{
    Memory *m = &mem;
    return PageTables(
        [m, mem_base](uint64_t pa) {
            uint64_t v;
            std::memcpy(&v, m->host_ptr(pa - mem_base), 8);
            return v;
        },
        [m, mem_base](uint64_t pa, uint64_t v) { std::memcpy(m->host_ptr(pa - mem_base), &v, 8); },
        pool_lo, pool_hi);
}

unsigned PageTables::start_level(unsigned input_bits) { return 3u - (input_bits - 13u) / 9u; }

uint64_t PageTables::alloc_table()
{
    if (next_ + 0x1000 > end_)
        return 0;
    uint64_t t = next_;
    next_ += 0x1000;
    for (unsigned i = 0; i < 512; i++)
        wr_(t + 8 * i, 0);
    return t;
}

uint64_t PageTables::s1_attrs(bool writable, bool af, bool dbm)
{
    return ap_field_prep(D_ATTRINDX, 0) | ap_field_prep(D_SH, 3) | (af ? D_AF : 0) |
           ap_field_prep(D_AP, writable ? 0 : 2) | (dbm ? D_DBM : 0);
}

uint64_t PageTables::s2_attrs(bool writable, bool af, bool dbm, bool readable)
{
    return ap_field_prep(AP_GENMASK(5, 2), 0xF) | ap_field_prep(D_SH, 3) | (af ? D_AF : 0) |
           ap_field_prep(D_AP, (writable ? 2 : 0) | (readable ? 1 : 0)) | (dbm ? D_DBM : 0);
}

uint64_t PageTables::desc_addr(uint64_t root, unsigned start_level, uint64_t ia, unsigned level)
{
    uint64_t table = root;
    for (unsigned l = start_level;; l++) {
        uint64_t da = table + ((ia >> level_shift(l)) & 0x1FF) * 8;
        if (l == level)
            return da;
        uint64_t d = rd_(da);
        if ((d & (D_VALID | D_TABLE)) != (D_VALID | D_TABLE))
            return 0;
        table = d & D_ADDR;
    }
}

bool PageTables::map(uint64_t root, unsigned start_level, uint64_t ia, uint64_t oa, uint64_t size,
                     uint64_t attrs, unsigned leaf_level)
{
    uint64_t step = 1ull << level_shift(leaf_level);
    for (uint64_t off = 0; off < size; off += step) {
        uint64_t a = ia + off;
        uint64_t table = root;
        for (unsigned l = start_level; l < leaf_level; l++) {
            uint64_t da = table + ((a >> level_shift(l)) & 0x1FF) * 8;
            uint64_t d = rd_(da);
            if (!(d & D_VALID)) {
                uint64_t t = alloc_table();
                if (!t)
                    return false;
                d = t | D_VALID | D_TABLE;
                wr_(da, d);
            }
            table = d & D_ADDR;
        }
        uint64_t da = table + ((a >> level_shift(leaf_level)) & 0x1FF) * 8;
        uint64_t leaf = ((oa + off) & ap_field_prep(D_ADDR, ~0ull) & ~(step - 1)) | attrs | D_VALID |
                        (leaf_level == 3 ? D_TABLE : 0);
        wr_(da, leaf);
    }
    return true;
}

} // namespace armprof
