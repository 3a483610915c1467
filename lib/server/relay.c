/* relay.c - events and failures across nodes (multi-node mode only).
 *
 * Events: a NOTIFY of a client, or PMIx_Notify_event of the host, whose range
 * reaches past this node (NAMESPACE, SESSION, GLOBAL, CUSTOM) is delivered
 * here and broadcast on SPX_SRV_CH_EVENT; every other server delivers it to
 * its own clients in range (events.c decides who is in range).
 *
 * Failures: a client that leaves without PMIx_Finalize is "lost". Its server
 * fails every fence tracker naming it (a tracker still gathering also starts
 * its tree collective with the error, so every node fails it), answers
 * dmodex waits for it, broadcasts SPX_SRV_CH_PROC_LOST, and raises
 * PMIX_ERR_PROC_ABORTED (with PMIX_EVENT_AFFECTED_PROC) to the clients of its
 * job; every receiving server does the same locally. A lost process is
 * remembered, so later fences naming it fail at once and a second report (the
 * host's own PROC_ABORTED notification) raises no second event. A lost node
 * fails everything waiting on it with PMIX_ERR_UNREACH and raises
 * PMIX_ERR_UNREACH naming the job's processes that were on it.
 */
#include "config.h"
#include "server/core.h"
#include "proto/msg.h"
#include "server/engine_events.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "types/types.h"
#include "util/log.h"

static bool range_crosses(pmix_data_range_t range)
{
    return range == PMIX_RANGE_NAMESPACE || range == PMIX_RANGE_SESSION ||
           range == PMIX_RANGE_GLOBAL || range == PMIX_RANGE_CUSTOM;
}

bool spx_srv_relay_event(struct spx_srv_ctx *ctx, pmix_status_t status,
                         const pmix_proc_t *source, pmix_data_range_t range,
                         const pmix_info_t *info, size_t ninfo)
{
    if (!ctx->mn || !ctx->active || !range_crosses(range))
        return false;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, status);
    spx_codec_push_proc(&b, source);
    spx_buf_push_u8(&b, (uint8_t)range);
    spx_codec_push_info_array(&b, info, ninfo);
    int rc = spx_srv_mn_bcast(ctx, SPX_SRV_CH_EVENT, &b);
    spx_buf_fini(&b);
    if (rc != 0)
        spx_warn("event %d from %s:%u: could not relay it to the other nodes", status,
                 source->nspace, (unsigned)source->rank);
    return rc == 0;
}

static bool pred_has_proc(const pmix_proc_t *set, size_t nset, void *arg)
{
    return spx_fence_proc_in_set(arg, set, nset);
}

static void raise_aborted(struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    spx_key_load(info.key, PMIX_EVENT_AFFECTED_PROC);
    pmix_proc_t affected = *proc;
    info.value.type = PMIX_PROC;
    info.value.data.proc = &affected; /* borrowed: deliver only encodes it */
    spx_srv_event_deliver(ctx, PMIX_ERR_PROC_ABORTED, proc, PMIX_RANGE_NAMESPACE, &info, 1,
                          NULL);
}

void spx_srv_relay_proc_lost(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool tell_others)
{
    if (!ctx->mn || !ctx->active || !spx_srv_mn_mark_lost(ctx, proc))
        return;
    pmix_proc_t p;
    spx_proc_load(&p, proc->nspace, proc->rank);
    spx_warn("process %s:%u lost: failing what waits for it", p.nspace, (unsigned)p.rank);
    if (tell_others) {
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_proc(&b, &p);
        if (spx_srv_mn_bcast(ctx, SPX_SRV_CH_PROC_LOST, &b) != 0)
            spx_warn("process %s:%u lost: could not tell the other nodes", p.nspace,
                     (unsigned)p.rank);
        spx_buf_fini(&b);
    }
    if (ctx->fence)
        spx_fence_fail_if(ctx->fence, pred_has_proc, &p, PMIX_ERR_PROC_ABORTED);
    spx_srv_shmf_break(spx_srv_ns_find(ctx, p.nspace), PMIX_ERR_PROC_ABORTED, false);
    spx_srv_dmx_target_gone(ctx, p.nspace, p.rank);
    if (ctx->directory) /* node 0 hears of every lost process */
        ctx->directory->proc_done(ctx, &p, false);
    raise_aborted(ctx, &p);
}

