/* client_fence.c - PMIx_Fence / PMIx_Fence_nb on the client side.
 *
 * The caller's thread checks the arguments (NULL procs with nprocs > 0,
 * membership of the caller), copies procs and directives and sends one FENCE
 * request; its reply, read on the progress thread, calls back with the status.
 * A collecting fence drops the client's cache of fetched values so that data
 * changed or deleted by the fence is read afresh. A singleton completes at
 * once (PMIX_OPERATION_SUCCEEDED). A NULL cbfunc makes Fence_nb blocking.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"

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

static void fence_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct fence_req *r = arg;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_finish(payload) != 0) {
            if (spx_client.conn)
                spx_conn_close(spx_client.conn, "malformed FENCE reply", 1);
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
    pmix_status_t rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                                          : spx_client_request(SPX_MSG_FENCE, &b, fence_reply, r);
    spx_buf_fini(&b);
    if (rc != PMIX_SUCCESS)
        fence_req_free(r);
    return rc;
}

/* Checks shared by both forms; PMIX_SUCCESS to proceed. */
static pmix_status_t fence_check(const pmix_proc_t procs[], size_t nprocs,
                                 const pmix_info_t info[], size_t ninfo)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if ((!procs && nprocs > 0) || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    if (procs && nprocs > 0 && !is_member(procs, nprocs))
        return PMIX_ERR_NOT_A_MEMBER;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = fence_check(procs, nprocs, info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((rc = spx_progress_guard("PMIx_Fence")) != PMIX_SUCCESS)
        return rc;
    if (spx_client.singleton)
        return PMIX_SUCCESS;
    struct fence_wait fw;
    spx_wait_init(&fw.wait);
    rc = fence_start(procs, nprocs, info, ninfo, fence_wait_cb, &fw);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&fw.wait);
    spx_wait_fini(&fw.wait);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!cbfunc) {
        pmix_status_t rc = fence_check(procs, nprocs, info, ninfo);
        if (rc != PMIX_SUCCESS)
            return rc;
        if ((rc = spx_progress_guard("PMIx_Fence_nb")) != PMIX_SUCCESS)
            return rc;
        return PMIx_Fence(procs, nprocs, info, ninfo);
    }
    pmix_status_t rc = fence_check(procs, nprocs, info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (spx_client.singleton)
        return PMIX_OPERATION_SUCCEEDED;
    return fence_start(procs, nprocs, info, ninfo, cbfunc, cbdata);
}
