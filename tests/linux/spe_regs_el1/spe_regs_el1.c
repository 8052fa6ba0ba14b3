// SPDX-License-Identifier: GPL-2.0-or-later
/* spe_regs_el1.c: test module for the linux tests: the SPE System registers as EL1 sees them after reset, what each read/write register keeps of all-ones and of zero, and the Profiling Buffer written through the kernel's page tables. */
/*
 * Loaded before arm_spe_pmu, so that nothing has written the registers since the CPU's reset.
 * Only registers that exist in every configuration the tests use are touched: an MRS or MSR of
 * an absent one would be UNDEFINED, an Oops at EL1. It prints one line per observation and the
 * host checks them against the register layouts (tests/linux/check_linux.py). Module licence:
 * GPL, as the kernel requires of code that uses its GPL-only interfaces.
 */
#include <linux/gfp.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/barrier.h>
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

/*
 * The Profiling Buffer through the guest's own page tables: profiling EL1 (this loop) with every
 * 256th operation sampled and no filter, into a buffer in the kernel's linear map, at VA 0
 * (unmapped: a stage 1 translation fault), and with the limit below the pointer (RHXSYK: the
 * model's choice is a buffer full event without a write). Interrupts are off, so every sampled
 * operation is this loop's; PSB CSYNC and DSB make the records visible before the reads.
 */
#define BUF_ORDER 2	/* 16 KiB */

static noinline void busy(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		asm volatile("add x0, x0, #1" ::: "x0");
}

static void profile_into(u64 ptr, u64 limit, u64 *sr, u64 *end)
{
	unsigned long flags;

	local_irq_save(flags);
	wr(sys_reg(3, 0, 9, 9, 0), 0);			/* PMSCR_EL1 */
	wr(sys_reg(3, 0, 9, 9, 4), 0);			/* PMSFCR_EL1: no filter */
	wr(sys_reg(3, 0, 9, 9, 3), 1 << 8);		/* PMSIRR_EL1.INTERVAL = 1: 256 operations */
	wr(sys_reg(3, 0, 9, 9, 2), 256);		/* PMSICR_EL1.COUNT */
	wr(sys_reg(3, 0, 9, 10, 3), 0);			/* PMBSR_EL1 */
	wr(sys_reg(3, 0, 9, 10, 1), ptr);		/* PMBPTR_EL1 */
	wr(sys_reg(3, 0, 9, 10, 0), limit | 1);		/* PMBLIMITR_EL1, E */
	wr(sys_reg(3, 0, 9, 9, 0), 1 << 1);		/* PMSCR_EL1.E1SPE */
	busy(3000);
	wr(sys_reg(3, 0, 9, 9, 0), 0);
	psb_csync();
	dsb(nsh);
	*sr = rd(sys_reg(3, 0, 9, 10, 3));
	*end = rd(sys_reg(3, 0, 9, 10, 1));
	wr(sys_reg(3, 0, 9, 10, 0), 0);
	wr(sys_reg(3, 0, 9, 10, 3), 0);
	local_irq_restore(flags);
}

static void buffer_tests(void)
{
	unsigned long buf = __get_free_pages(GFP_KERNEL, BUF_ORDER);
	u64 sr, end, size = PAGE_SIZE << BUF_ORDER;
	const u8 *b = (const u8 *)buf;
	size_t i, changed = 0;

	if (!buf) {
		pr_info("spe_regs_el1: buffer allocation failed\n");
		return;
	}
	memset((void *)buf, 0x5a, size);
	profile_into(buf, buf + size, &sr, &end);
	pr_info("spe_regs_el1: buffer good pmbsr 0x%llx written %llu first 0x%02x pc_top 0x%02x\n",
		sr, end - buf, b[0], b[8]);
	profile_into(0, 0x10000, &sr, &end);
	pr_info("spe_regs_el1: buffer fault pmbsr 0x%llx pmbptr 0x%llx\n", sr, end);
	memset((void *)buf, 0x5a, size);
	profile_into(buf + 2 * PAGE_SIZE, buf + PAGE_SIZE, &sr, &end);
	for (i = 0; i < size; i++)
		changed += b[i] != 0x5a;
	pr_info("spe_regs_el1: buffer limit_below pmbsr 0x%llx pmbptr_moved %llu bytes_changed %zu\n",
		sr, end - (buf + 2 * PAGE_SIZE), changed);
	free_pages(buf, BUF_ORDER);
}

static int __init spe_regs_el1_init(void)
{
	on_each_cpu(observe, NULL, 1);
	buffer_tests();
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
