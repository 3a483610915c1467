/* dmodex.c - direct modex over the tree (multi-node mode).
 *
 * Requesting side: a GET for a key of a remote process that the store does not
 * hold (get.c), or PMIx_server_dmodex_request of the host for a remote process,
 * becomes a "pending" request with an id, sent on SPX_SRV_CH_DMX_REQ to the
 * node hosting the target (from the namespace's node map). The answer
 * (SPX_SRV_CH_DMX_REP) carries the target's remotely visible record, which is
 * stored like fence data; the GET is then answered from the store. A pending
 * request ends exactly once: answer, its PMIX_TIMEOUT, the target's node lost
 * (PMIX_ERR_UNREACH), the target lost (PMIX_ERR_NOT_FOUND) or finalize.
 *
 * Serving side: a request is answered at once when the target has committed
 * the key with scope REMOTE or GLOBAL (or, for the host's whole-process request
 * with key "", has committed at all), with NOT_FOUND when the target is not
 * here, is gone, or PMIX_OPTIONAL was given; otherwise it is "held" until the
 * target commits, its timeout expires or the target goes away.
 *
 * Both lists and the id counter are the engine's state (ctx->dmx, made by
 * setup, freed by teardown); the engine is reached through its ops table
 * (spx_srv_dmx_engine: messages of both channels, a gone node, stop).
 */
#include "config.h"
#include "server/core.h"
#include "proto/msg.h"
#include "server/engine_get.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/records.h"
#include "types/types.h"
#include "util/log.h"

struct spx_srv_dmx;

struct dmx_pending {
    LIST_ENTRY(dmx_pending) link;    /* in its engine's pending, newest first */
    struct spx_srv_dmx *dx;          /* the engine's state it is on (borrowed) */
    uint32_t id, node;
    struct spx_srv_peer *peer;       /* referenced; NULL for the host's request */
    uint32_t seq;
    pmix_proc_t requester, target;
    char key[PMIX_MAX_KEYLEN + 1];
    spx_timer_t *timer;
    pmix_dmodex_response_fn_t cb;
    void *cbarg;
};

struct dmx_hold {
    LIST_ENTRY(dmx_hold) link;       /* in its engine's holds, newest first */
    struct spx_srv_dmx *dx;          /* the engine's state it is on (borrowed) */
    uint32_t from, id;
    pmix_proc_t target;
    char key[PMIX_MAX_KEYLEN + 1];  /* "" = any commit */
    spx_timer_t *timer;
};

struct spx_srv_dmx {
    struct spx_srv_ctx *ctx;         /* the server (borrowed) */
    LIST_HEAD(, dmx_pending) pending; /* requests of this node waiting for an answer (owned) */
    LIST_HEAD(, dmx_hold) holds;     /* requests of other nodes waiting for a commit (owned) */
    uint32_t next_id;                /* id of the next pending request */
};

/* ---- requesting side ---- */

/* Ends d: answers its GET from the store (or with st), or calls the host back. */
static void pending_finish(struct dmx_pending *d, pmix_status_t st, const void *rec, size_t len)
{
    LIST_REMOVE(d, link); /* on the list from pending_start until here */
    if (d->timer)
        spx_timer_cancel(d->timer);
    if (d->peer) {
        const pmix_value_t *v = NULL;
        if (st == PMIX_SUCCESS &&
            !(v = spx_srv_get_lookup(d->dx->ctx, &d->requester, &d->target, d->key)))
            st = PMIX_ERR_NOT_FOUND;
        spx_srv_get_reply(d->peer, d->seq, st, v);
        spx_srv_peer_unref(d->peer);
    } else if (d->cb) {
        d->cb(st, st == PMIX_SUCCESS ? (char *)rec : NULL, st == PMIX_SUCCESS ? len : 0,
              d->cbarg);
    }
    free(d);
}

static void pending_timeout(void *arg)
{
    struct dmx_pending *d = arg;
    d->timer = NULL; /* fired */
    spx_debug("dmodex %s of %s:%u from node %u timed out", d->key, d->target.nspace,
              (unsigned)d->target.rank, d->node);
    pending_finish(d, PMIX_ERR_TIMEOUT, NULL, 0);
}

