/* pubsub.c - the server's own publish/lookup/unpublish directory, used when
 * the host module has none (the Slurm plugin; spmix-run).
 *
 * One directory per job step: the table (pubsub_table.c) lives in the server
 * of tree node 0, or in this server when there is no tree. Other nodes send
 * each request to node 0 over the tree and complete the client's request
 * when the answer comes back:
 *
 *   PUBSUB_REQ  u64 id, u8 op (1 publish, 2 lookup, 3 unpublish), proc
 *               requester, u32 nkeys + str keys, info[]      (node -> node 0)
 *   PUBSUB_REP  u64 id, i32 status, u32 n + n x (proc, str key, value)
 *                                                            (node 0 -> node)
 *   PUBSUB_GONE proc: a process that used the directory has finalized (its
 *               PMIX_PERSIST_PROC data goes, its waiting lookups end)
 *
 * A lookup with PMIX_WAIT is parked at node 0 until the keys are published.
 * If node 0 is lost or ends, requests still waiting fail (PMIX_ERR_UNREACH)
 * and later ones fail at once. Everything here runs on the progress thread.
 *
 * The requests waiting for node 0 and their id counter are the engine's
 * state (ctx->pubsub, setup/teardown of spx_srv_pubsub_engine); the entry
 * points with the host module's signatures reach it through the server of
 * this process.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_pubsub.h"
#include "server/pubsub_table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "codec/value.h"
#include "types/types.h"
#include "util/log.h"

enum { OP_PUBLISH = 1, OP_LOOKUP = 2, OP_UNPUBLISH = 3 };

#define MAX_KEYS 4096u /* keys in one request from the wire */

struct pending {                    /* a request sent to node 0 */
    LIST_ENTRY(pending) link;       /* in its engine's pendings, newest first */
    uint64_t id;
    uint8_t op;
    pmix_op_cbfunc_t opcb;          /* publish / unpublish */
    pmix_lookup_cbfunc_t lookupcb;  /* lookup */
    void *cbdata;
};

struct spx_srv_pubsub {
    struct spx_srv_ctx *ctx;        /* borrowed: the server whose state this is */
    LIST_HEAD(, pending) pendings;  /* requests sent to node 0 (owned) */
    uint64_t next_id;               /* id of the next one */
};

/* Is the table here (no tree, or this is node 0)? */
static bool table_here(const struct spx_srv_ctx *ctx)
{
    return !ctx->mn || spx_srv_mn_me(ctx) == 0;
}

/* ---- requests leaving this node ---- */

static pmix_status_t send_request(struct spx_srv_pubsub *ps, uint8_t op, const pmix_proc_t *proc, char **keys,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t opcb,
                                  pmix_lookup_cbfunc_t lookupcb, void *cbdata)
{
    if (!ps)
        return PMIX_ERR_INIT;
    if (spx_srv_mn_node_is_lost(ps->ctx, 0))
        return PMIX_ERR_UNREACH;
    struct pending *p = calloc(1, sizeof(*p));
    if (!p)
        return PMIX_ERR_NOMEM;
    p->id = ps->next_id++;
    p->op = op;
    p->opcb = opcb;
    p->lookupcb = lookupcb;
    p->cbdata = cbdata;
    uint32_t nkeys = 0;
    while (keys && keys[nkeys])
        nkeys++;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, p->id);
    spx_buf_push_u8(&b, op);
    spx_codec_push_proc(&b, proc);
    spx_buf_push_u32(&b, nkeys);
    for (uint32_t i = 0; i < nkeys; i++)
        spx_buf_push_str(&b, keys[i]);
    spx_codec_push_info_array(&b, info, ninfo);
    int rc = spx_buf_failed(&b) ? -1 : spx_srv_mn_send(ps->ctx, 0, SPX_SRV_CH_PUBSUB_REQ, &b);
    spx_buf_fini(&b);
    if (rc != 0) {
        free(p);
        return PMIX_ERR_UNREACH;
    }
    LIST_INSERT_HEAD(&ps->pendings, p, link);
    return PMIX_SUCCESS;
}

static struct pending *take_pending(struct spx_srv_pubsub *ps, uint64_t id)
{
    struct pending *p;
    LIST_FOREACH(p, &ps->pendings, link)
        if (p->id == id) {
            LIST_REMOVE(p, link);
            return p;
        }
    return NULL;
}

static void finish(struct pending *p, pmix_status_t st, pmix_pdata_t *data, size_t n)
{
    if (p->op == OP_LOOKUP)
        p->lookupcb(st, data, n, p->cbdata);
    else if (p->opcb)
        p->opcb(st, p->cbdata);
    free(p);
}

