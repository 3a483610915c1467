/*
 * run_host: spmix-run's host module.
 *
 * Data flow: the PMIx server library calls these functions on its progress
 * thread. On one node every collective is already complete when it reaches
 * the host: fence_nb hands back the data it was given (a copy, released by
 * spx_run_host_release). publish/lookup/unpublish are left to the server
 * library's own job-wide directory (lib/server/pubsub.c). Process
 * state (connected, finalized, a pending abort) is written by the upcalls
 * and read by the main thread, which does all process work (kill, reap).
 *
 * Two threads, no lock. spmix-run's main thread spawns, reaps and signals
 * the ranks; the library's progress thread is the server's and may not
 * block, and the server API gives a host no way to run code on it, so the
 * host's state crosses between them. Every field has one writer:
 *   - nspace, nprocs and the flag arrays are set by spx_run_host_init before
 *     PMIx_server_init starts the progress thread, and freed by
 *     spx_run_host_fini after PMIx_server_finalize has stopped it;
 *   - a connected/finalized flag goes from 0 to 1 once, in an upcall (release
 *     store), and the main thread reads it with an acquire load: a rank's
 *     client_finalized upcall returns before the rank is released from
 *     PMIx_Finalize, so a reaped rank's flag is already visible;
 *   - the abort record is claimed by the first upcall (compare-and-swap on
 *     abort_seen), filled, then published (release store of abort_ready);
 *     the main thread takes it once (compare-and-swap on abort_taken).
 */
#include "run_host.h"
#include "run_stdin.h"
#include "host/module.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spx_run_host {
    char nspace[PMIX_MAX_NSLEN + 1];
    uint32_t nprocs;
    int wake_fd;
    unsigned char *connected, *finalized;   /* nprocs entries each, set once */
    bool abort_seen, abort_ready, abort_taken; /* claimed, filled, taken */
    uint32_t abort_rank;
    int abort_status;
    char abort_msg[1024];
};

static struct spx_run_host spx_run_host = { .wake_fd = -1 };

static void spx_run_host_wake(void)
{
    ssize_t rc;

    do {
        rc = write(spx_run_host.wake_fd, "h", 1);
    } while (rc < 0 && errno == EINTR);   /* EAGAIN: already awake */
}

/* Is proc one of ours? Returns its rank slot or -1. */
static long spx_run_host_slot(const pmix_proc_t *proc)
{
    if (proc == NULL || !PMIX_CHECK_NSPACE(proc->nspace, spx_run_host.nspace) ||
        proc->rank >= spx_run_host.nprocs)
        return -1;
    return (long)proc->rank;
}

static void spx_run_host_mark(unsigned char *flags, const pmix_proc_t *proc)
{
    long slot = spx_run_host_slot(proc);

    if (slot < 0)
        return;
    __atomic_store_n(&flags[slot], 1, __ATOMIC_RELEASE);
}

static pmix_status_t spx_run_host_client_connected(const pmix_proc_t *proc, void *obj,
                                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    spx_run_host_mark(spx_run_host.connected, proc);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t spx_run_host_client_connected2(const pmix_proc_t *proc, void *obj,
                                                    pmix_info_t info[], size_t ninfo,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return spx_run_host_client_connected(proc, obj, cbfunc, cbdata);
}

static pmix_status_t spx_run_host_client_finalized(const pmix_proc_t *proc, void *obj,
                                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    spx_run_host_mark(spx_run_host.finalized, proc);
    return PMIX_OPERATION_SUCCEEDED;
}

/* Record the abort (the first one wins) and wake the main thread; lib/host
 * releases the caller after this: the main thread sees the record before
 * the client can exit. */
static void spx_run_host_abort_record(const pmix_proc_t *proc, int status, const char *msg,
                                      void *arg)
{
    bool unclaimed = false;

    (void)arg;
    if (__atomic_compare_exchange_n(&spx_run_host.abort_seen, &unclaimed, true, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        spx_run_host.abort_rank = proc ? proc->rank : PMIX_RANK_UNDEF;
        spx_run_host.abort_status = status;
        strncpy(spx_run_host.abort_msg, msg, sizeof(spx_run_host.abort_msg) - 1);
        __atomic_store_n(&spx_run_host.abort_ready, true, __ATOMIC_RELEASE);
    }
    spx_run_host_wake();
}

static void spx_run_host_release(void *cbdata)
{
    free(cbdata);
}

/* One node: the local contribution is the whole result. */
static pmix_status_t spx_run_host_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                           const pmix_info_t info[], size_t ninfo,
                                           char *data, size_t ndata,
                                           pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;

    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, spx_run_host_release, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t spx_run_host_dmodex(const pmix_proc_t *proc, const pmix_info_t info[],
                                         size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    return PMIX_ERR_NOT_FOUND;   /* every process is local: nothing remote to ask */
}

static void spx_run_host_query_release(void *cbdata)
{
    struct { pmix_info_t *info; size_t n; } *r = cbdata;

    PMIX_INFO_FREE(r->info, r->n);
    free(r);
}

/* Answer one query key into out; false when it is not one we know. */
static bool spx_run_host_query_one(const char *key, const pmix_query_t *q, pmix_info_t *out)
{
    if (strcmp(key, PMIX_QUERY_NAMESPACES) == 0) {
        PMIx_Info_load(out, key, spx_run_host.nspace, PMIX_STRING);
        return true;
    }
    if (strcmp(key, PMIX_JOB_SIZE) == 0) {
        for (size_t i = 0; i < q->nqual; i++)
            if (PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_NSPACE) &&
                q->qualifiers[i].value.type == PMIX_STRING &&
                !PMIX_CHECK_NSPACE(q->qualifiers[i].value.data.string, spx_run_host.nspace))
                return false;
        PMIx_Info_load(out, key, &spx_run_host.nprocs, PMIX_UINT32);
        return true;
    }
    return false;
}

static pmix_status_t spx_run_host_query(pmix_proc_t *proct, pmix_query_t *queries,
                                        size_t nqueries, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    struct { pmix_info_t *info; size_t n; } *r;
    size_t total = 0, n = 0;

    for (size_t i = 0; i < nqueries; i++)
        for (size_t k = 0; queries[i].keys && queries[i].keys[k]; k++)
            total++;
    if (total == 0 || total > 4096)
        return PMIX_ERR_BAD_PARAM;
    r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_INFO_CREATE(r->info, total);
    if (r->info == NULL) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < nqueries; i++)
        for (size_t k = 0; queries[i].keys && queries[i].keys[k]; k++)
            if (spx_run_host_query_one(queries[i].keys[k], &queries[i], &r->info[n]))
                n++;
    r->n = total;
    if (n == 0) {
        spx_run_host_query_release(r);
        return PMIX_ERR_NOT_FOUND;
    }
    cbfunc(n == total ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS, r->info, n, cbdata,
           spx_run_host_query_release, r);
    return PMIX_SUCCESS;
}

