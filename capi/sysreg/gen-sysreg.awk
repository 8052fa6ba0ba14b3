# SPDX-License-Identifier: Apache-2.0
# gen-sysreg.awk: makes capi/armprof/sysreg.h from capi/sysreg/sysreg.table (POSIX awk: mawk or gawk).
#
# usage: awk -f gen-sysreg.awk sysreg.table > sysreg.h   (scripts/update-sysreg.sh does this)
#
# The table's format is described at its top. Every line is checked: the fields, RES0 and RES1
# ranges of a register walk from bit 63 down to bit 0 with no gap and no overlap, a Subfield
# lies inside an earlier field, an enum value fits its field, names are unique. Any error stops
# the generation with the line number and nothing is written but the message.
#
# Masks are 64-bit, wider than awk's numbers: a mask is kept as a string of 64 '0'/'1'
# characters, bit 63 first, and printed as hexadecimal.

function fatal(msg) {
	printf "sysreg.table:%d: %s\n", NR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

function zeros(    s) {
	s = "0000000000000000"
	return s s s s
}

# The bits msb..lsb set.
function range_bits(msb, lsb,    s, i) {
	s = ""
	for (i = 63; i >= 0; i--)
		s = s ((i <= msb && i >= lsb) ? "1" : "0")
	return s
}

function or_bits(a, b,    s, i) {
	s = ""
	for (i = 1; i <= 64; i++)
		s = s ((substr(a, i, 1) == "1" || substr(b, i, 1) == "1") ? "1" : "0")
	return s
}

function hex_bits(a,    s, i, n, j) {
	s = ""
	for (i = 0; i < 16; i++) {
		n = 0
		for (j = 1; j <= 4; j++)
			n = n * 2 + (substr(a, i * 4 + j, 1) == "1")
		s = s substr("0123456789abcdef", n + 1, 1)
	}
	return "0x" s "ULL"
}

function define(name, value, note) {
	if (note != "")
		printf "#define %-36s %s /* %s */\n", name, value, note
	else
		printf "#define %-36s %s\n", name, value
}

# Parses "msb[:lsb]" into the globals msb and lsb.
function parse_range(def,    parts, n) {
	n = split(def, parts, ":")
	if (n == 1 && def ~ /^[0-9]+$/) {
		msb = def + 0
		lsb = msb
	} else if (n == 2 && parts[1] ~ /^[0-9]+$/ && parts[2] ~ /^[0-9]+$/) {
		msb = parts[1] + 0
		lsb = parts[2] + 0
	} else {
		fatal("bad bit range '" def "'")
	}
	if (msb > 63 || lsb > msb)
		fatal("bad bit range '" def "'")
}

# A Field, Res0, Res1 or Enum continues the walk from bit 63 down.
function walk(what) {
	if (msb != next_bit)
		fatal(reg "." what " starts at bit " msb ", expected bit " next_bit)
	next_bit = lsb - 1
}

function field(name, is_sub, note,    k) {
	if ((reg SUBSEP name) in field_seen)
		fatal(reg "." name " is defined twice")
	field_seen[reg, name] = 1
	if (is_sub) {
		for (k = 1; k <= nranges; k++)
			if (msb <= range_msb[k] && lsb >= range_lsb[k])
				break
		if (k > nranges)
			fatal(reg "." name " [" msb ":" lsb "] is not inside an earlier field")
	} else {
		nranges++
		range_msb[nranges] = msb
		range_lsb[nranges] = lsb
	}
	define(reg "_" name, hex_bits(range_bits(msb, lsb)), note)
	define(reg "_" name "_MASK", hex_bits(range_bits(msb, lsb)))
	define(reg "_" name "_SHIFT", lsb)
	define(reg "_" name "_WIDTH", msb - lsb + 1)
	field_list = field_list " \\\n    F(" reg ", " name ")"
}

# The value of a "0b..." literal (fields are at most 6 bits wide where enums are used).
function bin_value(lit,    v, i) {
	v = 0
	for (i = 3; i <= length(lit); i++)
		v = v * 2 + (substr(lit, i, 1) == "1")
	return v
}

# The encoding of one column: a number, n[h:l], or A+n[h:l] (a numbered family).
function enc_part(t,    base, parts, h, l) {
	if (t ~ /^[0-9]+$/)
		return t
	base = ""
	if (t ~ /^[0-9]+\+/) {
		base = substr(t, 1, index(t, "+") - 1) " + "
		t = substr(t, index(t, "+") + 1)
	}
	if (t !~ /^n\[[0-9]+:[0-9]+\]$/)
		fatal("bad encoding column '" t "'")
	split(substr(t, 3, length(t) - 3), parts, ":")
	h = parts[1] + 0
	l = parts[2] + 0
	return base "(((n) >> " l ") & " (2 ^ (h - l + 1) - 1) ")"
}

# One statement of a register body (kept so that "Fields" can replay it for another register).
function statement(line,    f, n, note, c) {
	note = ""
	c = index(line, "#")
	if (c) {
		note = substr(line, c + 1)
		sub(/^[ \t]+/, "", note)
		sub(/[ \t]+$/, "", note)
		line = substr(line, 1, c - 1)
	}
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	n = line == "" ? 0 : split(line, f, /[ \t]+/)
	if (n == 0) {
		if (note != "")
			print "/* " note " */"
		return
	}
	if (in_enum) {
		if (f[1] == "EndEnum") {
			in_enum = 0
			return
		}
		if (n != 2 || f[1] !~ /^0b[01]+$/)
			fatal("expected '0b... NAME' or EndEnum in " reg "." enum_field)
		if (length(f[1]) - 2 != enum_width)
			fatal(reg "." enum_field " value " f[1] " is not " enum_width " bits wide")
		if ((reg SUBSEP enum_field SUBSEP f[2]) in value_seen)
			fatal(reg "." enum_field "_" f[2] " is defined twice")
		value_seen[reg, enum_field, f[2]] = 1
		define(reg "_" enum_field "_" f[2], sprintf("0x%xULL", bin_value(f[1])), note)
		enum_list = enum_list " \\\n    E(" reg ", " enum_field ", " f[2] ")"
		return
	}
	if (f[1] == "Field" || f[1] == "Enum" || f[1] == "Subfield" || f[1] == "SubEnum") {
		if (n != 3)
			fatal(f[1] " takes a bit range and a name")
		if (f[3] !~ /^[A-Za-z0-9_]+$/)
			fatal("bad field name '" f[3] "'")
		parse_range(f[2])
		if (f[1] == "Field" || f[1] == "Enum")
			walk(f[3])
		field(f[3], f[1] ~ /^Sub/, note)
		if (f[1] ~ /Enum$/) {
			in_enum = 1
			enum_field = f[3]
			enum_width = msb - lsb + 1
		}
		return
	}
	if (f[1] == "Res0" || f[1] == "Res1" || f[1] == "SubRes0") {
		if (n != 2)
			fatal(f[1] " takes a bit range")
		parse_range(f[2])
		if (f[1] == "SubRes0") {
			for (c = 1; c <= nranges; c++)
				if (msb <= range_msb[c] && lsb >= range_lsb[c])
					break
			if (c > nranges)
				fatal(reg " SubRes0 [" msb ":" lsb "] is not inside an earlier field")
			sub_res0 = or_bits(sub_res0, range_bits(msb, lsb))
		} else {
			walk(f[1])
		}
		if (f[1] == "Res1")
			res1 = or_bits(res1, range_bits(msb, lsb))
		else
			res0 = or_bits(res0, range_bits(msb, lsb))
		if (note != "")
			print "/* " reg " [" msb ":" lsb "] " f[1] ": " note " */"
		return
	}
	fatal("unknown statement '" f[1] "' in " reg)
}

BEGIN {
	print "/* SPDX-License-Identifier: Apache-2.0 */"
	print "/* sysreg.h: masks, shifts and encodings of the SPE, TRBE and PMU System registers armprof implements, named as Linux's generated sysreg headers name them (generated: do not edit). */"
	print "#ifndef ARMPROF_SYSREG_H"
	print "#define ARMPROF_SYSREG_H"
	print ""
	print "/*"
	print " * Generated by capi/sysreg/gen-sysreg.awk from capi/sysreg/sysreg.table (edit the table, then"
	print " * run scripts/update-sysreg.sh; the test sysreg_header_current checks the two agree)."
	print " *"
	print " * For a register REG and its field FIELD, as in Linux's arch/arm64 generated sysreg-defs.h:"
	print " *   SYS_REG                     the encoding, ARMPROF_SYSREG(op0, op1, CRn, CRm, op2) (the"
	print " *                               *_reg_read / *_reg_write argument; TLM register offset = it * 8)"
	print " *   REG_FIELD, REG_FIELD_MASK   the field's mask in place; REG_FIELD_SHIFT, REG_FIELD_WIDTH"
	print " *   REG_FIELD_VALUE             a named value of the field, not shifted (use ap_field_prep())"
	print " *   REG_RES0, REG_RES1          the RES0 and RES1 bits"
	print " * Numbered registers (PMEVCNTR<n>_EL0) are REGn (SYS_PMEVCNTRn_EL0(n), PMEVCNTRn_EL0_EVCNT)."
	print " * Registers are as the armprof units implement them with every optional feature configured"
	print " * on: with a feature off the unit makes that feature's field RES0 too (PMBLIMITR_EL1_PMFZ"
	print " * without FEAT_SPEv1p2). Fields the units do not implement are RES0, and bits that Arm gives"
	print " * to a field but the unit keeps RES0 (PMBSR_EL1.MSS[15:6]) are in REG_RES0 too."
	print " *"
	print " *   uint64_t sr;"
	print " *   spu_reg_read(spu, SYS_PMBSR_EL1, &sr);"
	print " *   if ((sr & PMBSR_EL1_S) && ap_field_get(PMBSR_EL1_EC, sr) == PMBSR_EL1_EC_BUF &&"
	print " *       ap_field_get(PMBSR_EL1_BSC, sr) == PMBSR_EL1_BSC_FULL) ...   (buffer full)"
	print " *"
	print " * ARMPROF_SYSREG_LIST(X), ARMPROF_SYSREG_LIST_N(X), ARMPROF_SYSREG_FIELD_LIST(F) and"
	print " * ARMPROF_SYSREG_ENUM_LIST(E) list every register, numbered family, field and named value,"
	print " * for tables built by token pasting (X(REG) -> SYS_##REG, REG##_RES0)."
	print " */"
	print ""
	print "#include \"armprof/armprof.h\" /* ARMPROF_SYSREG */"
	print "#include \"armprof/bits.h\"    /* ap_field_get, ap_field_prep */"
	in_reg = ""
	in_enum = 0
	failed = 0
}

# Comments and blank lines outside a register.
in_reg == "" && /^[ \t]*(#|$)/ { next }

in_reg == "" && $1 == "Sysreg" {
	line = $0
	note = ""
	c = index(line, "#")
	if (c) {
		note = substr(line, c + 1)
		sub(/^[ \t]+/, "", note)
		sub(/[ \t]+$/, "", note)
		line = substr(line, 1, c - 1)
	}
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	n = split(line, f, /[ \t]+/)
	name = f[2]
	numbered = index(name, "<n>") > 0
	if ((numbered && n != 8) || (!numbered && n != 7))
		fatal("expected 'Sysreg NAME op0 op1 CRn CRm op2'" (numbered ? " and a range 0..N" : ""))
	reg = name
	if (numbered)
		sub(/<n>/, "n", reg)
	if (reg !~ /^[A-Za-z0-9_]+$/)
		fatal("bad register name '" name "'")
	if (reg in reg_seen)
		fatal(reg " is defined twice")
	reg_seen[reg] = 1
	in_reg = reg
	nbody[reg] = 0
	next_bit = 63
	nranges = 0
	res0 = zeros()
	res1 = zeros()
	sub_res0 = zeros()
	fields_of = ""
	print ""
	print "/* " (numbered ? name : reg) (note != "" ? ": " note : "") " */"
	if (numbered) {
		split(f[8], rng, /\.\./)
		if (f[8] !~ /^[0-9]+\.\.[0-9]+$/ || rng[1] + 0 > rng[2] + 0)
			fatal("bad range '" f[8] "' (first..last)")
		define("SYS_" reg "(n)", "ARMPROF_SYSREG(" enc_part(f[3]) ", " enc_part(f[4]) ", " enc_part(f[5]) \
			", " enc_part(f[6]) ", " enc_part(f[7]) ")")
		fmt = name
		sub(/<n>/, "%u", fmt)
		list_n = list_n " \\\n    X(" reg ", \"" fmt "\", " rng[1] ", " rng[2] ")"
	} else {
		for (k = 3; k <= 7; k++)
			if (f[k] !~ /^[0-9]+$/)
				fatal("bad encoding column '" f[k] "'")
		define("SYS_" reg, "ARMPROF_SYSREG(" f[3] ", " f[4] ", " f[5] ", " f[6] ", " f[7] ")")
		list = list " \\\n    X(" reg ")"
	}
	next
}

in_reg == "" { fatal("expected Sysreg, found '" $1 "'") }

in_reg != "" && $1 == "EndSysreg" && !in_enum {
	if (next_bit != -1)
		fatal(reg ": bits " next_bit ":0 are not described")
	define(reg "_RES0", hex_bits(res0))
	define(reg "_RES1", hex_bits(res1))
	in_reg = ""
	next
}

in_reg != "" && $1 == "Fields" && !in_enum {
	if (NF < 2 || !($2 in reg_seen) || $2 == reg)
		fatal("Fields needs a register defined earlier")
	if (next_bit != 63)
		fatal("Fields must be the only statement of " reg)
	src = $2
	print "/* the layout of " src " */"
	for (k = 1; k <= nbody[src]; k++) {
		nbody[reg]++
		body[reg, nbody[reg]] = body[src, k]
		statement(body[src, k])
	}
	next
}

in_reg != "" {
	nbody[reg]++
	body[reg, nbody[reg]] = $0
	statement($0)
	next
}

END {
	if (failed)
		exit 1
	if (in_reg != "")
		fatal("the table ends inside " in_reg)
	print ""
	print "/* Every register X(REG), and every numbered family X(REGn, name format, first n, last n). */"
	print "#define ARMPROF_SYSREG_LIST(X)" list
	print "#define ARMPROF_SYSREG_LIST_N(X)" list_n
	print "/* Every field F(REG, FIELD) and named value E(REG, FIELD, VALUE). */"
	print "#define ARMPROF_SYSREG_FIELD_LIST(F)" field_list
	print "#define ARMPROF_SYSREG_ENUM_LIST(E)" enum_list
	print ""
	print "#endif /* ARMPROF_SYSREG_H */"
}
