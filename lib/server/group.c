/* group.c - the group engine (engine_group.h): GROUP requests of local
 * clients, the collectives of constructs and destructs (a fence engine of
 * its own, fence.h, over the net-ops seam through nodes.c), the groups this
 * node knows and the context ids it hands out.
 *
 * A construct's path: each local member's GROUP request waits in the
 * collective (struct grp_arrival, on the engine's list so that contribute
 * finds its group info); once every local member is in, op_contribute
 * writes each one's MEMBER item (group info + endpoint data, full: a
 * construct is not a delta exchange), op_host_fence adds the CID item on the
 * lowest node of the members and starts the collective over their nodes
 * (single node: completes at once with this node's items); op_deliver parses
 * the outcome of all nodes (proto/group.h), applies the other nodes'
 * members' endpoint data to ctx->store and records the group; op_reply
 * answers each member with the outcome's bytes, which its client reads.
 * Copies of a member's endpoint data: into the MEMBER item on its node
 * (the records are written from the store), into the store on every other
 * node (spx_records_apply), into the group record's outcome bytes, and the
 * reply frames.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_group.h"
#include "server/engine_events.h"
#include "server/group_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/group.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "types/types.h"
#include "util/log.h"
#include "util/strhash.h"

/* ---- context ids ---- */

/* The next context id of this node: 1 + me + nnodes * k, k = 0, 1, ... Ids
 * are never handed out twice (Open MPI keeps using a group's id for its
 * communicator after destructing the group), 0 when the counter ran out. */
uint64_t spx_srv_grp_cid_take(struct spx_srv_grp *g)
{
    uint64_t n = spx_srv_mn_nnodes(g->ctx);
    uint64_t first = 1 + (uint64_t)spx_srv_mn_me(g->ctx);
    if (g->next_slot > (UINT64_MAX - first) / n)
        return 0;
    return first + n * g->next_slot++;
}

/* ---- groups ---- */

