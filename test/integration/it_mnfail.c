/*
 * it_mnfail: failures during a fence, on one or many simulated nodes.
 *   it_mnfail rank     the last rank kills itself (SIGKILL) while the others
 *                      are in a fence
 *   it_mnfail daemon   the last rank kills its node daemon (its parent)
 *                      while the others are in a fence
 * Every other rank (on a surviving node) registers a handler for
 * PMIX_ERR_PROC_ABORTED and PMIX_ERR_UNREACH, checks that its fence fails
 * promptly with one of them (UNREACH only when a node is lost) and that the
 * handler ran, and prints one line "it_mnfail: rank R: fence STATUS after T s,
 * handler STATUS" before it exits (the job is being ended by then).
 */
#include "itest.h"

#include <signal.h>

static int handled;
static pmix_status_t handled_status;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (!__atomic_load_n(&handled, __ATOMIC_ACQUIRE)) {
        handled_status = status;
        __atomic_store_n(&handled, 1, __ATOMIC_RELEASE);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int reg_done;

static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref;
    (void)cbdata;
    IT_CHECK(status == PMIX_SUCCESS, "handler registration: %s", PMIx_Error_string(status));
    __atomic_store_n(&reg_done, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    bool daemon = strcmp(mode, "daemon") == 0;
    pmix_status_t codes[2] = { PMIX_ERR_PROC_ABORTED, PMIX_ERR_UNREACH }, rc;
    uint32_t size = it_init(), victim = size - 1, vnode, mynode;
    double t0, took;

    IT_CHECK(daemon || strcmp(mode, "rank") == 0, "usage: it_mnfail rank|daemon");
    IT_CHECK(size >= 2, "needs at least 2 ranks");
    vnode = it_nodeid(victim);
    mynode = it_nodeid(it_me.rank);
    PMIx_Register_event_handler(codes, 2, NULL, 0, handler, reg_cb, NULL);
    IT_WAIT_FOR(reg_done, 10, "the handler registration");
    it_fence();

    if (it_me.rank == victim) {
        it_sleep_ms(300);   /* the others are in the fence by now */
        fflush(NULL);
        if (daemon) {
            kill(getppid(), SIGKILL);
            it_sleep_ms(30000);   /* the launcher kills us */
        }
        raise(SIGKILL);
    }
    if (daemon && mynode == vnode) {   /* lost our server with it */
        it_sleep_ms(30000);
        _exit(0);
    }
    t0 = it_now();
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    took = it_now() - t0;
    IT_CHECK(daemon ? rc == PMIX_ERR_UNREACH
                    : (rc == PMIX_ERR_PROC_ABORTED || rc == PMIX_ERR_UNREACH),
             "the fence returned %s", PMIx_Error_string(rc));
    IT_CHECK(took < 5.0, "the failed fence took %.2f s", took);
    IT_WAIT_FOR(handled, 5, "the failure event");
    printf("it_mnfail: rank %u: fence %s after %.2f s, handler %s\n", it_me.rank,
           PMIx_Error_string(rc), took, PMIx_Error_string(handled_status));
    fflush(NULL);
    _exit(0);   /* the job is ending: no finalize needed */
}
