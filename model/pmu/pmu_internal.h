/* SPDX-License-Identifier: Apache-2.0 */
/* pmu_internal.h: test hooks of the PMU model that are not part of the public C API. */
#ifndef ARMPROF_MODEL_PMU_INTERNAL_H
#define ARMPROF_MODEL_PMU_INTERNAL_H

#include <stdbool.h>

#include "armprof/pmu.h"

/*
 * Reference mode, for tests that compare the fast PMU with the plain reading of the
 * pseudocode: with `on`, every event evaluates CountPMUEvents() for every counter afresh (no
 * cached enables) and pmu_advance() applies every cycle at once (no lazy time). Counts,
 * overflow flags and PMUIRQ must be identical in both modes for the same calls.
 */
void pmu_set_reference_mode(pmu_t *pmu, bool on);

#endif