static pmix_server_module_t spx_run_host_mod = {
    .client_connected = spx_run_host_client_connected,
    .client_finalized = spx_run_host_client_finalized,
    .fence_nb = spx_run_host_fence_nb,
    .direct_modex = spx_run_host_dmodex,
    /* no notify_event: with one node there is nobody to relay to, and a host
     * that provides it takes over local delivery in some libraries */
    .query = spx_run_host_query,
    /* tools' PMIx_IOF_push: queued for the main loop (run_stdin) */
    .push_stdin = spx_run_stdin_push,
    .client_connected2 = spx_run_host_client_connected2,
};

pmix_server_module_t *spx_run_host_module(void)
{
    const struct spx_host_abort_ops ops = { .record = spx_run_host_abort_record };

    spx_host_module_init(&spx_run_host_mod, &ops);   /* abort, job_control */
    return &spx_run_host_mod;
}

int spx_run_host_init(const char *nspace, uint32_t nprocs, int wake_fd)
{
    spx_run_host.connected = calloc(nprocs, 1);
    spx_run_host.finalized = calloc(nprocs, 1);
    if (spx_run_host.connected == NULL || spx_run_host.finalized == NULL) {
        free(spx_run_host.connected);
        free(spx_run_host.finalized);
        errno = ENOMEM;
        return -1;
    }
    PMIX_LOAD_NSPACE(spx_run_host.nspace, nspace);
    spx_run_host.nprocs = nprocs;
    spx_run_host.wake_fd = wake_fd;
    return 0;
}

/* After PMIx_server_finalize (no upcall runs any more), on the main thread. */
void spx_run_host_fini(void)
{
    free(spx_run_host.connected);
    free(spx_run_host.finalized);
    spx_run_host.connected = spx_run_host.finalized = NULL;
    spx_run_host.nprocs = 0;
}

static bool spx_run_host_flag(const unsigned char *flags, uint32_t rank)
{
    return flags != NULL && rank < spx_run_host.nprocs &&
           __atomic_load_n(&flags[rank], __ATOMIC_ACQUIRE) != 0;
}

bool spx_run_host_connected(uint32_t rank)
{
    return spx_run_host_flag(spx_run_host.connected, rank);
}

bool spx_run_host_finalized(uint32_t rank)
{
    return spx_run_host_flag(spx_run_host.finalized, rank);
}

bool spx_run_host_take_abort(uint32_t *rank, int *status, char *msg, size_t len)
{
    bool untaken = false;

    if (!__atomic_load_n(&spx_run_host.abort_ready, __ATOMIC_ACQUIRE) ||
        !__atomic_compare_exchange_n(&spx_run_host.abort_taken, &untaken, true, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return false;
    *rank = spx_run_host.abort_rank;
    *status = spx_run_host.abort_status;
    if (len > 0) {
        strncpy(msg, spx_run_host.abort_msg, len - 1);
        msg[len - 1] = '\0';
    }
    return true;
}
