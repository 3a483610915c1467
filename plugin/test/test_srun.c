/*
 * test_srun: the srun side of mpi/spmix (plugin/srun.c) with Slurm's few
 * functions it calls replaced by stubs here: prelaunch puts the secret, the
 * rank map and the abort listener's port into the step environment; the
 * listener (its own thread) answers reports from other threads while the
 * test's main thread plays srun; client_fini stops the thread and returns
 * the first report's status as srun's exit code.
 *   - one report: acknowledged with 'K', its status is the exit code;
 *   - several, from THREADS threads at once: every one acknowledged, the
 *     exit code is one of their statuses; the first recorded wins (in
 *     order: a later report does not change the exit code);
 *   - a report with a wrong MAC or another step's ids: closed without 'K',
 *     exit code 0; a status that is 0 modulo 256 still fails (1);
 *   - no report at all: 0;
 *   - a report made for an earlier connection's nonce (replayed): dropped;
 *   - without SPMIX_TREE_AUTH=secret (built with libmunge): the step's
 *     environment says SPMIX_STEP_AUTH=munge and holds no secret.
 * The abort-agent tests ask for the secret (SPMIX_TREE_AUTH=secret) to
 * check its MAC; the munge proof is in test/unit/test_tree_munge.c.
 * Every test runs in its own process (srun.c keeps the step in statics).
 */
#include "config.h"
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "plugin/abort_msg.h"
#include "plugin/conf.h"
#include "plugin/plugin.h"

#define THREADS 6

/* ---- stubs of what srun.c takes from Slurm and the rest of the plugin ---- */
struct spx_plg_conf spx_plg_conf;
slurm_conf_t slurm_conf; /* libslurmfull's; SlurmUser 0 here */

void slurm_error(const char *format, ...)
{
    (void)format;
}

void slurm_info(const char *format, ...)
{
    (void)format;
}

static char *env_get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

int slurm_env_array_overwrite(char ***array_ptr, const char *name, const char *value)
{
    size_t n = 0;
    char *entry;
    while (*array_ptr && (*array_ptr)[n])
        n++;
    ck_assert_ptr_null(env_get(*array_ptr, name)); /* srun.c sets each once */
    ck_assert_int_ge(asprintf(&entry, "%s=%s", name, value), 0);
    *array_ptr = realloc(*array_ptr, (n + 2) * sizeof(char *));
    ck_assert_ptr_nonnull(*array_ptr);
    (*array_ptr)[n] = entry;
    (*array_ptr)[n + 1] = NULL;
    return 0;
}

/* ---- the step ---- */
static char **env;
static uint8_t secret[SPX_PLG_SECRET_LEN];
static uint16_t port;

static void setup(void)
{
    static uint32_t t0[] = { 0, 1 }, t1[] = { 2 };
    static uint32_t *tids[] = { t0, t1 };
    static uint16_t tasks[] = { 2, 1 };
    static slurm_step_layout_t lay = { .node_cnt = 2, .tasks = tasks, .task_cnt = 3,
                                       .tids = tids };
    mpi_step_info_t job = { .het_job_id = NO_VAL, .het_job_task_offset = NO_VAL,
                            .step_layout = &lay };
    job.step_id.job_id = 42;
    job.step_id.step_id = 3;
    env = NULL;
    setenv("SPMIX_TREE_AUTH", "secret", 1); /* these tests check the secret's MAC */
    ck_assert_ptr_nonnull(spx_plg_srun_prelaunch(&job, &env));
    ck_assert_str_eq(env_get(env, "SPMIX_STEP_AUTH"), "secret");
    ck_assert_str_eq(env_get(env, SPX_PLG_ENV_MAP), "0-1;2");
    const char *hex = env_get(env, SPX_PLG_ENV_SECRET), *p = env_get(env, SPX_PLG_ENV_SRUN_PORT);
    ck_assert_ptr_nonnull(hex);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(spx_plg_hex_decode(hex, secret, sizeof(secret)), sizeof(secret));
    port = (uint16_t)atoi(p);
    ck_assert_uint_ne(port, 0);
}

static void teardown(void)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

/* Sends one report as a slurmstepd would (made for the nonce srun sends,
 * or for nonce_of when not NULL); returns the answer byte, or 0 when the
 * listener closed without one. The nonce srun sent goes to got_nonce when
 * not NULL. */
static char report_with(uint32_t jobid, uint32_t rank, int32_t status, const uint8_t *key,
                        const uint8_t *nonce_of, uint8_t *got_nonce)
{
    struct spx_plg_abort a = { .jobid = jobid, .stepid = 3, .rank = rank, .status = status };
    struct spx_plg_abort_auth au = { .key = key, .keylen = SPX_PLG_SECRET_LEN };
    uint8_t buf[SPX_PLG_ABORT_MAX_WIRE], nonce[SPX_PLG_ABORT_NONCE];
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    char ans = 0, why[256];
    snprintf(a.host, sizeof(a.host), "node%u", rank);
    snprintf(a.text, sizeof(a.text), "rank %u gives up", rank);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_int_eq(recv(fd, nonce, sizeof(nonce), MSG_WAITALL), (ssize_t)sizeof(nonce));
    if (got_nonce)
        memcpy(got_nonce, nonce, sizeof(nonce));
    size_t len = spx_plg_abort_pack(&a, &au, nonce_of ? nonce_of : nonce, buf, why, sizeof(why));
    ck_assert_uint_gt(len, 0);
    ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
    if (read(fd, &ans, 1) != 1)
        ans = 0;
    close(fd);
    return ans;
}

