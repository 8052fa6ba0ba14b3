/* SPDX-License-Identifier: Apache-2.0 */
/* version.h: the armprof release these headers belong to (the top CMakeLists.txt reads it) and armprof_version(). */
#ifndef ARMPROF_VERSION_H
#define ARMPROF_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define ARMPROF_VERSION_MAJOR 0
#define ARMPROF_VERSION_MINOR 1
#define ARMPROF_VERSION_PATCH 0
/* One number for #if comparisons: MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100). */
#define ARMPROF_VERSION (ARMPROF_VERSION_MAJOR * 10000 + ARMPROF_VERSION_MINOR * 100 + ARMPROF_VERSION_PATCH)
#define ARMPROF_VERSION_STRING "0.1.0"

/* The version of the library actually linked ("MAJOR.MINOR.PATCH"), to compare with
 * ARMPROF_VERSION_STRING, the version of the headers a program was compiled with. */
const char *armprof_version(void);

#ifdef __cplusplus
}
#endif

#endif
