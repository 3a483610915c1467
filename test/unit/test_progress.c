/* test_progress.c - unit tests of lib/progress: thread lifecycle, shift queue,
 * WOULD_BLOCK guard, wait objects, timers, fork reset; also prints the
 * shift round-trip latency (informational, not a pass/fail bound). */
#include "config.h"

#include "progress/progress.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void signal_job(void *arg)
{
    spx_wait_signal(arg, PMIX_SUCCESS);
}

/* Shifts a job that signals, and waits for it: everything shifted before has run. */
static void flush(void)
{
    spx_wait_t w;
    spx_wait_init(&w);
    ck_assert_int_eq(spx_progress_shift(signal_job, &w), 0);
    ck_assert_int_eq(spx_wait_block(&w), PMIX_SUCCESS);
    spx_wait_fini(&w);
}

/* ---- ordering and exactly-once from several threads ---- */

#define NSHIFTERS 4
#define PER_SHIFTER 20000

struct order_state {
    int last[NSHIFTERS];          /* last index seen per shifter (progress thread only) */
    unsigned char seen[NSHIFTERS][PER_SHIFTER];
    int out_of_order;
    int wrong_thread;
};

struct order_job {
    struct order_state *st;
    int shifter, index;
};

static void order_job_fn(void *arg)
{
    struct order_job *j = arg;
    struct order_state *st = j->st;
    if (!spx_progress_on_thread())
        st->wrong_thread++;
    if (j->index != st->last[j->shifter] + 1)
        st->out_of_order++;
    st->last[j->shifter] = j->index;
    st->seen[j->shifter][j->index]++;
    free(j);
}

struct shifter_arg {
    struct order_state *st;
    int id;
    int failures;
};

static void *shifter_main(void *arg)
{
    struct shifter_arg *sa = arg;
    for (int i = 0; i < PER_SHIFTER; i++) {
        struct order_job *j = malloc(sizeof(*j));
        j->st = sa->st;
        j->shifter = sa->id;
        j->index = i;
        if (spx_progress_shift(order_job_fn, j) != 0) {
            sa->failures++;
            free(j);
        }
    }
    return NULL;
}

START_TEST(test_shift_order_many_threads)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    ck_assert(!spx_progress_on_thread());
    struct order_state *st = calloc(1, sizeof(*st));
    for (int i = 0; i < NSHIFTERS; i++)
        st->last[i] = -1;
    pthread_t th[NSHIFTERS];
    struct shifter_arg sa[NSHIFTERS];
    for (int i = 0; i < NSHIFTERS; i++) {
        sa[i] = (struct shifter_arg){ st, i, 0 };
        ck_assert_int_eq(pthread_create(&th[i], NULL, shifter_main, &sa[i]), 0);
    }
    for (int i = 0; i < NSHIFTERS; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(sa[i].failures, 0);
    }
    flush();
    ck_assert_int_eq(st->out_of_order, 0);
    ck_assert_int_eq(st->wrong_thread, 0);
    for (int t = 0; t < NSHIFTERS; t++) {
        ck_assert_int_eq(st->last[t], PER_SHIFTER - 1);
        for (int i = 0; i < PER_SHIFTER; i++)
            ck_assert_int_eq(st->seen[t][i], 1);
    }
    free(st);
    spx_progress_release();
}
END_TEST

/* ---- a shift from the progress thread runs later, never re-entrantly ---- */

struct reentry {
    int outer_done;
    int inner_saw_outer_done;
    spx_wait_t w;
};

static void inner_job(void *arg)
{
    struct reentry *r = arg;
    r->inner_saw_outer_done = r->outer_done;
    spx_wait_signal(&r->w, PMIX_SUCCESS);
}

static void outer_job(void *arg)
{
    struct reentry *r = arg;
    if (spx_progress_shift(inner_job, r) != 0)
        spx_wait_signal(&r->w, PMIX_ERROR);
    r->outer_done = 1;
}