struct grp_record *spx_srv_grp_find(struct spx_srv_grp *g, const char *id)
{
    struct grp_record *r;
    LIST_FOREACH(r, &g->groups, link)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

bool spx_srv_grp_has(const struct grp_record *r, const pmix_proc_t *p)
{
    for (size_t i = 0; i < r->nmembers; i++)
        if (r->members[i].rank == p->rank &&
            strncmp(r->members[i].nspace, p->nspace, PMIX_MAX_NSLEN) == 0)
            return true;
    return false;
}

static void group_free(struct grp_record *r)
{
    LIST_REMOVE(r, link);
    free(r->members);
    free(r->outcome);
    free(r);
}

/* ---- the collective's ops ---- */

static struct grp_arrival *arrival_for(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                       const char *set_key)
{
    struct grp_arrival *a;
    LIST_FOREACH(a, &g->arrivals, link) {
        size_t tl = strlen(a->tag);
        if (strncmp(set_key, a->tag, tl) == 0 && set_key[tl] == '|' &&
            a->proc.rank == proc->rank && strncmp(a->proc.nspace, proc->nspace, PMIX_MAX_NSLEN) == 0)
            return a;
    }
    return NULL;
}

static size_t op_local_members(const pmix_proc_t *set, size_t nset, pmix_proc_t **out,
                               pmix_status_t *gone, void *arg)
{
    struct spx_srv_grp *g = arg;
    return spx_srv_set_local_members(g->ctx, set, nset, false, out, gone);
}

unsigned spx_srv_grp_flags(const pmix_info_t *info, size_t ninfo)
{
    return (spx_info_flag(info, ninfo, PMIX_GROUP_ASSIGN_CONTEXT_ID) ? SPX_GRP_F_WANT_CID : 0) |
           (spx_info_flag(info, ninfo, PMIX_GROUP_NOTIFY_TERMINATION) ? SPX_GRP_F_NOTIFY_TERM : 0);
}

void spx_srv_grp_push_member(struct spx_srv_grp *g, spx_buf_t *out, const char *id,
                             const pmix_proc_t *proc, unsigned flags, const pmix_info_t *ginfo,
                             size_t nginfo)
{
    spx_buf_t rec;
    spx_buf_init(&rec);
    spx_records_push_proc(&rec, g->ctx->store, proc->nspace, proc->rank, 0,
                          SPX_SCOPE_BIT(PMIX_REMOTE) | SPX_SCOPE_BIT(PMIX_GLOBAL), false, NULL);
    if (spx_buf_failed(&rec))
        spx_buf_set_error(out, ENOMEM);
    spx_grp_push_member(out, id, proc, flags, ginfo, nginfo, rec.data, rec.len);
    spx_buf_fini(&rec);
}

static uint64_t op_contribute(const pmix_proc_t *proc, const char *set_key, spx_buf_t *out,
                              void *arg)
{
    struct spx_srv_grp *g = arg;
    struct grp_arrival *a = arrival_for(g, proc, set_key);
    if (!a) { /* every local member arrived before this is called */
        spx_buf_set_error(out, EINVAL);
        return 0;
    }
    spx_srv_grp_push_member(g, out, a->id, proc, a->flags, a->ginfo, a->nginfo);
    return 0;
}

/* The name of a group collective between the nodes: "C:<id>|#<hash of the
 * set>" (or "D:..."), short whatever the number of members (a set key that
 * lists hundreds of ranks would not fit a tree frame), the same on every node. */
static void tree_key(const char *set_key, char out[PMIX_MAX_NSLEN + 24])
{
    const char *bar = strchr(set_key, '|');
    int n = bar ? (int)(bar - set_key) : (int)strnlen(set_key, PMIX_MAX_NSLEN + 2);
    snprintf(out, PMIX_MAX_NSLEN + 24, "%.*s|#%016llx", n, set_key,
             (unsigned long long)spx_strhash(set_key));
}

static void op_local_failed(const pmix_proc_t *set, size_t nset, const char *set_key,
                            bool collect, pmix_status_t status, double timeout, void *arg)
{
    struct spx_srv_grp *g = arg;
    char key[PMIX_MAX_NSLEN + 24];
    tree_key(set_key, key);
    if (g->ctx->mn)
        spx_srv_mn_fence_failed(g->ctx, set, nset, key, collect, status, timeout);
}

static struct spx_fence_engine *coll_engine_of(struct spx_srv_ctx *ctx)
{
    return ctx->grp ? ctx->grp->coll : NULL;
}

struct spx_fence_engine *spx_srv_group_coll_engine(struct spx_srv_ctx *ctx)
{
    return coll_engine_of(ctx);
}

/* Is this node the lowest node of the set's members (single node: yes)? */
static bool lowest_node(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset)
{
    if (!ctx->mn)
        return true;
    uint32_t *nodes;
    size_t n;
    if (spx_srv_mn_set_nodes(ctx, set, nset, false, &nodes, &n) != 0)
        return false;
    bool low = n > 0 && nodes[0] == spx_srv_mn_me(ctx);
    free(nodes);
    return low;
}

/* The group id of a set key "C:<id>|..." or "D:<id>|..." into id; returns
 * 'C' (a construct), 'D' (a destruct), or 0 when the key is neither. */
static char collective_id(const char *set_key, char id[PMIX_MAX_NSLEN + 1])
{
    if ((set_key[0] != 'C' && set_key[0] != 'D') || set_key[1] != ':')
        return 0;
    const char *bar = strchr(set_key + 2, '|');
    size_t n = bar ? (size_t)(bar - set_key - 2) : 0;
    if (!bar || n == 0 || n > PMIX_MAX_NSLEN)
        return 0;
    memcpy(id, set_key + 2, n);
    id[n] = '\0';
    return set_key[0];
}

static pmix_status_t op_host_fence(const pmix_proc_t *set, size_t nset, const char *set_key,
                                   const pmix_info_t *info, size_t ninfo, char *data,
                                   size_t ndata, void *token, void *arg)
{
    (void)info;
    (void)ninfo;
    struct spx_srv_grp *g = arg;
    struct spx_srv_ctx *ctx = g->ctx;
    const spx_fence_opts_t *o = spx_fence_token_opts(token);
    char id[PMIX_MAX_NSLEN + 1] = "";
    bool construct = collective_id(set_key, id) == 'C';
    if (!ctx->mn && ctx->host.group) {
        /* a third-party host that runs groups itself (group_host.c) */
        pmix_status_t hrc = spx_srv_grp_host_start(g, construct, id, set, nset, data, ndata,
                                                   o->timeout, token);
        if (hrc != PMIX_OPERATION_SUCCEEDED && hrc != PMIX_ERR_NOT_SUPPORTED)
            return hrc;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    if (construct) {
        spx_buf_push_raw(&b, data, ndata);
        if (lowest_node(ctx, set, nset)) {
            uint64_t cid = spx_srv_grp_cid_take(g);
            if (!cid) {
                spx_buf_fini(&b);
                return PMIX_ERR_OUT_OF_RESOURCE;
            }
            spx_grp_push_cid(&b, id, cid);
        }
        if (spx_buf_failed(&b)) {
            spx_buf_fini(&b);
            return PMIX_ERR_NOMEM;
        }
    }
    pmix_status_t rc;
    if (ctx->mn) {
        char key[PMIX_MAX_NSLEN + 24];
        tree_key(set_key, key);
        rc = spx_srv_mn_coll_for(ctx, coll_engine_of, key, set, nset, o->collect,
                                 o->timeout > 0 ? (double)(int)o->timeout : 0,
                                 (const char *)b.data, b.len, token);
    } else {
        /* one node: this node's part is the whole outcome; the engine's
         * answer comes now (re-entering it is allowed) */
        spx_fence_host_done(g->coll, token, PMIX_SUCCESS, (const char *)b.data, b.len);
        rc = PMIX_SUCCESS;
    }
    spx_buf_fini(&b);
    return rc;
}

static bool deliver_filter(const char *nspace, pmix_rank_t rank, void *arg)
{
    return !spx_srv_proc_is_local(arg, nspace, rank); /* our own procs' data is here */
}

pmix_status_t spx_srv_grp_apply_outcome(struct spx_srv_grp *g, const void *data, size_t ndata,
                                        bool keep, struct grp_record **out)
{
    struct spx_srv_ctx *ctx = g->ctx;
    if (out)
        *out = NULL;
    spx_grp_outcome_t o;
    if (spx_grp_outcome_parse(data, ndata, &o) != 0) {
        spx_error("group: malformed outcome (%zu bytes)", ndata);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < o.n && rc == PMIX_SUCCESS; i++) {
        spx_buf_t b;
        spx_buf_init_borrowed(&b, o.m[i].records, o.m[i].nrecords);
        if (spx_records_apply(&b, ctx->store, deliver_filter, ctx) != 0)
            rc = PMIX_ERR_UNPACK_FAILURE;
        spx_buf_fini(&b);
        keep |= spx_srv_proc_is_local(ctx, o.m[i].proc.nspace, o.m[i].proc.rank);
    }
    struct grp_record *r = rc == PMIX_SUCCESS && keep ? calloc(1, sizeof(*r)) : NULL;
    if (r) {
        r->members = malloc(o.n * sizeof(*r->members));
        r->outcome = malloc(ndata);
        if (!r->members || !r->outcome) {
            free(r->members);
            free(r->outcome);
            free(r);
            r = NULL;
        }
    }
    if (rc == PMIX_SUCCESS && keep && !r)
        rc = PMIX_ERR_NOMEM;
    if (r) {
        memcpy(r->id, o.grp, sizeof(r->id));
        for (size_t i = 0; i < o.n; i++)
            r->members[i] = o.m[i].proc;
        r->nmembers = o.n;
        memcpy(r->outcome, data, ndata);
        r->noutcome = ndata;
        r->have_cid = o.have_cid;
        r->cid = o.cid;
        r->notify_term = o.notify_term;
        struct grp_record *old = spx_srv_grp_find(g, r->id);
        if (old) /* a group of that name no member here destructed: replaced */
            group_free(old);
        LIST_INSERT_HEAD(&g->groups, r, link);
        spx_debug("group %s: constructed, %zu members, context id %s%llu", r->id, r->nmembers,
                  r->have_cid ? "" : "none ", (unsigned long long)r->cid);
        if (out)
            *out = r;
    }
    spx_grp_outcome_fini(&o);
    return rc;
}

static pmix_status_t op_deliver(const char *data, size_t ndata, void *arg)
{
    return spx_srv_grp_apply_outcome(arg, data, ndata, true, NULL);
}

static void arrival_free(struct grp_arrival *a)
{
    LIST_REMOVE(a, link);
    if (a->peer)
        spx_srv_peer_unref(a->peer);
    spx_info_array_free(a->ginfo, a->nginfo);
    free(a);
}

static void op_reply(void *requester, pmix_status_t status, void *arg)
{
    struct spx_srv_grp *g = arg;
    struct grp_arrival *a = requester;
    struct grp_record *r = spx_srv_grp_find(g, a->id);
    if (a->socket_whole) {
        /* the engine answers the collective's arrivals one after the other:
         * all are done now, before the first reply lets a member go on */
        unsigned k = 0;
        struct grp_arrival *o;
        LIST_FOREACH(o, &g->arrivals, link)
            if (o->socket_whole && strcmp(o->tag, a->tag) == 0 &&
                strncmp(o->proc.nspace, a->proc.nspace, PMIX_MAX_NSLEN) == 0) {
                o->socket_whole = false;
                k++;
            }
        spx_srv_gshm_socket_done(g, a->proc.nspace, k);
    }
    if (a->op == SPX_GRP_OP_CONSTRUCT && status == PMIX_SUCCESS &&
        (!r || !spx_srv_grp_has(r, &a->proc)))
        status = PMIX_ERR_NOT_FOUND; /* cannot happen: deliver made it */
    if (a->op == SPX_GRP_OP_CONSTRUCT && status == PMIX_ERR_PROC_ABORTED)
        status = PMIX_GROUP_CONSTRUCT_ABORT; /* a member died before the group formed */
    if (a->batch) { /* a shared-memory construct (group_shm.c) */
        bool ok = status == PMIX_SUCCESS;
        spx_srv_gshm_answer(g, a->batch, status, ok ? r->outcome : NULL, ok ? r->noutcome : 0);
        arrival_free(a);
        return;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    if (a->op == SPX_GRP_OP_CONSTRUCT) {
        spx_buf_push_i32(&b, status);
        if (status == PMIX_SUCCESS)
            spx_buf_push_bytes(&b, r->outcome, r->noutcome);
    } else {
        if (status == PMIX_SUCCESS && r) {
            spx_debug("group %s: destructed", r->id);
            group_free(r);
        }
        spx_buf_push_i32(&b, status);
    }
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        spx_srv_reply_status(a->peer, SPX_MSG_GROUP, a->seq, PMIX_ERR_NOMEM);
    } else {
        spx_srv_reply(a->peer, SPX_MSG_GROUP, a->seq, &b);
    }
    arrival_free(a);
}

void spx_srv_grp_reply(struct spx_srv_peer *p, uint32_t seq, pmix_status_t status,
                       const void *outcome, size_t noutcome)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, status);
    if (outcome)
        spx_buf_push_bytes(&b, outcome, noutcome);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        spx_srv_reply_status(p, SPX_MSG_GROUP, seq, PMIX_ERR_NOMEM);
    } else {
        spx_srv_reply(p, SPX_MSG_GROUP, seq, &b);
    }
}

