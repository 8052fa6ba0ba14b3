/* SPDX-License-Identifier: Apache-2.0 */
/* bits.h: moved to capi/armprof/bits.h; this forwarding header goes once no caller uses the old path. */
#include "armprof/bits.h"
