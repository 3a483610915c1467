/* iof.c - IOF_PUSH requests (proto/msg.h): bytes a tool (or a client) pushes
 * to the stdin of processes of a job, handed to the host's push_stdin upcall,
 * which owns the processes' stdin.
 *
 * The reply goes back when the host called back: the bytes are no longer
 * needed (taken into its cache), not that a process read them; so a pusher
 * that waits for its replies goes at the pace the host allows (back-pressure
 * when a target reads slowly and its cache is full). An EOF request (flag
 * SPX_IOF_F_EOF) reaches the host with PMIX_IOF_COMPLETE true added to the
 * directives. Targets are checked here: a rank of a namespace this server
 * knows, or WILDCARD of one. Only single-node servers take pushes for now:
 * a push to a job spanning nodes answers PMIX_ERR_NOT_SUPPORTED.
 * Runs on the progress thread.
 */
#include "config.h"
#include "server/core.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "store/store.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

/* Is target a process (or WILDCARD) of a namespace this server knows? */
static bool target_known(struct spx_srv_ctx *ctx, const pmix_proc_t *t)
{
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, t->nspace);
    if (!ns)
        return false;
    if (t->rank == PMIX_RANK_WILDCARD)
        return true;
    const pmix_value_t *v = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE,
                                           NULL);
    uint32_t size;
    return t->rank < PMIX_RANK_VALID &&
           (!v || spx_value_to_u32(v, &size) != PMIX_SUCCESS || t->rank < size);
}

/* The caller's directives with PMIX_IOF_COMPLETE true appended (a new
 * array, owned by the caller of this function) into *out. */
static pmix_status_t with_complete(const pmix_info_t *dirs, size_t n, pmix_info_t **out,
                                   size_t *nout)
{
    pmix_info_t *a = calloc(n + 1, sizeof(*a));
    if (!a)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        PMIx_Info_xfer(&a[i], &dirs[i]);
    bool yes = true;
    PMIx_Info_load(&a[n], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    *out = a;
    *nout = n + 1;
    return PMIX_SUCCESS;
}

int spx_srv_handle_iof_push(struct spx_srv_req *r, spx_buf_t *b)
{
    pmix_info_t *dirs = NULL;
    size_t ndirs = 0, n = 0;
    if (spx_codec_pull_proc_array(b, &r->procs, &r->nprocs) != 0 ||
        spx_codec_pull_info_array(b, &dirs, &ndirs) != 0)
        return -1;
    uint8_t flags = spx_buf_pull_u8(b);
    void *data = spx_buf_remaining(b) > 0 ? spx_buf_pull_bytes(b, &n) : NULL;
    if (spx_buf_failed(b) || spx_buf_finish(b) != 0 || n > SPX_IOF_MAX_CHUNK ||
        (flags & ~SPX_IOF_F_EOF) != 0) {
        spx_info_array_free(dirs, ndirs);
        free(data);
        return -1;
    }
    r->msg = data; /* the bytes live as long as the request */
    struct spx_srv_ctx *ctx = r->peer->ctx;
    const pmix_server_module_t *host = &ctx->host;
    pmix_status_t rc = PMIX_SUCCESS;
    if (r->nprocs == 0)
        rc = PMIX_ERR_BAD_PARAM;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < r->nprocs; i++)
        if (!target_known(ctx, &r->procs[i])) {
            spx_info("%s: IOF push to %s:%u refused: no such process here", r->peer->name,
                     r->procs[i].nspace, (unsigned)r->procs[i].rank);
            rc = PMIX_ERR_BAD_PARAM;
        }
    if (rc == PMIX_SUCCESS && !host->push_stdin)
        rc = PMIX_ERR_NOT_SUPPORTED;
    if (rc == PMIX_SUCCESS && ctx->mn) {
        spx_info("%s: IOF push refused: pushes across nodes are not supported yet",
                 r->peer->name);
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS && (flags & SPX_IOF_F_EOF)) {
        pmix_info_t *all = NULL;
        size_t nall = 0;
        rc = with_complete(dirs, ndirs, &all, &nall);
        spx_info_array_free(dirs, ndirs);
        dirs = all;
        ndirs = nall;
    }
    r->info = dirs; /* owned by the request from here on */
    r->ninfo = ndirs;
    if (rc != PMIX_SUCCESS) {
        spx_srv_req_finish_now(r, rc);
        return 0;
    }
    r->bo.bytes = data;
    r->bo.size = n;
    rc = host->push_stdin(&r->peer->proc, r->procs, r->nprocs, r->info, r->ninfo, &r->bo,
                          spx_srv_req_op_cb, r);
    if (rc != PMIX_SUCCESS)
        spx_srv_req_finish_now(r, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
    return 0;
}
