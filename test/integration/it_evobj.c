/*
 * it_evobj: event handlers that work through their PMIX_EVENT_RETURN_OBJECT,
 * the way fault-handling programs do: the handler finds its registered object
 * in the info array and signals a mutex + condition inside it, on which the
 * main thread waits (with a deadline, so a lost event fails instead of hanging).
 *   it_evobj local   every rank raises events with PMIX_RANGE_PROC_LOCAL:
 *                    its own handlers run on the progress thread (a blocking
 *                    call there gets PMIX_ERR_WOULD_BLOCK), each gets exactly
 *                    the object it registered, the info and source are passed
 *                    on, cbfunc gets PMIX_SUCCESS once on the progress thread,
 *                    the blocking form returns PMIX_SUCCESS, and no other
 *                    rank hears of it. Prints "it_evobj: local: N ranks: OK".
 *   it_evobj abort   ranks >= 1 wait for PMIX_ERR_PROC_ABORTED about rank 0,
 *                    which calls PMIx_Abort (status 3) after a fence; each
 *                    prints "it_evobj: rank R (node N, rank 0 on node M):
 *                    PMIX_ERR_PROC_ABORTED from rank 0" and exits 0.
 *   it_evobj kill    the same, rank 0 kills itself with SIGKILL.
 */
#include "itest.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>

#define IT_CODE (PMIX_EXTERNAL_ERR_BASE - 21)
#define IT_TAG_KEY "it.evobj.tag"

/* What a handler reaches through its return object. */
struct it_obj {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;                 /* handler calls so far */
    pmix_status_t status;      /* of the last call */
    pmix_proc_t source;        /* of the last call */
    pmix_rank_t affected;      /* PMIX_EVENT_AFFECTED_PROC of the last call */
    char tag[64];              /* IT_TAG_KEY of the last call, "" if absent */
    bool off_main;             /* the last call ran on another thread than main */
    bool only_rank0;           /* record only events from or about rank 0 (others
                                * come too: a rank that exits early is lost) */
    pmix_status_t get_rc, fence_rc, notify_rc; /* blocking calls inside the handler */
};

static struct it_obj it_obj1, it_obj2;
static pthread_t it_main_thread;

static void it_obj_init(struct it_obj *o)
{
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->cond, NULL);
}

/* The return object of this call. Fails (exit 1) unless it is exactly want:
 * touching a wrong pointer as a mutex would corrupt memory. */
static struct it_obj *it_return_object(const pmix_info_t *info, size_t ninfo,
                                       const struct it_obj *want)
{
    void *ptr = NULL;
    int found = 0;

    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT)) {
            IT_CHECK(info[i].value.type == PMIX_POINTER, "return object has type %d",
                     info[i].value.type);
            ptr = info[i].value.data.ptr;
            found++;
        }
    IT_CHECK(found == 1, "handler found %d return objects in %zu infos", found, ninfo);
    IT_CHECK(ptr == want, "handler got return object %p, registered %p", ptr, (const void *)want);
    return ptr;
}

/* Records the call in o and wakes the main thread. */
static void it_obj_record(struct it_obj *o, pmix_status_t status, const pmix_proc_t *source,
                          const pmix_info_t *info, size_t ninfo, bool try_blocking)
{
    pmix_status_t get_rc = PMIX_SUCCESS, fence_rc = PMIX_SUCCESS, notify_rc = PMIX_SUCCESS;
    pmix_value_t *val = NULL;

    if (try_blocking) {
        get_rc = PMIx_Get(&it_me, "it.evobj.none", NULL, 0, &val);
        if (val)
            PMIX_VALUE_RELEASE(val);
        fence_rc = PMIx_Fence(NULL, 0, NULL, 0);
        notify_rc = PMIx_Notify_event(IT_CODE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    }
    pmix_rank_t affected = PMIX_RANK_UNDEF;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            info[i].value.type == PMIX_PROC && info[i].value.data.proc)
            affected = info[i].value.data.proc->rank;
    pthread_mutex_lock(&o->lock);
    if (o->only_rank0 && affected != 0 && (!source || source->rank != 0)) {
        pthread_mutex_unlock(&o->lock);
        return;
    }
    o->calls++;
    o->status = status;
    if (source)
        o->source = *source;
    o->affected = affected;
    o->tag[0] = '\0';
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], IT_TAG_KEY) && info[i].value.type == PMIX_STRING &&
            info[i].value.data.string)
            snprintf(o->tag, sizeof(o->tag), "%s", info[i].value.data.string);
    o->off_main = !pthread_equal(pthread_self(), it_main_thread);
    if (try_blocking) {
        o->get_rc = get_rc;
        o->fence_rc = fence_rc;
        o->notify_rc = notify_rc;
    }
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