void spx_srv_grp_event(struct spx_srv_ctx *ctx, pmix_status_t status, const pmix_proc_t *source,
                       const pmix_proc_t *targets, size_t ntargets, const char *id,
                       const pmix_info_t *extra, size_t nextra)
{
    pmix_info_t *info = calloc(3 + nextra, sizeof(*info));
    if (!info) {
        spx_error("group %s: out of memory for event %d: not raised", id, status);
        return;
    }
    pmix_data_array_t range = {.type = PMIX_PROC, .size = ntargets, .array = (void *)targets};
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_ID, id, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    for (size_t i = 0; i < nextra; i++)
        PMIx_Info_xfer(&info[3 + i], &extra[i]);
    size_t n = 3 + nextra;
    spx_srv_event_deliver(ctx, status, source, PMIX_RANGE_CUSTOM, info, n, NULL);
    bool all_here = true; /* then no other node needs it (an answer to its leader) */
    for (size_t i = 0; i < ntargets && all_here; i++)
        all_here = targets[i].rank != PMIX_RANK_WILDCARD &&
                   spx_srv_proc_is_local(ctx, targets[i].nspace, targets[i].rank);
    if (!all_here)
        spx_srv_relay_event(ctx, status, source, PMIX_RANGE_CUSTOM, info, n);
    spx_info_array_free(info, n);
}

