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
//
// Verification (spu_assert.svh): per lane, COUNT decrements at a member while non-zero and is
// reloaded (COUNT[31:8] = INTERVAL, COUNT[7:0] = 0 or the generator's draw) exactly at the member
// where it is zero; the selected lanes are those; nothing moves while disabled. Cover points
// name the paths of §3.1.1-§3.1.3 a run should reach (reload with and without RND, the ERnd
// paths, hold and resume, disable mid-interval).
`include "spu_assert.svh"

module spu_sample_counter #(
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
    output logic         pending,       // cfg_next_op: the next population member is sampled
    output logic         reloaded       // verification: COUNT was reloaded in this cycle (comb.)
);

  `AP_SVA_ON
  `AP_PERTURB_DECL

  logic [31:0] count_q;
  logic [7:0]  ecount_q;
  logic [23:0] interval_q;
  logic        rnd_q;
  logic [31:0] rng_q;
  logic        pend_q;
  logic        en_q;                    // profiling was enabled in the previous cycle
  // The next state and the cycle's working values: toggle coverage counts the state above and
  // the ports, not these.
  /*verilator coverage_off*/
  logic [31:0] count_d;
  logic [7:0]  ecount_d;
  logic [23:0] interval_d;
  logic        rnd_d;
  logic [31:0] rng_d;
  logic        pend_d;
  logic        point;

  // Verification view of each lane (assertions, cover points): COUNT, ECOUNT and the generator
  // before and after the lane's member, whether it was counted, reached zero, was selected.
  logic [W-1:0] member, at_zero, pt, edraw, ezero;
  logic [31:0]  cnt_in [W];
  logic [31:0]  cnt_out [W];
  logic [7:0]   ecnt_in [W];
  logic [7:0]   ecnt_out [W];
  logic [31:0]  rng_out [W];
  logic         init;                   // §3.1.1 loaded COUNT this cycle
  /*verilator coverage_on*/

  always_comb begin
    count_d    = count_q;
    ecount_d   = ecount_q;
    interval_d = interval_q;
    rnd_d      = rnd_q;
    rng_d      = rng_q;
    pend_d     = pend_q;
    fire       = '0;
    point      = 1'b0;
    member     = '0;
    at_zero    = '0;
    pt         = '0;
    edraw      = '0;
    ezero      = '0;
    init       = 1'b0;

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
      init    = 1'b1;
      count_d = {interval_d, 8'h00};
      if (rnd_d && !cfg_ernd) begin
        rng_d         = spu_cosim_pkg::xorshift32_step(rng_d);
        count_d[7:0]  = rng_d[31:24];
      end
    end

    // §3.1.2, one population member per valid lane. §3.1.3: nothing moves while disabled.
    for (int i = 0; i < W; i++) begin
      cnt_in[i]  = count_d;
      ecnt_in[i] = ecount_d;
      if (op_valid[i] && prof_en) begin
        member[i] = 1'b1;
        point = 1'b0;
        if (pend_d) begin
          pend_d  = 1'b0;
          fire[i] = 1'b1;
        end
        // The secondary counter decrements while non-zero; reaching zero selects.
        if (cfg_ernd && ecount_d != 8'h00) begin
          ecount_d = ecount_d - 8'd1;
          if (ecount_d == 8'h00) begin
            point    = 1'b1;
            ezero[i] = 1'b1;
          end
        end
        if (count_d != 32'h0) begin
          count_d = count_d - 32'd1;
        end else begin
          // COUNT reached zero at this member: reload COUNT[31:8] = INTERVAL.
          at_zero[i] = 1'b1;
          count_d = {interval_d, 8'h00};
          if (rnd_d && cfg_ernd) begin
            // RND=1, ERnd=1: ECOUNT gets a random value; the member at which it reaches zero
            // is selected (this one, when the value is zero).
            rng_d    = spu_cosim_pkg::xorshift32_step(rng_d);
            ecount_d = rng_d[31:24];
            edraw[i] = 1'b1;
            if (ecount_d == 8'h00) point = 1'b1;
          end else begin
            if (rnd_d) begin
              rng_d        = spu_cosim_pkg::xorshift32_step(rng_d);
              count_d[7:0] = rng_d[31:24];
            end
            point = 1'b1;
          end
          /*verilator coverage_off*/
          if (perturb == spu_cosim_pkg::PERTURB_RELOAD) count_d = count_d + 32'd1;
          /*verilator coverage_on*/
        end
        if (point) begin
          pt[i] = 1'b1;
          if (cfg_next_op) pend_d = 1'b1;
          else fire[i] = 1'b1;
        end
      end
      cnt_out[i]  = count_d;
      ecnt_out[i] = ecount_d;
      rng_out[i]  = rng_d;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      count_q    <= 32'h0;
      ecount_q   <= 8'h00;
      interval_q <= 24'h0;
      rnd_q      <= 1'b0;
      rng_q      <= spu_cosim_pkg::rng_seed_value(cfg_rng_seed);
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
  assign reloaded  = |at_zero;

  // ---- Assertions (§3.1.2, §3.1.3) -------------------------------------------------------------

  // Each lane's checks, one bit per lane.
  /*verilator coverage_off*/
  logic [W-1:0] ok_dec, ok_idle, ok_reload, ok_edec, ok_fire, ok_member;
  logic [31:0]  reload_val;
  /*verilator coverage_on*/
  always_comb begin
    reload_val = '0;
    for (int i = 0; i < W; i++) begin
      // A member decrements a non-zero COUNT by one; a lane with no member leaves it.
      ok_dec[i]    = !member[i] || cnt_in[i] == 32'h0 || cnt_out[i] == cnt_in[i] - 32'd1;
      ok_idle[i]   = member[i] || (cnt_out[i] == cnt_in[i] && ecnt_out[i] == ecnt_in[i]);
      // The reload value: COUNT[31:8] = INTERVAL; COUNT[7:0] the draw with RND=1 and ERnd=0,
      // else 0x00.
      reload_val   = {interval_d, (rnd_d && !cfg_ernd) ? rng_out[i][31:24] : 8'h00};
      ok_reload[i] = !member[i] || cnt_in[i] != 32'h0 || cnt_out[i] == reload_val;
      // ERnd=1: ECOUNT decrements while non-zero unless this member redraws it.
      ok_edec[i]   = !member[i] || !cfg_ernd || ecnt_in[i] == 8'h00 || edraw[i] ||
                     ecnt_out[i] == ecnt_in[i] - 8'd1;
      // ERnd=0, the sample point sampled (not the next operation): the selected member is the
      // one at which COUNT is zero.
      ok_fire[i]   = cfg_ernd || cfg_next_op || fire[i] == (member[i] && cnt_in[i] == 32'h0);
      ok_member[i] = !fire[i] || member[i];
    end
  end
  `AP_ASSERT(a_cnt_decrements, &ok_dec)
  `AP_ASSERT(a_cnt_idle_lane, &ok_idle)
  // The counter reloads exactly at zero: at the member where COUNT is zero, to the reload value.
  `AP_ASSERT(a_cnt_reloads_at_zero, &ok_reload)
  `AP_ASSERT(a_ecnt_decrements, &ok_edec)
  `AP_ASSERT(a_fire_at_zero, &ok_fire)
  // Only members are selected.
  `AP_ASSERT(a_fire_member, &ok_member)
  // The inputs' contract: the straps stable out of reset.
  /*verilator coverage_off*/
  logic cfg_ernd_q, cfg_next_op_q;
  /*verilator coverage_on*/
  always_ff @(posedge clk) begin
    cfg_ernd_q    <= cfg_ernd;
    cfg_next_op_q <= cfg_next_op;
  end
  `AP_ASSUME(u_cnt_straps_stable, rst || (cfg_ernd == cfg_ernd_q && cfg_next_op == cfg_next_op_q))
