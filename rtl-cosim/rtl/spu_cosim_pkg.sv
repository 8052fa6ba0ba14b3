// SPDX-License-Identifier: Apache-2.0
// spu_cosim_pkg.sv: the sampling random number generator of capi/armprof/rng.h, bit for bit.
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
    return y;
  endfunction

  function automatic logic [31:0] rng_seed_value(input logic [31:0] seed);
    return (seed == 32'h0) ? RNG_DEFAULT_SEED : seed;
  endfunction

endpackage