static void *op_timer_arm(double seconds, uint64_t id, void *arg)
{
    return spx_srv_fence_timer_arm(((struct spx_srv_grp *)arg)->ctx, coll_engine_of, seconds, id);
}

static void op_timer_cancel(void *handle, void *arg)
{
    (void)arg;
    spx_srv_fence_timer_cancel(handle);
}

static const spx_fence_ops_t coll_ops = {
    .local_members = op_local_members,
    .contribute = op_contribute,
    .local_failed = op_local_failed,
    .host_fence = op_host_fence,
    .deliver = op_deliver,
    .reply = op_reply,
    .timer_arm = op_timer_arm,
    .timer_cancel = op_timer_cancel,
};

/* ---- GROUP requests ---- */

pmix_status_t spx_srv_grp_take_info(const pmix_info_t *info, size_t n, pmix_info_t **out,
                                    size_t *nout)
{
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        if (!spx_key_eq(info[i].key, PMIX_GROUP_INFO))
            continue;
        const pmix_value_t *v = &info[i].value;
        const pmix_info_t *src = NULL;
        size_t ns = 0;
        if (v->type == PMIX_DATA_ARRAY && v->data.darray && v->data.darray->type == PMIX_INFO) {
            src = v->data.darray->array;
            ns = v->data.darray->size;
        } else if (v->type == PMIX_INFO && v->data.ptr) {
            src = v->data.ptr;
            ns = 1;
        } else {
            return PMIX_ERR_BAD_PARAM;
        }
        if (ns == 0)
            continue;
        if (!src)
            return PMIX_ERR_BAD_PARAM;
        pmix_info_t *all = realloc(*out, (*nout + ns) * sizeof(*all));
        if (!all)
            return PMIX_ERR_NOMEM;
        *out = all;
        pmix_info_t *dup;
        if (spx_info_array_dup(&dup, src, ns) != PMIX_SUCCESS)
            return PMIX_ERR_NOMEM;
        memcpy(*out + *nout, dup, ns * sizeof(*dup));
        free(dup); /* the entries moved into *out */
        *nout += ns;
    }
    return PMIX_SUCCESS;
}

