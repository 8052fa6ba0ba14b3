// SPDX-License-Identifier: Apache-2.0
// spu_sample_counter.sv: the SPU sample interval counter (PMSICR_EL1 / PMSIRR_EL1, seed 001 §3.1).
//
// Up to W members of the sample population retire per cycle (lanes, in program order; a lane
// with op_valid low is skipped). Register writes of the cycle are applied first, then the
// disabled-to-enabled initialisation (§3.1.1), then the lanes in order. `fire[i]` is
// combinational: lane i is the sampled operation of this cycle. The state is the architectural
// PMSICR_EL1.{COUNT,ECOUNT}, PMSIRR_EL1.{INTERVAL,RND}, the generator state and, with
// cfg_next_op, the "sample the next operation" flag (IMPLEMENTATION DEFINED, §2.2.1 note).
//
// cfg_ernd is PMSIDR_EL1.ERnd and cfg_next_op the sample-point choice; both are straps that
// must be stable while out of reset. cfg_rng_seed is loaded at reset.
module spu_sample_counter
  import spu_cosim_pkg::*;
#(
    parameter int W = 4
) (
    input  logic         clk,
    input  logic         rst,
    input  logic         cfg_ernd,      // PMSIDR_EL1.ERnd
    input  logic         cfg_next_op,   // sample the op after the one at which COUNT reached 0
    input  logic [31:0]  cfg_rng_seed,
    input  logic         icr_we,        // MSR PMSICR_EL1
    /* verilator lint_off UNUSEDSIGNAL */ // RES0 bits of the written values
    input  logic [63:0]  icr_wdata,
    input  logic         irr_we,        // MSR PMSIRR_EL1
    input  logic [63:0]  irr_wdata,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic         prof_en,       // StatisticalProfilingEnabled() after this cycle's writes
    input  logic [W-1:0] op_valid,      // a member of the sample population retires in lane i
    output logic [W-1:0] fire,          // lane i is selected for sampling (combinational)
    output logic [31:0]  count,         // PMSICR_EL1.COUNT
    output logic [7:0]   ecount,        // PMSICR_EL1.ECOUNT
    output logic [23:0]  interval,      // PMSIRR_EL1.INTERVAL
    output logic         rnd,           // PMSIRR_EL1.RND
    output logic [31:0]  rng_state,
    output logic         pending        // cfg_next_op: the next population member is sampled
);

  logic [31:0] count_q, count_d;
  logic [7:0]  ecount_q, ecount_d;
  logic [23:0] interval_q, interval_d;
  logic        rnd_q, rnd_d;
  logic [31:0] rng_q, rng_d;
  logic        pend_q, pend_d;
  logic        en_q;                    // profiling was enabled in the previous cycle
  logic        point;

  always_comb begin
    count_d    = count_q;
    ecount_d   = ecount_q;
    interval_d = interval_q;
    rnd_d      = rnd_q;
    rng_d      = rng_q;
    pend_d     = pend_q;
    fire       = '0;
    point      = 1'b0;

    // Register writes (RES0 bits read as zero; ECOUNT is RES0 without ERnd).
    if (irr_we) begin
      interval_d = irr_wdata[31:8];
      rnd_d      = irr_wdata[0];
    end
    if (icr_we) begin
      count_d  = icr_wdata[31:0];
      ecount_d = cfg_ernd ? icr_wdata[63:56] : 8'h00;
    end

    // §3.1.1: moving from disabled to enabled, a zero PMSICR_EL1 gets an initial value; with
    // RND=1 and ERnd=0, COUNT[7:0] is random; with ERnd=1 it is 0x00.
    if (prof_en && !en_q && count_d == 32'h0 && ecount_d == 8'h00) begin
      count_d = {interval_d, 8'h00};
      if (rnd_d && !cfg_ernd) begin
        rng_d         = xorshift32_step(rng_d);
        count_d[7:0]  = rng_d[31:24];
      end
    end

    // §3.1.2, one population member per valid lane. §3.1.3: nothing moves while disabled.
    for (int i = 0; i < W; i++) begin
      if (op_valid[i] && prof_en) begin
        point = 1'b0;
        if (pend_d) begin
          pend_d  = 1'b0;
          fire[i] = 1'b1;
        end
        // The secondary counter decrements while non-zero; reaching zero selects.
        if (cfg_ernd && ecount_d != 8'h00) begin
          ecount_d = ecount_d - 8'd1;
          if (ecount_d == 8'h00) point = 1'b1;
        end
        if (count_d != 32'h0) begin
          count_d = count_d - 32'd1;
        end else begin
          // COUNT reached zero at this member: reload COUNT[31:8] = INTERVAL.
          count_d = {interval_d, 8'h00};
          if (rnd_d && cfg_ernd) begin
            // RND=1, ERnd=1: ECOUNT gets a random value; the member at which it reaches zero
            // is selected (this one, when the value is zero).
            rng_d    = xorshift32_step(rng_d);
            ecount_d = rng_d[31:24];
            if (ecount_d == 8'h00) point = 1'b1;
          end else begin
            if (rnd_d) begin
              rng_d        = xorshift32_step(rng_d);
              count_d[7:0] = rng_d[31:24];
            end
            point = 1'b1;
          end
        end
        if (point) begin
          if (cfg_next_op) pend_d = 1'b1;
          else fire[i] = 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      count_q    <= 32'h0;
      ecount_q   <= 8'h00;
      interval_q <= 24'h0;
      rnd_q      <= 1'b0;
      rng_q      <= rng_seed_value(cfg_rng_seed);
      pend_q     <= 1'b0;
      en_q       <= 1'b0;
    end else begin
      count_q    <= count_d;
      ecount_q   <= ecount_d;
      interval_q <= interval_d;
      rnd_q      <= rnd_d;
      rng_q      <= rng_d;
      pend_q     <= pend_d;
      en_q       <= prof_en;
    end
  end

  assign count     = count_q;
  assign ecount    = ecount_q;
  assign interval  = interval_q;
  assign rnd       = rnd_q;
  assign rng_state = rng_q;
  assign pending   = pend_q;

endmodule
