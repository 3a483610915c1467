/* iof.c - the IOF engine: bytes a tool (or a client) pushes to the stdin of
 * processes of a job (IOF_PUSH requests, proto/msg.h), handed to the
 * push_stdin upcall of the host of each target's node, which owns the
 * processes' stdin.
 *
 * The server the pusher is connected to (the origin) splits the targets by
 * node: its own go to its host; each other node's go over the network
 * (channel IOF_PUSH: u64 id, proc source, proc[] targets, info[] directives,
 * u32 n + n bytes) to that node's server, which hands them to its host and
 * answers (channel IOF_ACK: u64 id, i32 status) once its host called back.
 * The pusher's reply goes back when every part was answered - the bytes are
 * no longer needed anywhere (taken into the hosts' caches), not read - with
 * the first failure if any; so a pusher that waits for its replies goes at
 * the pace the hosts allow (back-pressure). A rank WILDCARD target goes to
 * every node of its namespace still there, as WILDCARD (each host serves its
 * own ranks); a push to a rank of a node that is gone fails (UNREACH).
 * An EOF request (flag SPX_IOF_F_EOF) reaches the hosts with
 * PMIX_IOF_COMPLETE true added to the directives. Targets are checked at the
 * origin: a rank of a namespace this server knows, or WILDCARD of one (a
 * namespace deregistered lately: PMIX_ERR_UNREACH, too late). A node
 * lost while a part waits fails the push with PMIX_ERR_UNREACH. Pushes of
 * one pusher reach each host in the order they were made (one connection,
 * one network path per node).
 * Everything runs on the progress thread; the hosts' callbacks are shifted
 * onto it. ctx->iof belongs to this file; its registry of pullers (output
 * to tools, iof_pull.c) is made and freed here with it.
 */
#include "config.h"
#include "server/core.h"
#include "server/iof_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "store/store.h"
#include "types/types.h"
#include "util/log.h"

/* A push of this node waiting for its parts: one per node it goes to. */
struct iof_push {
    LIST_ENTRY(iof_push) link;  /* in spx_srv_iof.pushes */
    uint64_t id;
    struct spx_srv_req *r;      /* the pusher's request (owned: replied when done) */
    uint32_t *nodes;            /* the nodes whose answer is awaited (owned) */
    size_t nwait;
    bool local_waits;           /* this node's host has not called back yet */
    struct iof_part *local;     /* that part while it waits (it borrows r's bytes) */
    pmix_status_t status;       /* first failure */
};

/* A host call for a part (of this node's push, or another node's): its
 * callback may come on any thread. */
struct iof_part {
    struct spx_srv_ctx *ctx;    /* borrowed */
    uint64_t id;
    uint32_t origin;            /* the node to answer; this node: a local part */
    pmix_proc_t source;
    pmix_proc_t *targets;       /* owned */
    size_t ntargets;
    pmix_info_t *dirs;          /* owned */
    size_t ndirs;
    pmix_byte_object_t bo;      /* bytes: owned, or borrowed from the pusher's request */
    bool borrowed;              /* this node's part: the request outlives it */
    pmix_status_t status;
};

#define GONE_NSPACES 32
struct spx_srv_iof {
    LIST_HEAD(, iof_push) pushes;
    uint64_t next_id;
    /* the last namespaces the host deregistered: a push to one of them is
     * too late (UNREACH), not to a process that never was (BAD_PARAM) */
    char gone[GONE_NSPACES][PMIX_MAX_NSLEN + 1];
    unsigned ngone;
};

static bool nspace_was_here(const struct spx_srv_iof *s, const char *nspace)
{
    for (unsigned i = 0; i < GONE_NSPACES && i < s->ngone; i++)
        if (strncmp(s->gone[i], nspace, PMIX_MAX_NSLEN) == 0)
            return true;
    return false;
}

static void part_free(struct iof_part *pt)
{
    free(pt->targets);
    spx_info_array_free(pt->dirs, pt->ndirs);
    if (!pt->borrowed)
        free(pt->bo.bytes);
    free(pt);
}

static struct iof_push *push_find(struct spx_srv_iof *s, uint64_t id)
{
    struct iof_push *ps;
    LIST_FOREACH(ps, &s->pushes, link)
        if (ps->id == id)
            return ps;
    return NULL;
}

