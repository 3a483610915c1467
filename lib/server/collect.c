/* collect.c - what clients put and how it is exchanged: the COMMIT handler
 * and the glue between the fence engine (fence.h) and this server: which
 * local processes a participant set covers, each one's contribution, the
 * host's fence_nb upcall and its modex callback, timers and replies.
 *
 * Data flow: COMMIT records go into ctx->store with their scopes (a
 * PMIX_DEL_* entry becomes a tombstone, so local peers stop seeing the key at
 * once). A collecting fence pushes, per local participant, the entries whose
 * scope may leave the node (SPX_SCOPES_REMOTE) - only those committed since
 * its last successful collecting fence over the same set, else all of them
 * (delta.h). The host (single node) or the tree (multi-node, nodes.c over net.h)
 * returns every node's contributions concatenated, and those of non-local
 * processes are applied to the same store, where GET finds them.
 *
 * State: the fence engine's ops get a struct spx_srv_fence_glue (the server
 * context and the counters of the contribution being built) as their
 * argument; nothing passes between ops through statics. The fence's options
 * come from the engine as a struct (spx_fence_token_opts), not parsed back
 * out of the pmix_info_t built for the host.
 *
 * Copies of a modex payload from the socket it arrives on to the client that
 * reads it (a node receiving the collective's result; read(2) into the
 * connection's frame and the client's writev are the sockets' own):
 *   1. records.c apply_entry decodes each value (spx_codec_pull_value) and
 *      moves it into the store as it is (spx_store_put_owned: no copy);
 *   2. get.c packs it into the client's reply frame (spx_codec_push_value),
 *      which the connection sends without copying.
 * Nothing else copies it, on every node, the tree's root included: the
 * connection hands the frame it read into over to the tree (tree.c
 * dispatch_coll), whose collective keeps each contribution in the frame it
 * arrived in - a child's UP at the root and at interior nodes (coll.c
 * acc_append), a DOWN, a message that came before its collective started
 * (coll.c store_msg) - and sends the gathered pieces on from where they lie
 * (sendmsg of several iovecs). done gets the pieces (nodes.c
 * mn_coll_done_segs, each one or more whole contributions) and op_deliver
 * reads each in place (spx_buf_init_borrowed). Now: 2 everywhere. Before: 5
 * (6 at the root), then 4 (5), then 2 (3 at the root: its gather copied each
 * child's contribution out of its frame). The direct-modex answer (tree MSG
 * -> nodes.c mn_recv -> dmodex.c) counts the same: 2. The other keys of a
 * process sent along with a GET's answer (get.c reply_with_record) are
 * packed into a buffer of their own and then appended to the reply: 3 for
 * those. (Not counted, as before: the connection grows a frame's buffer as
 * its bytes arrive rather than trust the header's length, so realloc may
 * move the part of a frame over 64 KiB read so far; see net/conn.c.)
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"
#include "server/engine_group.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "types/types.h"
#include "util/log.h"
#include "util/trace.h"

/* ---- COMMIT ---- */

struct commit_filter {
    const pmix_proc_t *self;
    bool foreign;
};

static bool commit_only_self(const char *nspace, pmix_rank_t rank, void *arg)
{
    struct commit_filter *f = arg;
    if (rank == f->self->rank && strncmp(nspace, f->self->nspace, PMIX_MAX_NSLEN) == 0)
        return true;
    f->foreign = true;
    return false;
}

int spx_srv_handle_commit(struct spx_srv_peer *p, spx_buf_t *b)
{
    struct commit_filter f = {.self = &p->proc, .foreign = false};
    if (!p->client) /* deregistered meanwhile: nothing to keep */
        return 0;
    if (spx_records_apply(b, p->ctx->store, commit_only_self, &f) != 0 || f.foreign)
        return -1;
    p->client->committed = true;
    spx_srv_get_committed(p->ctx, p->proc.nspace, p->proc.rank);
    spx_srv_shmf_commit_applied(p);
    spx_srv_gshm_commit_applied(p);
    return 0;
}

/* ---- fence engine ops ---- */