START_TEST(test_shift_from_thread_is_deferred)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    struct reentry r = { 0 };
    spx_wait_init(&r.w);
    ck_assert_int_eq(spx_progress_shift(outer_job, &r), 0);
    ck_assert_int_eq(spx_wait_block(&r.w), PMIX_SUCCESS);
    ck_assert_int_eq(r.inner_saw_outer_done, 1);
    spx_wait_fini(&r.w);
    spx_progress_release();
}
END_TEST

/* ---- the WOULD_BLOCK guard ---- */

struct guard_probe {
    pmix_status_t rc;
    bool on_thread;
};

static void guard_job(void *arg)
{
    struct guard_probe *g = arg;
    g->on_thread = spx_progress_on_thread();
    g->rc = spx_progress_guard("PMIx_Fence");
}

/* Runs fn with fd 2 redirected to a temporary file; returns what was written (caller frees). */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
    char path[] = "/tmp/spx-test-progress-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    dup2(fd, STDERR_FILENO);
    fn(arg);
    dup2(saved, STDERR_FILENO);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *buf = calloc(1, (size_t)len + 1);
    ck_assert_int_eq(pread(fd, buf, (size_t)len, 0), len);
    close(fd);
    return buf;
}

static void acquire_job(void *arg)
{
    int *rc = arg;
    rc[0] = spx_progress_acquire();
    rc[1] = errno;
}

static void acquire_on_thread(void *arg)
{
    ck_assert_int_eq(spx_progress_shift(acquire_job, arg), 0);
    flush();
}

START_TEST(test_acquire_on_thread_refused)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    int rc[2] = { 0, 0 };
    char *out = capture_stderr(acquire_on_thread, rc);
    ck_assert_ptr_nonnull(strstr(out, "acquire called on the progress thread"));
    free(out);
    ck_assert_int_eq(rc[0], -1);
    ck_assert_int_eq(rc[1], EDEADLK);
    spx_progress_release(); /* the only reference: the thread stops */
    ck_assert_ptr_null(spx_progress_base());
}
END_TEST

static void guard_on_thread(void *arg)
{
    ck_assert_int_eq(spx_progress_shift(guard_job, arg), 0);
    flush();
}

static void guard_off_thread(void *arg)
{
    struct guard_probe *g = arg;
    g->on_thread = spx_progress_on_thread();
    g->rc = spx_progress_guard("PMIx_Fence");
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

START_TEST(test_guard)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    struct guard_probe g = { PMIX_ERROR, true };
    char *out = capture_stderr(guard_off_thread, &g);
    ck_assert(!g.on_thread);
    ck_assert_int_eq(g.rc, PMIX_SUCCESS);
    ck_assert_str_eq(out, "");
    free(out);

    g = (struct guard_probe){ PMIX_SUCCESS, false };
    out = capture_stderr(guard_on_thread, &g);
    ck_assert(g.on_thread);
    ck_assert_int_eq(g.rc, PMIX_ERR_WOULD_BLOCK);
    ck_assert_int_eq(count_lines(out), 1);
    ck_assert_ptr_nonnull(strstr(out, "PMIx_Fence called from the PMIx progress thread (event "
                                      "handler or callback): it would block; returning "
                                      "PMIX_ERR_WOULD_BLOCK\n"));
    ck_assert_ptr_nonnull(strstr(out, "error: "));
    free(out);
    spx_progress_release();
}
END_TEST

/* ---- wait objects ---- */

struct late_signal {
    spx_wait_t *w;
    int delay_ms;
    pmix_status_t status;
};

static void *late_signal_main(void *arg)
{
    struct late_signal *ls = arg;
    sleep_ms(ls->delay_ms);
    spx_wait_signal(ls->w, ls->status);
    return NULL;
}

START_TEST(test_wait_objects)
{
    spx_wait_t w;
    /* signalled before the wait: not lost */
    spx_wait_init(&w);
    spx_wait_signal(&w, PMIX_ERR_TIMEOUT);
    ck_assert_int_eq(spx_wait_block(&w), PMIX_ERR_TIMEOUT);
    spx_wait_fini(&w);

    /* signalled later by another thread: the waiter blocks until then */
    spx_wait_init(&w);
    struct late_signal ls = { &w, 50, PMIX_ERR_NOT_FOUND };
    pthread_t th;
    double t0 = now_s();
    ck_assert_int_eq(pthread_create(&th, NULL, late_signal_main, &ls), 0);
    ck_assert_int_eq(spx_wait_block(&w), PMIX_ERR_NOT_FOUND);
    ck_assert(now_s() - t0 >= 0.045);
    pthread_join(th, NULL);
    spx_wait_fini(&w);
}
END_TEST