static char report(uint32_t jobid, uint32_t rank, int32_t status, const uint8_t *key)
{
    return report_with(jobid, rank, status, key, NULL, NULL);
}

START_TEST(one_report_is_the_exit_code)
{
    ck_assert_int_eq(report(42, 1, 7, secret), 'K');
    ck_assert_int_eq(spx_plg_srun_fini(), 7);
}
END_TEST

static pthread_barrier_t start;
static int32_t sent_status[THREADS];
static char answer[THREADS];

static void *report_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    pthread_barrier_wait(&start);
    answer[i] = report(42, (uint32_t)i, sent_status[i], secret);
    return NULL;
}

START_TEST(reports_from_threads_all_answered)
{
    pthread_t tid[THREADS];
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++) {
        sent_status[i] = 10 + i;
        ck_assert_int_eq(pthread_create(&tid[i], NULL, report_thread, (void *)(intptr_t)i), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&start);
    int code = spx_plg_srun_fini(), from = 0;
    for (int i = 0; i < THREADS; i++) {
        ck_assert_int_eq(answer[i], 'K');
        from += code == sent_status[i];
    }
    ck_assert_int_eq(from, 1); /* one of the reports, whole */
}
END_TEST

START_TEST(bad_reports_are_dropped)
{
    uint8_t wrong[SPX_PLG_SECRET_LEN];
    memcpy(wrong, secret, sizeof(wrong));
    wrong[0] ^= 1;
    ck_assert_int_eq(report(42, 0, 5, wrong), 0);
    ck_assert_int_eq(report(41, 0, 5, secret), 0); /* another job */
    /* a report made for an earlier connection's nonce (a replay) */
    uint8_t old_nonce[SPX_PLG_ABORT_NONCE];
    ck_assert_int_eq(report_with(41, 0, 5, secret, NULL, old_nonce), 0);
    ck_assert_int_eq(report_with(42, 0, 5, secret, old_nonce, NULL), 0);
    ck_assert_int_eq(spx_plg_srun_fini(), 0);
}
END_TEST

START_TEST(status_256_still_fails)
{
    ck_assert_int_eq(report(42, 2, 256, secret), 'K');
    ck_assert_int_eq(report(42, 1, 9, secret), 'K'); /* later: not the exit code */
    ck_assert_int_eq(spx_plg_srun_fini(), 1);
}
END_TEST

START_TEST(no_report_exit_zero)
{
    ck_assert_int_eq(spx_plg_srun_fini(), 0);
    ck_assert_int_eq(spx_plg_srun_fini(), 0); /* stopped once */
}
END_TEST

START_TEST(munge_step_env_has_no_secret)
{
    static uint32_t t0[] = { 0 };
    static uint32_t *tids[] = { t0 };
    static uint16_t tasks[] = { 1 };
    static slurm_step_layout_t lay = { .node_cnt = 1, .tasks = tasks, .task_cnt = 1,
                                       .tids = tids };
    mpi_step_info_t job = { .het_job_id = NO_VAL, .het_job_task_offset = NO_VAL,
                            .step_layout = &lay };
    char **e = NULL;
    unsetenv("SPMIX_TREE_AUTH");
    ck_assert_ptr_nonnull(spx_plg_srun_prelaunch(&job, &e));
    if (SPX_HAVE_MUNGE) {
        ck_assert_str_eq(env_get(e, "SPMIX_STEP_AUTH"), "munge");
        ck_assert_ptr_null(env_get(e, SPX_PLG_ENV_SECRET));
    } else {
        ck_assert_str_eq(env_get(e, "SPMIX_STEP_AUTH"), "secret");
        ck_assert_ptr_nonnull(env_get(e, SPX_PLG_ENV_SECRET));
    }
    ck_assert_int_eq(spx_plg_srun_fini(), 0);
    for (size_t i = 0; e && e[i]; i++)
        free(e[i]);
    free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("srun");
    TCase *tc = tcase_create("abort_agent");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, one_report_is_the_exit_code);
    tcase_add_test(tc, reports_from_threads_all_answered);
    tcase_add_test(tc, bad_reports_are_dropped);
    tcase_add_test(tc, status_256_still_fails);
    tcase_add_test(tc, no_report_exit_zero);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("auth");
    tcase_add_test(tm, munge_step_env_has_no_secret);
    suite_add_tcase(s, tm);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