/* Replies and frees ps once nothing is awaited. */
static void push_maybe_done(struct iof_push *ps)
{
    if (ps->nwait > 0 || ps->local_waits)
        return;
    LIST_REMOVE(ps, link);
    spx_srv_req_finish_now(ps->r, ps->status);
    free(ps->nodes);
    free(ps);
}

static void push_node_answered(struct iof_push *ps, uint32_t node, pmix_status_t status)
{
    for (size_t i = 0; i < ps->nwait; i++)
        if (ps->nodes[i] == node) {
            ps->nodes[i] = ps->nodes[--ps->nwait];
            if (status != PMIX_SUCCESS && ps->status == PMIX_SUCCESS)
                ps->status = status;
            push_maybe_done(ps);
            return;
        }
}

/* ---- a part handed to this node's host ---- */

static void send_ack(struct spx_srv_ctx *ctx, uint32_t origin, uint64_t id, pmix_status_t st)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, id);
    spx_buf_push_i32(&b, st);
    if (spx_buf_failed(&b) || spx_srv_mn_send(ctx, origin, SPX_SRV_CH_IOF_ACK, &b) != 0)
        spx_warn("IOF: cannot answer node %u's push %llu", origin, (unsigned long long)id);
    spx_buf_fini(&b);
}

/* The host called back (progress thread now). */
static void part_answered(void *arg)
{
    struct iof_part *pt = arg;
    struct spx_srv_ctx *ctx = pt->ctx;
    if (pt->origin == spx_srv_mn_me(ctx)) {
        struct iof_push *ps = ctx->iof ? push_find(ctx->iof, pt->id) : NULL;
        if (ps) {
            ps->local_waits = false;
            ps->local = NULL;
            if (pt->status != PMIX_SUCCESS && ps->status == PMIX_SUCCESS)
                ps->status = pt->status;
            push_maybe_done(ps);
        }
    } else if (ctx->iof) {
        send_ack(ctx, pt->origin, pt->id, pt->status);
    }
    part_free(pt);
}

static void part_cb(pmix_status_t status, void *cbdata)
{
    struct iof_part *pt = cbdata;
    pt->status = status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : status;
    if (spx_progress_shift(part_answered, pt) != 0)
        spx_warn("IOF: the host's answer to a push is lost (progress engine stopped)");
}

/* Hands pt to this node's host; its answer comes through part_answered. */
static void part_start(struct iof_part *pt)
{
    const pmix_server_module_t *host = &pt->ctx->host;
    pmix_status_t rc = host->push_stdin
                           ? host->push_stdin(&pt->source, pt->targets, pt->ntargets, pt->dirs,
                                              pt->ndirs, &pt->bo, part_cb, pt)
                           : PMIX_ERR_NOT_SUPPORTED;
    if (rc != PMIX_SUCCESS) {
        pt->status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        part_answered(pt);
    }
}

/* ---- the pusher's request ---- */

/* Is target a process (or WILDCARD) of a namespace this server knows? */
static struct spx_srv_ns *target_ns(struct spx_srv_ctx *ctx, const pmix_proc_t *t)
{
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, t->nspace);
    if (!ns || t->rank == PMIX_RANK_WILDCARD)
        return ns;
    const pmix_value_t *v = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE,
                                           NULL);
    uint32_t size;
    if (t->rank >= PMIX_RANK_VALID ||
        (v && spx_value_to_u32(v, &size) == PMIX_SUCCESS && t->rank >= size))
        return NULL;
    return ns;
}

/* The caller's directives (dirs, owned) into *out, with PMIX_IOF_COMPLETE
 * true appended when eof (then a new array, and dirs freed); out of memory:
 * *out is dirs, unchanged. */