/* The fence ops' argument (ctx->fglue, owned by setup/teardown). */
struct spx_srv_fence_glue {
    struct spx_srv_ctx *ctx;        /* borrowed */
    uint64_t building_keys;         /* what the contribution being built holds, */
    uint64_t building_dels;         /* summed over its local participants */
};

static size_t op_local_members(const pmix_proc_t *set, size_t nset, pmix_proc_t **out,
                               pmix_status_t *gone, void *arg)
{
    return spx_srv_set_local_members(((struct spx_srv_fence_glue *)arg)->ctx, set, nset, true, out,
                                     gone);
}

static uint64_t op_contribute(const pmix_proc_t *proc, const char *set_key, spx_buf_t *out,
                              void *arg)
{
    struct spx_srv_fence_glue *g = arg;
    spx_delta_contrib_t r;
    spx_delta_contribute(g->ctx->delta, g->ctx->store, proc, set_key, SPX_SCOPES_REMOTE, out,
                         &r);
    g->building_keys += r.nkeys;
    g->building_dels += r.ndels;
    spx_debug("fence %s: %s:%u contributes %zu keys, %zu deletions (%s since %llu)", set_key,
              proc->nspace, (unsigned)proc->rank, r.nkeys, r.ndels, r.since ? "delta" : "full",
              (unsigned long long)r.since);
    return r.upto;
}

static void op_contributed(const pmix_proc_t *proc, const char *set_key, uint64_t upto,
                           void *arg)
{
    struct spx_srv_ctx *ctx = ((struct spx_srv_fence_glue *)arg)->ctx;
    if (spx_srv_client_find(ctx, proc->nspace, proc->rank)) /* still registered */
        spx_delta_commit(ctx->delta, proc, set_key, upto);
}

static void op_local_failed(const pmix_proc_t *set, size_t nset, const char *set_key,
                            bool collect, pmix_status_t status, double timeout, void *arg)
{
    struct spx_srv_ctx *ctx = ((struct spx_srv_fence_glue *)arg)->ctx;
    if (ctx->mn)
        spx_srv_mn_fence_failed(ctx, set, nset, set_key, collect, status, timeout);
}

struct modex_answer {
    struct spx_srv_ctx *ctx;            /* borrowed */
    void *token;
    pmix_status_t status;
    const char *data;
    size_t ndata;
    pmix_release_cbfunc_t relfn;
    void *relarg;
};

static void modex_on_thread(void *arg)
{
    struct modex_answer *m = arg;
    if (m->ctx->fence)
        spx_fence_host_done(m->ctx->fence, m->token, m->status, m->data, m->ndata);
    if (m->relfn)
        m->relfn(m->relarg);
    free(m);
}

/* The host's pmix_modex_cbfunc_t: any thread, possibly inside fence_nb.
 * cbdata: the fence token; the answer is shifted to the progress thread.
 * The host hands back only the token, so the server is the one of the
 * PMIx_server_* entry points (the global): a callback of the host module's
 * signature has no other way to find it. */
static void modex_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                     pmix_release_cbfunc_t relfn, void *relcbdata)
{
    struct modex_answer *m = calloc(1, sizeof(*m));
    if (!m) {
        spx_error("fence: out of memory for the host's answer: dropped");
        if (relfn)
            relfn(relcbdata);
        return;
    }
    *m = (struct modex_answer){.ctx = spx_srv, .token = cbdata, .status = status, .data = data,
                               .ndata = ndata, .relfn = relfn, .relarg = relcbdata};
    if (spx_progress_shift(modex_on_thread, m) != 0) {
        if (relfn)
            relfn(relcbdata);
        free(m);
    }
}

static pmix_status_t op_host_fence(const pmix_proc_t *set, size_t nset, const char *set_key,
                                   const pmix_info_t *info, size_t ninfo, char *data,
                                   size_t ndata, void *token, void *arg)
{
    struct spx_srv_fence_glue *g = arg;
    struct spx_srv_ctx *ctx = g->ctx;
    const spx_fence_opts_t *o = spx_fence_token_opts(token);
    ctx->stats.last_keys = o->collect ? g->building_keys : 0;
    ctx->stats.last_dels = o->collect ? g->building_dels : 0;
    ctx->stats.last_payload = ndata;
    g->building_keys = g->building_dels = 0;
    if (ctx->mn) /* whole seconds, as the host sees PMIX_TIMEOUT */
        return spx_srv_mn_fence(ctx, set_key, set, nset, o->collect,
                                o->timeout > 0 ? (double)(int)o->timeout : 0, data, ndata,
                                token);
    if (!ctx->host.fence_nb)
        return PMIX_ERR_NOT_SUPPORTED; /* single node: local data is all there is */
    return ctx->host.fence_nb(set, nset, info, ninfo, data, ndata, modex_cb, token);
}

