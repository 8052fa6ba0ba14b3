/* SPDX-License-Identifier: Apache-2.0 */
/* make_seeds.c: writes the fuzz seed corpus: encoder output for several unit configurations, framing commands and bad input. */
#include <stdio.h>
#include <string.h>

#include "armprof/spe.h"
#include "armprof/rng.h"
#include "../spe/spe_test_util.h"

static int put(const char *dir, const char *name, uint8_t opt, const uint8_t *b, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    fputc(opt, f);
    fwrite(b, 1, n, f);
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    ap_prng64 g = { .state = 7 };
    uint8_t b[4096];
    int bad = 0;
    static const spe_format_cfg cfgs[] = {
        { .max_size = 4, .align = 0, .count_size = 2 },
        { .max_size = 6, .align = 0, .count_size = 3 },
        { .max_size = 6, .align = 6, .count_size = 3, .ds_fixed16 = true },
        { .max_size = 11, .align = 3, .count_size = 2 },
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        size_t n = 0;
        for (int i = 0; i < 12; i++) {
            spe_record r = spe_test_random_record(&g);
            n += spe_encode(&r, &cfgs[c], b + n, sizeof b - n);
        }
        char name[32];
        snprintf(name, sizeof name, "records-%zu", c);
        bad |= put(dir, name, (uint8_t)(c == 1 ? 0x86 : 0), b, n);
    }
    /* framing and extended headers */
    size_t n = 0;
    b[n++] = 0;
    n += spe_pkt_alignment(b + n, 2);
    n = 8;
    n += spe_pkt_address(b + n, 0, 0x8000000000400000ull);
    n += spe_pkt_address(b + n, 17, 1);
    n += spe_pkt_counter(b + n, 9, 3);
    n += spe_pkt_counter(b + n, 0, 30);
    b[n++] = 0x01;
    bad |= put(dir, "framing", 0x10, b, n);
    /* bad input: truncated, reserved header, duplicate */
    static const uint8_t trunc[] = { 0x42, 0x02, 0x01, 0xB0, 0x00, 0x10 };
    static const uint8_t resv[] = { 0x42, 0x02, 0x01, 0x20, 0x25, 0x01 };
    static const uint8_t dup[] = { 0x49, 0x00, 0x42, 0x02, 0x49, 0x01, 0x01 };
    bad |= put(dir, "truncated", 0, trunc, sizeof trunc);
    bad |= put(dir, "reserved", 0x80, resv, sizeof resv);
    bad |= put(dir, "duplicate", 0x80, dup, sizeof dup);
    bad |= put(dir, "empty", 0, b, 0);
    return bad;
}