static pmix_status_t add_complete(pmix_info_t *dirs, size_t n, bool eof, pmix_info_t **out,
                                  size_t *nout)
{
    *out = dirs;
    *nout = n;
    if (!eof)
        return PMIX_SUCCESS;
    pmix_info_t *a = calloc(n + 1, sizeof(*a));
    if (!a)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        PMIx_Info_xfer(&a[i], &dirs[i]);
    bool yes = true;
    PMIx_Info_load(&a[n], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    spx_info_array_free(dirs, n);
    *out = a;
    *nout = n + 1;
    return PMIX_SUCCESS;
}

/* A part for node: the targets of r that live there (WILDCARD kept); this
 * node's part borrows r's bytes (r is answered only after it), another
 * node's is sent at once and needs no copy either. */
static struct iof_part *part_for(struct spx_srv_req *r, uint32_t node, uint64_t id)
{
    struct spx_srv_ctx *ctx = r->peer->ctx;
    struct iof_part *pt = calloc(1, sizeof(*pt));
    if (!pt || !(pt->targets = calloc(r->nprocs, sizeof(*pt->targets))) ||
        spx_info_array_dup(&pt->dirs, r->info, r->ninfo) != PMIX_SUCCESS) {
        if (pt)
            part_free(pt);
        return NULL;
    }
    pt->ndirs = r->ninfo;
    pt->ctx = ctx;
    pt->id = id;
    pt->origin = spx_srv_mn_me(ctx);
    pt->source = r->peer->proc;
    for (size_t i = 0; i < r->nprocs; i++) {
        const pmix_proc_t *t = &r->procs[i];
        struct spx_srv_ns *ns = spx_srv_ns_find(ctx, t->nspace);
        bool there = !ctx->mn || (t->rank == PMIX_RANK_WILDCARD ? true
                                                               : spx_srv_ns_node_of(ns, t->rank) == node);
        if (there)
            pt->targets[pt->ntargets++] = *t;
    }
    pt->bo = r->bo;
    pt->borrowed = true;
    return pt;
}

/* The nodes the targets of r live on (sorted, unique; *out malloc'd). */
static pmix_status_t target_nodes(struct spx_srv_req *r, uint32_t **out, size_t *n)
{
    struct spx_srv_ctx *ctx = r->peer->ctx;
    *n = 0;
    *out = NULL;
    if (!ctx->mn) {
        if (!(*out = malloc(sizeof(**out))))
            return PMIX_ERR_NOMEM;
        (*out)[(*n)++] = spx_srv_mn_me(ctx);
        return PMIX_SUCCESS;
    }
    uint32_t nn = spx_srv_mn_nnodes(ctx);
    uint8_t *hit = calloc(nn ? nn : 1, 1);
    if (!hit)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < r->nprocs; i++) {
        struct spx_srv_ns *ns = spx_srv_ns_find(ctx, r->procs[i].nspace);
        if (r->procs[i].rank == PMIX_RANK_WILDCARD) {
            /* every node still there: a node gone (its processes ended, or
             * lost) has no stdin left to feed */
            for (size_t k = 0; k < ns->nnodes; k++)
                if (ns->nodes[k] < nn && !spx_srv_mn_node_is_lost(ctx, ns->nodes[k]))
                    hit[ns->nodes[k]] = 1;
        } else {
            uint32_t node = spx_srv_ns_node_of(ns, r->procs[i].rank);
            if (node >= nn) {
                free(hit);
                return PMIX_ERR_NOT_FOUND;
            }
            hit[node] = 1;
        }
    }
    size_t count = 0;
    for (uint32_t k = 0; k < nn; k++)
        count += hit[k];
    if (!(*out = malloc((count ? count : 1) * sizeof(**out)))) {
        free(hit);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < nn; k++)
        if (hit[k])
            (*out)[(*n)++] = k;
    free(hit);
    return PMIX_SUCCESS;
}

static pmix_status_t push_send(struct spx_srv_ctx *ctx, struct iof_part *pt, uint32_t node)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, pt->id);
    spx_codec_push_proc(&b, &pt->source);
    spx_codec_push_proc_array(&b, pt->targets, pt->ntargets);
    spx_codec_push_info_array(&b, pt->dirs, pt->ndirs);
    spx_buf_push_bytes(&b, pt->bo.bytes, pt->bo.size);
    int rc = spx_buf_failed(&b) ? -1 : spx_srv_mn_send(ctx, node, SPX_SRV_CH_IOF_PUSH, &b);
    spx_buf_fini(&b);
    return rc == 0 ? PMIX_SUCCESS : PMIX_ERR_UNREACH;
}

