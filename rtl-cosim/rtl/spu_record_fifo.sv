// SPDX-License-Identifier: Apache-2.0
// spu_record_fifo.sv: the SPU's in-flight sample slots and record FIFO (seed 001 §2.2.4, §3.1.4).
//
// One cycle, in the order of the C model's spu_cycle():
//   1. retire: each lane selected for sampling (`fire`) takes an in-flight slot with its
//      completion latency and its encoded record length (0: the record is filtered out by
//      CollectRecord and never enters the FIFO); with no free slot it collides (`coll`).
//   2. clock edge, drain: a valid/ready handshake with the buffer writer (the memory side).
//      `drain_valid` is high while the FIFO holds bytes and offers `drain_len` =
//      min(cfg_drain, level) of them; they leave only at an edge with drain_valid && drain_ready,
//      across record boundaries; a record whose last byte leaves is popped. With drain_ready
//      low nothing leaves and the offer stands (valid does not depend on ready). This is the
//      C model's spu_set_drain_stall(!drain_ready) for the same cycle.
//   3. clock edge, accept: completed records enter the FIFO strictly in sampling order while
//      they fit (bytes <= cfg_depth, records <= cfg_rec_cap); a record that does not fit
//      holds its slot and the ones behind it (backpressure, `full`).
// Two host inputs mirror what the C model's buffer writer does to the FIFO (platform use):
//   `flush`:   at step 2 the FIFO is emptied instead of drained (its records were discarded
//              by a management event, §3.5, or written by a PSB CSYNC, §3.6);
//   `discard`: at step 3 completed records leave their slots without entering the FIFO
//              (PMBSR_EL1.S == 1: every buffered record is discarded).
// Slots are a queue: they are taken in sampling order and freed only from the oldest.
//
// Verification (spu_assert.svh): the FIFO never overflows (bytes, records, slots) nor
// underflows; bytes leave only on drain_valid && drain_ready, exactly drain_len of them; an offer
// not taken stands (valid stays, same head record and offset, the length does not shrink); the
// occupancy equals what entered minus what left (drained, popped, flushed). Cover points name
// the FIFO states and drain patterns a run should reach. A few registers exist for these
// alone (`ready_q`, `xfer_q`, `stall_run_q`, the byte-ring position `wr_pos_q` and the entered /
// flushed totals); the formal build adds the invariants its induction needs (`FORMAL`).
`include "spu_assert.svh"

module spu_record_fifo #(
    parameter int W           = 4,     // lanes (operations retired per cycle)
    parameter int SLOTS       = 8,     // in-flight slots implemented (power of two, >= 2)
    parameter int DEPTH       = 1024,  // FIFO byte capacity implemented
    parameter int REC_SLOTS   = 512,   // record descriptors implemented (power of two)
    parameter int LEN_W       = 12,    // width of a record length (descriptor width)
    parameter int LAT_W       = 16,    // width of a completion latency
    parameter int DRAIN_MAX   = 32,    // largest drain rate, bytes per cycle
    parameter int MIN_REC_LEN = 3,     // smallest record (an Events and an End packet)
    parameter int CNT_W       = 64,    // width of the drained / popped totals
    localparam int SW    = $clog2(SLOTS),
    localparam int RW    = $clog2(REC_SLOTS),
    localparam int LVL_W = $clog2(DEPTH + 1),
    localparam int DW    = $clog2(DRAIN_MAX + 1)
) (
    input  logic                   clk,
    input  logic                   rst,
    input  logic [SW:0]            cfg_slots,     // slots in use, 1 .. SLOTS
    input  logic [LVL_W-1:0]       cfg_depth,     // byte capacity in use, <= DEPTH
    input  logic [RW:0]            cfg_rec_cap,   // descriptor capacity in use, <= REC_SLOTS
    input  logic [DW-1:0]          cfg_drain,     // drain rate, 1 .. DRAIN_MAX bytes per cycle
    input  logic [W-1:0]           fire,
    input  logic [W*LAT_W-1:0]     lane_lat,
    input  logic [W*LEN_W-1:0]     lane_len,
    input  logic                   drain_ready,   // the memory side accepts this cycle
    input  logic                   flush,         // empty the FIFO at this edge, no drain
    input  logic                   discard,       // completed records freed, not pushed
    output logic [W-1:0]           coll,          // lane i collided (combinational)
    output logic                   full,          // a completed record waits for room (comb.)
    output logic                   drain_valid,   // bytes offered to the writer (comb., from state)
    output logic [DW-1:0]          drain_len,     // bytes that leave if drain_ready (comb.)
    output logic [SW:0]            inflight,
    output logic [LVL_W-1:0]       level,         // bytes in the FIFO
    output logic [RW:0]            nrec,          // records in the FIFO
    output logic [CNT_W-1:0]       drained,       // bytes drained since reset
    output logic [CNT_W-1:0]       popped         // records handed to the buffer writer
);

  `AP_SVA_ON
  `AP_PERTURB_DECL

  // A drain of DRAIN_MAX bytes finishes the partly drained head record and then whole
  // records of at least MIN_REC_LEN bytes.
  localparam int POPS = 1 + (DRAIN_MAX - 1 + MIN_REC_LEN - 1) / MIN_REC_LEN;
  // Width of the cycle's byte and record arithmetic: room for a level plus a record, a head
  // index plus the records, the slots plus the lanes, with a bit to spare.
  localparam int AW0 = (LVL_W > LEN_W) ? LVL_W : LEN_W;
  localparam int AW1 = (AW0 > RW + 1) ? AW0 : RW + 1;
  localparam int AW2 = (AW1 > DW) ? AW1 : DW;
  localparam int AW  = ((AW2 > SW + 2) ? AW2 : SW + 2) + 2;
  typedef logic [AW-1:0] num_t;

  logic [LAT_W-1:0] rem_q [SLOTS];      // cycles until the sampled operation completes
  logic [LEN_W-1:0] qlen_q [SLOTS];     // its record length (0: filtered out)
  logic [SW-1:0]    qh_q;
  logic [SW:0]      qn_q;
  logic [LEN_W-1:0] desc_q [REC_SLOTS]; // record descriptors: lengths in FIFO order
  logic [RW-1:0]    rh_q;
  logic [RW:0]      nrec_q;
  logic [LEN_W-1:0] hd_q;               // bytes of the head record already drained
  logic [LVL_W-1:0] level_q;
  logic [CNT_W-1:0] drained_q, popped_q;

  // The next state and the cycle's working values: toggle coverage counts the state above and
  // the ports, not these.
  /*verilator coverage_off*/
  logic [LAT_W-1:0] rem_d [SLOTS];
  logic [LEN_W-1:0] qlen_d [SLOTS];
  logic [SW-1:0]    qh_d;
  logic [SW:0]      qn_d;
  logic [RW-1:0]    rh_d;
  logic [RW:0]      nrec_d;
  logic [LEN_W-1:0] hd_d;
  logic [LVL_W-1:0] level_d;
  logic [CNT_W-1:0] drained_d, popped_d;
  logic [SLOTS-1:0] push_v;
  logic [RW-1:0]    push_idx [SLOTS];
  logic [LEN_W-1:0] push_len [SLOTS];

  num_t n, freed, lvl, bytes, left, take, h, nr, pops, dr;
  logic [RW-1:0] r;
  logic [SW-1:0] idx;
  logic          blocked;
  /*verilator coverage_on*/

  // The ready the drain obeys: drain_ready, unless a deliberate bug is selected (AP_PERTURB).
  /*verilator coverage_off*/
  logic          ready_q;               // drain_ready at the last edge
  logic          take_ready;
  /*verilator coverage_on*/
  always_comb begin
    take_ready = drain_ready;
    /*verilator coverage_off*/
    if (perturb == spu_cosim_pkg::PERTURB_READY) take_ready = 1'b1;
    if (perturb == spu_cosim_pkg::PERTURB_DRAIN && ready_q) take_ready = 1'b1;
    /*verilator coverage_on*/
  end

  always_comb begin
    n       = 0;
    freed   = 0;
    left    = 0;
    take    = 0;
    blocked = 1'b0;
    idx     = '0;
    for (int k = 0; k < SLOTS; k++) begin
      rem_d[k]  = rem_q[k];
      qlen_d[k] = qlen_q[k];
    end
    coll   = '0;
    full   = 1'b0;
    push_v = '0;
    for (int k = 0; k < SLOTS; k++) begin
      push_idx[k] = '0;
      push_len[k] = '0;
    end

    // 1. Retire: take slots in lane order; none free is a collision (§3.1.4).
    n = AW'(qn_q);
    for (int i = 0; i < W; i++) begin
      if (fire[i]) begin
        if (n < AW'(cfg_slots)) begin
          idx         = SW'(AW'(qh_q) + n);
          rem_d[idx]  = lane_lat[i*LAT_W +: LAT_W];
          qlen_d[idx] = lane_len[i*LEN_W +: LEN_W];
          n           = n + 1;
        end else begin
          coll[i] = 1'b1;
        end
      end
    end

    // 2. Drain at the configured rate.
    lvl   = AW'(level_q);
    h     = AW'(hd_q);
    r     = rh_q;
    nr    = AW'(nrec_q);
    // Bytes leave only on valid && ready (nothing is offered from an empty FIFO: nr == 0).
    bytes = (drain_valid && take_ready && !flush) ? AW'(cfg_drain) : 0;
    dr    = 0;
    pops  = 0;
    if (flush) begin
      lvl = 0;
      h   = 0;
      nr  = 0;
    end
    for (int k = 0; k < POPS; k++) begin
      if (bytes != 0 && nr != 0) begin
        left  = AW'(desc_q[r]) - h;
        take  = (bytes < left) ? bytes : left;
        h     = h + take;
        lvl   = lvl - take;
        dr    = dr + take;
        bytes = bytes - take;
        if (take == left) begin
          r    = r + 1'b1;
          nr   = nr - 1;
          h    = 0;
          pops = pops + 1;
        end
      end
    end

    // 3. Accept completed records in sampling order while they fit.
    for (int k = 0; k < SLOTS; k++) begin
      idx = SW'(AW'(qh_q) + AW'(k));
      if (!blocked && AW'(k) < n) begin
        if (rem_d[idx] != '0) begin
          blocked = 1'b1;                       // the oldest has not completed
        end else if (qlen_d[idx] == '0 || discard) begin
          freed = freed + 1;                    // filtered out or discarded: nothing pushed
        end else if (lvl + AW'(qlen_d[idx]) <= AW'(cfg_depth) && nr < AW'(cfg_rec_cap)) begin
          push_v[k]   = 1'b1;
          push_idx[k] = RW'(AW'(r) + nr);
          push_len[k] = qlen_d[idx];
          nr          = nr + 1;
          lvl         = lvl + AW'(qlen_d[idx]);
          freed       = freed + 1;
        end else begin
          full    = 1'b1;                       // backpressure
          blocked = 1'b1;
        end
      end
    end

    // One cycle passes for the operations still executing.
    for (int k = 0; k < SLOTS; k++) begin
      if (rem_d[k] != '0) rem_d[k] = rem_d[k] - 1'b1;
    end

    qh_d      = SW'(AW'(qh_q) + freed);
    qn_d      = (SW + 1)'(n - freed);
    rh_d      = r;
    nrec_d    = (RW + 1)'(nr);
    hd_d      = LEN_W'(h);
    level_d   = LVL_W'(lvl);
    drained_d = drained_q + CNT_W'(dr);
    popped_d  = popped_q + CNT_W'(pops);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      qh_q      <= '0;
      qn_q      <= '0;
      rh_q      <= '0;
      nrec_q    <= '0;
      hd_q      <= '0;
      level_q   <= '0;
      drained_q <= '0;
      popped_q  <= '0;
      for (int k = 0; k < SLOTS; k++) begin
        rem_q[k]  <= '0;
        qlen_q[k] <= '0;
      end
    end else begin
      qh_q      <= qh_d;
      qn_q      <= qn_d;
      rh_q      <= rh_d;
      nrec_q    <= nrec_d;
      hd_q      <= hd_d;
      level_q   <= level_d;
      drained_q <= drained_d;
      popped_q  <= popped_d;
      for (int k = 0; k < SLOTS; k++) begin
        rem_q[k]  <= rem_d[k];
        qlen_q[k] <= qlen_d[k];
      end
    end
  end

  // Descriptor storage: no reset needed (entries are written before they are read).
  always_ff @(posedge clk) begin
    for (int k = 0; k < SLOTS; k++) begin
      if (!rst && push_v[k]) desc_q[push_idx[k]] <= push_len[k];
    end
  end

  // The offer comes from registered state only: valid never waits for ready.
  assign drain_valid = nrec_q != '0;
  assign drain_len   = (32'(level_q) < 32'(cfg_drain)) ? DW'(level_q) : cfg_drain;

  assign inflight = qn_q;
  assign level    = level_q;
  assign nrec     = nrec_q;
  assign drained  = drained_q;
  assign popped   = popped_q;

  // ---- Verification view: what the edge moves, and state kept for the checks alone -------------

  /*verilator coverage_off*/
  num_t            push_n, push_bytes, pos;
  logic            wraps;                // a pushed record's bytes wrap the byte ring's end
  logic [LVL_W-1:0] wr_pos_q;            // where the next record starts in a ring of cfg_depth bytes
  logic            xfer_q;               // the last edge moved bytes to the writer
  logic [7:0]      stall_run_q;          // cycles the current offer has waited for drain_ready
  logic [CNT_W-1:0] pushed_bytes_q, pushed_recs_q, flushed_bytes_q, flushed_recs_q;
  /*verilator coverage_on*/

  always_comb begin
    push_n     = 0;
    push_bytes = 0;
    wraps      = 1'b0;
    pos        = AW'(wr_pos_q);
    for (int k = 0; k < SLOTS; k++) begin
      if (push_v[k]) begin
        push_n     = push_n + 1;
        push_bytes = push_bytes + AW'(push_len[k]);
        if (pos + AW'(push_len[k]) > AW'(cfg_depth)) wraps = 1'b1;
        pos = pos + AW'(push_len[k]);
        if (pos >= AW'(cfg_depth)) pos = pos - AW'(cfg_depth);
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      ready_q         <= 1'b1;
      xfer_q          <= 1'b0;
      stall_run_q     <= '0;
      wr_pos_q        <= '0;
      pushed_bytes_q  <= '0;
      pushed_recs_q   <= '0;
      flushed_bytes_q <= '0;
      flushed_recs_q  <= '0;
    end else begin
      ready_q         <= drain_ready;
      xfer_q          <= drain_valid && drain_ready && !flush;
      stall_run_q     <= (drain_valid && !drain_ready && !flush) ?
                         ((stall_run_q == 8'hFF) ? stall_run_q : stall_run_q + 8'd1) : 8'd0;
      wr_pos_q        <= LVL_W'(pos);
      pushed_bytes_q  <= pushed_bytes_q + CNT_W'(push_bytes);
      pushed_recs_q   <= pushed_recs_q + CNT_W'(push_n);
      flushed_bytes_q <= flushed_bytes_q + (flush ? CNT_W'(level_q) : '0);
      flushed_recs_q  <= flushed_recs_q + (flush ? CNT_W'(nrec_q) : '0);
    end
  end

  // ---- The inputs' contract (assumed by the proofs, asserted in simulation) --------------------

  /*verilator coverage_off*/
  logic [SW:0]      cfg_slots_q;
  logic [LVL_W-1:0] cfg_depth_q;
  logic [RW:0]      cfg_rec_cap_q;
  logic [W-1:0]     len_ok;
  /*verilator coverage_on*/
  always_ff @(posedge clk) begin
    cfg_slots_q   <= cfg_slots;
    cfg_depth_q   <= cfg_depth;
    cfg_rec_cap_q <= cfg_rec_cap;
  end
  always_comb begin
    for (int i = 0; i < W; i++)
      len_ok[i] = !fire[i] || lane_len[i*LEN_W +: LEN_W] == '0 ||
                  32'(lane_len[i*LEN_W +: LEN_W]) >= MIN_REC_LEN;
  end
  `AP_ASSUME(u_fifo_cfg_range, cfg_slots != '0 && 32'(cfg_slots) <= SLOTS &&
             32'(cfg_depth) >= MIN_REC_LEN && 32'(cfg_depth) <= DEPTH &&
             cfg_rec_cap != '0 && 32'(cfg_rec_cap) <= REC_SLOTS &&
             cfg_drain != '0 && 32'(cfg_drain) <= DRAIN_MAX)
  `AP_ASSUME(u_fifo_cfg_stable, rst || (cfg_slots == cfg_slots_q && cfg_depth == cfg_depth_q &&
             cfg_rec_cap == cfg_rec_cap_q))
  // A sampled lane's record: filtered out (0) or at least an Events and an End packet.
  `AP_ASSUME(u_fifo_lane_len, &len_ok)
