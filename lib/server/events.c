/* events.c - event notification: NOTIFY from a client, PMIx_Notify_event of
 * the server process itself (spx_server_notify), and the EVENT frames pushed
 * to local clients and to the tools that may see the event's namespace.
 *
 * As in OpenPMIx, the server process's own handlers (PMIx_Register_event_handler
 * after PMIx_server_init; client/event_local.h) hear every event the server
 * passes on - raised by its clients, by other nodes, by the server library
 * itself or by the host - in any range but PROC_LOCAL and INVALID, and in a
 * CUSTOM range only when it names the server's own id. Every event passes
 * spx_srv_event_deliver once per node, so they hear it once. A PROC_LOCAL
 * event the host raises (PMIx_Notify_event in the server process) runs them
 * too, and is kept for handlers registered later.
 *
 * The EVENT payload is encoded once per event and copied for each client in
 * range. A client's event is also handed to the host's notify_event when its
 * range reaches beyond this node; the client's NOTIFY is answered after that.
 * In multi-node mode the server relays such events itself over the tree
 * (relay.c) and only PMIX_RANGE_RM events still go to the host.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_events.h"
#include "server/engine_group.h"
#include "server/fence.h"
#include "server/server.h"

#include <stdlib.h>
#include <string.h>

#include "client/event_local.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

/* Is proc named by one of the n range entries: directly, or as a member of
 * a group whose id an entry uses as namespace (engine_group.h)? */
static bool named_by(const struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                     const pmix_proc_t *range, size_t n)
{
    if (spx_fence_proc_in_set(proc, range, n))
        return true;
    for (size_t i = 0; i < n; i++)
        if (spx_srv_group_names(ctx, &range[i], proc))
            return true;
    return false;
}

