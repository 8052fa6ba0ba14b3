// SPDX-License-Identifier: Apache-2.0
// spu_cosim_pkg.sv: the sampling random number generator of capi/armprof/rng.h, bit for bit, and the deliberate-bug numbers.
package spu_cosim_pkg;

  // AP_RNG_DEFAULT_SEED: a zero seed is replaced by this so the generator "is reset into a
  // usable state" (seed 001 2.2.2).
  localparam logic [31:0] RNG_DEFAULT_SEED = 32'h2F6B_9A35;

  // Marsaglia xorshift32 (13, 17, 5), one step per draw; the draw is state[31:24]
  // (ap_rng_step / ap_rng_draw8).
  function automatic logic [31:0] xorshift32_step(input logic [31:0] x);
    logic [31:0] y;
    y = x ^ (x << 13);
    y = y ^ (y >> 17);
    y = y ^ (y << 5);
    xorshift32_step = y;
  endfunction

  function automatic logic [31:0] rng_seed_value(input logic [31:0] seed);
    rng_seed_value = (seed == 32'h0) ? RNG_DEFAULT_SEED : seed;
  endfunction

  // Deliberate RTL bugs for checking the checks (spu_assert.svh, AP_PERTURB_DECL): each must
  // fail an assertion, the lockstep compare and the formal proof. The numbers are those of
  // armprof-cosim --perturb (apcosim::ModelSide::Perturb).
  localparam int unsigned PERTURB_NONE   = 0;
  localparam int unsigned PERTURB_RELOAD = 1;  // every reload of COUNT lands one too high
  localparam int unsigned PERTURB_DRAIN  = 2;  // the FIFO drains on the first not-ready cycle of a stall
  localparam int unsigned PERTURB_READY  = 3;  // the FIFO drains whether drain_ready is high or not

`ifdef ARMPROF_SVA_DPI
  // The lockstep harness records a failed assertion (its label) with the cycle it fired in.
  import "DPI-C" function void armprof_sva_fail(input string name);
`endif

endpackage
