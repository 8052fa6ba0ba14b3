/* SPDX-License-Identifier: Apache-2.0 */
/* log.h: formatted diagnostics through a unit's log callback. */
#ifndef ARMPROF_COMMON_LOG_H
#define ARMPROF_COMMON_LOG_H

#include "armprof/armprof.h"

#if defined(__GNUC__)
#define AP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define AP_PRINTF(a, b)
#endif

/* Formats the message and hands it to ops->log (nothing when ops or ops->log is NULL). */
void ap_log(const armprof_host_ops *ops, armprof_log_level level, const char *fmt, ...) AP_PRINTF(3, 4);

#endif
