/* client_fence.c - PMIx_Fence / PMIx_Fence_nb on the client side.
 *
 * The caller's thread checks the arguments (NULL procs with nprocs > 0,
 * membership of the caller). A blocking fence over the caller's whole
 * namespace, without PMIX_TIMEOUT, goes through the server's shared-memory
 * fence when it offers one (proto/shm_barrier.h): one atomic arrival, then
 * either this process releases everybody (it was last and nothing is owed to
 * the server), or sends FENCE_LOCAL so that the server finishes the fence,
 * or waits for the release (spinning briefly when there is a core for every
 * local process, then sleeping on the segment's futex). Any other fence
 * copies procs and directives and sends one FENCE request (the server folds
 * whole-namespace ones into the same segment); its reply, read on the
 * progress thread, calls back with the status.
 * A collecting fence drops the client's cache of fetched values so that data
 * changed or deleted by the fence is read afresh. A singleton completes at
 * once (PMIX_OPERATION_SUCCEEDED). A NULL cbfunc makes Fence_nb blocking.
 * A group id in procs stands for the members of that group (client_group_table.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/ranklist.h"
#include "util/trace.h"

struct fence_req {
    pmix_proc_t *procs; /* owned copy */
    size_t nprocs;
    pmix_info_t *info;  /* owned copy */
    size_t ninfo;
    bool collect;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void fence_req_free(struct fence_req *r)
{
    free(r->procs);
    if (r->info)
        PMIX_INFO_FREE(r->info, r->ninfo);
    free(r);
}

static void fence_finish(struct fence_req *r, pmix_status_t status)
{
    if (status == PMIX_SUCCESS && r->collect)
        spx_client_cache_reset();
    r->cbfunc(status, r->cbdata);
    fence_req_free(r);
}

/* PMIx_Fence calls of this process, for the trace (util/trace.h) */
static uint32_t trace_calls;

static void fence_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct fence_req *r = arg;
    spx_trace(SPX_TR_C_REPLY, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
              spx_client.myproc.rank, 0);
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_finish(payload) != 0) {
            spx_client_conn_fail("malformed FENCE reply");
            status = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    fence_finish(r, status);
}

/* Is this process among the participants? */
static bool is_member(const pmix_proc_t *procs, size_t nprocs)
{
    for (size_t i = 0; i < nprocs; i++) {
        if (!PMIX_CHECK_NSPACE(procs[i].nspace, spx_client.myproc.nspace))
            continue;
        if (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == spx_client.myproc.rank)
            return true;
    }
    return false;
}

struct fence_wait {
    spx_wait_t wait;
};

static void fence_wait_cb(pmix_status_t status, void *cbdata)
{
    struct fence_wait *fw = cbdata;
    spx_wait_signal(&fw->wait, status);
}

static pmix_status_t fence_start(const pmix_proc_t procs[], size_t nprocs,
                                 const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                 void *cbdata)
{
    struct fence_req *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    if (!procs || nprocs == 0) {
        r->procs = calloc(1, sizeof(pmix_proc_t));
        r->nprocs = 1;
        if (r->procs)
            PMIX_LOAD_PROCID(&r->procs[0], spx_client.myproc.nspace, PMIX_RANK_WILDCARD);
    } else {
        r->procs = malloc(nprocs * sizeof(pmix_proc_t));
        r->nprocs = nprocs;
        if (r->procs)
            memcpy(r->procs, procs, nprocs * sizeof(pmix_proc_t));
    }
    if (!r->procs || (ninfo > 0 && spx_info_array_dup(&r->info, info, ninfo) != PMIX_SUCCESS)) {
        fence_req_free(r);
        return PMIX_ERR_NOMEM;
    }
    r->ninfo = ninfo;
    const pmix_info_t *c = spx_info_find(info, ninfo, PMIX_COLLECT_DATA);
    r->collect = c && spx_info_true(c);
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    /* sent from the caller's thread; the reply completes it on the progress thread */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, r->procs, r->nprocs);
    spx_codec_push_info_array(&b, r->info, r->ninfo);
    spx_trace(SPX_TR_C_SEND, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
              spx_client.myproc.rank, 0);
    pmix_status_t rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                                          : spx_client_request(SPX_MSG_FENCE, &b, fence_reply, r);
    spx_buf_fini(&b);
    if (rc != PMIX_SUCCESS)
        fence_req_free(r);
    return rc;
}

/* ---- the shared-memory fence ---- */

/* Position of rank in a PMIX_LOCAL_PEERS list ("0,1,4-7"), counted in
 * ascending rank order, and the list's length; -1 when absent or unreadable. */
static long local_slot(hwloc_const_bitmap_t peers, pmix_rank_t rank, uint32_t *count)
{
    *count = (uint32_t)hwloc_bitmap_weight(peers);
    if (!hwloc_bitmap_isset(peers, (unsigned)rank))
        return -1;
    return (long)spx_ranklist_below(peers, (unsigned)rank);
}