/* arg: the server context */
static bool deliver_filter(const char *nspace, pmix_rank_t rank, void *arg)
{
    return !spx_srv_proc_is_local(arg, nspace, rank); /* our own procs' data is already here */
}

static pmix_status_t op_deliver(const char *data, size_t ndata, void *arg)
{
    struct spx_srv_ctx *ctx = ((struct spx_srv_fence_glue *)arg)->ctx;
    spx_buf_t b; /* the host's or the network's bytes, read in place */
    spx_buf_init_borrowed(&b, data, ndata);
    int rc = spx_records_apply(&b, ctx->store, deliver_filter, ctx);
    spx_buf_fini(&b);
    if (rc != 0) {
        spx_error("fence: the host delivered malformed data (%zu bytes)", ndata);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    return PMIX_SUCCESS;
}

struct fence_req {
    struct spx_srv_peer *peer;           /* referenced; NULL for a batch arrival */
    uint32_t seq;
    struct spx_srv_shmf_batch *batch;    /* a closed shared-memory gather, or NULL */
};

static void op_reply(void *requester, pmix_status_t status, void *arg)
{
    (void)arg;
    struct fence_req *r = requester;
    if (r->batch) {
        spx_srv_shmf_batch_done(r->batch, status);
        free(r);
        return;
    }
    spx_trace(SPX_TR_S_REPLY, 0, r->peer->proc.rank, status);
    spx_srv_reply_status(r->peer, SPX_MSG_FENCE, r->seq, status);
    spx_srv_peer_unref(r->peer);
    free(r);
}

struct spx_fence_engine *spx_srv_fence_engine_of(struct spx_srv_ctx *ctx)
{
    return ctx->fence;
}

static void *op_timer_arm(double seconds, uint64_t id, void *arg)
{
    return spx_srv_fence_timer_arm(((struct spx_srv_fence_glue *)arg)->ctx,
                                   spx_srv_fence_engine_of, seconds, id);
}

static void op_timer_cancel(void *handle, void *arg)
{
    (void)arg;
    spx_srv_fence_timer_cancel(handle);
}

static const spx_fence_ops_t fence_ops = {
    .local_members = op_local_members,
    .contribute = op_contribute,
    .contributed = op_contributed,
    .local_failed = op_local_failed,
    .host_fence = op_host_fence,
    .deliver = op_deliver,
    .reply = op_reply,
    .timer_arm = op_timer_arm,
    .timer_cancel = op_timer_cancel,
    .deliver_pieces = true, /* records, read piece by piece in place */
};

static int fence_setup(struct spx_srv_ctx *ctx)
{
    if (!(ctx->fglue = calloc(1, sizeof(*ctx->fglue))))
        return -1;
    ctx->fglue->ctx = ctx;
    ctx->delta = spx_delta_create();
    ctx->fence = spx_fence_engine_create(&fence_ops, ctx->fglue);
    return ctx->fence && ctx->delta ? 0 : -1;
}

static void fence_teardown(struct spx_srv_ctx *ctx)
{
    spx_srv_fence_standin_stop(ctx, NULL);
    spx_fence_engine_t *e = ctx->fence;
    ctx->fence = NULL;
    spx_fence_engine_destroy(e); /* its replies still use ctx->fglue */
    spx_delta_destroy(ctx->delta);
    ctx->delta = NULL;
    free(ctx->fglue);
    ctx->fglue = NULL;
}

static void fence_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    /* a node that ended in order had only finalized processes: fences go on
     * without it (nodes.c leaves it out of their node lists) */
    if (lost)
        spx_srv_mn_fail_node_colls(ctx, ctx->fence, node, lost);
}

static void fence_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    spx_srv_fence_standin_stop(ctx, nspace);
}