int spx_srv_handle_iof_push(struct spx_srv_req *r, spx_buf_t *b)
{
    pmix_info_t *dirs = NULL;
    size_t ndirs = 0, n = 0;
    if (spx_codec_pull_proc_array(b, &r->procs, &r->nprocs) != 0 ||
        spx_codec_pull_info_array(b, &dirs, &ndirs) != 0)
        return -1;
    uint8_t flags = spx_buf_pull_u8(b);
    void *data = spx_buf_pull_bytes(b, &n);
    if (spx_buf_failed(b) || spx_buf_finish(b) != 0 || n > SPX_IOF_MAX_CHUNK ||
        (flags & ~SPX_IOF_F_EOF) != 0) {
        spx_info_array_free(dirs, ndirs);
        free(data);
        return -1;
    }
    r->msg = data; /* the bytes live as long as the request */
    r->bo.bytes = data;
    r->bo.size = n;
    struct spx_srv_ctx *ctx = r->peer->ctx;
    /* r->info owns the directives from here on, whatever add_complete did */
    pmix_status_t rc = add_complete(dirs, ndirs, flags & SPX_IOF_F_EOF, &r->info, &r->ninfo);
    if (rc == PMIX_SUCCESS && r->nprocs == 0)
        rc = PMIX_ERR_BAD_PARAM;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < r->nprocs; i++)
        if (!target_ns(ctx, &r->procs[i])) {
            bool ended = nspace_was_here(ctx->iof, r->procs[i].nspace);
            spx_info("%s: IOF push to %s:%u refused: %s", r->peer->name, r->procs[i].nspace,
                     (unsigned)r->procs[i].rank,
                     ended ? "its job has ended here" : "no such process in this job");
            rc = ended ? PMIX_ERR_UNREACH : PMIX_ERR_BAD_PARAM;
        }
    uint32_t *nodes = NULL;
    size_t nn = 0;
    if (rc == PMIX_SUCCESS)
        rc = target_nodes(r, &nodes, &nn);
    struct iof_push *ps = rc == PMIX_SUCCESS ? calloc(1, sizeof(*ps)) : NULL;
    if (rc == PMIX_SUCCESS && !ps)
        rc = PMIX_ERR_NOMEM;
    if (rc != PMIX_SUCCESS) {
        free(nodes);
        spx_srv_req_finish_now(r, rc);
        return 0;
    }
    struct spx_srv_iof *s = ctx->iof;
    ps->id = ++s->next_id;
    ps->r = r;
    ps->nodes = nodes;
    LIST_INSERT_HEAD(&s->pushes, ps, link);
    uint32_t me = spx_srv_mn_me(ctx);
    struct iof_part *local = NULL;
    for (size_t i = 0; i < nn; i++) {
        struct iof_part *pt = part_for(r, nodes[i], ps->id);
        pmix_status_t prc = pt ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        if (pt && nodes[i] == me) {
            local = pt;
            ps->local_waits = true;
            continue;
        }
        if (pt) {
            prc = push_send(ctx, pt, nodes[i]);
            part_free(pt);
        }
        if (prc == PMIX_SUCCESS)
            ps->nodes[ps->nwait++] = nodes[i];
        else if (ps->status == PMIX_SUCCESS)
            ps->status = prc;
    }
    ps->local_waits = local != NULL;
    ps->local = local;
    if (local)
        part_start(local); /* may answer at once */
    else
        push_maybe_done(ps);
    return 0;
}

/* ---- the engine ---- */

static void iof_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    if (!ctx->iof)
        return;
    if (channel == SPX_SRV_CH_IOF_SUB || channel == SPX_SRV_CH_IOF_OUT) {
        spx_srv_pulls_recv(ctx, from, channel, b); /* output to tools: iof_pull.c */
        return;
    }
    uint64_t id = spx_buf_pull_u64(b);
    if (channel == SPX_SRV_CH_IOF_ACK) {
        pmix_status_t st = spx_buf_pull_i32(b);
        if (spx_buf_failed(b) || spx_buf_finish(b) != 0) {
            spx_warn("IOF: malformed answer from node %u dropped", from);
            return;
        }
        struct iof_push *ps = push_find(ctx->iof, id);
        if (ps)
            push_node_answered(ps, from, st);
        return;
    }
    struct iof_part *pt = calloc(1, sizeof(*pt));
    size_t n = 0;
    if (!pt)
        return;
    pt->ctx = ctx;
    pt->id = id;
    pt->origin = from;
    if (spx_codec_pull_proc(b, &pt->source) != 0 ||
        spx_codec_pull_proc_array(b, &pt->targets, &pt->ntargets) != 0 ||
        spx_codec_pull_info_array(b, &pt->dirs, &pt->ndirs) != 0 ||
        !((pt->bo.bytes = spx_buf_pull_bytes(b, &n)) || n == 0) || spx_buf_failed(b) ||
        spx_buf_finish(b) != 0 || n > SPX_IOF_MAX_CHUNK) {
        spx_warn("IOF: malformed push from node %u dropped", from);
        part_free(pt);
        return;
    }
    pt->bo.size = n;
    part_start(pt);
}