/* First handler of IT_CODE: also tries blocking calls; passes the event on. */
static void it_handler1(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    it_obj_record(it_return_object(info, ninfo, &it_obj1), status, source, info, ninfo, true);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Second handler of IT_CODE (own object), or the PROC_ABORTED handler: ends the chain. */
static void it_handler2(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    it_obj_record(it_return_object(info, ninfo, &it_obj2), status, source, info, ninfo, false);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void it_register(pmix_status_t code, pmix_notification_fn_t fn, struct it_obj *obj)
{
    pmix_info_t info;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_EVENT_RETURN_OBJECT, obj, PMIX_POINTER);
    rc = PMIx_Register_event_handler(&code, 1, &info, 1, fn, NULL, NULL);
    IT_CHECK(rc >= 0, "PMIx_Register_event_handler: %s", PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info);
}

/* Waits (10 s at most) until o has seen calls handler calls. */
static void it_obj_wait(struct it_obj *o, int calls, const char *what)
{
    struct timespec deadline;
    int err = 0;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&o->lock);
    while (o->calls < calls && err != ETIMEDOUT)
        err = pthread_cond_timedwait(&o->cond, &o->lock, &deadline);
    pthread_mutex_unlock(&o->lock);
    IT_CHECK(o->calls >= calls, "%s: timed out with %d handler calls, expected %d", what,
             o->calls, calls);
}

/* ---- local ---- */

static int it_cb_calls;
static pmix_status_t it_cb_status = PMIX_ERR_NOT_FOUND;
static int it_cb_off_main;

