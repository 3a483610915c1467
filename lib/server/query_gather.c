/* query_gather.c - the query engine's parts from the other nodes
 * (engine_query.h): a slot's answer gathered over the nodes it spans. This
 * node's part is computed here (query_facts.c); every other node is asked
 * with one QUERY_REQ (an ask) and its QUERY_REP merged into the slot when
 * it comes. A node that is gone, or goes before answering, counts as
 * answered by its being gone. Nothing is sent unless a gathered key is
 * asked.
 *
 * A reply is read with every count bounded (the codec's, and here: as many
 * ranks as the job has, each of the asked namespace, within the job and on
 * the node that sent it; group ids of at most PMIX_MAX_NSLEN; a URI of at
 * most 4 KiB; a job status one of the five below); a malformed one is
 * dropped with a log line and counts as that node's part missing. A reply
 * nobody asked for (unknown id, or from another node) is dropped likewise.
 *
 * JOB_STATUS merges the nodes' statuses by worst, from best:
 * PMIX_EVENT_JOB_END (that node's processes all finalized, or it ended in
 * order), PMIX_SUCCESS (running), PMIX_ERR_NODE_DOWN (a node of the job
 * lost), PMIX_ERR_JOB_TERM_WO_SYNC, PMIX_ERR_JOB_ABORTED.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_query.h"
#include "server/query_int.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "codec/value.h"
#include "types/types.h"
#include "util/log.h"

/* ---- merging parts ---- */

/* JOB_STATUS statuses from best to worst (index + 1), 0: not one of them. */
static const pmix_status_t job_statuses[] = {PMIX_EVENT_JOB_END, PMIX_SUCCESS, PMIX_ERR_NODE_DOWN,
                                             PMIX_ERR_JOB_TERM_WO_SYNC, PMIX_ERR_JOB_ABORTED};
#define NSTATUSES (sizeof(job_statuses) / sizeof(job_statuses[0]))

static int status_rank(pmix_status_t st)
{
    for (size_t i = 0; i < NSTATUSES; i++)
        if (job_statuses[i] == st)
            return (int)i + 1;
    return 0;
}

static void merge_status(struct qslot *s, pmix_status_t st)
{
    int r = status_rank(st);
    if (!s->any || r > s->worst) {
        s->worst = r;
        s->status = st;
    }
    s->any = true;
}

static bool grow(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 8;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*a, nc * elem);
    if (!p)
        return false;
    *a = p;
    *cap = nc;
    return true;
}

/* Node from's part for s (v: its contents are taken, v is left to
 * destruct). false: malformed (nothing kept). */
static bool merge_part(struct spx_srv_ctx *ctx, struct qslot *s, uint32_t from, pmix_value_t *v)
{
    const pmix_data_array_t *d = v->type == PMIX_DATA_ARRAY ? v->data.darray : NULL;
    switch (s->part) {
    case SPX_QRY_PROCS: {
        const struct spx_srv_ns *ns = spx_srv_ns_find(ctx, s->nspace);
        uint32_t size = ns ? spx_srv_qry_job_size(ns) : SPX_QRY_MAX_RANKS;
        if (!d || d->type != PMIX_PROC_INFO || d->size > size || (d->size && !d->array))
            return false;
        pmix_proc_info_t *pi = d->array;
        for (size_t i = 0; i < d->size; i++) {
            uint32_t node = ns ? spx_srv_ns_node_of(ns, pi[i].proc.rank) : UINT32_MAX;
            if (!spx_nspace_eq(pi[i].proc.nspace, s->nspace) || pi[i].proc.rank >= size ||
                (ctx->mn && node != UINT32_MAX && node != from))
                return false; /* another job's, or another node's rank */
        }
        if (!grow((void **)&s->procs, &s->cprocs, s->nprocs + d->size, sizeof(*pi)))
            return true; /* out of memory: this part is missing */
        memcpy(s->procs + s->nprocs, pi, d->size * sizeof(*pi)); /* moved */
        memset(pi, 0, d->size * sizeof(*pi));
        s->nprocs += d->size;
        return true;
    }
    case SPX_QRY_GROUPS: {
        if (!d || d->type != PMIX_STRING || (d->size && !d->array))
            return false;
        char **ids = d->array;
        for (size_t i = 0; i < d->size; i++)
            if (!ids[i] || strlen(ids[i]) > PMIX_MAX_NSLEN)
                return false;
        if (d->size == 0)
            return true; /* nothing to move (memcpy from NULL is undefined) */
        if (!grow((void **)&s->names, &s->cnames, s->nnames + d->size, sizeof(char *)))
            return true;
        memcpy(s->names + s->nnames, ids, d->size * sizeof(char *)); /* moved */
        memset(ids, 0, d->size * sizeof(char *));
        s->nnames += d->size;
        return true;
    }
    case SPX_QRY_JOB_STATUS:
        if (v->type != PMIX_STATUS || !status_rank(v->data.status))
            return false;
        merge_status(s, v->data.status);
        return true;
    case SPX_QRY_URI:
        if (v->type != PMIX_STRING || !v->data.string || strlen(v->data.string) > SPX_QRY_MAX_URI)
            return false;
        spx_key_load(s->out.key, s->key);
        s->out.value = *v; /* moved */
        v->type = PMIX_UNDEF;
        v->data.string = NULL;
        s->answered = true;
        return true;
    default:
        return false;
    }
}

