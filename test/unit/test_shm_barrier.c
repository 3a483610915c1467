/* test_shm_barrier.c - unit tests of lib/proto/shm_barrier: the segment's
 * header checks, the arrival outcomes (wait, last, busy, broken), release
 * and generations, collect disagreement, commit accounting, the server's
 * close, waiting with a lost flag, and the barrier property itself with
 * threads and with forked processes hammering it. */
#include "config.h"

#include "proto/shm_barrier.h"

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];
static char path[128];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/spx-shmb-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/seg", dir);
}

static void teardown(void)
{
    unlink(path);
    rmdir(dir);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static spx_shmb_t *make(uint32_t n, bool self)
{
    spx_shmb_t *b = spx_shmb_create(path, n, self, getuid(), getgid());
    ck_assert_ptr_nonnull(b);
    return b;
}

START_TEST(create_attach_and_header)
{
    ck_assert_ptr_null(spx_shmb_create(path, 0, true, getuid(), getgid()));
    spx_shmb_t *b = make(3, true);
    ck_assert_ptr_null(spx_shmb_create(path, 3, true, getuid(), getgid())); /* exists */
    spx_shmb_t *c = spx_shmb_attach(path);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(spx_shmb_nlocal(c), 3);
    ck_assert(spx_shmb_self_complete(c));
    spx_shmb_close(c);
    ck_assert_ptr_null(spx_shmb_attach("/nonexistent/seg"));
    /* a file of the wrong size or with a bad header is refused */
    char bad[160];
    snprintf(bad, sizeof(bad), "%s/bad", dir);
    int fd = open(bad, O_RDWR | O_CREAT, 0600);
    ck_assert_int_ge(fd, 0);
    char junk[4096];
    memset(junk, 0x5a, sizeof(junk));
    ck_assert_int_eq(write(fd, junk, sizeof(junk)), (int)sizeof(junk));
    close(fd);
    ck_assert_ptr_null(spx_shmb_attach(bad));
    truncate(bad, 8);
    ck_assert_ptr_null(spx_shmb_attach(bad));
    unlink(bad);
    spx_shmb_close(b);
    ck_assert_int_ne(access(path, F_OK), 0); /* the creator removes the file */
}
END_TEST

START_TEST(arrive_outcomes_and_generations)
{
    spx_shmb_t *b = make(3, true);
    uint32_t gen, nc;
    pmix_status_t st;
    for (uint32_t round = 0; round < 3; round++) {
        ck_assert_int_eq(spx_shmb_arrive(b, 0, false, false, &gen, &nc, &st), SPX_SHMB_WAIT);
        ck_assert_uint_eq(gen, round);
        /* the same slot again in this generation is busy */
        ck_assert_int_eq(spx_shmb_arrive(b, 0, false, false, &gen, &nc, &st), SPX_SHMB_BUSY);
        ck_assert_int_eq(spx_shmb_arrive(b, 2, false, false, &gen, &nc, &st), SPX_SHMB_WAIT);
        ck_assert(!spx_shmb_released(b, round));
        ck_assert_int_eq(spx_shmb_arrive(b, 1, false, false, &gen, &nc, &st), SPX_SHMB_LAST_SELF);
        ck_assert_int_eq(st, PMIX_SUCCESS);
        ck_assert(spx_shmb_release(b, gen, st));
        ck_assert(!spx_shmb_release(b, gen, st)); /* only once */
        ck_assert(spx_shmb_released(b, round));
        ck_assert_int_eq(spx_shmb_wait(b, round, NULL, 0), PMIX_SUCCESS);
        ck_assert_uint_eq(spx_shmb_generation(b, NULL, NULL), round + 1);
    }
    /* a slot out of range */
    ck_assert_int_eq(spx_shmb_arrive(b, 3, false, false, &gen, &nc, &st), SPX_SHMB_BROKEN);
    ck_assert_int_eq(st, PMIX_ERR_BAD_PARAM);
    spx_shmb_close(b);
}
END_TEST

START_TEST(collect_disagreement)
{
    spx_shmb_t *b = make(2, true);
    uint32_t gen, nc;
    pmix_status_t st;
    ck_assert_int_eq(spx_shmb_arrive(b, 0, true, false, &gen, &nc, &st), SPX_SHMB_WAIT);
    ck_assert_int_eq(spx_shmb_arrive(b, 1, false, false, &gen, &nc, &st), SPX_SHMB_LAST_SELF);
    ck_assert_uint_eq(nc, 1);
    ck_assert_int_eq(st, PMIX_ERR_BAD_PARAM);
    ck_assert(spx_shmb_release(b, gen, st));
    ck_assert_int_eq(spx_shmb_wait(b, gen, NULL, 0), PMIX_ERR_BAD_PARAM);
    /* both collecting agree */
    ck_assert_int_eq(spx_shmb_arrive(b, 0, true, false, &gen, &nc, &st), SPX_SHMB_WAIT);
    ck_assert_int_eq(spx_shmb_arrive(b, 1, true, false, &gen, &nc, &st), SPX_SHMB_LAST_SELF);
    ck_assert_uint_eq(nc, 2);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    spx_shmb_close(b);
}
END_TEST

START_TEST(through_server_and_not_self_complete)
{
    /* an arrival through the server makes the last one hand over */
    spx_shmb_t *b = make(2, true);
    uint32_t gen, nc;
    pmix_status_t st;
    bool closed;
    ck_assert_int_eq(spx_shmb_arrive(b, 0, false, true, &gen, &nc, &st), SPX_SHMB_WAIT);
    ck_assert_int_eq(spx_shmb_arrive(b, 1, false, false, &gen, &nc, &st), SPX_SHMB_LAST_SERVER);
    spx_shmb_generation(b, &closed, NULL);
    ck_assert(closed);
    /* a closed gather is busy for everybody until the server releases it */
    ck_assert_int_eq(spx_shmb_arrive(b, 0, false, false, &gen, &nc, &st), SPX_SHMB_BUSY);
    ck_assert(spx_shmb_release(b, gen, PMIX_ERR_TIMEOUT));
    ck_assert_int_eq(spx_shmb_wait(b, gen, NULL, 0), PMIX_ERR_TIMEOUT);
    spx_shmb_close(b);
    /* a segment of a job spread over nodes never self-completes */
    b = make(1, false);
    ck_assert_int_eq(spx_shmb_arrive(b, 0, true, false, &gen, &nc, &st), SPX_SHMB_LAST_SERVER);
    ck_assert_uint_eq(nc, 1);
    spx_shmb_close(b);
}
END_TEST

START_TEST(commit_accounting_and_close_gather)
{
    spx_shmb_t *b = make(2, true);
    ck_assert(!spx_shmb_commits_pending(b));
    spx_shmb_commit_sent(b, 1);
    ck_assert(spx_shmb_commits_pending(b));
    ck_assert(!spx_shmb_await_commits(b, 1000000)); /* 1 ms, nobody applies */
    spx_shmb_commit_applied(b, 1);
    ck_assert(!spx_shmb_commits_pending(b));
    ck_assert(spx_shmb_await_commits(b, 0));
    /* applied beyond sent (a process that does not count) is not pending */
    spx_shmb_commit_applied(b, 0);
    ck_assert(!spx_shmb_commits_pending(b));
    uint32_t gen, nc;
    pmix_status_t st;
    ck_assert_int_eq(spx_shmb_arrive(b, 0, false, false, &gen, &nc, &st), SPX_SHMB_WAIT);
    ck_assert(!spx_shmb_close_gather(b, gen)); /* not full yet */
    ck_assert_int_eq(spx_shmb_arrive(b, 1, false, false, &gen, &nc, &st), SPX_SHMB_LAST_SELF);
    ck_assert(spx_shmb_close_gather(b, gen));
    bool closed;
    ck_assert_uint_eq(spx_shmb_generation(b, &closed, NULL), gen);
    ck_assert(closed);
    ck_assert(spx_shmb_release(b, gen, PMIX_SUCCESS));
    ck_assert(!spx_shmb_close_gather(b, gen)); /* released */
    spx_shmb_close(b);
}
END_TEST

struct waiter_arg {
    spx_shmb_t *b;
    uint32_t slot;
    double delay;
    double waited;
    pmix_status_t status;
    volatile bool *lost;
};

/* One participant: optionally late, arrives, releases or waits. */
static void *participant(void *p)
{
    struct waiter_arg *a = p;
    if (a->delay > 0)
        usleep((useconds_t)(a->delay * 1e6));
    double t0 = now_s();
    uint32_t gen, nc;
    pmix_status_t st;
    enum spx_shmb_arrive r;
    while ((r = spx_shmb_arrive(a->b, a->slot, false, false, &gen, &nc, &st)) == SPX_SHMB_BUSY)
        spx_shmb_wait(a->b, gen, a->lost, 0);
    if (r == SPX_SHMB_LAST_SELF)
        a->status = spx_shmb_release(a->b, gen, st) ? st : spx_shmb_wait(a->b, gen, a->lost, 0);
    else if (r == SPX_SHMB_WAIT)
        a->status = spx_shmb_wait(a->b, gen, a->lost, 20000);
    else
        a->status = st;
    a->waited = now_s() - t0;
    return NULL;
}

START_TEST(late_participant_holds_everyone)
{
    spx_shmb_t *b = make(3, true);
    pthread_t t[3];
    struct waiter_arg a[3];
    for (uint32_t i = 0; i < 3; i++) {
        a[i] = (struct waiter_arg){.b = b, .slot = i, .delay = i == 2 ? 0.2 : 0};
        pthread_create(&t[i], NULL, participant, &a[i]);
    }
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(a[i].status, PMIX_SUCCESS);
    ck_assert_double_ge(a[0].waited, 0.18);
    ck_assert_double_ge(a[1].waited, 0.18);
    spx_shmb_close(b);
}
END_TEST

START_TEST(break_fails_waiters_and_later_arrivals)
{
    spx_shmb_t *b = make(2, true);
    pthread_t t;
    struct waiter_arg a = {.b = b, .slot = 0};
    pthread_create(&t, NULL, participant, &a);
    usleep(50000);
    spx_shmb_break(b, PMIX_ERR_PROC_ABORTED);
    pthread_join(t, NULL);
    ck_assert_int_eq(a.status, PMIX_ERR_PROC_ABORTED);
    ck_assert_double_lt(a.waited, 1.0);
    uint32_t gen, nc;
    pmix_status_t st;
    ck_assert_int_eq(spx_shmb_arrive(b, 1, false, false, &gen, &nc, &st), SPX_SHMB_BROKEN);
    ck_assert_int_eq(st, PMIX_ERR_PROC_ABORTED);
    ck_assert_int_eq(spx_shmb_broken(b), PMIX_ERR_PROC_ABORTED);
    spx_shmb_close(b);
}
END_TEST

START_TEST(lost_flag_ends_a_wait)
{
    spx_shmb_t *b = make(2, true);
    volatile bool lost = false;
    pthread_t t;
    struct waiter_arg a = {.b = b, .slot = 0, .lost = &lost};
    pthread_create(&t, NULL, participant, &a);
    usleep(50000);
    lost = true;
    spx_shmb_wake_all(b);
    pthread_join(t, NULL);
    ck_assert_int_eq(a.status, PMIX_ERR_UNREACH);
    spx_shmb_close(b);
}
END_TEST

/* Any process of the job can write the segment: a header rewritten after
 * the server made it must not move the server's bounds. */
START_TEST(hostile_header_does_not_move_bounds)
{
    spx_shmb_t *b = make(2, false);
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    uint32_t *hdr = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_ptr_ne(hdr, MAP_FAILED);
    hdr[2] = 0x7fffffff; /* nlocal */
    hdr[3] = 1;          /* self_complete */
    ck_assert_uint_eq(spx_shmb_nlocal(b), 2);
    ck_assert(!spx_shmb_self_complete(b));
    ck_assert(!spx_shmb_commits_pending(b)); /* walks 2 slots, not 2^31 */
    uint32_t gen, nc;
    pmix_status_t st;
    ck_assert_int_eq(spx_shmb_arrive(b, 5, false, true, &gen, &nc, &st), SPX_SHMB_BROKEN);
    ck_assert_int_eq(spx_shmb_arrive(b, 0, false, true, &gen, &nc, &st), SPX_SHMB_WAIT);
    ck_assert_int_eq(spx_shmb_arrive(b, 1, false, true, &gen, &nc, &st), SPX_SHMB_LAST_SERVER);
    ck_assert_ptr_null(spx_shmb_attach(path)); /* a client refuses the bad header */
    munmap(hdr, 4096);
    spx_shmb_close(b);
}
END_TEST

START_TEST(slot_of_ranks)
{
    pmix_rank_t r[] = {7, 2, 5};
    ck_assert_int_eq(spx_shmb_slot_of(r, 3, 2), 0);
    ck_assert_int_eq(spx_shmb_slot_of(r, 3, 5), 1);
    ck_assert_int_eq(spx_shmb_slot_of(r, 3, 7), 2);
    ck_assert_int_eq(spx_shmb_slot_of(r, 3, 3), -1);
}
END_TEST

/* Forked processes, many fences: after fence k every process must see every
 * other process's counter at >= k (nobody leaves before all arrived). */
START_TEST(processes_hammer_the_barrier)
{
    enum { NP = 4, ROUNDS = 2000 };
    spx_shmb_t *b = make(NP, true);
    _Atomic long *counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                                  -1, 0);
    ck_assert_ptr_ne(counters, MAP_FAILED);
    pid_t pids[NP];
    for (int p = 0; p < NP; p++) {
        pids[p] = fork();
        ck_assert_int_ge(pids[p], 0);
        if (pids[p] == 0) {
            spx_shmb_t *c = spx_shmb_attach(path);
            if (!c)
                _exit(10);
            for (long k = 1; k <= ROUNDS; k++) {
                atomic_store(&counters[p], k);
                uint32_t gen, nc;
                pmix_status_t st;
                enum spx_shmb_arrive r = spx_shmb_arrive(c, (uint32_t)p, false, false, &gen, &nc,
                                                         &st);
                if (r == SPX_SHMB_LAST_SELF)
                    st = spx_shmb_release(c, gen, st) ? st : PMIX_ERROR;
                else if (r == SPX_SHMB_WAIT)
                    st = spx_shmb_wait(c, gen, NULL, 0);
                else
                    _exit(11);
                if (st != PMIX_SUCCESS)
                    _exit(12);
                for (int q = 0; q < NP; q++)
                    if (atomic_load(&counters[q]) < k)
                        _exit(13);
            }
            spx_shmb_close(c);
            _exit(0);
        }
    }
    for (int p = 0; p < NP; p++) {
        int status;
        ck_assert_int_eq(waitpid(pids[p], &status, 0), pids[p]);
        ck_assert(WIFEXITED(status));
        ck_assert_int_eq(WEXITSTATUS(status), 0);
    }
    ck_assert_uint_eq(spx_shmb_generation(b, NULL, NULL), ROUNDS);
    munmap((void *)counters, 4096);
    spx_shmb_close(b);
}
END_TEST