/* The count ranks of peers, ascending. */
static void local_ranks(hwloc_const_bitmap_t peers, pmix_rank_t *out, uint32_t count)
{
    uint32_t n = 0;
    unsigned r;
    hwloc_bitmap_foreach_begin(r, peers)
    {
        if (n < count)
            out[n++] = (pmix_rank_t)r;
    }
    hwloc_bitmap_foreach_end();
}

void spx_client_shmb_attach(void)
{
    const pmix_value_t *path = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                              PMIX_RANK_WILDCARD, SPX_SHMB_KEY, NULL);
    const pmix_value_t *peers = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                               PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL);
    if (!path || path->type != PMIX_STRING || !peers || peers->type != PMIX_STRING)
        return;
    uint32_t count = 0;
    hwloc_bitmap_t set = spx_ranklist_parse(peers->data.string, SPX_SHMB_MAX_LOCAL);
    long slot = set ? local_slot(set, spx_client.myproc.rank, &count) : -1;
    spx_shmb_t *b = slot < 0 ? NULL : spx_shmb_attach(path->data.string);
    if (b && spx_shmb_nlocal(b) != count) {
        spx_debug("shared-memory fence: %u slots but %u local peers; not used",
                  spx_shmb_nlocal(b), count);
        spx_shmb_close(b);
        b = NULL;
    }
    pmix_rank_t *ranks = b ? malloc(count * sizeof(*ranks)) : NULL;
    uint64_t *epochs = b ? calloc(count, sizeof(*epochs)) : NULL;
    if (b && (!ranks || !epochs)) {
        spx_shmb_close(b);
        b = NULL;
    }
    if (b)
        local_ranks(set, ranks, count);
    hwloc_bitmap_free(set);
    if (!b) {
        free(ranks);
        free(epochs);
        return;
    }
    /* spin only where it cannot starve anyone: a core per local process, and
     * one more for the server when it has to finish the fence (other nodes) */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long need = (long)count + (spx_shmb_self_complete(b) ? 0 : 1);
    spx_client.shmb_spin_ns = cpus >= need ? 50000 : 0;
    const char *spin = getenv("SPMIX_FENCE_SPIN_NS"); /* override, for measurements */
    if (spin && *spin)
        spx_client.shmb_spin_ns = strtol(spin, NULL, 10);
    spx_client.shmb_slot = (uint32_t)slot;
    pthread_mutex_lock(&spx_client.lock);
    spx_client.shmb_ranks = ranks;
    spx_client.cache_epoch = epochs;
    pthread_mutex_unlock(&spx_client.lock);
    spx_client.shmb = b;
}

void spx_client_shmb_detach(void)
{
    spx_shmb_t *b = spx_client.shmb;
    spx_client.shmb = NULL;
    pthread_mutex_lock(&spx_client.lock);
    free(spx_client.shmb_ranks);
    free(spx_client.cache_epoch);
    spx_client.shmb_ranks = NULL;
    spx_client.cache_epoch = NULL;
    pthread_mutex_unlock(&spx_client.lock);
    spx_shmb_close(b);
}

/* The server retired the segment for fences (a local process finalized):
 * whole-namespace fences go through the socket from then on. */
static bool shmb_retired;

/* Does this fence go through the segment directly? */
static bool direct_eligible(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                            size_t ninfo)
{
    if (!spx_client.shmb || __atomic_load_n(&shmb_retired, __ATOMIC_ACQUIRE) ||
        spx_info_find(info, ninfo, PMIX_TIMEOUT))
        return false;
    if (!procs || nprocs == 0)
        return true;
    return nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD &&
           PMIX_CHECK_NSPACE(procs[0].nspace, spx_client.myproc.nspace);
}

static pmix_status_t fence_direct(bool collect)
{
    spx_shmb_t *b = spx_client.shmb;
    const volatile bool *lost = &spx_client.conn_lost;
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&spx_client.shmb_lock);
    for (bool done = false; !done;) {
        uint32_t gen = 0, nc = 0;
        pmix_status_t st = PMIX_SUCCESS;
        done = true;
        enum spx_shmb_arrive how = spx_shmb_arrive(b, spx_client.shmb_slot, collect, false, &gen,
                                                   &nc, &st);
        spx_trace(SPX_TR_C_ARRIVED, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
                  spx_client.myproc.rank, gen);
        switch (how) {
        case SPX_SHMB_BROKEN:
            rc = st;
            break;
        case SPX_SHMB_BUSY: /* our own socket fence is in this generation: after it */
            rc = spx_shmb_wait(b, gen, lost, 0);
            done = rc == PMIX_ERR_UNREACH && *lost;
            break;
        case SPX_SHMB_WAIT:
            rc = spx_shmb_wait(b, gen, lost, spx_client.shmb_spin_ns);
            break;
        case SPX_SHMB_LAST_SELF:
            /* commits sent before the arrivals must be applied before anyone
             * leaves; the server applies them now, or is asked to finish */
            if (spx_shmb_await_commits(b, spx_client.shmb_spin_ns)) {
                rc = spx_shmb_release(b, gen, st) ? st : spx_shmb_wait(b, gen, lost, 0);
                break;
            }
            if (!spx_shmb_close_gather(b, gen)) {
                rc = spx_shmb_wait(b, gen, lost, 0);
                break;
            }
            /* fall through */
        case SPX_SHMB_LAST_SERVER: {
            spx_buf_t m;
            spx_buf_init(&m);
            spx_buf_push_u32(&m, gen);
            spx_trace(SPX_TR_C_SEND, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
                      spx_client.myproc.rank, gen);
            rc = spx_buf_failed(&m) ? PMIX_ERR_NOMEM
                                    : spx_client_request(SPX_MSG_FENCE_LOCAL, &m, NULL, NULL);
            spx_buf_fini(&m);
            /* if it could not be sent the server sees us gone and breaks the fence */
            if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNREACH)
                rc = spx_shmb_wait(b, gen, lost, spx_client.shmb_spin_ns);
            break;
        }
        }
    }
    pthread_mutex_unlock(&spx_client.shmb_lock);
    spx_trace(SPX_TR_C_WOKE, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
              spx_client.myproc.rank, 0);
    if (rc == PMIX_SUCCESS && collect)
        spx_client_cache_reset();
    return rc;
}