static int route_commit(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    (void)seq; /* no reply */
    return spx_srv_handle_commit(p, b);
}

static int route_fence_local(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    (void)seq; /* answered through the shared segment */
    return spx_srv_handle_fence_local(p, b);
}

static const struct spx_srv_route fence_routes[] = {
    {SPX_MSG_COMMIT, false, route_commit},
    {SPX_MSG_FENCE, false, spx_srv_handle_fence},
    {SPX_MSG_FENCE_LOCAL, false, route_fence_local},
    {0, false, NULL},
};

/* A client is ready: the shared-memory fence may start once all are. */
static void fence_client_ready(struct spx_srv_ctx *ctx, struct spx_srv_client *cl)
{
    (void)ctx;
    spx_srv_shmf_client_ready(cl->ns);
}

/* A client finalized: fences go on without it from now on (the
 * shared-memory fence retires to the socket path, trackers stop expecting
 * it, the node may stand in for its finalized processes). */
static void fence_client_finalized(struct spx_srv_ctx *ctx, struct spx_srv_client *cl)
{
    pmix_proc_t p;
    spx_proc_load(&p, cl->ns->name, cl->rank);
    spx_srv_shmf_retire(cl->ns);
    if (ctx->fence)
        spx_fence_proc_departed(ctx->fence, &p);
    spx_srv_fence_standin_check(ctx, cl->ns);
}

const struct spx_srv_engine_ops spx_srv_fence_engine = {
    .name = "fence",
    .routes = fence_routes,
    .client_ready = fence_client_ready,
    .client_finalized = fence_client_finalized,
    .setup = fence_setup,
    .teardown = fence_teardown,
    .node_gone = fence_node_gone,
    .nspace_gone = fence_nspace_gone,
};

/* ---- FENCE ---- */

int spx_srv_handle_fence(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    pmix_proc_t *procs = NULL;
    pmix_info_t *info = NULL;
    size_t nprocs = 0, ninfo = 0;
    spx_trace(SPX_TR_S_REQ, 0, 0, p->proc.rank);
    if (spx_codec_pull_proc_array(b, &procs, &nprocs) != 0)
        return -1;
    if (spx_codec_pull_info_array(b, &info, &ninfo) != 0 || spx_buf_finish(b) != 0) {
        free(procs);
        spx_info_array_free(info, ninfo);
        return -1;
    }
    pmix_proc_t own;
    const pmix_proc_t *set = procs;
    if (nprocs == 0) {
        spx_proc_load(&own, p->proc.nspace, PMIX_RANK_WILDCARD);
        set = &own;
        nprocs = 1;
    }
    bool collect = spx_info_flag(info, ninfo, PMIX_COLLECT_DATA);
    long timeout = spx_srv_info_int(info, ninfo, PMIX_TIMEOUT, 0);
    if (spx_srv_shmf_covers(p, set, nprocs))
        spx_srv_shmf_socket_fence(p, seq, collect, timeout);
    else
        spx_srv_fence_socket_arrive(p, seq, set, nprocs, collect, timeout);
    free(procs);
    spx_info_array_free(info, ninfo);
    return 0;
}

void spx_srv_fence_socket_arrive(struct spx_srv_peer *p, uint32_t seq, const pmix_proc_t *set,
                                 size_t nset, bool collect, long timeout)
{
    struct fence_req *r = calloc(1, sizeof(*r));
    if (!r) {
        spx_srv_reply_status(p, SPX_MSG_FENCE, seq, PMIX_ERR_NOMEM);
        return;
    }
    r->peer = p;
    r->seq = seq;
    spx_srv_peer_ref(p);
    spx_fence_arrive(p->ctx->fence, &p->proc, set, nset, collect, (double)timeout, r);
}

void spx_srv_fence_arrive_for(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                              const pmix_proc_t *set, size_t nset, bool collect, double timeout,
                              struct spx_srv_shmf_batch *batch)
{
    struct fence_req *r = calloc(1, sizeof(*r));
    if (!r) {
        spx_srv_shmf_batch_done(batch, PMIX_ERR_NOMEM);
        return;
    }
    r->batch = batch;
    spx_fence_arrive(ctx->fence, proc, set, nset, collect, timeout, r);
}