/* A break racing an arrival: whatever the interleaving, an arrival that
 * did not fail is in a generation that gets released (before the arrival
 * rechecked the flag, a break that read the state first left it waiting
 * for ever). */
struct race {
    spx_shmb_t *b;
    pthread_barrier_t go;
    enum spx_shmb_arrive res;
    uint32_t gen;
};

static void *race_arrive(void *arg)
{
    struct race *r = arg;
    uint32_t nc;
    pmix_status_t st;
    pthread_barrier_wait(&r->go);
    r->res = spx_shmb_arrive(r->b, 0, false, false, &r->gen, &nc, &st);
    return NULL;
}

START_TEST(break_racing_an_arrival_never_strands_it)
{
    struct race r = {.b = make(2, false)};
    ck_assert_int_eq(pthread_barrier_init(&r.go, NULL, 2), 0);
    unsigned waited = 0, failed = 0;
    for (int i = 0; i < 20000; i++) {
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, race_arrive, &r), 0);
        pthread_barrier_wait(&r.go);
        for (volatile int spin = 0; spin < (i % 64) * 8; spin++)
            ;
        spx_shmb_break(r.b, PMIX_ERR_PROC_ABORTED);
        pthread_join(t, NULL);
        if (r.res == SPX_SHMB_WAIT) {
            waited++;
            ck_assert_msg(spx_shmb_released(r.b, r.gen),
                          "round %d: an arrival waits in a broken generation", i);
            ck_assert_int_eq(spx_shmb_wait(r.b, r.gen, NULL, 0), PMIX_ERR_PROC_ABORTED);
        } else {
            ck_assert_int_eq(r.res, SPX_SHMB_BROKEN);
            failed++;
        }
        ck_assert(!spx_shmb_gathering(r.b));
        spx_shmb_unbreak(r.b);
    }
    printf("break vs arrival: %u arrivals released by the break, %u failed\n", waited, failed);
    pthread_barrier_destroy(&r.go);
    spx_shmb_close(r.b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shm_barrier");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, create_attach_and_header);
    tcase_add_test(tc, arrive_outcomes_and_generations);
    tcase_add_test(tc, collect_disagreement);
    tcase_add_test(tc, through_server_and_not_self_complete);
    tcase_add_test(tc, commit_accounting_and_close_gather);
    tcase_add_test(tc, late_participant_holds_everyone);
    tcase_add_test(tc, break_fails_waiters_and_later_arrivals);
    tcase_add_test(tc, lost_flag_ends_a_wait);
    tcase_add_test(tc, hostile_header_does_not_move_bounds);
    tcase_add_test(tc, slot_of_ranks);
    tcase_add_test(tc, processes_hammer_the_barrier);
    tcase_add_test(tc, break_racing_an_arrival_never_strands_it);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
