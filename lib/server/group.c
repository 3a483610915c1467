/* group.c - the group engine (engine_group.h): its ops (setup, teardown,
 * the losses of nodes, processes and namespaces, the group channel), the
 * GROUP requests of local clients, sent on to the file that runs each, and
 * the calls that go up from the engine's lower files (struct
 * spx_srv_grp_upcalls). The files below it are listed in group_int.h.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_group.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "proto/group.h"
#include "proto/msg.h"
#include "types/types.h"

/* ---- GROUP requests ---- */

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

/* Starts p's GROUP request op in the file that runs it (a construct or
 * destruct: group_coll.c); status to reply at once, or PMIX_SUCCESS. */
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
    return spx_srv_grp_arrival_start(g, &p->proc, p, seq, NULL, op, id, set, nset, info,
                                     ninfo);
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

/* The calls of the lower files that go up (group_int.h). */
static const struct spx_srv_grp_upcalls upcalls = {
    .answer_recv = spx_srv_grp_answer_recv,
    .done_recv = spx_srv_grp_done_recv,
    .vote_recv = spx_srv_grp_vote_recv,
    .watch_recv = spx_srv_grp_watch_recv,
    .gshm_socket_start = spx_srv_gshm_socket_start,
    .gshm_socket_done = spx_srv_gshm_socket_done,
    .gshm_answer = spx_srv_gshm_answer,
};

static int grp_setup(struct spx_srv_ctx *ctx)
{
    struct spx_srv_grp *g = calloc(1, sizeof(*g));
    if (!g)
        return -1;
    g->ctx = ctx;
    g->up = &upcalls;
    LIST_INIT(&g->groups);
    LIST_INIT(&g->arrivals);
    LIST_INIT(&g->shms);
    LIST_INIT(&g->invites);
    LIST_INIT(&g->joins);
    LIST_INIT(&g->answers);
    TAILQ_INIT(&g->late);
    TAILQ_INIT(&g->selects);
    if (spx_srv_grp_coll_create(g) != PMIX_SUCCESS) {
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
    spx_srv_grp_watch_nspace_gone(g, NULL);
    spx_srv_grp_invites_free(g);
    spx_srv_grp_joins_free(g);
    spx_srv_grp_votes_free(g);
    spx_srv_grp_coll_destroy(g);
    spx_srv_gshm_free_all(g);
    ctx->grp = NULL;
    spx_srv_grp_records_free(g);
    free(g);
}

static void grp_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    if (!ctx->grp)
        return;
    if (lost)
        spx_srv_gshm_node_lost(ctx->grp);
    spx_srv_mn_fail_node_colls(ctx, ctx->grp->coll, node, lost);
    spx_srv_grp_watch_node_gone(ctx->grp, node);
    spx_srv_grp_invites_node_gone(ctx->grp, node);
    spx_srv_grp_joins_node_gone(ctx->grp, node);
}

bool spx_srv_group_notify_abort(struct spx_srv_ctx *ctx, const pmix_proc_t *from,
                                const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *id = spx_info_find(info, ninfo, PMIX_GROUP_ID);
    if (!ctx->grp || !id || id->value.type != PMIX_STRING || !id->value.data.string)
        return false;
    return spx_srv_grp_abort(ctx->grp, from, id->value.data.string, NULL, 0);
}

static void grp_proc_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool finalized)
{
    struct spx_srv_grp *g = ctx->grp;
    if (!g)
        return;
    spx_srv_gshm_proc_gone(g, proc); /* before the engine fails what waits for it */
    spx_srv_grp_coll_proc_gone(g, proc, finalized);
    spx_srv_grp_watch_proc_gone(g, proc);
    spx_srv_grp_invites_proc_gone(g, proc);
    spx_srv_grp_joins_proc_gone(g, proc);
    spx_srv_grp_records_proc_gone(g, proc, finalized);
}

static void grp_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    if (!ctx->grp)
        return;
    spx_srv_grp_watch_nspace_gone(ctx->grp, nspace);
    spx_srv_grp_joins_nspace_gone(ctx->grp, nspace);
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
