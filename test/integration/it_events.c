/*
 * it_events: event handlers. Every rank registers two handlers for one code
 * and a default handler; rank 0 notifies. Ranks != 0 check that every handler
 * ran once with the right status and source; then one specific handler is
 * deregistered and, on the next notification, only the other two run.
 * (A code nobody registered for is not tested: OpenPMIx does not deliver
 * such events to default handlers.)
 */
#include "itest.h"

#define IT_CODE (PMIX_EXTERNAL_ERR_BASE - 11)

static int it_calls[3];   /* specific 1, specific 2, default */
static pmix_status_t it_last_status;
static pmix_proc_t it_last_source;
static volatile size_t it_reg_ref;
static int it_reg_done;

static void it_record(int which, pmix_status_t status, const pmix_proc_t *source)
{
    it_last_status = status;
    if (source)
        it_last_source = *source;
    __atomic_add_fetch(&it_calls[which], 1, __ATOMIC_RELEASE);
}

#define IT_HANDLER(name, which, action) \
    static void name(size_t id, pmix_status_t status, const pmix_proc_t *source, \
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults, \
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata) \
    { \
        if (status == IT_CODE) \
            it_record(which, status, source); \
        if (cbfunc) \
            cbfunc(action, NULL, 0, NULL, NULL, cbdata); \
    }

/* specific handlers pass the event on down the chain; default ends it */
IT_HANDLER(it_spec1, 0, PMIX_SUCCESS)
IT_HANDLER(it_spec2, 1, PMIX_SUCCESS)
IT_HANDLER(it_default, 2, PMIX_EVENT_ACTION_COMPLETE)

static void it_reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    IT_CHECK(status == PMIX_SUCCESS, "handler registration failed: %s", PMIx_Error_string(status));
    it_reg_ref = ref;
    __atomic_store_n(&it_reg_done, 1, __ATOMIC_RELEASE);
}

static size_t it_register(pmix_status_t *codes, size_t ncodes, pmix_notification_fn_t fn)
{
    it_reg_done = 0;
    PMIx_Register_event_handler(codes, ncodes, NULL, 0, fn, it_reg_cb, NULL);
    IT_WAIT_FOR(it_reg_done, 10, "handler registration");
    return it_reg_ref;
}

/* Wait until the counters reach want[], then check nothing more arrives. */
static void it_expect(const int want[3], const char *phase)
{
    double end = it_now() + 10;

    for (int i = 0; i < 3; i++)
        while (__atomic_load_n(&it_calls[i], __ATOMIC_ACQUIRE) < want[i]) {
            IT_CHECK(it_now() < end, "%s: handler %d called %d times, expected %d", phase, i,
                     it_calls[i], want[i]);
            it_sleep_ms(5);
        }
    it_sleep_ms(200);
    for (int i = 0; i < 3; i++)
        IT_CHECK(it_calls[i] == want[i], "%s: handler %d called %d times, expected %d", phase,
                 i, it_calls[i], want[i]);
    IT_CHECK(it_last_status == IT_CODE, "%s: status %d, expected %d", phase, it_last_status,
             IT_CODE);
    IT_CHECK(PMIX_CHECK_NSPACE(it_last_source.nspace, it_me.nspace) && it_last_source.rank == 0,
             "%s: source %s:%u, expected rank 0", phase, it_last_source.nspace,
             it_last_source.rank);
}

static void it_notify(void)
{
    IT_RC(PMIx_Notify_event(IT_CODE, &it_me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL),
          PMIX_SUCCESS, "PMIx_Notify_event");
}

int main(void)
{
    uint32_t size = it_init();
    pmix_status_t code = IT_CODE;
    size_t ref1;
    static const int first[3] = { 1, 1, 1 }, second[3] = { 1, 2, 2 };

    IT_CHECK(size >= 2, "needs at least 2 ranks");
    ref1 = it_register(&code, 1, it_spec1);
    it_register(&code, 1, it_spec2);
    it_register(NULL, 0, it_default);
    it_fence();

    if (it_me.rank == 0)
        it_notify();
    else
        it_expect(first, "first notification");
    it_fence();

    IT_RC(PMIx_Deregister_event_handler(ref1, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Deregister_event_handler");
    it_fence();
    if (it_me.rank == 0)
        it_notify();
    else
        it_expect(second, "after deregistration");
    it_fence();
    if (it_me.rank == 0)
        printf("it_events: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