`ifdef FORMAL
  initial assume (rst);                 // the proofs start from a reset edge
`endif

  // State the straps allow: ECOUNT is RES0 without ERnd; the next-operation flag only with
  // cfg_next_op.
  `AP_ASSERT(a_ecount_res0, cfg_ernd || ecount_q == 8'h00)
  `AP_ASSERT(a_pend_next_op, cfg_next_op || !pend_q)
  // §3.1.3: while profiling is disabled nothing is counted and, without a write, nothing moves.
  `AP_ASSERT(a_cnt_hold_disabled, prof_en || (fire == '0 && (icr_we || (count_d == count_q && ecount_d == ecount_q && rng_d == rng_q))))

  // ---- Cover points ----------------------------------------------------------------------------

  /*verilator coverage_off*/
  logic [31:0] reload_base;             // the value COUNT takes at a reload, before RND
  /*verilator coverage_on*/
  assign reload_base = {interval_q, 8'h00};
  `AP_COVER(c_cnt_reload, |at_zero && !rnd_d)                  // §3.1.2 RND=0
  `AP_COVER(c_cnt_reload_rnd, |at_zero && rnd_d && !cfg_ernd)  // RND=1, ERnd=0: COUNT[7:0] drawn
  `AP_COVER(c_cnt_reload_ernd, |edraw)                         // RND=1, ERnd=1: ECOUNT drawn
  `AP_COVER(c_ernd_draw_zero, |(edraw & pt))                   // ... drawn as 0: this member
  `AP_COVER(c_ernd_ecount_zero, |ezero)                        // ECOUNT reached zero
  `AP_COVER(c_cnt_init, init && !(rnd_d && !cfg_ernd))         // §3.1.1 on enable
  `AP_COVER(c_cnt_init_rnd, init && rnd_d && !cfg_ernd)        // §3.1.1, COUNT[7:0] drawn
  `AP_COVER(c_cnt_hold, !prof_en && op_valid != '0 && count_q != 32'h0)  // §3.1.3 hold
  `AP_COVER(c_cnt_resume, prof_en && !en_q && !init && count_q != reload_base) // resume mid-interval
  `AP_COVER(c_cnt_disable_mid_interval, en_q && !prof_en && count_q != 32'h0 && count_q != reload_base)
  `AP_COVER(c_fire_two_lanes, (fire & (fire - 1'b1)) != '0)    // INTERVAL 0: several a cycle
  `AP_COVER(c_next_op_carry, cfg_next_op && pend_d && !pend_q && prof_en) // the sample is next cycle's
  `AP_COVER(c_icr_write_counting, icr_we && prof_en && en_q)   // MSR PMSICR_EL1 mid-interval
  `AP_COVER(c_irr_write_counting, irr_we && prof_en && en_q)   // MSR PMSIRR_EL1 mid-interval

endmodule