static void recv_reply(struct spx_srv_pubsub *ps, uint32_t from, spx_buf_t *b)
{
    uint64_t id = spx_buf_pull_u64(b);
    pmix_status_t st = spx_buf_pull_i32(b);
    uint32_t n = spx_buf_pull_u32(b);
    if (spx_buf_failed(b) || from != 0 || n > MAX_KEYS) {
        spx_warn("pubsub: malformed answer from node %u dropped", from);
        return;
    }
    pmix_pdata_t *data = n ? calloc(n, sizeof(*data)) : NULL;
    if (n && !data)
        st = PMIX_ERR_NOMEM;
    for (uint32_t i = 0; data && i < n; i++) {
        char *key = NULL;
        spx_codec_pull_proc(b, &data[i].proc);
        key = spx_buf_pull_str(b);
        if (key)
            PMIX_LOAD_KEY(data[i].key, key);
        free(key);
        spx_codec_pull_value(b, &data[i].value);
    }
    if (spx_buf_finish(b) != 0) {
        spx_warn("pubsub: malformed answer from node %u dropped", from);
        for (uint32_t i = 0; data && i < n; i++)
            spx_codec_value_release(&data[i].value);
        free(data);
        return;
    }
    struct pending *p = take_pending(ps, id);
    if (p)
        finish(p, st, data, data ? n : 0);
    for (uint32_t i = 0; data && i < n; i++)
        spx_codec_value_release(&data[i].value);
    free(data);
}

/* ---- requests arriving at node 0 ---- */

struct remote {                     /* whom to answer */
    struct spx_srv_ctx *ctx;        /* borrowed: the server answering */
    uint32_t node;
    uint64_t id;
};

static void send_reply(struct spx_srv_ctx *ctx, uint32_t node, uint64_t id, pmix_status_t st,
                       const pmix_pdata_t *d, size_t n)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, id);
    spx_buf_push_i32(&b, st);
    spx_buf_push_u32(&b, st == PMIX_SUCCESS ? (uint32_t)n : 0);
    for (size_t i = 0; st == PMIX_SUCCESS && i < n; i++) {
        spx_codec_push_proc(&b, &d[i].proc);
        spx_buf_push_str(&b, d[i].key);
        spx_codec_push_value(&b, &d[i].value);
    }
    if (spx_buf_failed(&b) || spx_srv_mn_send(ctx, node, SPX_SRV_CH_PUBSUB_REP, &b) != 0)
        spx_warn("pubsub: cannot answer node %u", node);
    spx_buf_fini(&b);
}

static void remote_op_done(pmix_status_t st, void *cbdata)
{
    struct remote *r = cbdata;
    send_reply(r->ctx, r->node, r->id, st, NULL, 0);
    free(r);
}

static void remote_lookup_done(pmix_status_t st, pmix_pdata_t data[], size_t n, void *cbdata)
{
    struct remote *r = cbdata;
    send_reply(r->ctx, r->node, r->id, st, data, n);
    free(r);
}

static void recv_request(struct spx_srv_ctx *ctx, uint32_t from, spx_buf_t *b)
{
    pmix_proc_t proc;
    char **keys = NULL;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    uint64_t id = spx_buf_pull_u64(b);
    uint8_t op = spx_buf_pull_u8(b);
    spx_codec_pull_proc(b, &proc);
    uint32_t nkeys = spx_buf_pull_u32(b);
    bool ok = !spx_buf_failed(b) && nkeys <= MAX_KEYS && op >= OP_PUBLISH && op <= OP_UNPUBLISH &&
              (keys = calloc(nkeys + 1, sizeof(char *))) != NULL;
    for (uint32_t i = 0; ok && i < nkeys; i++)
        ok = (keys[i] = spx_buf_pull_str(b)) != NULL && strlen(keys[i]) <= PMIX_MAX_KEYLEN;
    ok = ok && spx_codec_pull_info_array(b, &info, &ninfo) == 0 && spx_buf_finish(b) == 0;
    struct remote *r = ok ? calloc(1, sizeof(*r)) : NULL;
    if (!ok || !r || !table_here(ctx)) {
        if (!ok)
            spx_warn("pubsub: malformed request from node %u dropped", from);
        else
            send_reply(ctx, from, id, r ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_NOMEM, NULL, 0);
        free(r);
    } else {
        r->ctx = ctx;
        r->node = from;
        r->id = id;
        pmix_status_t rc;
        if (op == OP_PUBLISH)
            rc = spx_pubsub_publish(&proc, info, ninfo, remote_op_done, r);
        else if (op == OP_UNPUBLISH)
            rc = spx_pubsub_unpublish(&proc, nkeys ? keys : NULL, info, ninfo, remote_op_done, r);
        else
            rc = spx_pubsub_lookup(&proc, keys, info, ninfo, remote_lookup_done, r);
        if (rc != PMIX_SUCCESS) { /* the table did not call back */
            send_reply(ctx, from, id, rc, NULL, 0);
            free(r);
        }
    }
    spx_argv_free(keys);
    spx_info_array_free(info, ninfo);
}

/* ---- the host-module-shaped entry points ---- */

