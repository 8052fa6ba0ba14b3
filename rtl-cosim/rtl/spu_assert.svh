// SPDX-License-Identifier: Apache-2.0
// spu_assert.svh: assertion, assumption and cover macros of the counter/FIFO RTL, for Verilator and yosys.
//
// One form that both tools read: an immediate assertion in a clocked block, sampled at the rising
// edge, so the expression sees the state before the edge and the next state the edge will load
// (the `_d` signals). Verilator checks them with --assert in every co-simulation and counts the
// cover points with --coverage-user; yosys (read_verilog -formal) proves the assertions under
// the assumptions and can reach the cover points. Yosys 0.23 reads neither concurrent
// properties (`assert property (@(posedge clk) ...)`) nor action blocks, hence the macros.
//
// A module that uses them has `clk`, `rst` and `sva_on_q` (high once a reset edge has been
// seen: before it, a simulator's state is not the RTL's yet).
//
//   AP_ASSERT(name, expr)  expr holds at every edge out of reset. With ARMPROF_SVA_DPI (the
//                          lockstep builds) a failure calls the harness's
//                          armprof_sva_fail("name") instead of stopping the simulation.
//   AP_ASSUME(name, expr)  a constraint on the inputs: assumed by the formal proofs, asserted in
//                          simulation (so a harness or platform that breaks it is told).
//   AP_COVER(name, expr)   a state worth reaching: counted by Verilator, reached by yosys.
`ifndef SPU_ASSERT_SVH
`define SPU_ASSERT_SVH

`ifdef ARMPROF_SVA_DPI
`define AP_ASSERT(name, expr) \
  always @(posedge clk) if (!rst && sva_on_q) begin name: assert (expr) else spu_cosim_pkg::armprof_sva_fail(`"name`"); end
`else
`define AP_ASSERT(name, expr) \
  always @(posedge clk) if (!rst && sva_on_q) begin name: assert (expr); end
`endif

`ifdef FORMAL
`define AP_ASSUME(name, expr) \
  always @(posedge clk) begin name: assume (expr); end
`else
`define AP_ASSUME(name, expr) `AP_ASSERT(name, expr)
`endif

`define AP_COVER(name, expr) \
  always @(posedge clk) if (!rst && sva_on_q) begin name: cover (expr); end

// The deliberate bug of this build or run (spu_cosim_pkg::PERTURB_*): a broken RTL that the
// assertions, the lockstep compare and the formal proofs must each catch. The lockstep builds
// choose it at run time (plusarg +armprof_perturb=N, armprof-cosim --perturb); the formal runs
// at elaboration (-D ARMPROF_PERTURB=N); everywhere else it is the constant PERTURB_NONE.
`ifdef ARMPROF_PERTURB
`define AP_PERTURB_DECL localparam int unsigned perturb = `ARMPROF_PERTURB;
`elsif ARMPROF_PERTURB_PLUSARG
`define AP_PERTURB_DECL \
  int unsigned perturb; \
  initial if (!$value$plusargs("armprof_perturb=%d", perturb)) perturb = spu_cosim_pkg::PERTURB_NONE;
`else
`define AP_PERTURB_DECL localparam int unsigned perturb = spu_cosim_pkg::PERTURB_NONE;
`endif

// sva_on_q: checks start after the first reset edge (an initial value in the declaration, which
// both tools read).
`define AP_SVA_ON \
  logic sva_on_q = 1'b0; \
  always_ff @(posedge clk) if (rst) sva_on_q <= 1'b1;

`endif