/* ---- timers ---- */

struct timer_probe {
    double started, fired_at;
    int fired;
    bool on_thread;
    spx_timer_t *handle;
    double seconds;
    spx_wait_t *done;
};

static void timer_cb(void *arg)
{
    struct timer_probe *p = arg;
    p->fired++;
    p->fired_at = now_s();
    p->on_thread = spx_progress_on_thread();
    if (p->done)
        spx_wait_signal(p->done, PMIX_SUCCESS);
}

static void timer_start_job(void *arg)
{
    struct timer_probe *p = arg;
    p->started = now_s();
    p->handle = spx_timer_start(p->seconds, timer_cb, p);
}

static void timer_cancel_job(void *arg)
{
    struct timer_probe *p = arg;
    spx_timer_cancel(p->handle);
    p->handle = NULL;
}

START_TEST(test_timer_fires)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    spx_wait_t w;
    spx_wait_init(&w);
    struct timer_probe p = { .seconds = 0.05, .done = &w };
    ck_assert_int_eq(spx_progress_shift(timer_start_job, &p), 0);
    ck_assert_int_eq(spx_wait_block(&w), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(p.handle);
    ck_assert_int_eq(p.fired, 1);
    ck_assert(p.on_thread);
    ck_assert(p.fired_at - p.started >= 0.045);
    spx_wait_fini(&w);

    /* zero (and negative) delay: fires on the next loop turn */
    spx_wait_init(&w);
    p = (struct timer_probe){ .seconds = -1.0, .done = &w };
    ck_assert_int_eq(spx_progress_shift(timer_start_job, &p), 0);
    ck_assert_int_eq(spx_wait_block(&w), PMIX_SUCCESS);
    ck_assert_int_eq(p.fired, 1);
    spx_wait_fini(&w);
    spx_progress_release();
}
END_TEST

START_TEST(test_timer_cancel)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    struct timer_probe cancelled = { .seconds = 0.05 };
    struct timer_probe kept = { .seconds = 0.1 };
    ck_assert_int_eq(spx_progress_shift(timer_start_job, &cancelled), 0);
    ck_assert_int_eq(spx_progress_shift(timer_start_job, &kept), 0);
    ck_assert_int_eq(spx_progress_shift(timer_cancel_job, &cancelled), 0);
    flush();
    sleep_ms(200);
    flush();
    ck_assert_int_eq(cancelled.fired, 0);
    ck_assert_int_eq(kept.fired, 1);

    /* a timer still pending at the last release is dropped (never fires, no leak) */
    struct timer_probe pending = { .seconds = 30.0 };
    ck_assert_int_eq(spx_progress_shift(timer_start_job, &pending), 0);
    flush();
    ck_assert_ptr_nonnull(pending.handle);
    spx_progress_release();
    ck_assert_int_eq(pending.fired, 0);
}
END_TEST

/* ---- lifecycle ---- */