/* Creates and sends a request; false when the target's node is unknown or lost. */
static bool pending_start(struct spx_srv_dmx *dx, struct spx_srv_peer *p, uint32_t seq,
                          const pmix_proc_t *requester,
                          const pmix_proc_t *target, const char *key, bool optional,
                          long timeout, pmix_dmodex_response_fn_t cb, void *cbarg)
{
    uint32_t node = spx_srv_ns_node_of(spx_srv_ns_find(dx->ctx, target->nspace), target->rank);
    if (node == UINT32_MAX || node == spx_srv_mn_me(dx->ctx) ||
        spx_srv_mn_node_is_lost(dx->ctx, node))
        return false;
    struct dmx_pending *d = calloc(1, sizeof(*d));
    if (!d)
        return false;
    d->dx = dx;
    d->id = dx->next_id++;
    d->node = node;
    d->peer = p;
    if (p)
        spx_srv_peer_ref(p);
    d->seq = seq;
    if (requester)
        d->requester = *requester;
    spx_proc_load(&d->target, target->nspace, target->rank);
    snprintf(d->key, sizeof(d->key), "%s", key);
    d->cb = cb;
    d->cbarg = cbarg;
    LIST_INSERT_HEAD(&dx->pending, d, link);
    if (timeout > 0 && !(d->timer = spx_timer_start((double)timeout, pending_timeout, d))) {
        pending_finish(d, PMIX_ERR_NOMEM, NULL, 0);
        return true;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, d->id);
    spx_codec_push_proc(&b, &d->target);
    spx_buf_push_str(&b, d->key);
    spx_buf_push_u8(&b, optional);
    spx_buf_push_u32(&b, timeout > 0 ? (uint32_t)timeout : 0);
    int rc = spx_srv_mn_send(dx->ctx, node, SPX_SRV_CH_DMX_REQ, &b);
    spx_buf_fini(&b);
    spx_debug("dmodex %s of %s:%u asked of node %u (id %u)", d->key, d->target.nspace,
              (unsigned)d->target.rank, node, d->id);
    if (rc != 0)
        pending_finish(d, PMIX_ERR_UNREACH, NULL, 0);
    return true;
}

bool spx_srv_dmx_get(struct spx_srv_peer *p, uint32_t seq, const pmix_proc_t *requester,
                     const pmix_proc_t *target, const char *key, bool optional, long timeout)
{
    struct spx_srv_ctx *ctx = p->ctx;
    return ctx->mn && ctx->dmx &&
           pending_start(ctx->dmx, p, seq, requester, target, key, optional, timeout, NULL,
                         NULL);
}

bool spx_srv_dmx_host(struct spx_srv_ctx *ctx, const pmix_proc_t *target,
                      pmix_dmodex_response_fn_t cb, void *cbarg)
{
    return ctx->mn && ctx->dmx &&
           pending_start(ctx->dmx, NULL, 0, NULL, target, "", false, 0, cb, cbarg);
}

static bool not_local(const char *nspace, pmix_rank_t rank, void *arg)
{
    (void)arg;
    return !spx_srv_proc_is_local(arg, nspace, rank); /* arg: the server context */
}

static void recv_reply(struct spx_srv_dmx *dx, uint32_t from, spx_buf_t *b)
{
    uint32_t id = spx_buf_pull_u32(b);
    pmix_status_t st = spx_buf_pull_i32(b);
    if (spx_buf_failed(b)) {
        spx_warn("tree: malformed dmodex answer from node %u dropped", from);
        return;
    }
    const void *rec = b->data + b->pos;
    size_t len = spx_buf_remaining(b);
    if (st == PMIX_SUCCESS && spx_records_apply(b, dx->ctx->store, not_local, dx->ctx) != 0) {
        spx_warn("tree: malformed dmodex data from node %u", from);
        st = PMIX_ERR_UNPACK_FAILURE;
    }
    struct dmx_pending *d;
    LIST_FOREACH(d, &dx->pending, link)
        if (d->id == id && d->node == from) {
            pending_finish(d, st, rec, len);
            return;
        }
    spx_debug("dmodex answer %u from node %u: request already ended", id, from);
}

/* ---- serving side ---- */

static void send_answer(struct spx_srv_dmx *dx, uint32_t to, uint32_t id, pmix_status_t st,
                        const pmix_proc_t *target)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, id);
    spx_buf_push_i32(&b, st);
    if (st == PMIX_SUCCESS)
        spx_records_push_proc(&b, dx->ctx->store, target->nspace, target->rank, 0,
                              SPX_SCOPES_REMOTE, true, NULL);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        spx_buf_init(&b);
        spx_buf_push_u32(&b, id);
        spx_buf_push_i32(&b, PMIX_ERR_NOMEM);
    }
    if (spx_srv_mn_send(dx->ctx, to, SPX_SRV_CH_DMX_REP, &b) != 0)
        spx_debug("dmodex answer %u to node %u not sent", id, to);
    spx_buf_fini(&b);
}