bool spx_srv_relay_host_event(struct spx_srv_ctx *ctx, pmix_status_t status,
                              const pmix_proc_t *source, pmix_data_range_t range,
                              const pmix_info_t *info, size_t ninfo)
{
    if (!ctx->mn || !ctx->active)
        return false;
    if (status == PMIX_ERR_PROC_ABORTED) {
        const pmix_info_t *a = spx_info_find(info, ninfo, PMIX_EVENT_AFFECTED_PROC);
        const pmix_proc_t *who = a && a->value.type == PMIX_PROC && a->value.data.proc
                                     ? a->value.data.proc
                                     : source;
        if (who && who->rank < PMIX_RANK_VALID) {
            /* the same report as a lost connection: one event per process */
            spx_srv_relay_proc_lost(ctx, who, true);
            return true;
        }
    }
    spx_srv_event_deliver(ctx, status, source, range, info, ninfo, NULL);
    spx_srv_relay_event(ctx, status, source, range, info, ninfo);
    return true;
}

/* ---- lost nodes ---- */

/* The event engine's node_gone (the fence, direct modex and directory
 * engines heard of it before, in the engines' order): the node's processes
 * are marked lost, the shared-memory fences of their jobs end and, for a
 * lost node (notify_clients), their jobs' clients get PMIX_ERR_UNREACH. */
static void relay_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool notify_clients)
{
    if (!ctx->mn || !ctx->active)
        return;
    struct spx_srv_ns *ns;
    LIST_FOREACH(ns, &ctx->nspaces, link) {
        pmix_rank_t *ranks;
        size_t n = spx_srv_ns_node_ranks(ns, node, &ranks);
        if (n == 0)
            continue;
        /* a lost node ends the shared-memory fences of the job at once; after
         * an orderly end (every process there finalized) fences go on
         * without that node (nodes.c leaves it out of their node lists) */
        if (notify_clients)
            spx_srv_shmf_break(ns, PMIX_ERR_UNREACH, false);
        pmix_proc_t *procs = calloc(n, sizeof(*procs));
        if (!procs) {
            free(ranks);
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            spx_proc_load(&procs[k], ns->name, ranks[k]);
            spx_srv_mn_mark_lost(ctx, &procs[k]);
        }
        free(ranks);
        if (!notify_clients) {
            free(procs);
            continue;
        }
        pmix_data_array_t arr = {.type = PMIX_PROC, .size = n, .array = procs};
        pmix_info_t info;
        memset(&info, 0, sizeof(info));
        spx_key_load(info.key, PMIX_EVENT_AFFECTED_PROCS);
        info.value.type = PMIX_DATA_ARRAY;
        info.value.data.darray = &arr; /* borrowed: deliver only encodes it */
        pmix_proc_t source;
        spx_proc_load(&source, ns->name, PMIX_RANK_WILDCARD);
        spx_srv_event_deliver(ctx, PMIX_ERR_UNREACH, &source, PMIX_RANGE_NAMESPACE, &info, 1,
                              NULL);
        free(procs);
    }
}

/* ---- messages ---- */

static void relay_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    if (channel == SPX_SRV_CH_PROC_LOST) {
        pmix_proc_t p;
        if (spx_codec_pull_proc(b, &p) != 0 || spx_buf_finish(b) != 0) {
            spx_warn("tree: malformed lost-process message from node %u dropped", from);
            return;
        }
        p.nspace[PMIX_MAX_NSLEN] = '\0';
        spx_srv_relay_proc_lost(ctx, &p, false);
        spx_srv_engines_proc_gone(ctx, &p, false); /* a process of another node */
        return;
    }
    pmix_status_t status = spx_buf_pull_i32(b);
    pmix_proc_t source;
    if (spx_codec_pull_proc(b, &source) != 0) {
        spx_warn("tree: malformed event from node %u dropped", from);
        return;
    }
    pmix_data_range_t range = spx_buf_pull_u8(b);
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (spx_buf_failed(b) || spx_codec_pull_info_array(b, &info, &ninfo) != 0 ||
        spx_buf_finish(b) != 0) {
        spx_info_array_free(info, ninfo);
        spx_warn("tree: malformed event from node %u dropped", from);
        return;
    }
    source.nspace[PMIX_MAX_NSLEN] = '\0';
    spx_srv_event_deliver(ctx, status, &source, range, info, ninfo, NULL);
    spx_info_array_free(info, ninfo);
}

static const struct spx_srv_route event_routes[] = {
    {SPX_MSG_NOTIFY, false, spx_srv_handle_notify},
    {0, false, NULL},
};

const struct spx_srv_engine_ops spx_srv_relay_engine = {
    .name = "events",
    .routes = event_routes,
    .channels = SPX_SRV_CH_BIT(SPX_SRV_CH_EVENT) | SPX_SRV_CH_BIT(SPX_SRV_CH_PROC_LOST),
    .recv = relay_recv,
    .node_gone = relay_node_gone,
};