`ifdef FORMAL
  initial assume (rst);                 // the proofs start from a reset edge
`endif

  // ---- Assertions ------------------------------------------------------------------------------

  // No overflow: bytes, records and in-flight slots within the capacities in use.
  `AP_ASSERT(a_fifo_level_le_depth, AW'(level_q) <= AW'(cfg_depth))
  `AP_ASSERT(a_fifo_nrec_le_cap, AW'(nrec_q) <= AW'(cfg_rec_cap))
  `AP_ASSERT(a_slots_le_cfg, AW'(qn_q) <= AW'(cfg_slots))
  // No underflow: an edge drains at most the bytes and records the FIFO holds.
  `AP_ASSERT(a_fifo_no_underflow, dr <= AW'(level_q) && pops <= AW'(nrec_q))
  // The drain handshake: bytes leave only at an edge with drain_valid && drain_ready, and then
  // exactly the drain_len offered.
  `AP_ASSERT(a_drain_needs_ready, dr == 0 || (drain_valid && drain_ready && !flush))
  `AP_ASSERT(a_drain_takes_offer, !(drain_valid && drain_ready && !flush) || dr == AW'(drain_len))
  // An offer not taken stands: drain_valid stays high, the same record and offset are at the
  // head, and drain_len does not shrink (records may join behind it).
  `AP_ASSERT(a_offer_stands, !(drain_valid && !drain_ready && !flush) ||
             (nrec_d != '0 && rh_d == rh_q && hd_d == hd_q && level_d >= level_q))
  // Occupancy equals what entered minus what left.
  `AP_ASSERT(a_fifo_bytes_balance, CNT_W'(level_q) == pushed_bytes_q - drained_q - flushed_bytes_q)
  `AP_ASSERT(a_fifo_records_balance, CNT_W'(nrec_q) == pushed_recs_q - popped_q - flushed_recs_q)
  // Collisions: only a selected lane collides, and only when every slot in use is taken.
  `AP_ASSERT(a_coll_fired, (coll & ~fire) == '0)
  `AP_ASSERT(a_coll_slots_taken, coll == '0 || n == AW'(cfg_slots))
  // Backpressure: a record that does not fit keeps its slot.
  `AP_ASSERT(a_full_holds_slot, !full || qn_d != '0)

  // ---- Cover points ----------------------------------------------------------------------------

  `AP_COVER(c_fifo_empty_again, !drain_valid && popped_q != '0)       // drained empty after use
  `AP_COVER(c_fifo_almost_full, level_q > cfg_depth - (cfg_depth >> 3))  // < 1/8 free
  `AP_COVER(c_fifo_full, full)                                         // a record waits for room
  `AP_COVER(c_fifo_full_drain_stalled, full && drain_valid && !drain_ready)
  `AP_COVER(c_fifo_push_and_pop, push_n != 0 && pops != 0)             // same edge
  `AP_COVER(c_fifo_record_wraps, wraps)                                // crosses the ring's end
  `AP_COVER(c_desc_ring_wraps, 32'(rh_q) + 32'(nrec_q) > REC_SLOTS)    // descriptors wrap
  `AP_COVER(c_coll_while_full, coll != '0 && full)
  `AP_COVER(c_slots_all_taken, qn_q != '0 && qn_q == cfg_slots)
  `AP_COVER(c_drain_two_records, pops >= 2)                            // one beat, two records
  `AP_COVER(c_drain_partial, dr != 0 && dr < AW'(cfg_drain))           // a beat shorter than the rate
  `AP_COVER(c_stall_single, drain_valid && drain_ready && stall_run_q == 8'd1)  // 1-cycle stall ended
  `AP_COVER(c_stall_long, drain_valid && !drain_ready && stall_run_q == 8'hFF)  // >= 255 cycles
  `AP_COVER(c_stall_after_transfer, xfer_q && drain_valid && !drain_ready)      // memory busy
  `AP_COVER(c_ready_no_offer, !drain_valid && drain_ready && nrec_d != '0)     // a record arrives
  `AP_COVER(c_flush_records, flush && nrec_q != '0)                    // PSB CSYNC, records pending

`ifdef FORMAL
  // ---- Induction strengthening (formal only): the descriptor ring holds the FIFO's bytes -------
  logic [AW+RW-1:0] f_sum;
  logic        f_desc_ok;
  always_comb begin
    f_sum     = 0;
    f_desc_ok = 1'b1;
    for (int k = 0; k < REC_SLOTS; k++) begin
      if (32'(k) < 32'(nrec_q)) begin
        f_sum = f_sum + (AW+RW)'(desc_q[RW'(rh_q + RW'(k))]);
        if (32'(desc_q[RW'(rh_q + RW'(k))]) < MIN_REC_LEN) f_desc_ok = 1'b0;
      end
    end
  end
  `AP_ASSERT(f_level_is_desc_sum, (AW+RW)'(level_q) + (AW+RW)'(hd_q) == f_sum)
  `AP_ASSERT(f_desc_min_len, f_desc_ok)
  `AP_ASSERT(f_head_offset, nrec_q == '0 ? hd_q == '0 : hd_q < desc_q[rh_q])
  // ... and the occupied slots hold records that may enter it.
  logic f_slot_ok;
  always_comb begin
    f_slot_ok = 1'b1;
    for (int k = 0; k < SLOTS; k++) begin
      if (32'(k) < 32'(qn_q) && qlen_q[SW'(32'(qh_q) + 32'(k))] != '0 &&
          32'(qlen_q[SW'(32'(qh_q) + 32'(k))]) < MIN_REC_LEN) f_slot_ok = 1'b0;
    end
  end
  `AP_ASSERT(f_slot_len, f_slot_ok)
`endif

endmodule
