// SPDX-License-Identifier: Apache-2.0
// scenario_file.h: reads an armprof-vp scenario (YAML or JSON, with libfyaml) into a Scenario.
#ifndef ARMPROF_PLATFORM_SCENARIO_FILE_H
#define ARMPROF_PLATFORM_SCENARIO_FILE_H

#include <string>

#include "soc.h"

namespace armprof {

// Fills `sc` from the file (keys not in the file keep their values). Returns false with `err`
// set on a parse error, an unknown key or a bad value.
bool load_scenario(const std::string &path, Scenario &sc, std::string &err);

} // namespace armprof

#endif
