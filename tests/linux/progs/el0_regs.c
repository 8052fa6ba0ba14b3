/* SPDX-License-Identifier: Apache-2.0 */
/* el0_regs.c: guest program for the linux tests: every SPE System register read (MRS) and written (MSR) from EL0, which the architecture makes UNDEFINED (SIGILL). */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf env;
static volatile int last_sig, last_code;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    last_sig = sig;
    last_code = si->si_code;
    siglongjmp(env, 1);
}

/* Generic names (S<op0>_<op1>_C<n>_C<m>_<op2>) so that any assembler takes them. */
#define REGS(X)                                          \
    X(PMSCR_EL1, S3_0_C9_C9_0) X(PMSNEVFR_EL1, S3_0_C9_C9_1) \
    X(PMSICR_EL1, S3_0_C9_C9_2) X(PMSIRR_EL1, S3_0_C9_C9_3) \
    X(PMSFCR_EL1, S3_0_C9_C9_4) X(PMSEVFR_EL1, S3_0_C9_C9_5) \
    X(PMSLATFR_EL1, S3_0_C9_C9_6) X(PMSIDR_EL1, S3_0_C9_C9_7) \
    X(PMBLIMITR_EL1, S3_0_C9_C10_0) X(PMBPTR_EL1, S3_0_C9_C10_1) \
    X(PMBSR_EL1, S3_0_C9_C10_3) X(PMBMAR_EL1, S3_0_C9_C10_5) \
    X(PMBIDR_EL1, S3_0_C9_C10_7) X(PMSCR_EL2, S3_4_C9_C9_0) \
    X(PMSCR_EL12, S3_5_C9_C9_0)

#define FNS(name, enc)                                                                     \
    static __attribute__((noinline)) uint64_t rd_##name(void)                             \
    {                                                                                       \
        uint64_t v;                                                                         \
        __asm__ volatile("mrs %0, " #enc : "=r"(v));                                        \
        return v;                                                                           \
    }                                                                                       \
    static __attribute__((noinline)) void wr_##name(uint64_t v)                            \
    {                                                                                       \
        __asm__ volatile("msr " #enc ", %0" ::"r"(v));                                      \
    }
REGS(FNS)

static void report(const char *name, char dir, int trapped)
{
    printf("el0 %s %c %s", name, dir, trapped ? "SIGILL" : "no-exception");
    if (trapped)
        printf(" code=%s", last_code == ILL_ILLOPC ? "ILL_ILLOPC" : "other");
    printf("\n");
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sig;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGILL, &sa, NULL);
    int n = 0;
#define TRY(name, enc)                                  \
    last_sig = 0;                                       \
    if (!sigsetjmp(env, 1))                             \
        (void)rd_##name();                              \
    report(#name, 'R', last_sig == SIGILL);             \
    last_sig = 0;                                       \
    if (!sigsetjmp(env, 1))                             \
        wr_##name(0);                                   \
    report(#name, 'W', last_sig == SIGILL);             \
    n += 2;
    REGS(TRY)
    printf("el0 accesses %d\n", n);
    return 0;
}