/* Is proc named by the PMIX_EVENT_CUSTOM_RANGE directive? */
static bool in_custom_range(const struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                           const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *r = spx_info_find(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
    if (!r)
        return false;
    if (r->value.type == PMIX_PROC && r->value.data.proc)
        return named_by(ctx, proc, r->value.data.proc, 1);
    if (r->value.type == PMIX_DATA_ARRAY && r->value.data.darray &&
        r->value.data.darray->type == PMIX_PROC)
        return named_by(ctx, proc, r->value.data.darray->array, r->value.data.darray->size);
    return false;
}

static bool in_range(const struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                     const pmix_proc_t *source, pmix_data_range_t range, const pmix_info_t *info,
                     size_t ninfo)
{
    switch (range) {
    case PMIX_RANGE_PROC_LOCAL:
        return spx_proc_eq(proc, source);
    case PMIX_RANGE_NAMESPACE:
        return spx_nspace_eq(proc->nspace, source->nspace);
    case PMIX_RANGE_CUSTOM:
        return in_custom_range(ctx, proc, info, ninfo);
    case PMIX_RANGE_INVALID:
        return false;
    default: /* UNDEF, RM, LOCAL, SESSION, GLOBAL: every local client */
        return true;
    }
}

/* A tool hears the events of namespaces it may see in any range but
 * PROC_LOCAL (and CUSTOM ranges that do not name it): it watches jobs it is
 * no member of, so an event for a job's namespace reaches it too. */
static bool tool_hears(const struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                       const pmix_proc_t *source, pmix_data_range_t range,
                       const pmix_info_t *info, size_t ninfo)
{
    if (range == PMIX_RANGE_PROC_LOCAL || range == PMIX_RANGE_INVALID ||
        (range == PMIX_RANGE_CUSTOM && !in_custom_range(ctx, &p->proc, info, ninfo)))
        return false;
    return spx_srv_tool_may_see(p, source->nspace);
}

/* Does the server process itself hear an event it passes on? */
static bool self_hears(const struct spx_srv_ctx *ctx, pmix_data_range_t range,
                       const pmix_info_t *info, size_t ninfo)
{
    if (!ctx->active || range == PMIX_RANGE_PROC_LOCAL || range == PMIX_RANGE_INVALID)
        return false;
    return range != PMIX_RANGE_CUSTOM || in_custom_range(ctx, &ctx->me, info, ninfo);
}

static bool range_leaves_node(pmix_data_range_t range)
{
    return range != PMIX_RANGE_PROC_LOCAL && range != PMIX_RANGE_LOCAL &&
           range != PMIX_RANGE_INVALID;
}

void spx_srv_event_deliver(struct spx_srv_ctx *ctx, pmix_status_t status, const pmix_proc_t *source,
                           pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
                           const struct spx_srv_peer *except)
{
    spx_buf_t ev;
    spx_buf_init(&ev);
    spx_buf_push_i32(&ev, status);
    spx_codec_push_proc(&ev, source);
    spx_buf_push_u8(&ev, range);
    spx_codec_push_info_array(&ev, info, ninfo);
    if (spx_buf_failed(&ev)) {
        spx_error("event %d: cannot encode it (error %d): not delivered", status, ev.err);
        spx_buf_fini(&ev);
        return;
    }
    size_t n = 0;
    struct spx_srv_peer *p;
    LIST_FOREACH(p, &ctx->peers, link) {
        if (p == except || p->state != SPX_PEER_READY || !p->conn)
            continue;
        if (p->tool ? !tool_hears(ctx, p, source, range, info, ninfo)
                    : !p->client || !in_range(ctx, &p->proc, source, range, info, ninfo))
            continue;
        spx_buf_t copy;
        spx_buf_init(&copy);
        spx_buf_push_raw(&copy, ev.data, ev.len);
        if (!spx_buf_failed(&copy) && spx_conn_send(p->conn, SPX_MSG_EVENT, 0, 0, &copy) == 0)
            n++;
        spx_buf_fini(&copy);
    }
    spx_debug("event %d from %s:%u (range %u) delivered to %zu local clients", status,
              source->nspace, (unsigned)source->rank, (unsigned)range, n);
    spx_buf_fini(&ev);
    if (self_hears(ctx, range, info, ninfo))
        spx_event_local_run(status, source, info, ninfo, SPX_EVRUN_QUIET);
}

/* ---- NOTIFY from a client ---- */

int spx_srv_handle_notify(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    pmix_status_t status = spx_buf_pull_i32(b);
    pmix_proc_t source;
    if (spx_codec_pull_proc(b, &source) != 0)
        return -1;
    pmix_data_range_t range = spx_buf_pull_u8(b);
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (spx_buf_failed(b) || spx_codec_pull_info_array(b, &info, &ninfo) != 0)
        return -1;
    if (spx_buf_finish(b) != 0) {
        spx_info_array_free(info, ninfo);
        return -1;
    }
    source.nspace[PMIX_MAX_NSLEN] = '\0';
    struct spx_srv_ctx *ctx = p->ctx;
    if (status == PMIX_GROUP_CONSTRUCT_ABORT &&
        spx_srv_group_notify_abort(ctx, &p->proc, info, ninfo)) {
        /* the leader aborted its invitation: the group engine told everyone */
        spx_info_array_free(info, ninfo);
        spx_srv_reply_status(p, SPX_MSG_NOTIFY, seq, PMIX_SUCCESS);
        return 0;
    }
    spx_srv_event_deliver(ctx, status, &source, range, info, ninfo, p);
    /* multi-node: the server relays it; the host hears only of RM-range events */
    bool relayed = spx_srv_relay_event(ctx, status, &source, range, info, ninfo);
    struct spx_srv_req *r;
    if (!ctx->host.notify_event || !range_leaves_node(range) ||
        (ctx->mn && (relayed || range != PMIX_RANGE_RM)) ||
        !(r = spx_srv_req_create(p, SPX_MSG_NOTIFY, seq))) {
        spx_info_array_free(info, ninfo);
        spx_srv_reply_status(p, SPX_MSG_NOTIFY, seq, PMIX_SUCCESS);
        return 0;
    }
    r->info = info; /* the host may use it until its callback */
    r->ninfo = ninfo;
    pmix_status_t rc = ctx->host.notify_event(status, &source, range, info, ninfo,
                                              spx_srv_req_op_cb, r);
    if (rc != PMIX_SUCCESS)
        spx_srv_req_finish_now(r, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
    return 0;
}

/* ---- spx_server_notify ---- */

struct srv_notify {
    struct spx_srv_ctx *ctx;   /* borrowed: the server the event is raised in */
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info;   /* owned copy */
    size_t ninfo;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void do_server_notify(void *arg)
{
    struct srv_notify *n = arg;
    pmix_status_t rc = PMIX_ERR_INIT;
    if (n->ctx->active) {
        if (!spx_srv_relay_host_event(n->ctx, n->status, &n->source, n->range, n->info,
                                      n->ninfo))
            spx_srv_event_deliver(n->ctx, n->status, &n->source, n->range, n->info, n->ninfo,
                                  NULL);
        if (n->range == PMIX_RANGE_PROC_LOCAL) /* the host's own handlers (others: above) */
            spx_event_local_raised(n->status, &n->source, n->range, n->info, n->ninfo,
                                   SPX_EVRUN_QUIET);
        rc = PMIX_SUCCESS;
    }
    if (n->cbfunc)
        n->cbfunc(rc, n->cbdata);
    spx_info_array_free(n->info, n->ninfo);
    free(n);
}

pmix_status_t spx_server_notify(pmix_status_t status, const pmix_proc_t *source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (ninfo && !info)
        return PMIX_ERR_BAD_PARAM;
    struct srv_notify *n = calloc(1, sizeof(*n));
    if (!n)
        return PMIX_ERR_NOMEM;
    n->ctx = spx_srv; /* the entry point of PMIx_Notify_event in a server */
    n->status = status;
    if (source)
        spx_proc_load(&n->source, source->nspace, source->rank);
    else
        n->source = n->ctx->me;
    n->range = range;
    n->cbfunc = cbfunc;
    n->cbdata = cbdata;
    pmix_status_t rc = spx_info_array_dup(&n->info, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        free(n);
        return rc;
    }
    n->ninfo = ninfo;
    if (spx_progress_shift(do_server_notify, n) != 0) {
        spx_info_array_free(n->info, n->ninfo);
        free(n);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}