/* PMIX_SUCCESS (the data is here), PMIX_ERR_NOT_FOUND (never will be) or
 * PMIX_ERR_WOULD_BLOCK (wait for a commit). */
static pmix_status_t hold_state(struct spx_srv_dmx *dx, const pmix_proc_t *target,
                                const char *key)
{
    if (!spx_srv_proc_is_local(dx->ctx, target->nspace, target->rank))
        return PMIX_ERR_NOT_FOUND;
    struct spx_srv_client *cl = spx_srv_client_find(dx->ctx, target->nspace, target->rank);
    if (!*key) {
        if (cl && cl->committed)
            return PMIX_SUCCESS;
    } else {
        pmix_scope_t scope;
        if (spx_store_peek(dx->ctx->store, target->nspace, target->rank, key, &scope) &&
            (scope == PMIX_REMOTE || scope == PMIX_GLOBAL))
            return PMIX_SUCCESS;
    }
    if (cl && (cl->finalized || (cl->connected_once && !cl->peer)))
        return PMIX_ERR_NOT_FOUND;
    return PMIX_ERR_WOULD_BLOCK;
}

static void hold_finish(struct dmx_hold *h, pmix_status_t st, bool answer)
{
    struct spx_srv_dmx *dx = h->dx;
    LIST_REMOVE(h, link); /* on the list from recv_request until here */
    if (h->timer)
        spx_timer_cancel(h->timer);
    if (answer)
        send_answer(dx, h->from, h->id, st, &h->target);
    free(h);
}

static void hold_timeout(void *arg)
{
    struct dmx_hold *h = arg;
    h->timer = NULL;
    hold_finish(h, PMIX_ERR_TIMEOUT, true);
}

static void recv_request(struct spx_srv_dmx *dx, uint32_t from, spx_buf_t *b)
{
    uint32_t id = spx_buf_pull_u32(b);
    pmix_proc_t target;
    char key[PMIX_MAX_KEYLEN + 1];
    if (spx_codec_pull_proc(b, &target) != 0) {
        spx_warn("tree: malformed dmodex request from node %u dropped", from);
        return;
    }
    spx_buf_pull_str_into(b, key, sizeof(key));
    bool optional = spx_buf_pull_u8(b) != 0;
    uint32_t timeout = spx_buf_pull_u32(b);
    if (spx_buf_finish(b) != 0) {
        spx_warn("tree: malformed dmodex request from node %u dropped", from);
        return;
    }
    target.nspace[PMIX_MAX_NSLEN] = '\0';
    pmix_status_t st = hold_state(dx, &target, key);
    if (st == PMIX_ERR_WOULD_BLOCK && optional)
        st = PMIX_ERR_NOT_FOUND;
    if (st != PMIX_ERR_WOULD_BLOCK) {
        send_answer(dx, from, id, st, &target);
        return;
    }
    struct dmx_hold *h = calloc(1, sizeof(*h));
    if (!h) {
        send_answer(dx, from, id, PMIX_ERR_NOMEM, &target);
        return;
    }
    h->dx = dx;
    h->from = from;
    h->id = id;
    h->target = target;
    memcpy(h->key, key, sizeof(h->key));
    if (timeout > 0 && !(h->timer = spx_timer_start((double)timeout, hold_timeout, h))) {
        free(h);
        send_answer(dx, from, id, PMIX_ERR_NOMEM, &target);
        return;
    }
    LIST_INSERT_HEAD(&dx->holds, h, link);
    spx_debug("dmodex %s of %s:%u for node %u held until it is committed", key, target.nspace,
              (unsigned)target.rank, from);
}

static void dmx_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    if (!ctx->dmx)
        return;
    if (channel == SPX_SRV_CH_DMX_REQ)
        recv_request(ctx->dmx, from, b);
    else
        recv_reply(ctx->dmx, from, b);
}

/* Re-checks every hold of (nspace, rank). */
static void holds_recheck(struct spx_srv_dmx *dx, const char *nspace, pmix_rank_t rank)
{
    struct dmx_hold *h, *next;
    for (h = LIST_FIRST(&dx->holds); h; h = next) {
        next = LIST_NEXT(h, link);
        if (h->target.rank != rank || !spx_nspace_eq(h->target.nspace, nspace))
            continue;
        pmix_status_t st = hold_state(dx, &h->target, h->key);
        if (st == PMIX_ERR_WOULD_BLOCK)
            continue;
        hold_finish(h, st, true);
        next = LIST_FIRST(&dx->holds); /* list changed */
    }
}