static void iof_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    (void)lost;
    if (!ctx->iof)
        return;
    spx_srv_pulls_node_gone(ctx, node);
    struct iof_push *ps, *next;
    for (ps = LIST_FIRST(&ctx->iof->pushes); ps; ps = next) {
        next = LIST_NEXT(ps, link);
        push_node_answered(ps, node, PMIX_ERR_UNREACH); /* may free ps */
    }
}

static void iof_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    struct spx_srv_iof *s = ctx->iof;
    if (s)
        snprintf(s->gone[s->ngone++ % GONE_NSPACES], PMIX_MAX_NSLEN + 1, "%s", nspace);
}

static int iof_setup(struct spx_srv_ctx *ctx)
{
    if (!(ctx->iof = calloc(1, sizeof(*ctx->iof))))
        return -1;
    LIST_INIT(&ctx->iof->pushes);
    if (!(ctx->iof_pulls = spx_srv_pulls_create())) {
        free(ctx->iof);
        ctx->iof = NULL;
        return -1;
    }
    return 0;
}

/* Pushes still waiting for other nodes fail; one waiting for this node's
 * host keeps waiting for it (its callback may still come: the host is asked
 * to call back before finalizing the server). */
static void iof_stop(struct spx_srv_ctx *ctx)
{
    if (!ctx->iof)
        return;
    spx_srv_pulls_flush(ctx); /* the output tools have not read yet */
    struct iof_push *ps, *next;
    for (ps = LIST_FIRST(&ctx->iof->pushes); ps; ps = next) {
        next = LIST_NEXT(ps, link);
        ps->nwait = 0;
        if (ps->status == PMIX_SUCCESS)
            ps->status = PMIX_ERR_UNREACH;
        push_maybe_done(ps);
    }
}

static void iof_teardown(struct spx_srv_ctx *ctx)
{
    if (!ctx->iof)
        return;
    struct iof_push *ps;
    while ((ps = LIST_FIRST(&ctx->iof->pushes))) {
        LIST_REMOVE(ps, link);
        if (ps->local_waits && ps->local) { /* the host still holds the bytes: */
            ps->local->borrowed = false;    /* its part owns them from now on */
            ps->r->msg = NULL;
        }
        spx_srv_req_finish_now(ps->r, PMIX_ERR_UNREACH);
        free(ps->nodes);
        free(ps);
    }
    spx_srv_pulls_destroy(ctx->iof_pulls);
    ctx->iof_pulls = NULL;
    free(ctx->iof);
    ctx->iof = NULL;
}

/* IOF_PUSH: a request the host may answer later (spx_srv_req). */
static int route_iof_push(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    struct spx_srv_req *r = spx_srv_req_create(p, SPX_MSG_IOF_PUSH, seq);
    if (!r) {
        spx_srv_reply_status(p, SPX_MSG_IOF_PUSH, seq, PMIX_ERR_NOMEM);
        return 0;
    }
    int rc = spx_srv_handle_iof_push(r, b);
    if (rc != 0)
        spx_srv_req_free(r); /* malformed: nothing was handed to the host */
    return rc;
}

static const struct spx_srv_route iof_routes[] = {
    {SPX_MSG_IOF_PUSH, true, route_iof_push},
    {SPX_MSG_IOF_PULL, true, spx_srv_handle_iof_pull},
    {0, false, NULL},
};

const struct spx_srv_engine_ops spx_srv_iof_engine = {
    .name = "iof",
    .routes = iof_routes,
    .channels = SPX_SRV_CH_BIT(SPX_SRV_CH_IOF_PUSH) | SPX_SRV_CH_BIT(SPX_SRV_CH_IOF_ACK) |
                SPX_SRV_CH_BIT(SPX_SRV_CH_IOF_SUB) | SPX_SRV_CH_BIT(SPX_SRV_CH_IOF_OUT),
    .setup = iof_setup,
    .stop = iof_stop,
    .teardown = iof_teardown,
    .recv = iof_recv,
    .node_gone = iof_node_gone,
    .nspace_gone = iof_nspace_gone,
};