static void it_notify_cb(pmix_status_t status, void *cbdata)
{
    IT_CHECK(cbdata == &it_cb_calls, "cbfunc got cbdata %p", cbdata);
    it_cb_status = status;
    it_cb_off_main = !pthread_equal(pthread_self(), it_main_thread);
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static void it_check_call(const struct it_obj *o, int calls, const pmix_proc_t *source,
                          const char *tag, const char *what)
{
    IT_CHECK(o->calls == calls, "%s: %d handler calls, expected %d", what, o->calls, calls);
    IT_CHECK(o->status == IT_CODE, "%s: status %d", what, o->status);
    IT_CHECK(PMIX_CHECK_PROCID(&o->source, source), "%s: source %s:%u, expected %s:%u", what,
             o->source.nspace, o->source.rank, source->nspace, source->rank);
    IT_CHECK(strcmp(o->tag, tag) == 0, "%s: info tag '%s', expected '%s'", what, o->tag, tag);
    IT_CHECK(o->off_main, "%s: the handler ran on the caller's thread", what);
}

static void it_local(uint32_t size)
{
    pmix_info_t info;
    pmix_proc_t other;
    char tag[32];

    it_register(IT_CODE, it_handler1, &it_obj1);
    it_register(IT_CODE, it_handler2, &it_obj2);
    it_fence();

    /* non-blocking form, rank 0 only; source NULL means this process */
    if (it_me.rank == 0) {
        snprintf(tag, sizeof(tag), "from %u", it_me.rank);
        PMIX_INFO_LOAD(&info, IT_TAG_KEY, tag, PMIX_STRING);
        IT_RC(PMIx_Notify_event(IT_CODE, NULL, PMIX_RANGE_PROC_LOCAL, &info, 1, it_notify_cb,
                                &it_cb_calls),
              PMIX_SUCCESS, "PMIx_Notify_event(PROC_LOCAL, cbfunc)");
        PMIX_INFO_DESTRUCT(&info);
        it_obj_wait(&it_obj2, 1, "PROC_LOCAL event with cbfunc");
        IT_WAIT_FOR(it_cb_calls, 10, "the notify cbfunc");
        it_check_call(&it_obj1, 1, &it_me, tag, "handler 1");
        it_check_call(&it_obj2, 1, &it_me, tag, "handler 2");
        IT_RC(it_obj1.get_rc, PMIX_ERR_WOULD_BLOCK, "PMIx_Get in a handler");
        IT_RC(it_obj1.fence_rc, PMIX_ERR_WOULD_BLOCK, "PMIx_Fence in a handler");
        IT_RC(it_obj1.notify_rc, PMIX_ERR_WOULD_BLOCK, "PMIx_Notify_event(no cbfunc) in a handler");
        IT_RC(it_cb_status, PMIX_SUCCESS, "the notify cbfunc status");
        IT_CHECK(it_cb_off_main, "the notify cbfunc ran on the caller's thread");
    }
    it_fence();
    /* ranks other than 0 heard nothing of rank 0's PROC_LOCAL event */
    it_sleep_ms(200);
    IT_CHECK(it_obj1.calls == (it_me.rank == 0) && it_obj2.calls == (it_me.rank == 0),
             "rank %u: handlers ran %d and %d times after rank 0's PROC_LOCAL event",
             it_me.rank, it_obj1.calls, it_obj2.calls);
    it_fence();

    /* blocking form on every rank, with a source naming another process */
    int before = it_obj1.calls;
    PMIX_LOAD_PROCID(&other, it_me.nspace, it_me.rank + 100);
    IT_RC(PMIx_Notify_event(IT_CODE, &other, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL),
          PMIX_SUCCESS, "PMIx_Notify_event(PROC_LOCAL, no cbfunc)");
    it_obj_wait(&it_obj2, before + 1, "PROC_LOCAL event, blocking form");
    it_check_call(&it_obj1, before + 1, &other, "", "handler 1 (blocking form)");
    it_check_call(&it_obj2, before + 1, &other, "", "handler 2 (blocking form)");
    it_fence();
    it_sleep_ms(200);
    IT_CHECK(it_obj1.calls == before + 1 && it_obj2.calls == before + 1,
             "rank %u: handlers ran %d and %d times, expected %d", it_me.rank, it_obj1.calls,
             it_obj2.calls, before + 1);
    IT_CHECK(it_cb_calls == (it_me.rank == 0), "the notify cbfunc ran %d times", it_cb_calls);
    it_fence();
    if (it_me.rank == 0)
        printf("it_evobj: local: %u ranks: OK\n", size);
}

/* ---- abort / kill ---- */

static void it_fail_rank0(bool kill_it)
{
    pmix_status_t codes[1] = { PMIX_ERR_PROC_ABORTED };
    uint32_t mynode = it_nodeid(it_me.rank), node0 = it_nodeid(0);

    it_obj2.only_rank0 = true;
    if (it_me.rank != 0) {
        /* the launcher ends the job soon after rank 0 fails: survive its
         * SIGTERM (not its SIGKILL) so a slow machine still reports */
        signal(SIGTERM, SIG_IGN);
        it_register(codes[0], it_handler2, &it_obj2);
    }
    it_fence();
    if (it_me.rank == 0) {
        it_sleep_ms(200);
        fflush(NULL);
        if (kill_it)
            raise(SIGKILL);
        PMIx_Abort(3, "it_evobj: rank 0 fails on purpose", &it_me, 1);
        it_sleep_ms(30000); /* the launcher ends the job */
        _exit(1);
    }
    it_obj_wait(&it_obj2, 1, "the PROC_ABORTED event");
    pthread_mutex_lock(&it_obj2.lock);
    IT_CHECK(it_obj2.status == PMIX_ERR_PROC_ABORTED, "event status %s",
             PMIx_Error_string(it_obj2.status));
    IT_CHECK(it_obj2.affected == 0, "event from rank %u about rank %d, expected rank 0",
             it_obj2.source.rank, (int)it_obj2.affected);
    pthread_mutex_unlock(&it_obj2.lock);
    printf("it_evobj: rank %u (node %u, rank 0 on node %u): %s from rank 0\n", it_me.rank,
           mynode, node0, PMIx_Error_string(it_obj2.status));
    fflush(NULL);
    _exit(0); /* the job is ending: no finalize */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    uint32_t size;

    it_main_thread = pthread_self();
    it_obj_init(&it_obj1);
    it_obj_init(&it_obj2);
    size = it_init();
    if (strcmp(mode, "local") == 0) {
        it_local(size);
    } else if (strcmp(mode, "abort") == 0 || strcmp(mode, "kill") == 0) {
        IT_CHECK(size >= 2, "needs at least 2 ranks");
        it_fail_rank0(strcmp(mode, "kill") == 0);
    } else {
        IT_CHECK(0, "usage: it_evobj local|abort|kill");
    }
    it_finalize();
    return 0;
}