void spx_srv_dmx_committed(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    if (ctx->dmx)
        holds_recheck(ctx->dmx, nspace, rank);
}

void spx_srv_dmx_target_gone(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    struct spx_srv_dmx *dx = ctx->dmx;
    if (!dx)
        return;
    holds_recheck(dx, nspace, rank);
    struct dmx_pending *d, *next;
    for (d = LIST_FIRST(&dx->pending); d; d = next) {
        next = LIST_NEXT(d, link);
        if (d->target.rank != rank || !spx_nspace_eq(d->target.nspace, nspace))
            continue;
        pending_finish(d, PMIX_ERR_NOT_FOUND, NULL, 0);
        next = LIST_FIRST(&dx->pending);
    }
}

/* node is gone (lost or ended): what waits for its answer fails with
 * PMIX_ERR_UNREACH, what it asked of this node is dropped. */
static void dmx_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    (void)lost;
    struct spx_srv_dmx *dx = ctx->dmx;
    if (!dx)
        return;
    struct dmx_pending *d, *next;
    for (d = LIST_FIRST(&dx->pending); d; d = next) {
        next = LIST_NEXT(d, link);
        if (d->node != node)
            continue;
        pending_finish(d, PMIX_ERR_UNREACH, NULL, 0);
        next = LIST_FIRST(&dx->pending);
    }
    struct dmx_hold *h, *hn;
    for (h = LIST_FIRST(&dx->holds); h; h = hn) {
        hn = LIST_NEXT(h, link);
        if (h->from != node)
            continue;
        hold_finish(h, PMIX_ERR_UNREACH, false);
        hn = LIST_FIRST(&dx->holds);
    }
}

static int dmx_setup(struct spx_srv_ctx *ctx)
{
    if (!(ctx->dmx = calloc(1, sizeof(*ctx->dmx))))
        return -1;
    ctx->dmx->ctx = ctx;
    ctx->dmx->next_id = 1;
    return 0;
}

/* Server stop: waiting requests fail (PMIX_ERR_NOT_AVAILABLE), held ones are dropped. */
static void dmx_stop(struct spx_srv_ctx *ctx)
{
    struct spx_srv_dmx *dx = ctx->dmx;
    if (!dx)
        return;
    while (!LIST_EMPTY(&dx->pending))
        pending_finish(LIST_FIRST(&dx->pending), PMIX_ERR_NOT_AVAILABLE, NULL, 0);
    while (!LIST_EMPTY(&dx->holds))
        hold_finish(LIST_FIRST(&dx->holds), PMIX_ERR_NOT_AVAILABLE, false);
}

static void dmx_teardown(struct spx_srv_ctx *ctx)
{
    dmx_stop(ctx);
    free(ctx->dmx);
    ctx->dmx = NULL;
}

/* A deregistered namespace's ranks will never commit: the local requests
 * held for any of them (get.c), also of ranks that never had a client, fail. */
static void dmx_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    spx_srv_get_nspace_gone(ctx, nspace);
}

static const struct spx_srv_route get_routes[] = {
    {SPX_MSG_GET, true, spx_srv_handle_get},
    {0, false, NULL},
};

/* A client is ready: the GETs waiting for it go on. */
static void get_client_ready(struct spx_srv_ctx *ctx, struct spx_srv_client *cl)
{
    spx_srv_get_target_hello(ctx, cl->ns->name, cl->rank);
}

/* A client finalized: what waits for its data will not get it. */
static void get_client_finalized(struct spx_srv_ctx *ctx, struct spx_srv_client *cl)
{
    spx_srv_get_target_gone(ctx, cl->ns->name, cl->rank);
}

const struct spx_srv_engine_ops spx_srv_dmx_engine = {
    .name = "dmodex",
    .routes = get_routes,
    .client_ready = get_client_ready,
    .client_finalized = get_client_finalized,
    .channels = SPX_SRV_CH_BIT(SPX_SRV_CH_DMX_REQ) | SPX_SRV_CH_BIT(SPX_SRV_CH_DMX_REP),
    .setup = dmx_setup,
    .stop = dmx_stop,
    .teardown = dmx_teardown,
    .recv = dmx_recv,
    .node_gone = dmx_node_gone,
    .nspace_gone = dmx_nspace_gone,
};
