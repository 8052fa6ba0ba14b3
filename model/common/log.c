/* SPDX-License-Identifier: Apache-2.0 */
/* log.c: formatted diagnostics through a unit's log callback. */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>

void ap_log(const armprof_host_ops *ops, armprof_log_level level, const char *fmt, ...)
{
    if (!ops || !ops->log)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ops->log(ops->user, level, buf);
}
