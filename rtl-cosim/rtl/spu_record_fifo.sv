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
module spu_record_fifo #(
    parameter int W           = 4,     // lanes (operations retired per cycle)
    parameter int SLOTS       = 8,     // in-flight slots implemented (power of two, >= 2)
    parameter int DEPTH       = 1024,  // FIFO byte capacity implemented
    parameter int REC_SLOTS   = 512,   // record descriptors implemented (power of two)
    parameter int LEN_W       = 12,    // width of a record length (descriptor width)
    parameter int LAT_W       = 16,    // width of a completion latency
    parameter int DRAIN_MAX   = 32,    // largest drain rate, bytes per cycle
    parameter int MIN_REC_LEN = 3,     // smallest record (an Events and an End packet)
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
    output logic [63:0]            drained,       // bytes drained since reset
    output logic [63:0]            popped         // records handed to the buffer writer
);

  // A drain of DRAIN_MAX bytes finishes the partly drained head record and then whole
  // records of at least MIN_REC_LEN bytes.
  localparam int POPS = 1 + (DRAIN_MAX - 1 + MIN_REC_LEN - 1) / MIN_REC_LEN;

  logic [LAT_W-1:0] rem_q [SLOTS];      // cycles until the sampled operation completes
  logic [LEN_W-1:0] qlen_q [SLOTS];     // its record length (0: filtered out)
  logic [SW-1:0]    qh_q;
  logic [SW:0]      qn_q;
  logic [LEN_W-1:0] desc_q [REC_SLOTS]; // record descriptors: lengths in FIFO order
  logic [RW-1:0]    rh_q;
  logic [RW:0]      nrec_q;
  logic [LEN_W-1:0] hd_q;               // bytes of the head record already drained
  logic [LVL_W-1:0] level_q;
  logic [63:0]      drained_q, popped_q;

  logic [LAT_W-1:0] rem_d [SLOTS];
  logic [LEN_W-1:0] qlen_d [SLOTS];
  logic [SW-1:0]    qh_d;
  logic [SW:0]      qn_d;
  logic [RW-1:0]    rh_d;
  logic [RW:0]      nrec_d;
  logic [LEN_W-1:0] hd_d;
  logic [LVL_W-1:0] level_d;
  logic [63:0]      drained_d, popped_d;
  logic [SLOTS-1:0] push_v;
  logic [RW-1:0]    push_idx [SLOTS];
  logic [LEN_W-1:0] push_len [SLOTS];

  int unsigned n, freed, lvl, bytes, left, take, h, nr, pops, dr;
  logic [RW-1:0] r;
  logic [SW-1:0] idx;
  logic          blocked;

  always_comb begin
    n       = 0;
    freed   = 0;
    left    = 0;
    take    = 0;
    blocked = 1'b0;
    idx     = '0;
    rem_d  = rem_q;
    qlen_d = qlen_q;
    coll   = '0;
    full   = 1'b0;
    push_v = '0;
    for (int k = 0; k < SLOTS; k++) begin
      push_idx[k] = '0;
      push_len[k] = '0;
    end

    // 1. Retire: take slots in lane order; none free is a collision (§3.1.4).
    n = 32'(qn_q);
    for (int i = 0; i < W; i++) begin
      if (fire[i]) begin
        if (n < 32'(cfg_slots)) begin
          idx         = SW'(32'(qh_q) + n);
          rem_d[idx]  = lane_lat[i*LAT_W +: LAT_W];
          qlen_d[idx] = lane_len[i*LEN_W +: LEN_W];
          n           = n + 1;
        end else begin
          coll[i] = 1'b1;
        end
      end
    end

    // 2. Drain at the configured rate.
    lvl   = 32'(level_q);
    h     = 32'(hd_q);
    r     = rh_q;
    nr    = 32'(nrec_q);
    // Bytes leave only on valid && ready (nothing is offered from an empty FIFO: nr == 0).
    bytes = (drain_valid && drain_ready && !flush) ? 32'(cfg_drain) : 0;
    dr    = 0;
    pops  = 0;
    if (flush) begin
      lvl = 0;
      h   = 0;
      nr  = 0;
    end
    for (int k = 0; k < POPS; k++) begin
      if (bytes != 0 && nr != 0) begin
        left  = 32'(desc_q[r]) - h;
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
      idx = SW'(32'(qh_q) + 32'(k));
      if (!blocked && 32'(k) < n) begin
        if (rem_d[idx] != '0) begin
          blocked = 1'b1;                       // the oldest has not completed
        end else if (qlen_d[idx] == '0 || discard) begin
          freed = freed + 1;                    // filtered out or discarded: nothing pushed
        end else if (lvl + 32'(qlen_d[idx]) <= 32'(cfg_depth) && nr < 32'(cfg_rec_cap)) begin
          push_v[k]   = 1'b1;
          push_idx[k] = RW'(32'(r) + nr);
          push_len[k] = qlen_d[idx];
          nr          = nr + 1;
          lvl         = lvl + 32'(qlen_d[idx]);
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

    qh_d      = SW'(32'(qh_q) + freed);
    qn_d      = (SW + 1)'(n - freed);
    rh_d      = r;
    nrec_d    = (RW + 1)'(nr);
    hd_d      = LEN_W'(h);
    level_d   = LVL_W'(lvl);
    drained_d = drained_q + 64'(dr);
    popped_d  = popped_q + 64'(pops);
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
      rem_q     <= rem_d;
      qlen_q    <= qlen_d;
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

endmodule
