/* SPDX-License-Identifier: Apache-2.0 */
/* rng.h: moved to capi/armprof/rng.h; this forwarding header goes once no caller uses the old path. */
#include "armprof/rng.h"
