/* test_log.c - PMIx_Log and PMIx_Log_nb (lib/api/log.c), without a server:
 * what reaches stderr and stdout (captured through a pipe), the timestamp
 * prefix, PMIX_LOG_ONCE, partial success, unsupported channels, bad
 * parameters, and the non-blocking form with no progress thread.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

/* Runs the call with fd (1 or 2) going into a pipe; returns what was written
 * (caller frees) and the call's status in *rc. */
#define CAPTURE(fdno, rc, call)                                          \
    ({                                                                   \
        int p_[2], saved_ = dup(fdno);                                   \
        ck_assert_int_eq(pipe(p_), 0);                                   \
        fflush(NULL);                                                    \
        dup2(p_[1], fdno);                                               \
        (rc) = (call);                                                   \
        fflush(NULL);                                                    \
        dup2(saved_, fdno);                                              \
        close(saved_);                                                   \
        close(p_[1]);                                                    \
        char *buf_ = calloc(1, 4096);                                    \
        ssize_t n_ = read(p_[0], buf_, 4095);                            \
        buf_[n_ > 0 ? n_ : 0] = '\0';                                    \
        close(p_[0]);                                                    \
        buf_;                                                            \
    })

START_TEST(log_stderr_stdout)
{
    pmix_info_t d[2];
    pmix_status_t rc;
    PMIX_INFO_LOAD(&d[0], PMIX_LOG_STDERR, "to stderr", PMIX_STRING);
    char *got = CAPTURE(2, rc, PMIx_Log(d, 1, NULL, 0));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_str_eq(got, "to stderr\n");
    free(got);
    PMIX_INFO_LOAD(&d[1], PMIX_LOG_STDOUT, "to stdout\n", PMIX_STRING);
    got = CAPTURE(1, rc, PMIx_Log(&d[1], 1, NULL, 0));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_str_eq(got, "to stdout\n"); /* no second newline */
    free(got);

    /* a given timestamp is printed first */
    pmix_info_t dir;
    time_t when = 86400 * 365;
    PMIX_INFO_LOAD(&dir, PMIX_LOG_TIMESTAMP, &when, PMIX_TIME);
    got = CAPTURE(2, rc, PMIx_Log(d, 1, &dir, 1));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    char want[64];
    struct tm tm;
    localtime_r(&when, &tm);
    strftime(want, sizeof(want), "%Y-%m-%d %H:%M:%S to stderr\n", &tm);
    ck_assert_str_eq(got, want);
    free(got);
    PMIX_INFO_DESTRUCT(&dir);
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIX_INFO_DESTRUCT(&d[1]);
}
END_TEST

START_TEST(log_once_partial_unsupported)
{
    pmix_info_t d[3], once;
    pmix_status_t rc;
    bool yes = true;
    PMIX_INFO_LOAD(&d[0], PMIX_LOG_EMAIL_ADDR, "someone@example.invalid", PMIX_STRING);
    PMIX_INFO_LOAD(&d[1], PMIX_LOG_STDERR, "first", PMIX_STRING);
    PMIX_INFO_LOAD(&d[2], PMIX_LOG_STDERR, "second", PMIX_STRING);
    /* ONCE: the first channel that works, and no more */
    PMIX_INFO_LOAD(&once, PMIX_LOG_ONCE, &yes, PMIX_BOOL);
    char *got = CAPTURE(2, rc, PMIx_Log(d, 3, &once, 1));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_str_eq(got, "first\n");
    free(got);
    /* without ONCE: the unsupported channel makes it partial */
    got = CAPTURE(2, rc, PMIx_Log(d, 3, NULL, 0));
    ck_assert_int_eq(rc, PMIX_ERR_PARTIAL_SUCCESS);
    ck_assert_str_eq(got, "first\nsecond\n");
    free(got);
    /* nothing loggable */
    ck_assert_int_eq(PMIx_Log(d, 1, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
    pmix_info_t bad;
    int num = 3;
    PMIX_INFO_LOAD(&bad, PMIX_LOG_STDERR, &num, PMIX_INT);
    ck_assert_int_eq(PMIx_Log(&bad, 1, NULL, 0), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_Log(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_Log(d, 1, NULL, 2), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&bad);
    PMIX_INFO_DESTRUCT(&once);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&d[i]);
}
END_TEST

static int cb_calls;
static void op_cb(pmix_status_t st, void *arg)
{
    (void)st, (void)arg;
    cb_calls++;
}

START_TEST(log_nb_without_progress_thread)
{
    pmix_info_t d;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&d, PMIX_LOG_STDERR, "nb", PMIX_STRING);
    /* no library initialized, so no thread to call back from: done at once */
    char *got = CAPTURE(2, rc, PMIx_Log_nb(&d, 1, NULL, 0, op_cb, NULL));
    ck_assert_int_eq(rc, PMIX_OPERATION_SUCCEEDED);
    ck_assert_str_eq(got, "nb\n");
    ck_assert_int_eq(cb_calls, 0);
    free(got);
    got = CAPTURE(2, rc, PMIx_Log_nb(&d, 1, NULL, 0, NULL, NULL));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_str_eq(got, "nb\n");
    free(got);
    PMIX_INFO_DESTRUCT(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_add_test(tc, log_stderr_stdout);
    tcase_add_test(tc, log_once_partial_unsupported);
    tcase_add_test(tc, log_nb_without_progress_thread);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