/* Node will not give its part (gone: lost, or ended in order). */
static void merge_gone(struct qslot *s, bool lost)
{
    if (s->part == SPX_QRY_JOB_STATUS)
        merge_status(s, lost ? PMIX_ERR_NODE_DOWN : PMIX_EVENT_JOB_END);
    /* PROCS: the ranks of that node are stood in for at the end */
}

/* ---- asks ---- */

/* One ask less for run: it ends with its last. */
static void ask_done(struct spx_srv_qry *e, struct qask *a)
{
    struct qrun *run = a->run;
    LIST_REMOVE(a, link);
    free(a);
    if (--run->pending == 0)
        spx_qry_run_end(e->ctx, run);
}


/* Asks node for s's part (run's slot si); false when it cannot be asked. */
static bool ask(struct spx_srv_qry *e, struct qrun *run, size_t si, uint32_t node)
{
    struct qask *a = calloc(1, sizeof(*a));
    if (!a)
        return false;
    a->id = e->next_id++;
    a->node = node;
    a->run = run;
    a->slot = si;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, a->id);
    spx_buf_push_u8(&b, run->slots[si].part);
    spx_buf_push_str(&b, run->slots[si].nspace);
    int rc = spx_srv_mn_send(e->ctx, node, SPX_SRV_CH_QUERY_REQ, &b);
    spx_buf_fini(&b);
    if (rc != 0) {
        free(a);
        return false;
    }
    LIST_INSERT_HEAD(&e->asks, a, link);
    run->pending++;
    return true;
}

void spx_qry_gather(struct spx_srv_ctx *ctx, struct qrun *run, size_t si, uint8_t part,
                   const uint32_t *nodes, size_t n)
{
    struct qslot *s = &run->slots[si];
    uint32_t me = spx_srv_mn_me(ctx);
    s->part = part;
    for (size_t i = 0; i < n; i++) {
        uint32_t node = nodes ? nodes[i] : (uint32_t)i;
        if (node == me || !ctx->mn) {
            pmix_value_t v = {.type = PMIX_UNDEF};
            if (spx_srv_qry_part(ctx, part, s->nspace, &v) == PMIX_SUCCESS) {
                if (!merge_part(ctx, s, me, &v))
                    spx_warn("query: this node's part of %s is not well formed", s->key);
                PMIx_Value_destruct(&v);
            }
        } else if (spx_srv_mn_node_is_lost(ctx, node)) {
            merge_gone(s, !spx_srv_mn_node_ended(ctx, node));
        } else if (!ask(ctx->qry, run, si, node)) {
            merge_gone(s, true);
        }
    }
}

/* ---- the other nodes ---- */

static void send_reply(struct spx_srv_ctx *ctx, uint32_t node, uint64_t id, pmix_status_t st,
                       const pmix_value_t *v)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, id);
    spx_buf_push_i32(&b, st);
    if (st == PMIX_SUCCESS)
        spx_codec_push_value(&b, v);
    if (spx_buf_failed(&b) || spx_srv_mn_send(ctx, node, SPX_SRV_CH_QUERY_REP, &b) != 0)
        spx_warn("query: cannot answer node %u", node);
    spx_buf_fini(&b);
}

