/*
 * it_abort: the job ends when one rank fails.
 *   it_abort abort : rank 1 calls PMIx_Abort(7, msg); spmix-run must exit 7
 *                    and print msg.
 *   it_abort kill  : rank 1 kills itself with SIGKILL; the job must end at
 *                    once with a non-zero status.
 * The other ranks wait (up to 30 s) and report a PMIX_ERR_PROC_ABORTED event
 * naming rank 1 when it arrives; being killed first is fine too.
 */
#include "itest.h"

#include <signal.h>

static int it_seen;

static void it_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    pmix_rank_t affected = PMIX_RANK_UNDEF;

    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            info[i].value.type == PMIX_PROC)
            affected = info[i].value.data.proc->rank;
    printf("rank %u: event %s, affected rank %d\n", it_me.rank, PMIx_Error_string(status),
           (int)affected);
    fflush(stdout);
    if (status == PMIX_ERR_PROC_ABORTED && affected == 1)
        __atomic_store_n(&it_seen, 1, __ATOMIC_RELEASE);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "abort";
    uint32_t size = it_init();
    pmix_status_t code = PMIX_ERR_PROC_ABORTED;

    IT_CHECK(size >= 2, "needs at least 2 ranks");
    PMIx_Register_event_handler(&code, 1, NULL, 0, it_handler, NULL, NULL);
    it_fence();
    if (it_me.rank == 1) {
        if (strcmp(mode, "kill") == 0)
            raise(SIGKILL);
        PMIx_Abort(7, "it_abort: rank 1 gives up on purpose", NULL, 0);
        it_sleep_ms(30000);   /* PMIx_Abort should not leave us running long */
        return 3;
    }
    for (int i = 0; i < 3000 && !__atomic_load_n(&it_seen, __ATOMIC_ACQUIRE); i++)
        it_sleep_ms(10);
    /* seen or not, wait for the launcher to end us */
    it_sleep_ms(30000);
    return 4;
}
