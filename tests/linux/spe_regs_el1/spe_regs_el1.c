// SPDX-License-Identifier: GPL-2.0-or-later
/* spe_regs_el1.c: test module for the linux tests: the SPE System registers as EL1 sees them after reset, and what each read/write register keeps of all-ones and of zero. */
/*
 * Loaded before arm_spe_pmu, so that nothing has written the registers since the CPU's reset.
 * Only registers that exist in every configuration the tests use are touched: an MRS or MSR of
 * an absent one would be UNDEFINED, an Oops at EL1. It prints one line per observation and the
 * host checks them against the register layouts (tests/linux/check_linux.py). Module licence:
 * GPL, as the kernel requires of code that uses its GPL-only interfaces.
 */
#include <linux/module.h>
#include <linux/smp.h>
#include <asm/sysreg.h>

struct spe_reg {
	const char *name;
	u32 enc;
	bool writable;
};

#define R(name, op1, crm, op2, w) { #name, sys_reg(3, op1, 9, crm, op2), w }

static const struct spe_reg regs[] = {
	R(PMSCR_EL1, 0, 9, 0, true),
	R(PMSICR_EL1, 0, 9, 2, true),
	R(PMSIRR_EL1, 0, 9, 3, true),
	R(PMSFCR_EL1, 0, 9, 4, true),
	R(PMSEVFR_EL1, 0, 9, 5, true),
	R(PMSLATFR_EL1, 0, 9, 6, true),
	R(PMSIDR_EL1, 0, 9, 7, false),
	R(PMBLIMITR_EL1, 0, 10, 0, true),
	R(PMBPTR_EL1, 0, 10, 1, true),
	R(PMBSR_EL1, 0, 10, 3, true),
	R(PMBIDR_EL1, 0, 10, 7, false),
};

/* The encoding must be a constant of the instruction: one case per register. */
#define CASES(X) X(3,0,9,9,0) X(3,0,9,9,2) X(3,0,9,9,3) X(3,0,9,9,4) X(3,0,9,9,5) X(3,0,9,9,6) \
	X(3,0,9,9,7) X(3,0,9,10,0) X(3,0,9,10,1) X(3,0,9,10,3) X(3,0,9,10,7)

static u64 rd(u32 enc)
{
#define RD(a, b, c, d, e) if (enc == sys_reg(a, b, c, d, e)) return read_sysreg_s(sys_reg(a, b, c, d, e));
	CASES(RD)
	return 0;
}

static void wr(u32 enc, u64 v)
{
#define WR(a, b, c, d, e) if (enc == sys_reg(a, b, c, d, e)) { write_sysreg_s(v, sys_reg(a, b, c, d, e)); isb(); return; }
	CASES(WR)
}

static void observe(void *unused)
{
	int cpu = smp_processor_id();
	size_t i;

	pr_info("spe_regs_el1: cpu%d ID_AA64DFR0_EL1.PMSVer %llu\n", cpu,
		(read_sysreg(id_aa64dfr0_el1) >> 32) & 0xf);
	for (i = 0; i < ARRAY_SIZE(regs); i++)
		pr_info("spe_regs_el1: cpu%d %s reset 0x%016llx\n", cpu, regs[i].name, rd(regs[i].enc));
	/* PMBLIMITR_EL1.E stays 0 while PMSCR_EL1 is written, and PMSCR_EL1 is 0 while
	 * PMBLIMITR_EL1 is, so profiling is never enabled here. */
	for (i = 0; i < ARRAY_SIZE(regs); i++) {
		u64 ones, zeros;

		if (!regs[i].writable)
			continue;
		wr(regs[i].enc, ~0ull);
		ones = rd(regs[i].enc);
		wr(regs[i].enc, 0);
		zeros = rd(regs[i].enc);
		pr_info("spe_regs_el1: cpu%d %s ones 0x%016llx zeros 0x%016llx\n", cpu, regs[i].name,
			ones, zeros);
	}
}

static int __init spe_regs_el1_init(void)
{
	on_each_cpu(observe, NULL, 1);
	pr_info("spe_regs_el1: done\n");
	return 0;
}

static void __exit spe_regs_el1_exit(void)
{
}

module_init(spe_regs_el1_init);
module_exit(spe_regs_el1_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("armprof linux test: SPE registers at EL1");