/* Does every process of namespace name live on this node? */
static bool all_local(struct spx_srv_ctx *ctx, const char *name)
{
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, name);
    if (!ns)
        return false;
    for (size_t i = 0; i < ns->nnodes; i++)
        if (ns->nodes[i] != spx_srv_mn_me(ctx))
            return false;
    return true;
}

/* Enters proc into the construct or destruct collective of id over set;
 * answered on p/seq, or on batch (a shared-memory construct) when p is NULL. */
static pmix_status_t arrival_start(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                   struct spx_srv_peer *p, uint32_t seq,
                                   struct spx_srv_gshm_batch *batch, uint8_t op, const char *id,
                                   const pmix_proc_t *set, size_t nset, const pmix_info_t *info,
                                   size_t ninfo)
{
    struct grp_arrival *a = calloc(1, sizeof(*a));
    if (!a)
        return PMIX_ERR_NOMEM;
    a->peer = p;
    if (p)
        spx_srv_peer_ref(p);
    a->batch = batch;
    a->seq = seq;
    a->op = op;
    memcpy(a->id, id, strlen(id) + 1);
    snprintf(a->tag, sizeof(a->tag), "%c:%s", op == SPX_GRP_OP_CONSTRUCT ? 'C' : 'D', id);
    a->proc = *proc;
    a->flags = spx_srv_grp_flags(info, ninfo);
    LIST_INSERT_HEAD(&g->arrivals, a, link);
    pmix_status_t rc = spx_srv_grp_take_info(info, ninfo, &a->ginfo, &a->nginfo);
    if (rc != PMIX_SUCCESS) {
        arrival_free(a);
        return rc;
    }
    long timeout = spx_srv_info_int(info, ninfo, PMIX_TIMEOUT, 0);
    pmix_proc_t *copy = malloc(nset * sizeof(*copy));
    if (!copy) {
        arrival_free(a);
        return PMIX_ERR_NOMEM;
    }
    memcpy(copy, set, nset * sizeof(*copy));
    /* a whole-namespace construct through the socket holds the shared-memory
     * one of that namespace back until it is answered */
    a->socket_whole = p && op == SPX_GRP_OP_CONSTRUCT && spx_srv_gshm_socket_start(g, proc, set, nset);
    spx_fence_arrive_tagged(g->coll, proc, copy, nset, a->tag, op == SPX_GRP_OP_CONSTRUCT,
                            (double)timeout, a);
    free(copy);
    return PMIX_SUCCESS;
}

pmix_status_t spx_srv_grp_arrive(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                 struct spx_srv_peer *p, uint32_t seq,
                                 struct spx_srv_gshm_batch *batch, const char *id,
                                 const pmix_proc_t *set, size_t nset, const pmix_info_t *info,
                                 size_t ninfo)
{
    return arrival_start(g, proc, p, seq, batch, SPX_GRP_OP_CONSTRUCT, id, set, nset, info,
                         ninfo);
}

pmix_status_t spx_srv_grp_arrive_check(struct spx_srv_grp *g, const char *nspace,
                                       pmix_rank_t rank, const char *id)
{
    if (!id[0] || strlen(id) > PMIX_MAX_NSLEN || strchr(id, '|'))
        return PMIX_ERR_BAD_PARAM;
    if (!spx_srv_ns_find(g->ctx, nspace))
        return PMIX_ERR_NOT_SUPPORTED;
    pmix_proc_t proc;
    spx_proc_load(&proc, nspace, rank);
    struct grp_record *r = spx_srv_grp_find(g, id);
    return r && spx_srv_grp_has(r, &proc) ? PMIX_ERR_EXISTS : PMIX_SUCCESS;
}

