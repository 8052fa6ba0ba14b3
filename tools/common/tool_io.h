/* SPDX-License-Identifier: Apache-2.0 */
/* tool_io.h: the command-line tools' end of standard output: flushed and closed, and a lost write reported (docs/exit-status.md). */
#ifndef ARMPROF_TOOL_IO_H
#define ARMPROF_TOOL_IO_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 0, or -1 after "PROG: error writing standard output: REASON" on stderr when anything written to
 * standard output was lost (a full device, a closed pipe). */
static inline int tool_close_stdout(const char *prog)
{
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad)
        fprintf(stderr, "%s: error writing standard output: %s\n", prog, strerror(e ? e : EIO));
    return bad ? -1 : 0;
}

#endif
