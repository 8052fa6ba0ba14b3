/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_spe_decode.c: libFuzzer target for the SPE decoder (packets, records strict and lenient, listing text, JSON/CSV). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/spe.h"
#include "spe_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks decoder options; the rest is the buffer (so the corpus can hold
     * plain buffers too: option byte 0 is the default). Copy to an exact-size allocation so
     * ASan sees any read past the end. */
    uint8_t opt = size ? data[0] : 0;
    size_t len = size ? size - 1 : 0;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    memcpy(buf, data + (size ? 1 : 0), len);

    char text[SPE_FMT_LINE_MAX];
    spe_decode_opts o = { .max_size = (uint8_t)(opt & 0x0F), .base = (uint64_t)(opt >> 4) * 4,
                          .lenient = (opt & 0x80) != 0 };
    if (o.max_size && (o.max_size < SPE_MAX_SIZE_MIN || o.max_size > SPE_MAX_SIZE_MAX))
        o.max_size = 0;

    /* records: offsets only move forward, sizes stay inside the buffer, the loop ends */
    spe_decoder d;
    spe_decoded r;
    int rc;
    size_t last = 0, steps = 0;
    spe_decoder_init(&d, buf, len, &o);
    while ((rc = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
        check(++steps <= len + 2);
        check(d.pos <= len);
        if (rc == SPE_DEC_RECORD) {
            check(r.offset >= last && r.offset + r.size <= len && r.size > 0);
            last = r.offset + r.size;
            spe_fmt_json(&r, text);
            spe_fmt_csv(&r, text);
        } else {
            check(d.err > SPE_DEC_OK && d.err < SPE_DEC_ERR__COUNT);
            check(d.err_offset <= len);
            spe_dec_error_text(&d, text, sizeof text);
        }
    }
    check(d.n_records + d.n_errors == steps);

    /* packets at every offset: sizes are sane, descriptions fit */
    for (size_t at = 0; at < len; at++) {
        spe_packet k;
        int n = spe_packet_parse(buf + at, len - at, &k);
        if (n > 0) {
            check((size_t)n <= len - at && n <= 10);
            check(spe_packet_describe(&k, text, sizeof text) < (int)sizeof text);
        } else {
            check(n == -SPE_DEC_ERR_TRUNCATED_PKT || n == -SPE_DEC_ERR_RESERVED_HDR);
        }
    }
    free(buf);
    return 0;
}