/* Starts a CONSTRUCT or DESTRUCT of p; status to reply at once, or PMIX_SUCCESS. */
static pmix_status_t group_start(struct spx_srv_peer *p, uint32_t seq, uint8_t op,
                                 const char *id, const pmix_proc_t *procs, size_t nprocs,
                                 const pmix_info_t *info, size_t ninfo)
{
    struct spx_srv_grp *g = p->ctx->grp;
    if (!g)
        return PMIX_ERR_NOT_AVAILABLE;
    if (!id[0] || strlen(id) > PMIX_MAX_NSLEN || strchr(id, '|'))
        return PMIX_ERR_BAD_PARAM;
    struct grp_record *r = spx_srv_grp_find(g, id);
    const pmix_proc_t *set = procs;
    size_t nset = nprocs;
    for (size_t i = 0; i < nprocs; i++)
        if (!spx_srv_ns_find(p->ctx, procs[i].nspace))
            return PMIX_ERR_NOT_SUPPORTED; /* a process of another job: not (yet) */
    if (op == SPX_GRP_OP_CONSTRUCT) {
        if (nprocs == 0)
            return PMIX_ERR_BAD_PARAM;
        /* PMIX_GROUP_LOCAL_ONLY: every member on this node (the collective
         * then never leaves it); a member elsewhere is a bad parameter */
        if (spx_info_flag(info, ninfo, PMIX_GROUP_LOCAL_ONLY))
            for (size_t i = 0; i < nprocs; i++)
                if (procs[i].rank == PMIX_RANK_WILDCARD
                        ? (p->ctx->mn && !all_local(p->ctx, procs[i].nspace))
                        : !spx_srv_proc_is_local(p->ctx, procs[i].nspace, procs[i].rank))
                    return PMIX_ERR_BAD_PARAM;
        if (r && spx_srv_grp_has(r, &p->proc))
            return PMIX_ERR_EXISTS; /* this process is in a live group of that name */
        const pmix_info_t *add = spx_info_find(info, ninfo, PMIX_GROUP_ADD_MEMBERS);
        const pmix_proc_t *added = NULL;
        size_t nadded = 0;
        if (add && add->value.type == PMIX_DATA_ARRAY && add->value.data.darray &&
            add->value.data.darray->type == PMIX_PROC) {
            added = add->value.data.darray->array;
            nadded = add->value.data.darray->size;
        } else if (add && add->value.type == PMIX_PROC && add->value.data.proc) {
            added = add->value.data.proc;
            nadded = 1;
        } else if (add) {
            return PMIX_ERR_BAD_PARAM;
        }
        for (size_t i = 0; i < nadded; i++)
            if (!spx_srv_ns_find(p->ctx, added[i].nspace))
                return PMIX_ERR_NOT_SUPPORTED;
        if (nadded || spx_info_flag(info, ninfo, PMIX_GROUP_OPTIONAL) ||
            spx_info_flag(info, ninfo, PMIX_GROUP_FT_COLLECTIVE)) {
            /* led by the lowest member: the dead left out, added members invited */
            if (!spx_fence_proc_in_set(&p->proc, procs, nprocs))
                return PMIX_ERR_NOT_A_MEMBER;
            pmix_proc_t low;
            pmix_status_t lrc = spx_srv_grp_lowest(p->ctx, procs, nprocs, &low);
            if (lrc != PMIX_SUCCESS)
                return lrc;
            if (low.rank != p->proc.rank || strncmp(low.nspace, p->proc.nspace, PMIX_MAX_NSLEN))
                return spx_srv_grp_join_start(g, p, seq, id, true, &low, info, ninfo);
            pmix_proc_t *everyone = malloc((nprocs + nadded) * sizeof(*everyone));
            if (!everyone)
                return PMIX_ERR_NOMEM;
            memcpy(everyone, procs, nprocs * sizeof(*everyone));
            if (nadded)
                memcpy(everyone + nprocs, added, nadded * sizeof(*everyone));
            lrc = spx_srv_grp_invite_start(g, p, seq, id, everyone, nprocs + nadded, info, ninfo,
                                           true, added, nadded);
            free(everyone);
            return lrc;
        }
    } else if (op == SPX_GRP_OP_INVITE) {
        if (r && spx_srv_grp_has(r, &p->proc))
            return PMIX_ERR_EXISTS;
        return spx_srv_grp_invite_start(g, p, seq, id, procs, nprocs, info, ninfo, false, NULL,
                                        0);
    } else if (op == SPX_GRP_OP_JOIN_ACCEPT || op == SPX_GRP_OP_JOIN_DECLINE) {
        if (nprocs > 1)
            return PMIX_ERR_BAD_PARAM;
        return spx_srv_grp_join_start(g, p, seq, id, op == SPX_GRP_OP_JOIN_ACCEPT,
                                      nprocs ? procs : NULL, info, ninfo);
    } else if (op == SPX_GRP_OP_LEAD || op == SPX_GRP_OP_NO_LEAD) {
        spx_srv_grp_vote(g, &p->proc, id, op == SPX_GRP_OP_LEAD, procs, nprocs);
        spx_srv_grp_reply(p, seq, PMIX_SUCCESS, NULL, 0);
        return PMIX_SUCCESS;
    } else if (op == SPX_GRP_OP_ANSWER_SEEN || op == SPX_GRP_OP_ABORT) {
        if (op == SPX_GRP_OP_ANSWER_SEEN)
            spx_srv_grp_answer_seen(g, &p->proc, id);
        else
            spx_srv_grp_abort(g, &p->proc, id, procs, nprocs);
        spx_srv_grp_reply(p, seq, PMIX_SUCCESS, NULL, 0);
        return PMIX_SUCCESS;
    } else if (op == SPX_GRP_OP_LEAVE) {
        pmix_status_t lrc = spx_srv_grp_leave(g, p, id);
        if (lrc == PMIX_SUCCESS)
            spx_srv_grp_reply(p, seq, PMIX_SUCCESS, NULL, 0);
        return lrc;
    } else if (op == SPX_GRP_OP_DESTRUCT) {
        if (!r || !spx_srv_grp_has(r, &p->proc))
            return PMIX_ERR_NOT_FOUND;
        set = r->members; /* copied below: the answer may free r */
        nset = r->nmembers;
    } else {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return arrival_start(g, &p->proc, p, seq, NULL, op, id, set, nset, info, ninfo);
}

int spx_srv_handle_group(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    uint8_t op = spx_buf_pull_u8(b);
    char *id = spx_buf_pull_str(b);
    pmix_proc_t *procs = NULL;
    pmix_info_t *info = NULL;
    size_t nprocs = 0, ninfo = 0;
    int rc = -1;
    if (!spx_buf_failed(b) && spx_codec_pull_proc_array(b, &procs, &nprocs) == 0 &&
        spx_codec_pull_info_array(b, &info, &ninfo) == 0 && spx_buf_finish(b) == 0) {
        rc = 0;
        pmix_status_t st = group_start(p, seq, op, id ? id : "", procs, nprocs, info, ninfo);
        if (st != PMIX_SUCCESS)
            spx_srv_reply_status(p, SPX_MSG_GROUP, seq, st);
    }
    free(id);
    free(procs);
    spx_info_array_free(info, ninfo);
    return rc;
}

/* ---- the engine ---- */

static int grp_setup(struct spx_srv_ctx *ctx)
{
    struct spx_srv_grp *g = calloc(1, sizeof(*g));
    if (!g)
        return -1;
    g->ctx = ctx;
    LIST_INIT(&g->groups);
    LIST_INIT(&g->arrivals);
    LIST_INIT(&g->shms);
    LIST_INIT(&g->invites);
    LIST_INIT(&g->joins);
    LIST_INIT(&g->answers);
    TAILQ_INIT(&g->late);
    TAILQ_INIT(&g->selects);
    if (!(g->coll = spx_fence_engine_create(&coll_ops, g))) {
        free(g);
        return -1;
    }
    ctx->grp = g;
    return 0;
}

static void grp_teardown(struct spx_srv_ctx *ctx)
{
    struct spx_srv_grp *g = ctx->grp;
    if (!g)
        return;
    spx_srv_grp_invites_free(g);
    spx_fence_engine_t *e = g->coll;
    g->coll = NULL;
    spx_fence_engine_destroy(e); /* answers every arrival (op_reply needs g) */
    spx_srv_gshm_free_all(g);
    ctx->grp = NULL;
    while (!LIST_EMPTY(&g->groups))
        group_free(LIST_FIRST(&g->groups));
    free(g);
}

static void grp_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    if (!ctx->grp)
        return;
    if (lost)
        spx_srv_gshm_node_lost(ctx->grp);
    spx_srv_mn_fail_node_colls(ctx, ctx->grp->coll, node, lost);
    spx_srv_grp_invites_node_gone(ctx->grp, node);
}