/* The directives a fence honours (client and server side together). */
static const char *const fence_directives[] = {PMIX_COLLECT_DATA, PMIX_TIMEOUT, NULL};

/* Checks shared by both forms; PMIX_SUCCESS to proceed. */
static pmix_status_t fence_check(const pmix_proc_t procs[], size_t nprocs,
                                 const pmix_info_t info[], size_t ninfo)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if ((!procs && nprocs > 0) || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = spx_directives_check("PMIx_Fence", info, ninfo, fence_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (procs && nprocs > 0 && !is_member(procs, nprocs))
        return PMIX_ERR_NOT_A_MEMBER;
    return PMIX_SUCCESS;
}

static pmix_status_t fence_blocking(const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = fence_check(procs, nprocs, info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((rc = spx_progress_guard("PMIx_Fence")) != PMIX_SUCCESS)
        return rc;
    if (spx_client.singleton)
        return PMIX_SUCCESS;
    if (direct_eligible(procs, nprocs, info, ninfo)) {
        const pmix_info_t *c = spx_info_find(info, ninfo, PMIX_COLLECT_DATA);
        rc = fence_direct(c && spx_info_true(c));
        if (rc != SPX_SHMB_USE_SOCKET)
            return rc;
        __atomic_store_n(&shmb_retired, true, __ATOMIC_RELEASE);
    }
    struct fence_wait fw;
    spx_wait_init(&fw.wait);
    rc = fence_start(procs, nprocs, info, ninfo, fence_wait_cb, &fw);
    if (rc == PMIX_SUCCESS) {
        rc = spx_wait_block(&fw.wait);
        spx_trace(SPX_TR_C_WOKE, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
                  spx_client.myproc.rank, 0);
    }
    spx_wait_fini(&fw.wait);
    return rc;
}

static pmix_status_t fence_nonblocking(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!cbfunc) {
        pmix_status_t rc = fence_check(procs, nprocs, info, ninfo);
        if (rc != PMIX_SUCCESS)
            return rc;
        if ((rc = spx_progress_guard("PMIx_Fence_nb")) != PMIX_SUCCESS)
            return rc;
        return fence_blocking(procs, nprocs, info, ninfo);
    }
    pmix_status_t rc = fence_check(procs, nprocs, info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (spx_client.singleton)
        return PMIX_OPERATION_SUCCEEDED;
    return fence_start(procs, nprocs, info, ninfo, cbfunc, cbdata);
}

/* A group id in procs stands for the group's members (client_group_table.c). */
SPX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo)
{
    spx_trace(SPX_TR_C_CALL, __atomic_add_fetch(&trace_calls, 1, __ATOMIC_RELAXED),
              spx_client.myproc.rank, 0);
    pmix_proc_t *members = NULL;
    size_t n = 0;
    pmix_status_t rc = procs && nprocs > 0 && spx_client_initialized()
                           ? spx_client_group_expand(procs, nprocs, &members, &n)
                           : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = members ? fence_blocking(members, n, info, ninfo)
                 : fence_blocking(procs, nprocs, info, ninfo);
    free(members);
    spx_trace(SPX_TR_C_RET, __atomic_load_n(&trace_calls, __ATOMIC_RELAXED),
              spx_client.myproc.rank, rc);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_proc_t *members = NULL;
    size_t n = 0;
    pmix_status_t rc = procs && nprocs > 0 && spx_client_initialized()
                           ? spx_client_group_expand(procs, nprocs, &members, &n)
                           : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = members ? fence_nonblocking(members, n, info, ninfo, cbfunc, cbdata) /* procs copied */
                 : fence_nonblocking(procs, nprocs, info, ninfo, cbfunc, cbdata);
    free(members);
    return rc;
}
