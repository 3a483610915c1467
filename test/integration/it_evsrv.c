/*
 * it_evsrv: the ranks of the server-handler test (srvevents.sh, with
 * it_srvhook.so preloaded into spmix-run's servers). Every rank counts
 * IT_EVSRV_RANK, IT_EVSRV_LOCAL and IT_EVSRV_GLOBAL; rank 0 raises
 * IT_EVSRV_RANK and then IT_EVSRV_TRIGGER (NAMESPACE), upon which node 0's
 * server raises IT_EVSRV_LOCAL (PROC_LOCAL: no rank may hear it) and
 * IT_EVSRV_GLOBAL (every rank hears it once). Each rank waits for its events,
 * passes two fences and checks the counts: so every server has handled both
 * events of rank 0 and node 0's server its own before the job ends. Prints
 * "it_evsrv: N ranks: OK".
 */
#include "itest.h"

#include "it_evsrv.h"

static int it_rank_ev, it_local_ev, it_global_ev; /* progress thread */
static char it_global_tag[32];

static void it_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)results, (void)nresults;
    if (status == IT_EVSRV_RANK)
        __atomic_add_fetch(&it_rank_ev, 1, __ATOMIC_RELEASE);
    else if (status == IT_EVSRV_LOCAL)
        __atomic_add_fetch(&it_local_ev, 1, __ATOMIC_RELEASE);
    else if (status == IT_EVSRV_GLOBAL) {
        for (size_t i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], IT_EVSRV_TAG) && info[i].value.type == PMIX_STRING)
                snprintf(it_global_tag, sizeof(it_global_tag), "%s", info[i].value.data.string);
        __atomic_add_fetch(&it_global_ev, 1, __ATOMIC_RELEASE);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void it_raise(pmix_status_t code, const char *tag)
{
    pmix_info_t info;

    PMIX_INFO_LOAD(&info, IT_EVSRV_TAG, tag, PMIX_STRING);
    IT_RC(PMIx_Notify_event(code, NULL, PMIX_RANGE_NAMESPACE, &info, 1, NULL, NULL),
          PMIX_SUCCESS, tag);
    PMIX_INFO_DESTRUCT(&info);
}

int main(void)
{
    uint32_t size = it_init();
    pmix_status_t codes[3] = { IT_EVSRV_RANK, IT_EVSRV_LOCAL, IT_EVSRV_GLOBAL };

    IT_CHECK(PMIx_Register_event_handler(codes, 3, NULL, 0, it_hdlr, NULL, NULL) >= 0,
             "registering the handler");
    it_fence();
    if (it_me.rank == 0) {
        it_raise(IT_EVSRV_RANK, "rank0");
        it_raise(IT_EVSRV_TRIGGER, "trigger");
    }
    IT_WAIT_FOR(it_rank_ev, 10, "rank 0's event");
    IT_WAIT_FOR(it_global_ev, 10, "the server's GLOBAL event");
    it_fence();
    it_fence();
    IT_CHECK(it_rank_ev == 1 && it_global_ev == 1 && it_local_ev == 0,
             "rank 0's event %d times, the server's GLOBAL one %d times, its PROC_LOCAL one %d "
             "times; expected 1, 1, 0", it_rank_ev, it_global_ev, it_local_ev);
    IT_CHECK(strcmp(it_global_tag, "srv-global") == 0, "the server's event has tag '%s'",
             it_global_tag);
    if (it_me.rank == 0)
        printf("it_evsrv: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