bool spx_srv_group_notify_abort(struct spx_srv_ctx *ctx, const pmix_proc_t *from,
                                const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *id = spx_info_find(info, ninfo, PMIX_GROUP_ID);
    if (!ctx->grp || !id || id->value.type != PMIX_STRING || !id->value.data.string)
        return false;
    return spx_srv_grp_abort(ctx->grp, from, id->value.data.string, NULL, 0);
}

bool spx_srv_group_names(const struct spx_srv_ctx *ctx, const pmix_proc_t *range,
                         const pmix_proc_t *proc)
{
    if (!ctx->grp)
        return false;
    struct grp_record *r;
    LIST_FOREACH(r, &ctx->grp->groups, link) {
        if (strncmp(r->id, range->nspace, PMIX_MAX_NSLEN) != 0)
            continue;
        if (range->rank == PMIX_RANK_WILDCARD)
            return spx_srv_grp_has(r, proc);
        return range->rank < r->nmembers && r->members[range->rank].rank == proc->rank &&
               strncmp(r->members[range->rank].nspace, proc->nspace, PMIX_MAX_NSLEN) == 0;
    }
    return false;
}

char **spx_srv_group_ids(const struct spx_srv_ctx *ctx, size_t *n)
{
    size_t k = 0;
    const struct grp_record *r;
    *n = 0;
    if (ctx->grp)
        LIST_FOREACH(r, &ctx->grp->groups, link)
            k++;
    char **ids = calloc(k + 1, sizeof(*ids));
    if (!ids)
        return NULL;
    if (ctx->grp)
        LIST_FOREACH(r, &ctx->grp->groups, link)
            if ((ids[*n] = strdup(r->id)))
                (*n)++;
    return ids;
}

