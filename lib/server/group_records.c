/* group_records.c - the lowest file of the group engine (group_int.h): the
 * groups this node knows (struct grp_record: constructed with a member here,
 * not destructed or forgotten), the context ids it hands out, and what every
 * other file of the engine builds on - a set of processes expanded, a
 * member's MEMBER item, applying an outcome, the reply to a GROUP request, a
 * group event. It calls no other file of the engine.
 *
 * Also the engine's answers to the rest of the server about its groups
 * (engine_group.h: spx_srv_group_names, spx_srv_group_ids), what a process's
 * going away does to the groups it was in, and PMIx_Group_leave.
 * Everything runs on the progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_group.h"
#include "server/engine_events.h"
#include "server/group_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/group.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "types/types.h"
#include "util/log.h"

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

void spx_srv_grp_record_free(struct grp_record *r)
{
    LIST_REMOVE(r, link);
    free(r->members);
    free(r->outcome);
    free(r);
}

void spx_srv_grp_records_free(struct spx_srv_grp *g)
{
    while (!LIST_EMPTY(&g->groups))
        spx_srv_grp_record_free(LIST_FIRST(&g->groups));
}

struct spx_fence_engine *spx_srv_group_coll_engine(struct spx_srv_ctx *ctx)
{
    return ctx->grp ? ctx->grp->coll : NULL;
}

/* ---- what a member brings and what a construct gives ---- */

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
            spx_srv_grp_record_free(old);
        LIST_INSERT_HEAD(&g->groups, r, link);
        spx_debug("group %s: constructed, %zu members, context id %s%llu", r->id, r->nmembers,
                  r->have_cid ? "" : "none ", (unsigned long long)r->cid);
        if (out)
            *out = r;
    }
    spx_grp_outcome_fini(&o);
    return rc;
}

/* ---- replies and events ---- */

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

/* ---- sets of processes ---- */

pmix_status_t spx_srv_grp_expand_procs(struct spx_srv_ctx *ctx, const pmix_proc_t *leader,
                                       const pmix_proc_t *procs, size_t nprocs,
                                       pmix_proc_t **out, size_t *nout)
{
    size_t n = 0, cap = 0;
    pmix_proc_t *res = NULL;
    for (size_t i = 0; i < nprocs; i++) {
        size_t first = procs[i].rank, count = 1;
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            struct spx_srv_ns *ns = spx_srv_ns_find(ctx, procs[i].nspace);
            const pmix_value_t *v = ns ? spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD,
                                                        PMIX_JOB_SIZE, NULL)
                                       : NULL;
            if (!v || v->type != PMIX_UINT32) {
                free(res);
                return PMIX_ERR_BAD_PARAM; /* a namespace this server does not know */
            }
            first = 0;
            count = v->data.uint32;
        } else if (procs[i].rank >= PMIX_RANK_VALID) {
            free(res);
            return PMIX_ERR_BAD_PARAM;
        }
        if (count > SPX_GRP_MAX_MEMBERS || n + count > SPX_GRP_MAX_MEMBERS) {
            free(res);
            return PMIX_ERR_BAD_PARAM;
        }
        if (n + count > cap) {
            size_t nc = 2 * (n + count);
            pmix_proc_t *p = realloc(res, nc * sizeof(*p));
            if (!p) {
                free(res);
                return PMIX_ERR_NOMEM;
            }
            res = p;
            cap = nc;
        }
        for (size_t k = 0; k < count; k++)
            spx_proc_load(&res[n++], procs[i].nspace, (pmix_rank_t)(first + k));
    }
    if (n)
        qsort(res, n, sizeof(*res), grp_proc_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!grp_proc_eq(&res[i], leader) && (m == 0 || !grp_proc_eq(&res[m - 1], &res[i])))
            res[m++] = res[i];
    *out = res;
    *nout = m;
    return PMIX_SUCCESS;
}

pmix_status_t spx_srv_grp_lowest(struct spx_srv_ctx *ctx, const pmix_proc_t *procs, size_t n,
                                 pmix_proc_t *low)
{
    pmix_proc_t none, *all = NULL;
    size_t nall = 0;
    memset(&none, 0, sizeof(none));
    pmix_status_t rc = spx_srv_grp_expand_procs(ctx, &none, procs, n, &all, &nall);
    if (rc == PMIX_SUCCESS && nall == 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS)
        *low = all[0]; /* sorted */
    free(all);
    return rc;
}

/* ---- what the rest of the server asks about the groups ---- */

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

/* ---- a process went away, a member leaves ---- */

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

void spx_srv_grp_records_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                   bool finalized)
{
    if (!finalized)
        notify_termination(g, proc);
    /* a group none of whose members is here any more is forgotten here (a
     * record is kept only by nodes with members, so a remote death keeps it) */
    struct grp_record *r, *next;
    for (r = LIST_FIRST(&g->groups); r; r = next) {
        next = LIST_NEXT(r, link);
        if (spx_srv_grp_has(r, proc) && !has_live_local(g->ctx, r, proc))
            spx_srv_grp_record_free(r);
    }
}

pmix_status_t spx_srv_grp_leave(struct spx_srv_grp *g, struct spx_srv_peer *p, const char *id)
{
    struct grp_record *r = spx_srv_grp_find(g, id);
    if (!r || !spx_srv_grp_has(r, &p->proc))
        return PMIX_ERR_NOT_FOUND;
    size_t k = 0;
    for (size_t i = 0; i < r->nmembers; i++)
        if (!grp_proc_eq(&r->members[i], &p->proc))
            r->members[k++] = r->members[i];
    r->nmembers = k;
    pmix_info_t aff;
    PMIX_INFO_LOAD(&aff, PMIX_EVENT_AFFECTED_PROC, &p->proc, PMIX_PROC);
    if (k)
        spx_srv_grp_event(g->ctx, PMIX_GROUP_LEFT, &p->proc, r->members, k, id, &aff, 1);
    PMIX_INFO_DESTRUCT(&aff);
    return PMIX_SUCCESS;
}