static void count_job(void *arg)
{
    __atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

START_TEST(test_acquire_release_cycles)
{
    ck_assert_ptr_null(spx_progress_base());
    int dummy = 0;
    ck_assert_int_eq(spx_progress_shift(count_job, &dummy), -1);
    for (int cycle = 0; cycle < 5; cycle++) {
        int ran = 0;
        ck_assert_int_eq(spx_progress_acquire(), 0);
        ck_assert_ptr_nonnull(spx_progress_base());
        ck_assert_int_eq(spx_progress_acquire(), 0); /* nested */
        ck_assert_int_eq(spx_progress_shift(count_job, &ran), 0);
        spx_progress_release();                       /* still one reference */
        ck_assert_ptr_nonnull(spx_progress_base());
        ck_assert_int_eq(spx_progress_shift(count_job, &ran), 0);
        flush();
        ck_assert_int_eq(ran, 2);
        spx_progress_release();
        ck_assert_ptr_null(spx_progress_base());
        ck_assert_int_eq(spx_progress_shift(count_job, &ran), -1);
    }
    ck_assert_int_eq(dummy, 0);
}
END_TEST

struct drain_state {
    int ran;
    int chain_left;
    int shift_failures;
};

static void chain_job(void *arg)
{
    struct drain_state *d = arg;
    d->ran++;
    if (d->chain_left > 0) {
        d->chain_left--;
        if (spx_progress_shift(chain_job, d) != 0)
            d->shift_failures++;
    }
}

static void slow_job(void *arg)
{
    struct drain_state *d = arg;
    sleep_ms(100); /* release() is called meanwhile: the stop job queues behind us */
    d->ran++;
    if (spx_progress_shift(chain_job, d) != 0) /* queued after the stop job */
        d->shift_failures++;
}

START_TEST(test_release_drains)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    struct drain_state d = { .chain_left = 3 };
    ck_assert_int_eq(spx_progress_shift(slow_job, &d), 0);
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(spx_progress_shift(count_job, &d.ran), 0);
    spx_progress_release();
    /* slow + 1000 counters + the chain (1 + 3 re-shifts), all exactly once */
    ck_assert_int_eq(d.shift_failures, 0);
    ck_assert_int_eq(d.ran, 1 + 1000 + 4);
}
END_TEST

/* ---- idle loop does not spin ---- */

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

START_TEST(test_idle_no_spin)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    flush();
    double c0 = cpu_s();
    sleep_ms(300);
    double used = cpu_s() - c0;
    ck_assert_msg(used < 0.05, "idle progress thread used %.3f s CPU in 0.3 s", used);
    spx_progress_release();
}
END_TEST

/* ---- latency: shift round trip (informational) ---- */

START_TEST(test_latency_report)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    enum { N = 20000 };
    flush(); /* warm up */
    double t0 = now_s();
    for (int i = 0; i < N; i++)
        flush();
    double per = (now_s() - t0) / N;
    printf("progress: shift round trip (shift + wait signal) %.2f us average over %d\n",
           per * 1e6, N);
    fflush(stdout);
    spx_progress_release();
}
END_TEST

/* ---- fork ---- */

START_TEST(test_atfork_child_reset)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
    /* fork only once the new thread has finished starting and sits idle in its
     * loop: a fork while it holds an allocator or libevent lock (thread start-up,
     * seen under ASan) leaves that lock held forever in the child */
    flush();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        spx_progress_atfork_child_reset();
        int ok = spx_progress_base() == NULL && !spx_progress_on_thread();
        int ran = 0;
        ok = ok && spx_progress_shift(count_job, &ran) == -1; /* not running in the child */
        ok = ok && spx_progress_acquire() == 0;
        if (ok) {
            spx_wait_t w;
            spx_wait_init(&w);
            ok = spx_progress_shift(count_job, &ran) == 0 &&
                 spx_progress_shift(signal_job, &w) == 0 && spx_wait_block(&w) == PMIX_SUCCESS &&
                 ran == 1;
            spx_wait_fini(&w);
            spx_progress_release();
        }
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    /* the parent's thread is unaffected */
    flush();
    spx_progress_release();
}
END_TEST

static Suite *progress_suite(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_shift_order_many_threads);
    tcase_add_test(tc, test_shift_from_thread_is_deferred);
    tcase_add_test(tc, test_guard);
    tcase_add_test(tc, test_wait_objects);
    tcase_add_test(tc, test_timer_fires);
    tcase_add_test(tc, test_timer_cancel);
    tcase_add_test(tc, test_acquire_release_cycles);
    tcase_add_test(tc, test_acquire_on_thread_refused);
    tcase_add_test(tc, test_release_drains);
    tcase_add_test(tc, test_idle_no_spin);
    tcase_add_test(tc, test_latency_report);
    tcase_add_test(tc, test_atfork_child_reset);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(progress_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
