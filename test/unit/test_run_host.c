/* test_run_host.c - spmix-run's host module (tools/run_host.c) between its
 * two threads: upcalls on the library's thread write, the main thread reads.
 *
 * The module keeps its state without a lock (one writer per field, atomics),
 * so the upcalls here run from several threads at once while the main thread
 * reads:
 *   - PMIx_Abort from THREADS ranks together: exactly one record is taken,
 *     and it is one rank's whole record (status and message of that rank);
 *     the main thread was woken; nothing more is taken afterwards;
 *   - client_connected / client_finalized of every rank from several
 *     threads: each rank's flag is set once it returned, not before, and
 *     only for the job's namespace and ranks.
 * Each abort case runs in its own process (the record is taken once per
 * process), ROUNDS times.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "tools/run_host.h"

#define THREADS 8
#define NPROCS 64
#define ROUNDS 20

#define MSGLEN 1000 /* the module keeps 1023 bytes */

static pthread_barrier_t start;

/* Rank r's abort message: long, so that reading a record while it is
 * written has a chance to show. */
static void abort_text(uint32_t r, char out[MSGLEN])
{
    snprintf(out, MSGLEN, "rank %u aborts %0*u", r, MSGLEN - 40, r);
}
static pmix_server_module_t *mod;
static int wake[2];

static void setup(void)
{
    ck_assert_int_eq(pipe2(wake, O_NONBLOCK | O_CLOEXEC), 0);
    mod = spx_run_host_module();
    ck_assert_int_eq(spx_run_host_init("job", NPROCS, wake[1]), 0);
}

static void teardown(void)
{
    spx_run_host_fini();
    close(wake[0]);
    close(wake[1]);
}

static void *abort_rank(void *arg)
{
    pmix_proc_t p;
    char msg[MSGLEN];
    uint32_t rank = (uint32_t)(uintptr_t)arg;
    PMIX_LOAD_PROCID(&p, "job", rank);
    abort_text(rank, msg);
    pthread_barrier_wait(&start);
    mod->abort(&p, NULL, 100 + (int)rank, msg, NULL, 0, NULL, NULL);
    return NULL;
}

START_TEST(abort_from_threads_taken_once_whole)
{
    pthread_t tid[THREADS];
    uint32_t rank = 0;
    int status = 0;
    char msg[MSGLEN], want[MSGLEN];
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS + 1), 0);
    for (uintptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&tid[i], NULL, abort_rank, (void *)i), 0);
    pthread_barrier_wait(&start);
    /* take as soon as there is a record, while the upcalls run */
    while (!spx_run_host_take_abort(&rank, &status, msg, sizeof(msg)))
        ;
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    ck_assert_uint_lt(rank, THREADS);
    ck_assert_int_eq(status, 100 + (int)rank);
    abort_text(rank, want);
    ck_assert_str_eq(msg, want);
    ck_assert(!spx_run_host_take_abort(&rank, &status, msg, sizeof(msg)));
    char b;
    ck_assert_int_eq(read(wake[0], &b, 1), 1); /* the main thread was woken */
    pthread_barrier_destroy(&start);
}
END_TEST

/* the message is truncated to the caller's buffer and terminated */
START_TEST(abort_message_truncated)
{
    pmix_proc_t p;
    uint32_t rank = 0;
    int status = 0;
    char msg[5];
    PMIX_LOAD_PROCID(&p, "job", 3);
    ck_assert(!spx_run_host_take_abort(&rank, &status, msg, sizeof(msg)));
    mod->abort(&p, NULL, 7, "abcdefgh", NULL, 0, NULL, NULL);
    mod->abort(&p, NULL, 8, "second", NULL, 0, NULL, NULL); /* the first one wins */
    ck_assert(spx_run_host_take_abort(&rank, &status, msg, sizeof(msg)));
    ck_assert_uint_eq(rank, 3);
    ck_assert_int_eq(status, 7);
    ck_assert_str_eq(msg, "abcd");
}
END_TEST

struct marker {
    uint32_t first, step;
    int finalize; /* 0: connect, 1: finalize */
};

static void *mark_ranks(void *arg)
{
    struct marker *m = arg;
    pthread_barrier_wait(&start);
    for (uint32_t r = m->first; r < NPROCS; r += m->step) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, "job", r);
        pmix_status_t rc = m->finalize ? mod->client_finalized(&p, NULL, NULL, NULL)
                                       : mod->client_connected(&p, NULL, NULL, NULL);
        ck_assert_int_eq(rc, PMIX_OPERATION_SUCCEEDED);
        /* the upcall returned: the main thread must see the flag from now on */
        ck_assert(m->finalize ? spx_run_host_finalized(r) : spx_run_host_connected(r));
    }
    return NULL;
}

START_TEST(flags_from_threads)
{
    pthread_t tid[THREADS];
    struct marker m[THREADS];
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS + 1), 0);
    for (uint32_t i = 0; i < THREADS; i++) {
        m[i] = (struct marker){ .first = i / 2, .step = THREADS / 2, .finalize = (int)(i & 1) };
        ck_assert_int_eq(pthread_create(&tid[i], NULL, mark_ranks, &m[i]), 0);
    }
    pthread_barrier_wait(&start);
    /* a flag seen set stays set (no torn or lost writes) */
    bool seen[NPROCS] = { false };
    for (int spin = 0; spin < 20000; spin++) {
        uint32_t r = (uint32_t)spin % NPROCS;
        bool now = spx_run_host_finalized(r);
        ck_assert(!seen[r] || now);
        seen[r] = now;
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&start);
    for (uint32_t r = 0; r < NPROCS; r++) {
        ck_assert(spx_run_host_connected(r));
        ck_assert(spx_run_host_finalized(r));
    }
    ck_assert(!spx_run_host_connected(NPROCS));
    ck_assert(!spx_run_host_finalized(NPROCS));
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, "other", 0);
    ck_assert_int_eq(mod->client_finalized(&other, NULL, NULL, NULL), PMIX_OPERATION_SUCCEEDED);
}
END_TEST

START_TEST(flags_unset_before_upcall)
{
    for (uint32_t r = 0; r < NPROCS; r++) {
        ck_assert(!spx_run_host_connected(r));
        ck_assert(!spx_run_host_finalized(r));
    }
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "other", 2); /* another namespace: not ours */
    mod->client_finalized(&p, NULL, NULL, NULL);
    ck_assert(!spx_run_host_finalized(2));
    PMIX_LOAD_PROCID(&p, "job", 2);
    mod->client_finalized(&p, NULL, NULL, NULL);
    ck_assert(spx_run_host_finalized(2));
    ck_assert(!spx_run_host_connected(2));
    ck_assert(!spx_run_host_finalized(1));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("run_host");
    TCase *tc = tcase_create("threads");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, abort_from_threads_taken_once_whole, 0, ROUNDS);
    tcase_add_test(tc, abort_message_truncated);
    tcase_add_test(tc, flags_from_threads);
    tcase_add_test(tc, flags_unset_before_upcall);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* the module's state lives for the process: each test needs its own */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
