// SPDX-License-Identifier: Apache-2.0
// scenario_file.h: reads an armprof-vp scenario (YAML or JSON, with libfyaml) into a Scenario.
#ifndef ARMPROF_PLATFORM_SCENARIO_FILE_H
#define ARMPROF_PLATFORM_SCENARIO_FILE_H

#include <string>

#include "soc.h"

namespace armprof {

// Fills `sc` from the file (keys not in the file keep their values). Returns false with `err`
// ("FILE:LINE:COLUMN: key: why", or "FILE: reason" when the file cannot be read) on a parse
// error, an unknown key, a value of the wrong type or out of range, or a combination
// scenario_check() refuses.
bool load_scenario(const std::string &path, Scenario &sc, std::string &err);

// `s` for a message: bytes outside printable ASCII (and backslashes) as \xNN, cut at `max`
// characters with "...".
std::string printable(const std::string &s, size_t max = 80);

} // namespace armprof

#endif