/* Remember that proc used the directory: node 0 hears when it finalizes. */
static void mark_user(const struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    struct spx_srv_client *cl = spx_srv_client_find(ctx, proc->nspace, proc->rank);
    if (cl)
        cl->used_directory = true;
}

pmix_status_t spx_srv_pubsub_publish(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                                     const pmix_info_t info[], size_t ninfo,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    mark_user(ctx, proc);
    if (table_here(ctx))
        return spx_pubsub_publish(proc, info, ninfo, cbfunc, cbdata);
    return send_request(ctx->pubsub, OP_PUBLISH, proc, NULL, info, ninfo, cbfunc, NULL, cbdata);
}

pmix_status_t spx_srv_pubsub_lookup(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                                    char **keys, const pmix_info_t info[], size_t ninfo,
                                    pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    mark_user(ctx, proc);
    if (table_here(ctx))
        return spx_pubsub_lookup(proc, keys, info, ninfo, cbfunc, cbdata);
    if (!keys || !keys[0] || !cbfunc)
        return PMIX_ERR_BAD_PARAM;
    return send_request(ctx->pubsub, OP_LOOKUP, proc, keys, info, ninfo, NULL, cbfunc, cbdata);
}

pmix_status_t spx_srv_pubsub_unpublish(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                                       char **keys, const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (table_here(ctx))
        return spx_pubsub_unpublish(proc, keys, info, ninfo, cbfunc, cbdata);
    return send_request(ctx->pubsub, OP_UNPUBLISH, proc, keys, info, ninfo, cbfunc, NULL, cbdata);
}

void spx_srv_pubsub_proc_done(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool used)
{
    if (table_here(ctx)) {
        spx_pubsub_proc_gone(proc);
    } else if (used && !spx_srv_mn_node_is_lost(ctx, 0)) {
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_proc(&b, proc);
        if (spx_buf_failed(&b) || spx_srv_mn_send(ctx, 0, SPX_SRV_CH_PUBSUB_GONE, &b) != 0)
            spx_debug("pubsub: cannot tell node 0 that %s:%u is gone", proc->nspace,
                      (unsigned)proc->rank);
        spx_buf_fini(&b);
    }
}

static void pubsub_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    if (channel == SPX_SRV_CH_PUBSUB_REQ) {
        recv_request(ctx, from, b);
    } else if (channel == SPX_SRV_CH_PUBSUB_REP) {
        if (ctx->pubsub)
            recv_reply(ctx->pubsub, from, b);
    } else {
        pmix_proc_t p;
        if (spx_codec_pull_proc(b, &p) == 0 && spx_buf_finish(b) == 0 && table_here(ctx))
            spx_pubsub_proc_gone(&p);
    }
}

/* Fails every request waiting for node 0 with st. */
static void fail_pending(struct spx_srv_pubsub *ps, pmix_status_t st)
{
    struct pending *p;
    while (ps && (p = LIST_FIRST(&ps->pendings))) {
        LIST_REMOVE(p, link);
        finish(p, st, NULL, 0);
    }
}

static void pubsub_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    (void)lost;
    if (node == 0)
        fail_pending(ctx->pubsub, PMIX_ERR_UNREACH);
}

static const struct spx_srv_directory pubsub_directory = {
    .publish = spx_srv_pubsub_publish,
    .lookup = spx_srv_pubsub_lookup,
    .unpublish = spx_srv_pubsub_unpublish,
    .proc_done = spx_srv_pubsub_proc_done,
};

static int pubsub_setup(struct spx_srv_ctx *ctx)
{
    if (!(ctx->pubsub = calloc(1, sizeof(*ctx->pubsub))))
        return -1;
    ctx->directory = &pubsub_directory; /* the core's upcalls use it without a host one */
    ctx->pubsub->ctx = ctx;
    LIST_INIT(&ctx->pubsub->pendings);
    ctx->pubsub->next_id = 1;
    return 0;
}

/* Server stop: waiting requests fail, the table is emptied. */
static void pubsub_stop(struct spx_srv_ctx *ctx)
{
    fail_pending(ctx->pubsub, PMIX_ERR_NOT_AVAILABLE);
    spx_pubsub_fini();
}

static void pubsub_teardown(struct spx_srv_ctx *ctx)
{
    ctx->directory = NULL;
    fail_pending(ctx->pubsub, PMIX_ERR_NOT_AVAILABLE);
    free(ctx->pubsub);
    ctx->pubsub = NULL;
}

const struct spx_srv_engine_ops spx_srv_pubsub_engine = {
    .name = "pubsub",
    .channels = SPX_SRV_CH_BIT(SPX_SRV_CH_PUBSUB_REQ) | SPX_SRV_CH_BIT(SPX_SRV_CH_PUBSUB_REP) |
                SPX_SRV_CH_BIT(SPX_SRV_CH_PUBSUB_GONE),
    .setup = pubsub_setup,
    .stop = pubsub_stop,
    .teardown = pubsub_teardown,
    .recv = pubsub_recv,
    .node_gone = pubsub_node_gone,
};
