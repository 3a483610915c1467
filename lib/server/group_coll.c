/* group_coll.c - the construct and destruct collectives of the group engine
 * (group_int.h): a fence engine of their own (fence.h) whose ops are here,
 * over the net-ops seam through nodes.c, or handed to the host's `group`
 * upcall (group_host.c).
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
 * reply frames. A destruct is a collective without data; its answer
 * forgets the group.
 *
 * An arrival of the shared-memory construct (group_shm.c, which enters it
 * through spx_srv_grp_arrive) is answered there, through g->up.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_group.h"
#include "server/group_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/group.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"
#include "util/strhash.h"

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
        rc = spx_srv_mn_coll_for(ctx, spx_srv_group_coll_engine, key, set, nset, o->collect,
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
        g->up->gshm_socket_done(g, a->proc.nspace, k);
    }
    if (a->op == SPX_GRP_OP_CONSTRUCT && status == PMIX_SUCCESS &&
        (!r || !spx_srv_grp_has(r, &a->proc)))
        status = PMIX_ERR_NOT_FOUND; /* cannot happen: deliver made it */
    if (a->op == SPX_GRP_OP_CONSTRUCT && status == PMIX_ERR_PROC_ABORTED)
        status = PMIX_GROUP_CONSTRUCT_ABORT; /* a member died before the group formed */
    if (a->batch) { /* a shared-memory construct (group_shm.c) */
        bool ok = status == PMIX_SUCCESS;
        g->up->gshm_answer(g, a->batch, status, ok ? r->outcome : NULL, ok ? r->noutcome : 0);
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
            spx_srv_grp_record_free(r);
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

static void *op_timer_arm(double seconds, uint64_t id, void *arg)
{
    return spx_srv_fence_timer_arm(((struct spx_srv_grp *)arg)->ctx, spx_srv_group_coll_engine,
                                   seconds, id);
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

pmix_status_t spx_srv_grp_coll_create(struct spx_srv_grp *g)
{
    return (g->coll = spx_fence_engine_create(&coll_ops, g)) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

void spx_srv_grp_coll_destroy(struct spx_srv_grp *g)
{
    spx_fence_engine_t *e = g->coll;
    g->coll = NULL;
    spx_fence_engine_destroy(e); /* answers every arrival (op_reply needs g) */
}

/* ---- arrivals ---- */

pmix_status_t spx_srv_grp_arrival_start(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                        struct spx_srv_peer *p, uint32_t seq,
                                        struct spx_srv_gshm_batch *batch, uint8_t op,
                                        const char *id, const pmix_proc_t *set, size_t nset,
                                        const pmix_info_t *info, size_t ninfo)
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
    a->socket_whole =
        p && op == SPX_GRP_OP_CONSTRUCT && g->up->gshm_socket_start(g, proc, set, nset);
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
    return spx_srv_grp_arrival_start(g, proc, p, seq, batch, SPX_GRP_OP_CONSTRUCT, id, set, nset,
                                     info, ninfo);
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

static bool set_has_proc(const pmix_proc_t *set, size_t nset, void *arg)
{
    return spx_fence_proc_in_set(arg, set, nset);
}

void spx_srv_grp_coll_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc, bool finalized)
{
    if (g->coll && !finalized) {
        /* every collective that names it fails on every node, also those
         * already with the tree: a member alone on its node that died before
         * it arrived leaves its node silent, so the others cannot complete */
        spx_fence_fail_if(g->coll, set_has_proc, (void *)proc, PMIX_ERR_PROC_ABORTED);
    } else if (g->coll) {
        spx_fence_proc_lost(g->coll, proc);
    }
}
