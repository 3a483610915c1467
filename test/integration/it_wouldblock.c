/*
 * it_wouldblock: a blocking PMIx call made on the library's progress thread
 * (from an event handler, from a PMIx_Fence_nb callback) must return
 * PMIX_ERR_WOULD_BLOCK within a second instead of deadlocking, and the job
 * must go on normally afterwards. A watchdog in the main thread turns a
 * deadlock into a clear failure.
 */
#include "itest.h"

#define IT_CODE (PMIX_EXTERNAL_ERR_BASE - 21)

static pmix_status_t it_fence_rc, it_get_rc, it_log_rc;
static double it_took;
static int it_done, it_reg_done;

/* Run the two blocking calls here (the progress thread) and record. */
static void it_block_here(void)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    double t0 = it_now();

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    it_fence_rc = PMIx_Fence(NULL, 0, NULL, 0);
    it_get_rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (it_get_rc == PMIX_SUCCESS)
        PMIX_VALUE_RELEASE(v);
    pmix_info_t line;
    PMIX_INFO_LOAD(&line, PMIX_LOG_STDERR, "it_wouldblock: must not be logged", PMIX_STRING);
    it_log_rc = PMIx_Log(&line, 1, NULL, 0);
    PMIX_INFO_DESTRUCT(&line);
    it_took = it_now() - t0;
    __atomic_store_n(&it_done, 1, __ATOMIC_RELEASE);
}

static void it_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    if (status == IT_CODE)
        it_block_here();
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void it_fence_cb(pmix_status_t status, void *cbdata)
{
    it_block_here();
}

static void it_reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    __atomic_store_n(&it_reg_done, 1, __ATOMIC_RELEASE);
}

static void it_check(const char *where)
{
    double end = it_now() + 5;

    while (!__atomic_load_n(&it_done, __ATOMIC_ACQUIRE)) {
        IT_CHECK(it_now() < end, "%s: the blocking calls did not return within 5 s "
                                 "(deadlock on the progress thread)", where);
        it_sleep_ms(5);
    }
    IT_CHECK(it_fence_rc == PMIX_ERR_WOULD_BLOCK, "%s: PMIx_Fence returned %s, expected "
             "WOULD_BLOCK", where, PMIx_Error_string(it_fence_rc));
    IT_CHECK(it_get_rc == PMIX_ERR_WOULD_BLOCK, "%s: PMIx_Get returned %s, expected "
             "WOULD_BLOCK", where, PMIx_Error_string(it_get_rc));
    IT_CHECK(it_log_rc == PMIX_ERR_WOULD_BLOCK, "%s: PMIx_Log returned %s, expected "
             "WOULD_BLOCK", where, PMIx_Error_string(it_log_rc));
    IT_CHECK(it_took < 1.0, "%s: the refused calls took %.2f s", where, it_took);
    it_done = 0;
}

int main(void)
{
    uint32_t size = it_init();
    pmix_status_t code = IT_CODE, rc;

    PMIx_Register_event_handler(&code, 1, NULL, 0, it_handler, it_reg_cb, NULL);
    IT_WAIT_FOR(it_reg_done, 10, "handler registration");
    it_fence();

    /* from an event handler: rank 0 notifies the others and, as in OpenPMIx,
     * its own handler runs too */
    if (it_me.rank == 0)
        IT_RC(PMIx_Notify_event(IT_CODE, &it_me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL),
              PMIX_SUCCESS, "PMIx_Notify_event");
    it_check("event handler");
    it_fence();

    /* from a Fence_nb callback */
    rc = PMIx_Fence_nb(NULL, 0, NULL, 0, it_fence_cb, NULL);
    if (rc == PMIX_OPERATION_SUCCEEDED)
        it_fence_cb(PMIX_SUCCESS, NULL);   /* cannot happen with peers; keep it honest */
    else
        IT_RC(rc, PMIX_SUCCESS, "PMIx_Fence_nb");
    if (rc == PMIX_SUCCESS)
        it_check("Fence_nb callback");

    /* the job goes on */
    it_fence();
    it_fence();
    if (it_me.rank == 0)
        printf("it_wouldblock: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
