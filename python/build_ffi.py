# SPDX-License-Identifier: Apache-2.0
# build_ffi.py: writes the C source of the armprof._ffi extension module (cffi, API mode) from the declarations below; CMake compiles it against the real headers, so every struct layout here is checked by the compiler.
import contextlib
import io
import sys

import cffi

CDEF = r"""
/* armprof/armprof.h */
typedef enum armprof_err { ARMPROF_OK, ARMPROF_ERR_INVAL, ARMPROF_ERR_NOMEM, ARMPROF_ERR_NOREG, ARMPROF_ERR_UNDEFINED,
    ARMPROF_ERR_TRAP_EL2, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_READONLY, ... } armprof_err;
const char *armprof_strerror(armprof_err err);
const char *armprof_version(void);
typedef struct armprof_pe_ctx { uint8_t el; uint64_t contextidr_el1; bool timer_enabled; ...; } armprof_pe_ctx;
void armprof_pe_ctx_default(armprof_pe_ctx *ctx);
typedef struct armprof_host_ops { ...; } armprof_host_ops;
typedef struct armprof_regime { ...; } armprof_regime;

/* armprof/spe.h */
const char *spe_event_name(unsigned bit);
const char *spe_op_class_name(unsigned op_class);
int spe_op_describe(unsigned op_class, unsigned subclass, char *buf, size_t len);
#define SPE_R_PC ...
#define SPE_R_TARGET ...
#define SPE_R_DATA_VA ...
#define SPE_R_DATA_PA ...
#define SPE_R_CONTEXT_EL1 ...
#define SPE_R_CONTEXT_EL2 ...
#define SPE_R_TOTAL_LAT ...
#define SPE_R_ISSUE_LAT ...
#define SPE_R_XLAT_LAT ...
#define SPE_R_DATA_SOURCE ...
#define SPE_R_TIMESTAMP ...
#define SPE_R_OPTYPE ...
#define SPE_R_EVENTS ...

/* armprof/spu.h */
typedef struct spu spu_t;
typedef enum spu_ea_policy { SPU_EA_REPORT = 0, ... } spu_ea_policy;
typedef enum spu_ptr_policy { SPU_PTR_BUFFER_FULL = 0, ... } spu_ptr_policy;
typedef struct spu_config {
    uint8_t max_size; uint8_t count_size; uint8_t interval; uint8_t format;
    bool ernd; bool lds; bool arch_inst; bool fe; bool ft; bool fl; bool fne; bool pbt;
    uint8_t align; bool flag_update; spu_ea_policy ea;
    bool feat_spev1p2; bool feat_spe_nvm; bool feat_ecv; uint8_t nvm_bit; uint8_t envm_bit;
    uint32_t rng_seed; bool sample_next_op; bool cu_fe_zero_discards; bool cu_ft_zero_discards;
    bool cu_fl_zero_discards; spu_ptr_policy ptr_policy; bool ts_when_timer_off;
    uint32_t max_inflight; uint32_t fifo_bytes; uint32_t drain_bytes_per_cycle; uint32_t write_granule;
    uint32_t write_bytes; uint32_t max_outstanding_writes; uint32_t cycles_per_tick; uint8_t pe_index;
    ...;
} spu_config;
void spu_config_default(spu_config *cfg);
armprof_err spu_config_validate(const spu_config *cfg, char *why, size_t whylen);
void spu_close(spu_t *spu);
void spu_reset(spu_t *spu);
armprof_err spu_set_pe_context(spu_t *spu, const armprof_pe_ctx *ctx);
armprof_err spu_reg_read(spu_t *spu, uint32_t enc, uint64_t *val);
armprof_err spu_reg_write(spu_t *spu, uint32_t enc, uint64_t val);
typedef struct spu_reg_info {
    const char *name; uint32_t enc; uint64_t reset; uint64_t res0; uint64_t ro; bool read_only; bool alias;
    bool unknown_at_reset; ...;
} spu_reg_info;
size_t spu_reg_count(const spu_t *spu);
armprof_err spu_reg_info_at(const spu_t *spu, size_t index, spu_reg_info *info);
bool spu_irq_level(const spu_t *spu);
typedef struct spu_op {
    uint64_t pc; uint8_t op_class; uint8_t op_subclass; uint32_t flags; uint64_t events; uint32_t total_lat;
    uint32_t issue_lat; uint32_t xlat_lat; uint64_t data_va; uint64_t data_pa; bool data_pa_ns; uint64_t target;
    uint8_t target_el; bool target_ns; uint16_t data_source;
    ...;
} spu_op;
#define SPU_OP_EXCEPTION ...
#define SPU_OP_NOT_RETIRED ...
#define SPU_OP_HAS_VA ...
#define SPU_OP_HAS_PA ...
#define SPU_OP_HAS_TARGET ...
#define SPU_OP_HAS_XLAT ...
#define SPU_OP_HAS_DSRC ...
typedef enum spu_op_result { SPU_OP_NOT_COUNTED = 0, SPU_OP_COUNTED, SPU_OP_SAMPLED, SPU_OP_COLLIDED } spu_op_result;
spu_op_result spu_retire(spu_t *spu, const spu_op *op);
uint64_t spu_ops_until_sample(const spu_t *spu);
uint64_t spu_skip(spu_t *spu, uint64_t n);
void spu_advance(spu_t *spu, uint64_t cycles);
uint64_t spu_cycles_to_next_event(const spu_t *spu);
uint64_t spu_now(const spu_t *spu);
void spu_psb_csync(spu_t *spu);
#define SPU_DISCARD__COUNT ...
const char *spu_discard_reason_name(int r);
typedef struct spu_stats {
    uint64_t population; uint64_t feed; uint64_t filtrate; uint64_t collisions; uint64_t filtered_out;
    uint64_t records_written; uint64_t bytes_written; uint64_t records_discarded; uint64_t discarded[...];
    uint64_t management_events; uint64_t buffer_full_events; uint64_t fault_events; uint64_t ext_abort_events;
    uint64_t serrors; uint64_t fifo_bytes_max; uint64_t fifo_bytes_now; uint64_t fifo_full_cycles;
    uint64_t inflight_now; uint64_t service_cycles; uint64_t fifo_byte_cycles;
    uint64_t writer_stall_cycles; uint64_t writes_issued; uint64_t outstanding_writes_max; uint64_t write_latency_min;
    uint64_t write_latency_max; uint64_t write_latency_sum; uint64_t writes_answered;
    ...;
} spu_stats;
void spu_get_stats(const spu_t *spu, spu_stats *st);

/* ffi_glue.h: the host of armprof.Spu */
typedef struct apy_host {
    uint8_t *mem; uint64_t base; uint64_t size; uint32_t latency; int irq; uint64_t irq_rises; uint64_t writes;
    uint64_t faults;
    ...;
} apy_host;
apy_host *apy_host_new(uint64_t base, uint64_t size);
void apy_host_free(apy_host *h);
armprof_err apy_spu_open(const spu_config *cfg, apy_host *h, spu_t **out);

/* armprof/engine.h */
typedef struct ape_error { int code; int line; int column; char key[96]; char value[256]; char text[1024]; } ape_error;
#define APE_OK ...
#define APE_ERR_SCENARIO ...
#define APE_ERR_RUN ...
#define APE_ERR_IO ...
#define APE_ERR_NOMEM ...
#define APE_ERR_INTERRUPTED ...
#define APE_ERR_DECODE ...
#define APE_ERR_ARG ...
#define APE_MODEL_C ...
#define APE_MODEL_PLATFORM ...
#define APE_KIND_SWEEP ...
#define APE_KIND_SCENARIO ...
typedef struct ape_sweep ape_sweep;
ape_sweep *ape_sweep_load(const char *path, const char *name, const char *text, int kind, int model, ape_error *err);
void ape_sweep_free(ape_sweep *sw);
size_t ape_sweep_points(const ape_sweep *sw);
const char *ape_sweep_name(const ape_sweep *sw);
int ape_sweep_axes(const ape_sweep *sw);
const char *ape_sweep_axis_name(const ape_sweep *sw, int axis);
int ape_sweep_axis_numeric(const ape_sweep *sw, int axis);
int ape_sweep_point_param(const ape_sweep *sw, size_t i, int axis, char *buf, size_t len, double *number);
int ape_metric_count(void);
const char *ape_metric_name(int m);
const char *ape_metric_help(int m);
int ape_param_count(void);
const char *ape_param_name(int p);
const char *ape_param_help(int p);
const char *ape_find_vp(const char *vp_path, const char *fallback_dir);
typedef struct ape_sweep_opts {
    unsigned jobs; const char *outdir; int fresh; int plots; const char *vp_path; volatile int *stop;
    volatile size_t *done;
} ape_sweep_opts;
int ape_sweep_run(const ape_sweep *sw, const ape_sweep_opts *o, double *metrics, unsigned char *have, ape_error *err);
int ape_sweep_seeds(const ape_sweep *sw);
typedef struct ape_reco {
    char size_param[64]; char metric[64]; double target; char line_param[64]; char line_value[256];
    double line_number; int met; double size; double worst; double best_size; double best_worst; char text[1024];
    int seeds; size_t ref_point; char limit[16]; double record_bytes_per_cycle; double record_gbytes_per_s;
    double clock_hz; double drain; double write_latency_cycles; double write_bytes; double outstanding_writes;
    double capacity_bytes_per_cycle; double bytes_in_flight; double min_outstanding_writes; double need_drain;
    double need_outstanding_writes; double need_write_bytes; double max_write_latency_ns; double need_buffer_bytes;
} ape_reco;
int ape_sweep_recommend(const ape_sweep *sw, const double *metrics, ape_reco *out, int max);
typedef struct ape_run_opts { const char *outdir; const char *vp_path; } ape_run_opts;
int ape_run(const ape_sweep *scenario, const ape_run_opts *o, double *metrics, char **summary, ape_error *err);
void ape_free(void *p);
typedef struct ape_columns {
    size_t cap; uint64_t *offset; uint32_t *size; uint32_t *have; uint64_t *pc; uint8_t *el; uint8_t *ns;
    uint8_t *op_class; uint8_t *op_subclass; uint64_t *events; uint16_t *lat_total; uint16_t *lat_issue;
    uint16_t *lat_xlat; uint64_t *target; uint8_t *target_el; uint8_t *target_ns; uint64_t *va; uint8_t *va_tag;
    uint64_t *pa; uint8_t *pa_ns; uint32_t *contextidr_el1; uint32_t *contextidr_el2; uint16_t *data_source;
    uint64_t *ts; uint16_t *ignored_packets; uint8_t *absent[13];
} ape_columns;
#define APE_PARTS ...
typedef struct ape_decode_opts { uint8_t max_size; uint64_t base; int lenient; } ape_decode_opts;
int64_t ape_decode(const void *buf, size_t len, const ape_decode_opts *o, ape_columns *cols, uint64_t *errors,
                   ape_error *err);
int64_t ape_decode_alloc(const void *buf, size_t len, const ape_decode_opts *o, ape_columns *cols, uint64_t *errors,
                         ape_error *err);
"""

SOURCE = r"""
#include "armprof/armprof.h"
#include "armprof/version.h"
#include "armprof/spe.h"
#include "armprof/spu.h"
#include "armprof/engine.h"
#include "ffi_glue.h"
"""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: build_ffi.py OUT.c")
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("armprof._ffi", SOURCE)
    with contextlib.redirect_stdout(io.StringIO()):  # cffi says "generating ..."
        ffi.emit_c_code(sys.argv[1])


if __name__ == "__main__":
    main()
