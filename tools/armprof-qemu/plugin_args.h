/* SPDX-License-Identifier: Apache-2.0 */
/* plugin_args.h: the key=value arguments of the QEMU plugins: number and on/off parsing, and the core model's knobs, shared by armprof-qemu and armprof-qemu-system. */
#ifndef ARMPROF_QEMU_PLUGIN_ARGS_H
#define ARMPROF_QEMU_PLUGIN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armprof/spu.h"
#include "memsys.h"

/* Splits "key=value": the key into key[keylen] (cut to fit), *value after the '='. -1: no '='. */
int pa_split(const char *arg, char *key, size_t keylen, const char **value);
/* A whole number, decimal or 0x hex, with an optional K, M or G suffix (times 1024^n). 0, or -1. */
int pa_u64(const char *v, uint64_t *out);
int pa_u32(const char *v, uint32_t *out);
/* 1/yes/on/true or 0/no/off/false. 0, or -1. */
int pa_bool(const char *key, const char *v, bool *out);
/* The core model's knob named `key` (line, l1d, ..., dram_bw), or NULL. */
uint32_t *pa_memsys_field(memsys_config *m, const char *key);
/* Their names, comma-separated, for usage messages. */
extern const char pa_memsys_keys[];
/* After the arguments: the core model's and the SPU's configurations are valid and the output
 * folder `out` (none when empty) exists. 0, or -1 with why[] saying what is wrong. */
int pa_check(const memsys_config *ms, const spu_config *spu, const char *out, char *why, size_t whylen);

#endif
