// SPDX-License-Identifier: Apache-2.0
// spu_cosim_top.sv: sample interval counter + record FIFO, the unit Verilated for lockstep co-simulation.
//
// Outputs ending in _q describe the cycle that the last clock edge completed (registered);
// the state outputs are the state after that edge, so a harness reads everything after the
// edge and compares with the C model after spu_cycle(). The m_* inputs carry the C model's
// values of the same cycle into the waveform only (they drive `diff`, nothing else).
// `fire` is the counter's combinational selection of the cycle being driven: a platform reads
// it before the edge to choose the sampled operation and set its lane_lat / lane_len.
// Drain handshake: `drain_valid` / `drain_len` (combinational, from state) offer the FIFO's
// next bytes to the buffer writer; they leave at an edge only with drain_ready high.
//
// Each block states the contract of its inputs (AP_ASSUME: assumed by the formal proofs,
// asserted in simulation): the straps in range and stable out of reset (cfg_drain excepted: a
// platform's drain step changes it), a sampled lane's record length 0 (filtered out) or at least
// MIN_REC_LEN bytes.
`include "spu_assert.svh"

module spu_cosim_top #(
    parameter int W         = 4,
    parameter int SLOTS     = 8,
    parameter int DEPTH     = 1024,
    parameter int REC_SLOTS = 512,
    parameter int LEN_W     = 12,
    parameter int LAT_W     = 16,
    parameter int DRAIN_MAX = 32,
    parameter int CNT_W     = 64,       // drained / popped totals (narrower in the formal runs)
    localparam int SW    = $clog2(SLOTS),
    localparam int RW    = $clog2(REC_SLOTS),
    localparam int LVL_W = $clog2(DEPTH + 1),
    localparam int DW    = $clog2(DRAIN_MAX + 1)
) (
    input  logic               clk,
    input  logic               rst,
    // Straps (stable out of reset)
    input  logic               cfg_ernd,      // PMSIDR_EL1.ERnd
    input  logic               cfg_next_op,
    input  logic [31:0]        cfg_rng_seed,
    input  logic [SW:0]        cfg_slots,
    input  logic [LVL_W-1:0]   cfg_depth,
    input  logic [RW:0]        cfg_rec_cap,
    input  logic [DW-1:0]      cfg_drain,
    // Per cycle
    input  logic               icr_we,
    input  logic [63:0]        icr_wdata,     // PMSICR_EL1
    input  logic               irr_we,
    input  logic [63:0]        irr_wdata,     // PMSIRR_EL1
    input  logic               prof_en,
    input  logic [W-1:0]       op_valid,
    input  logic [W*LAT_W-1:0] lane_lat,
    input  logic [W*LEN_W-1:0] lane_len,
    input  logic               drain_ready,   // memory accepts the offered bytes this cycle
    input  logic               fifo_flush,    // platform: the model emptied its FIFO
    input  logic               fifo_discard,  // platform: PMBSR_EL1.S, records discarded
    // Results
    output logic [W-1:0]       fire,          // lanes sampled this cycle (combinational)
    output logic [W-1:0]       fire_q,        // lane sampled (collided or not)
    output logic [W-1:0]       coll_q,        // lane collided (SAMPLE_COLLISION, PMBSR_EL1.COLL)
    output logic               full_q,        // backpressure: a completed record did not fit
    output logic [31:0]        count,         // PMSICR_EL1.COUNT
    output logic [7:0]         ecount,        // PMSICR_EL1.ECOUNT
    output logic [31:0]        rng_state,
    output logic [SW:0]        inflight,
    output logic [LVL_W-1:0]   fifo_level,
    output logic [CNT_W-1:0]   drained,
    output logic [CNT_W-1:0]   popped,
    output logic [23:0]        interval,      // PMSIRR_EL1.INTERVAL
    output logic               rnd,           // PMSIRR_EL1.RND
    output logic               pending,       // next_op: the next member is sampled
    output logic               drain_valid,   // the FIFO offers bytes (combinational)
    output logic [DW-1:0]      drain_len,     // how many leave if drain_ready (combinational)
    output logic [RW:0]        nrec,          // records in the FIFO
    // Waveform only: the C model's values for the same cycle, and where they differ
    /*verilator coverage_off*/
    input  logic [W-1:0]       m_fire,
    input  logic [W-1:0]       m_coll,
    input  logic               m_full,
    input  logic [31:0]        m_count,
    input  logic [7:0]         m_ecount,
    input  logic [31:0]        m_rng_state,
    input  logic [SW:0]        m_inflight,
    input  logic [LVL_W-1:0]   m_fifo_level,
    input  logic [CNT_W-1:0]   m_drained,
    output logic [9:0]         diff
    /*verilator coverage_on*/
);

  localparam int MIN_REC_LEN = 3;       // an Events and an End packet (spu_record_fifo)

  `AP_SVA_ON

  logic [W-1:0] coll;
  logic         full;
  logic         reloaded;

  spu_sample_counter #(.W(W)) u_counter (
      .clk, .rst, .cfg_ernd, .cfg_next_op, .cfg_rng_seed,
      .icr_we, .icr_wdata, .irr_we, .irr_wdata, .prof_en, .op_valid,
      .fire, .count, .ecount, .interval, .rnd, .rng_state, .pending, .reloaded);

  spu_record_fifo #(
      .W(W), .SLOTS(SLOTS), .DEPTH(DEPTH), .REC_SLOTS(REC_SLOTS), .LEN_W(LEN_W),
      .LAT_W(LAT_W), .DRAIN_MAX(DRAIN_MAX), .MIN_REC_LEN(MIN_REC_LEN), .CNT_W(CNT_W)
  ) u_fifo (
      .clk, .rst, .cfg_slots, .cfg_depth, .cfg_rec_cap, .cfg_drain,
      .fire, .lane_lat, .lane_len, .drain_ready, .flush(fifo_flush),
      .discard(fifo_discard), .coll, .full, .drain_valid, .drain_len, .inflight, .level(fifo_level), .nrec, .drained, .popped);

  always_ff @(posedge clk) begin
    if (rst) begin
      fire_q <= '0;
      coll_q <= '0;
      full_q <= 1'b0;
    end else begin
      fire_q <= fire;
      coll_q <= coll;
      full_q <= full;
    end
  end

  assign diff = {m_drained != drained, m_fifo_level != fifo_level, m_inflight != inflight,
                 m_rng_state != rng_state, m_ecount != ecount, m_count != count,
                 m_full != full_q, m_coll != coll_q, m_fire != fire_q, 1'b0};

`ifdef FORMAL
  initial assume (rst);                 // the proofs start from a reset edge
`endif

  // ---- Cover points across the two blocks ------------------------------------------------------

  `AP_COVER(c_reload_with_csync, reloaded && fifo_flush)   // a reload in a PSB CSYNC's cycle
  `AP_COVER(c_fire_while_full, fire != '0 && full)         // a sample while a record waits

endmodule