/* A member of groups with PMIX_GROUP_NOTIFY_TERMINATION died: this node's
 * other members of each hear PMIX_GROUP_MEMBER_FAILED (every node with
 * members does the same for its own, so nothing goes over the network). */
static void notify_termination(struct spx_srv_grp *g, const pmix_proc_t *proc)
{
    struct grp_record *r;
    LIST_FOREACH(r, &g->groups, link) {
        if (!r->notify_term || !spx_srv_grp_has(r, proc))
            continue;
        pmix_info_t info[4];
        pmix_data_array_t range = {.type = PMIX_PROC, .size = r->nmembers, .array = r->members};
        bool yes = true;
        PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
        PMIX_INFO_LOAD(&info[1], PMIX_GROUP_ID, r->id, PMIX_STRING);
        PMIX_INFO_LOAD(&info[2], PMIX_EVENT_AFFECTED_PROC, proc, PMIX_PROC);
        PMIX_INFO_LOAD(&info[3], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
        spx_srv_event_deliver(g->ctx, PMIX_GROUP_MEMBER_FAILED, proc, PMIX_RANGE_CUSTOM, info, 4,
                              NULL);
        for (size_t i = 0; i < 4; i++)
            PMIX_INFO_DESTRUCT(&info[i]);
    }
}

/* Is a member of r other than gone still a connected process of this node? */
static bool has_live_local(struct spx_srv_ctx *ctx, const struct grp_record *r,
                           const pmix_proc_t *gone)
{
    for (size_t i = 0; i < r->nmembers; i++) {
        const pmix_proc_t *m = &r->members[i];
        if (m->rank == gone->rank && strncmp(m->nspace, gone->nspace, PMIX_MAX_NSLEN) == 0)
            continue;
        struct spx_srv_client *cl = spx_srv_client_find(ctx, m->nspace, m->rank);
        if (cl && cl->peer && !cl->finalized)
            return true;
    }
    return false;
}

static bool set_has_proc(const pmix_proc_t *set, size_t nset, void *arg)
{
    return spx_fence_proc_in_set(arg, set, nset);
}

static void grp_proc_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool finalized)
{
    struct spx_srv_grp *g = ctx->grp;
    if (!g)
        return;
    spx_srv_gshm_proc_gone(g, proc); /* before the engine fails what waits for it */
    if (g->coll && !finalized) {
        /* every collective that names it fails on every node, also those
         * already with the tree: a member alone on its node that died before
         * it arrived leaves its node silent, so the others cannot complete */
        spx_fence_fail_if(g->coll, set_has_proc, (void *)proc, PMIX_ERR_PROC_ABORTED);
    } else if (g->coll) {
        spx_fence_proc_lost(g->coll, proc);
    }
    spx_srv_grp_invites_proc_gone(g, proc);
    if (!finalized)
        notify_termination(g, proc);
    /* a group none of whose members is here any more is forgotten here (a
     * record is kept only by nodes with members, so a remote death keeps it) */
    struct grp_record *r, *next;
    for (r = LIST_FIRST(&g->groups); r; r = next) {
        next = LIST_NEXT(r, link);
        if (spx_srv_grp_has(r, proc) && !has_live_local(ctx, r, proc))
            group_free(r);
    }
}

static void grp_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    if (!ctx->grp)
        return;
    spx_srv_grp_invites_nspace_gone(ctx->grp, nspace);
    spx_srv_gshm_nspace_gone(ctx->grp, nspace);
}

static void grp_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    (void)channel;
    if (ctx->grp)
        spx_srv_grp_recv(ctx->grp, from, b);
}

static int route_group_local(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    (void)seq; /* answered through the shared segment */
    return spx_srv_handle_group_local(p, b);
}

static const struct spx_srv_route group_routes[] = {
    {SPX_MSG_GROUP, false, spx_srv_handle_group},
    {SPX_MSG_GROUP_LOCAL, false, route_group_local},
    {0, false, NULL},
};

const struct spx_srv_engine_ops spx_srv_group_engine = {
    .name = "group",
    .routes = group_routes,
    .channels = SPX_SRV_CH_BIT(SPX_SRV_CH_GROUP),
    .setup = grp_setup,
    .recv = grp_recv,
    .teardown = grp_teardown,
    .node_gone = grp_node_gone,
    .proc_gone = grp_proc_gone,
    .nspace_gone = grp_nspace_gone,
};
