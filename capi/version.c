/* SPDX-License-Identifier: Apache-2.0 */
/* version.c: armprof_version(), the version of the library a program runs with. */
#include "armprof/version.h"

const char *armprof_version(void) { return ARMPROF_VERSION_STRING; }