static void recv_request(struct spx_srv_ctx *ctx, uint32_t from, spx_buf_t *b)
{
    char nspace[PMIX_MAX_NSLEN + 1];
    uint64_t id = spx_buf_pull_u64(b);
    uint8_t part = spx_buf_pull_u8(b);
    spx_buf_pull_str_into(b, nspace, sizeof(nspace));
    if (spx_buf_failed(b) || spx_buf_finish(b) != 0) {
        spx_warn("query: malformed request from node %u dropped", from);
        return;
    }
    pmix_value_t v = {.type = PMIX_UNDEF};
    pmix_status_t rc = spx_srv_qry_part(ctx, part, nspace, &v);
    send_reply(ctx, from, id, rc, &v);
    if (rc == PMIX_SUCCESS)
        PMIx_Value_destruct(&v);
}

static struct qask *find_ask(struct spx_srv_qry *e, uint64_t id)
{
    struct qask *a;
    LIST_FOREACH(a, &e->asks, link)
        if (a->id == id)
            return a;
    return NULL;
}

static void recv_reply(struct spx_srv_qry *e, uint32_t from, spx_buf_t *b)
{
    uint64_t id = spx_buf_pull_u64(b);
    pmix_status_t st = spx_buf_pull_i32(b);
    struct qask *a = spx_buf_failed(b) ? NULL : find_ask(e, id);
    if (!a || a->node != from) {
        spx_warn("query: answer %llu from node %u answers nothing asked: dropped",
                 (unsigned long long)id, from);
        return;
    }
    struct qslot *s = &a->run->slots[a->slot];
    pmix_value_t v = {.type = PMIX_UNDEF};
    if (st == PMIX_SUCCESS) {
        if (spx_codec_pull_value(b, &v) != 0 || spx_buf_finish(b) != 0 ||
            !merge_part(e->ctx, s, from, &v))
            spx_warn("query: malformed %s part from node %u dropped", s->key, from);
        PMIx_Value_destruct(&v);
    } else if (spx_buf_finish(b) != 0) {
        spx_warn("query: malformed answer from node %u dropped", from);
    } else {
        spx_debug("query: node %u has no %s part: %s", from, s->key, PMIx_Error_string(st));
    }
    ask_done(e, a);
}

static void query_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    if (channel == SPX_SRV_CH_QUERY_REQ)
        recv_request(ctx, from, b);
    else if (ctx->qry)
        recv_reply(ctx->qry, from, b);
}

/* Every ask of node (NULL: of any node) counts as answered by its being gone. */
static void asks_gone(struct spx_srv_qry *e, const uint32_t *node, bool lost)
{
    struct qask *a, *next;
    for (a = e ? LIST_FIRST(&e->asks) : NULL; a; a = next) {
        next = LIST_NEXT(a, link);
        if (node && a->node != *node)
            continue;
        merge_gone(&a->run->slots[a->slot], lost);
        ask_done(e, a); /* may end a run, never another ask */
    }
}

static void query_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    asks_gone(ctx->qry, &node, lost);
}

static int query_setup(struct spx_srv_ctx *ctx)
{
    if (!(ctx->qry = calloc(1, sizeof(*ctx->qry))))
        return -1;
    ctx->qry->ctx = ctx;
    LIST_INIT(&ctx->qry->runs);
    LIST_INIT(&ctx->qry->asks);
    ctx->qry->next_id = 1;
    ctx->query_own = spx_srv_query_own_run; /* the core's QUERY upcall adds these answers */
    return 0;
}

/* Server stop: the queries waiting for nodes end with what they have. */
static void query_stop(struct spx_srv_ctx *ctx)
{
    asks_gone(ctx->qry, NULL, true);
}

static void query_teardown(struct spx_srv_ctx *ctx)
{
    ctx->query_own = NULL;
    asks_gone(ctx->qry, NULL, true);
    free(ctx->qry);
    ctx->qry = NULL;
}

const struct spx_srv_engine_ops spx_srv_query_engine = {
    .name = "query",
    .channels = SPX_SRV_CH_BIT(SPX_SRV_CH_QUERY_REQ) | SPX_SRV_CH_BIT(SPX_SRV_CH_QUERY_REP),
    .setup = query_setup,
    .stop = query_stop,
    .teardown = query_teardown,
    .recv = query_recv,
    .node_gone = query_node_gone,
};
