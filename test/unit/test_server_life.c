/* test_server_life.c - PMIx_server_init and PMIx_server_finalize called from
 * several host threads at once (lib/server/server.c, init_lock): the change
 * of life is one step. Of THREADS simultaneous inits exactly one succeeds and
 * the others are refused with PMIX_ERR_INIT; of THREADS simultaneous
 * finalizes exactly one succeeds; the server works between (a socket in its
 * directory) and is gone after (the directory removed); a later init starts
 * a fresh server. ROUNDS times.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_server.h>

#define THREADS 4
#define ROUNDS 3

static char tmpdir[64];
static pthread_barrier_t start;
static pmix_status_t result[THREADS];

static void *do_init(void *arg)
{
    pmix_info_t info;
    static pmix_server_module_t module; /* no upcalls */
    memset(&info, 0, sizeof(info));
    PMIx_Info_load(&info, PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    pthread_barrier_wait(&start);
    result[(intptr_t)arg] = PMIx_server_init(&module, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return NULL;
}

static void *do_finalize(void *arg)
{
    pthread_barrier_wait(&start);
    result[(intptr_t)arg] = PMIx_server_finalize();
    return NULL;
}

/* Runs fn in THREADS threads at once; returns how many got PMIX_SUCCESS and
 * checks the others got PMIX_ERR_INIT. */
static int all_at_once(void *(*fn)(void *))
{
    pthread_t tid[THREADS];
    int ok = 0;
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (intptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&tid[i], NULL, fn, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        if (result[i] == PMIX_SUCCESS)
            ok++;
        else
            ck_assert_int_eq(result[i], PMIX_ERR_INIT);
    }
    return ok;
}

/* Entries in tmpdir (the server makes one private directory there). */
static int entries(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *de;
    int n = 0;
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

START_TEST(init_finalize_from_threads)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/spx-test-life.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    for (int round = 0; round < ROUNDS; round++) {
        ck_assert_int_eq(all_at_once(do_init), 1);
        ck_assert_int_eq(entries(), 1); /* one server, one directory */
        ck_assert_int_eq(all_at_once(do_finalize), 1);
        ck_assert_int_eq(entries(), 0);
    }
    ck_assert_int_eq(PMIx_server_finalize(), PMIX_ERR_INIT);
    ck_assert_int_eq(rmdir(tmpdir), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_life");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, init_finalize_from_threads);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
