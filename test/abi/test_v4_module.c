/* test_v4_module.c - PMIx_server_init with the upcall table of a host built
 * against PMIx v4 headers, which ends after client_connected2 (PMIx v5
 * appended session_control).  The table is placed at the very end of a
 * readable page with an inaccessible page after it, so a library that reads
 * one byte past the v4 table dies with SIGSEGV.  The server must start, call
 * nothing, and finalize.
 */
#include "config.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pmix_server.h>

#define V4_MODULE_SIZE offsetof(pmix_server_module_t, session_control)

START_TEST(v4_sized_module_is_not_overread)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    /* the v4 table: all upcalls NULL, ending where the guard page starts */
    pmix_server_module_t *module = (pmix_server_module_t *)(map + page - V4_MODULE_SIZE);
    memset(module, 0, V4_MODULE_SIZE);

    char tmpdir[64];
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/spx-test-v4mod.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    PMIx_Info_load(&info, PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    ck_assert_int_eq(PMIx_server_init(module, &info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    ck_assert_int_eq(PMIx_server_finalize(), PMIX_SUCCESS);
    ck_assert_int_eq(rmdir(tmpdir), 0);
    munmap(map, 2 * (size_t)page);
}
END_TEST

/* The v5 layout: session_control appended, everything before it unchanged. */
START_TEST(v5_layout)
{
    ck_assert_uint_eq(offsetof(pmix_server_module_t, session_control),
                      offsetof(pmix_server_module_t, client_connected2) + sizeof(void *));
    ck_assert_uint_eq(sizeof(pmix_server_module_t),
                      offsetof(pmix_server_module_t, session_control) + sizeof(void *));
    ck_assert_uint_eq(sizeof(pmix_server_module_t), 29 * sizeof(void *));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("v4_module");
    TCase *tc = tcase_create("module");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, v4_sized_module_is_not_overread);
    tcase_add_test(tc, v5_layout);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
