/* SPDX-License-Identifier: Apache-2.0 */
/* test_qemu_install.c: libarmprof-qemu.so's install-time checks (plugin API version, guest, user mode), called through dlopen as QEMU calls them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "qemu_plugin_api.h"

typedef int (*install_fn)(qemu_plugin_id_t, const qemu_info_t *, int, char **);

static void *lib;
static install_fn install;

static int setup(void **state)
{
    (void)state;
    /* RTLD_LAZY: the QEMU functions the plugin calls are not needed by the checks under test */
    lib = dlopen(PLUGIN, RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        print_error("dlopen %s: %s\n", PLUGIN, dlerror());
        return -1;
    }
    install = (install_fn)(uintptr_t)dlsym(lib, "qemu_plugin_install");
    int *ver = dlsym(lib, "qemu_plugin_version");
    if (!install || !ver || *ver != QEMU_PLUGIN_VERSION)
        return -1;
    return 0;
}

/* Calls qemu_plugin_install with `info` and returns its result; its stderr lands in `err`. */
static int call(const qemu_info_t *info, char *err, size_t errlen)
{
    char path[] = "/tmp/armprof-qemu-install-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    int r = install(1, info, 0, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, err, errlen - 1);
    err[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    return r;
}

/* QEMU passes the API range it supports; a plugin written for version 1 refuses 2..3. */
static void test_version_mismatch(void **state)
{
    (void)state;
    char err[512];
    qemu_info_t info = { .target_name = "aarch64", .version = { .min = 2, .cur = 3 } };
    assert_int_not_equal(call(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "API version 1"));
    assert_non_null(strstr(err, "2 to 3"));
}

static void test_wrong_guest(void **state)
{
    (void)state;
    char err[512];
    qemu_info_t info = { .target_name = "riscv64", .version = { .min = 0, .cur = 1 } };
    assert_int_not_equal(call(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "riscv64"));
}

static void test_system_emulation(void **state)
{
    (void)state;
    char err[512];
    qemu_info_t info = { .target_name = "aarch64", .version = { .min = 0, .cur = 1 }, .system_emulation = true };
    assert_int_not_equal(call(&info, err, sizeof err), 0);
    assert_non_null(strstr(err, "system emulation"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_mismatch),
        cmocka_unit_test(test_wrong_guest),
        cmocka_unit_test(test_system_emulation),
    };
    return cmocka_run_group_tests_name("qemu_install", tests, setup, NULL);
}
