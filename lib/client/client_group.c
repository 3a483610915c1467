/* client_group.c - PMIx groups on the client side: PMIx_Group_construct,
 * _destruct, _invite, _join and _leave (each blocking and _nb), what a group
 * lets a member do afterwards, and PMIx_Connect / PMIx_Disconnect (a
 * construct / destruct of a group named after the set of processes).
 *
 * Each call is one GROUP request (proto/msg.h); the server runs the
 * collective over the members' nodes, or the invitation on the leader's node
 * (lib/server/group.c, group_invite.c). The reply to a construct, an invite
 * and an accepted join (once the leader's invitation resolved) carries the
 * outcome (proto/group.h): every member's group info and endpoint data and
 * the context id. A decline, or an accept that names no leader, is answered
 * at once with empty results. This process keeps, until
 * PMIx_Finalize:
 *   - each live group it is in: its id and sorted membership, so that a group
 *     id works as a namespace - (group id, r) is the r-th member and
 *     (group id, WILDCARD) all of them, in PMIx_Fence and PMIx_Get;
 *   - each group's info per member under its context id, also after the
 *     destruct (Open MPI reads a peer's PMIX_GROUP_LOCAL_CID by context id
 *     after destructing the group it came from): a PMIx_Get qualified with
 *     PMIX_GROUP_CONTEXT_ID is answered from it, and a miss there is final;
 *   - the endpoint data (PMIX_REMOTE and PMIX_GLOBAL) of every other
 *     member, this node's included (the group exchanged it, so a member's
 *     PMIX_REMOTE key is readable by its node's members too, as the spec of
 *     PMIx_Group_join says), put into the cache of fetched values (client.h)
 *     at the first look-up of that member (spx_client_group_apply_pending,
 *     from the Get path: before any value of it is fetched, so a fetched
 *     value is never overwritten by older construct data), so that a
 *     PMIx_Get of it needs no message; not applied at the construct itself,
 *     which every member would pay for whether it reads it or not. A local
 *     member's cached values go when it commits again (client_kv.c).
 *     Like every cached value it is dropped by the next collecting fence
 *     (what was not applied yet with it), after which the server (which
 *     applied the same data) answers; a destruct drops what was not applied.
 * All of it is guarded by spx_client.lock. Results of a construct, an
 * invite or a join: PMIX_GROUP_ID, PMIX_GROUP_MEMBERSHIP and, when a member
 * asked for one (PMIX_GROUP_ASSIGN_CONTEXT_ID), PMIX_GROUP_CONTEXT_ID.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/group.h"
#include "proto/group_shm.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/strhash.h"

/* A group this process was in at its construct. */
struct cgroup {
    TAILQ_ENTRY(cgroup) link;       /* in groups: live ones first */
    bool live;                  /* not destructed yet */
    spx_grp_outcome_t o;        /* id, members, their group info, context id */
    uint8_t *bytes;             /* what o's records point into (owned) */
};

static TAILQ_HEAD(, cgroup) groups = TAILQ_HEAD_INITIALIZER(groups); /* guarded by spx_client.lock */
static void cgroup_free(struct cgroup *g)
{
    spx_grp_outcome_fini(&g->o);
    free(g->bytes);
    free(g);
}

/* Members whose endpoint data waits to be put into the cache (atomic, so
 * that a Get looks for it only when there is some). */
static unsigned long npending;

/* Called with the lock held: m's data no longer waits. */
static void drop_pending(spx_grp_member_t *m)
{
    if (m->records) {
        m->records = NULL;
        m->nrecords = 0;
        __atomic_sub_fetch(&npending, 1, __ATOMIC_RELEASE);
    }
}

/* The members' group info (still encoded) moves out of the outcome's bytes
 * into a buffer of its own, and the rest (endpoint data) is freed. */
static void keep_only_info(struct cgroup *g)
{
    size_t total = 0;
    for (size_t i = 0; i < g->o.n; i++)
        total += g->o.m[i].ninfo_bytes;
    uint8_t *keep = total ? malloc(total) : NULL;
    size_t at = 0;
    for (size_t i = 0; i < g->o.n; i++) {
        spx_grp_member_t *m = &g->o.m[i];
        if (!m->ninfo_bytes)
            continue;
        if (!keep) { /* no memory: decode it now instead */
            spx_grp_member_info(m);
            continue;
        }
        memcpy(keep + at, m->info_bytes, m->ninfo_bytes);
        m->info_bytes = keep + at;
        at += m->ninfo_bytes;
    }
    free(g->bytes);
    g->bytes = keep;
}

/* Live groups in the list, also read without the lock (atomics): Fence and
 * Get look for group ids only when there is one, so that they cost nothing
 * otherwise (a fence on one node takes well under a microsecond). */
static unsigned long nlive;

/* Called with the lock held, g in the list. A group that stops being live
 * goes to the back and keeps only what a Get by context id reads (its
 * members' group info): the endpoint data went into the cache already. */
static void set_live(struct cgroup *g, bool live)
{
    if (g->live != live)
        __atomic_add_fetch(&nlive, live ? 1 : (unsigned long)-1, __ATOMIC_RELEASE);
    g->live = live;
    if (!live) {
        for (size_t i = 0; i < g->o.n; i++)
            drop_pending(&g->o.m[i]);
        keep_only_info(g);
        TAILQ_REMOVE(&groups, g, link);
        if (g->o.have_cid) /* read by context id later */
            TAILQ_INSERT_TAIL(&groups, g, link);
        else
            cgroup_free(g);
    }
}

bool spx_client_group_apply_pending(const char *nspace, pmix_rank_t rank)
{
    if (__atomic_load_n(&npending, __ATOMIC_ACQUIRE) == 0 || rank == PMIX_RANK_WILDCARD)
        return false;
    bool applied = false;
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace, rank);
    struct cgroup *g;
    TAILQ_FOREACH(g, &groups, link) {
        if (!g->live)
            break;
        long i = spx_grp_outcome_find(&g->o, &proc);
        if (i < 0)
            continue;
        spx_grp_member_t *m = &g->o.m[i];
        if (!m->records)
            continue;
        spx_buf_t b;
        spx_buf_init_borrowed(&b, m->records, m->nrecords);
        if (spx_client.cache && spx_records_apply(&b, spx_client.cache, NULL, NULL) != 0)
            spx_warn("group %s: malformed endpoint data of a member ignored", g->o.grp);
        spx_buf_fini(&b);
        drop_pending(m);
        applied = true;
    }
    return applied;
}

void spx_client_group_drop_pending(void)
{
    if (__atomic_load_n(&npending, __ATOMIC_ACQUIRE) == 0)
        return;
    struct cgroup *g;
    TAILQ_FOREACH(g, &groups, link) {
        if (!g->live)
            break;
        for (size_t i = 0; i < g->o.n; i++)
            drop_pending(&g->o.m[i]);
    }
}

static bool any_live(void)
{
    return __atomic_load_n(&nlive, __ATOMIC_ACQUIRE) != 0;
}


/* Called with the lock held. Live groups are kept at the front of the list
 * (set_live moves them), so the walk stops at the first dead one. */
static struct cgroup *live_group(const char *id)
{
    struct cgroup *g;
    TAILQ_FOREACH(g, &groups, link) {
        if (!g->live)
            return NULL;
        if (strncmp(g->o.grp, id, PMIX_MAX_NSLEN) == 0)
            return g;
    }
    return NULL;
}

void spx_client_groups_clear(void)
{
    pthread_mutex_lock(&spx_client.lock);
    while (!TAILQ_EMPTY(&groups)) {
        struct cgroup *g = TAILQ_FIRST(&groups);
        TAILQ_REMOVE(&groups, g, link);
        if (g->live)
            __atomic_sub_fetch(&nlive, 1, __ATOMIC_RELEASE);
        for (size_t i = 0; i < g->o.n; i++)
            drop_pending(&g->o.m[i]);
        cgroup_free(g);
    }
    pthread_mutex_unlock(&spx_client.lock);
}

pmix_status_t spx_client_group_expand(const pmix_proc_t *procs, size_t n, pmix_proc_t **out,
                                      size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!any_live())
        return PMIX_SUCCESS;
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&spx_client.lock);
    bool any = false;
    for (size_t i = 0; i < n && !any; i++)
        any = live_group(procs[i].nspace) != NULL;
    size_t cap = 0, k = 0;
    pmix_proc_t *res = NULL;
    for (size_t i = 0; any && i < n && rc == PMIX_SUCCESS; i++) {
        struct cgroup *g = live_group(procs[i].nspace);
        size_t add = !g ? 1 : procs[i].rank == PMIX_RANK_WILDCARD ? g->o.n : 1;
        if (k + add > cap) {
            size_t nc = (k + add) * 2;
            pmix_proc_t *p = realloc(res, nc * sizeof(*p));
            if (!p) {
                rc = PMIX_ERR_NOMEM;
                break;
            }
            res = p;
            cap = nc;
        }
        if (!g)
            res[k++] = procs[i];
        else if (procs[i].rank == PMIX_RANK_WILDCARD)
            for (size_t m = 0; m < g->o.n; m++)
                res[k++] = g->o.m[m].proc;
        else if (procs[i].rank < g->o.n)
            res[k++] = g->o.m[procs[i].rank].proc;
        else
            rc = PMIX_ERR_BAD_PARAM; /* no such member */
    }
    pthread_mutex_unlock(&spx_client.lock);
    if (rc != PMIX_SUCCESS) {
        free(res);
        return rc;
    }
    *out = res;
    *nout = k;
    return PMIX_SUCCESS;
}

pmix_status_t spx_client_group_map(pmix_proc_t *p)
{
    if (!any_live())
        return PMIX_SUCCESS;
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&spx_client.lock);
    struct cgroup *g = live_group(p->nspace);
    if (g) {
        if (p->rank < g->o.n)
            *p = g->o.m[p->rank].proc;
        else
            rc = PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_unlock(&spx_client.lock);
    return rc;
}

bool spx_client_group_qualifier(const pmix_info_t *info, size_t ninfo, uint64_t *cid)
{
    const pmix_info_t *q = spx_info_find(info, ninfo, PMIX_GROUP_CONTEXT_ID);
    if (!q)
        return false;
    uint64_t v = 0;
    switch (q->value.type) {
    case PMIX_SIZE: v = q->value.data.size; break;
    case PMIX_UINT64: v = q->value.data.uint64; break;
    case PMIX_UINT32: v = q->value.data.uint32; break;
    case PMIX_INT: v = q->value.data.integer < 0 ? 0 : (uint64_t)q->value.data.integer; break;
    default: v = 0; break;
    }
    *cid = v;
    return true;
}

/* Called with the lock held. */
const pmix_value_t *spx_client_group_lookup(uint64_t cid, const pmix_proc_t *p, const char *key)
{
    struct cgroup *g;
    TAILQ_FOREACH(g, &groups, link) {
        if (!g->o.have_cid || g->o.cid != cid)
            continue;
        long i = spx_grp_outcome_find(&g->o, p);
        if (i < 0)
            return NULL;
        spx_grp_member_t *m = &g->o.m[i];
        if (spx_grp_member_info(m) != 0)
            spx_warn("group %s: malformed group info of a member ignored", g->o.grp);
        for (size_t k = 0; k < m->ninfo; k++)
            if (spx_key_eq(m->info[k].key, key))
                return &m->info[k].value;
        return NULL;
    }
    return NULL;
}

/* ---- construct / destruct ---- */

struct grp_req {
    uint8_t op;
    char id[PMIX_MAX_NSLEN + 1];
    pmix_info_cbfunc_t info_cb;   /* construct */
    pmix_op_cbfunc_t op_cb;       /* destruct */
    void *cbdata;
};

struct results {
    pmix_info_t *info;
    size_t n;
};

static void results_release(void *arg)
{
    struct results *r = arg;
    spx_info_array_free(r->info, r->n);
    free(r);
}

/* The results of a construct (malloc'd; caller frees with spx_info_array_free). */
static pmix_status_t make_results(const spx_grp_outcome_t *o, pmix_info_t **out, size_t *n)
{
    pmix_info_t *info = calloc(3, sizeof(*info));
    pmix_proc_t *members = malloc(o->n * sizeof(*members));
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (!info || !members || !da) {
        free(info);
        free(members);
        free(da);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < o->n; i++)
        members[i] = o->m[i].proc;
    da->type = PMIX_PROC;
    da->size = o->n;
    da->array = members;
    size_t k = 0;
    PMIX_INFO_LOAD(&info[k], PMIX_GROUP_ID, o->grp, PMIX_STRING);
    k++;
    PMIX_LOAD_KEY(info[k].key, PMIX_GROUP_MEMBERSHIP);
    info[k].value.type = PMIX_DATA_ARRAY;
    info[k].value.data.darray = da;
    k++;
    if (o->want_cid && o->have_cid) {
        size_t cid = (size_t)o->cid;
        PMIX_INFO_LOAD(&info[k], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
        k++;
    }
    *out = info;
    *n = k;
    return PMIX_SUCCESS;
}

/* Keeps the outcome (bytes taken) and caches the other members' endpoint
 * data. An outcome this process is not a member of (it invited others into
 * a group it does not join) is not kept: then *unkept gets the bytes, and
 * the caller frees them and *o once it has read o. */
static pmix_status_t absorb(uint8_t *bytes, size_t n, spx_grp_outcome_t *o, uint8_t **unkept)
{
    *unkept = NULL;
    if (spx_grp_outcome_parse(bytes, n, o) != 0) {
        free(bytes);
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (spx_grp_outcome_find(o, &spx_client.myproc) < 0) {
        *unkept = bytes;
        return PMIX_SUCCESS;
    }
    struct cgroup *g = calloc(1, sizeof(*g));
    if (!g) {
        spx_grp_outcome_fini(o);
        free(bytes);
        return PMIX_ERR_NOMEM;
    }
    g->o = *o;
    g->bytes = bytes;
    pthread_mutex_lock(&spx_client.lock);
    struct cgroup *old = live_group(o->grp);
    if (old)
        set_live(old, false); /* may free it */
    for (size_t i = 0; i < g->o.n; i++) {
        /* every other member's data (PMIX_REMOTE and PMIX_GLOBAL, also of
         * this node's members: the group exchanged it) waits for its first
         * look-up; this process's own is in its own store */
        if (!spx_client.cache ||
            (PMIX_CHECK_NSPACE(g->o.m[i].proc.nspace, spx_client.myproc.nspace) &&
             g->o.m[i].proc.rank == spx_client.myproc.rank)) {
            g->o.m[i].records = NULL;
            g->o.m[i].nrecords = 0;
        } else {
            __atomic_add_fetch(&npending, 1, __ATOMIC_RELEASE);
        }
    }
    TAILQ_INSERT_HEAD(&groups, g, link);
    set_live(g, true);
    pthread_mutex_unlock(&spx_client.lock);
    return PMIX_SUCCESS;
}

pmix_status_t spx_client_group_take_outcome(uint8_t *bytes, size_t n, pmix_info_t **results,
                                            size_t *nresults)
{
    spx_grp_outcome_t o;
    uint8_t *unkept;
    pmix_status_t rc = absorb(bytes, n, &o, &unkept); /* bytes taken */
    pmix_info_t *info = NULL;
    size_t k = 0;
    if (rc == PMIX_SUCCESS)
        rc = make_results(&o, &info, &k);
    if (unkept) {
        spx_grp_outcome_fini(&o);
        free(unkept);
    }
    if (rc == PMIX_SUCCESS && results && nresults) {
        *results = info;
        *nresults = k;
    } else {
        spx_info_array_free(info, k);
    }
    return rc;
}

static void group_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct grp_req *r = arg;
    uint8_t *bytes = NULL;
    size_t n = 0;
    bool need = r->op == SPX_GRP_OP_CONSTRUCT || r->op == SPX_GRP_OP_INVITE;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (status == PMIX_SUCCESS && spx_buf_remaining(payload) > 0)
            bytes = spx_buf_pull_bytes(payload, &n);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0 ||
            (status == PMIX_SUCCESS && need && !bytes)) {
            spx_client_conn_fail("malformed GROUP reply");
            status = PMIX_ERR_UNPACK_FAILURE;
            free(bytes);
            bytes = NULL;
        }
    }
    if (r->op == SPX_GRP_OP_DESTRUCT || r->op == SPX_GRP_OP_LEAVE) {
        free(bytes);
        if (status == PMIX_SUCCESS) {
            pthread_mutex_lock(&spx_client.lock);
            struct cgroup *g = live_group(r->id);
            if (g)
                set_live(g, false); /* its info stays readable by context id */
            pthread_mutex_unlock(&spx_client.lock);
        }
        if (r->op_cb)
            r->op_cb(status, r->cbdata);
        free(r);
        return;
    }
    struct results *res = NULL;
    if (status == PMIX_SUCCESS && bytes) {
        spx_grp_outcome_t o;
        uint8_t *unkept;
        status = absorb(bytes, n, &o, &unkept); /* bytes taken */
        if (status == PMIX_SUCCESS && !(res = calloc(1, sizeof(*res))))
            status = PMIX_ERR_NOMEM;
        if (status == PMIX_SUCCESS)
            status = make_results(&o, &res->info, &res->n);
        if (unkept) {
            spx_grp_outcome_fini(&o);
            free(unkept);
        }
        if (status != PMIX_SUCCESS) {
            free(res);
            res = NULL;
        }
    }
    if (!r->info_cb) { /* no callback: the outcome is absorbed, events tell the rest */
        if (res)
            results_release(res);
    } else if (res) {
        r->info_cb(status, res->info, res->n, r->cbdata, results_release, res);
    } else {
        r->info_cb(status, NULL, 0, r->cbdata, NULL, NULL);
    }
    free(r);
}

/* The directives each operation honours (client and server together); a
 * PMIX_INFO_REQD one outside its list refuses the call (types/directives.c). */
static const char *const construct_directives[] = {
    PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_INFO, PMIX_TIMEOUT, PMIX_GROUP_NOTIFY_TERMINATION,
    PMIX_GROUP_LOCAL_ONLY, PMIX_GROUP_OPTIONAL, PMIX_GROUP_FT_COLLECTIVE, PMIX_GROUP_ADD_MEMBERS,
    NULL};
static const char *const invite_directives[] = {
    PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_INFO, PMIX_TIMEOUT, PMIX_GROUP_NOTIFY_TERMINATION,
    PMIX_GROUP_OPTIONAL, NULL};
static const char *const destruct_directives[] = {PMIX_TIMEOUT, NULL};
static const char *const no_directives[] = {NULL};

static const char *const *honoured(uint8_t op, const char **name)
{
    switch (op) {
    case SPX_GRP_OP_CONSTRUCT: *name = "PMIx_Group_construct"; return construct_directives;
    case SPX_GRP_OP_INVITE: *name = "PMIx_Group_invite"; return invite_directives;
    case SPX_GRP_OP_JOIN_ACCEPT:
    case SPX_GRP_OP_JOIN_DECLINE: *name = "PMIx_Group_join"; return construct_directives;
    case SPX_GRP_OP_DESTRUCT: *name = "PMIx_Group_destruct"; return destruct_directives;
    default: *name = "PMIx_Group_leave"; return no_directives;
    }
}

static pmix_status_t group_send(uint8_t op, const char grp[], const pmix_proc_t procs[],
                                size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                pmix_info_cbfunc_t info_cb, pmix_op_cbfunc_t op_cb, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    const char *name;
    const char *const *known = honoured(op, &name);
    pmix_status_t drc = info ? spx_directives_check(name, info, ninfo, known) : PMIX_SUCCESS;
    if (drc != PMIX_SUCCESS)
        return drc;
    if (!grp || !grp[0] || strnlen(grp, PMIX_MAX_NSLEN + 1) > PMIX_MAX_NSLEN ||
        (ninfo && !info) ||
        ((op == SPX_GRP_OP_CONSTRUCT || op == SPX_GRP_OP_INVITE) && (!procs || nprocs == 0)))
        return PMIX_ERR_BAD_PARAM;
    if (spx_client.singleton)
        return PMIX_ERR_NOT_SUPPORTED; /* no server to run the collective */
    struct grp_req *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    r->op = op;
    memcpy(r->id, grp, strlen(grp) + 1);
    r->info_cb = info_cb;
    r->op_cb = op_cb;
    r->cbdata = cbdata;
    pmix_proc_t *expanded = NULL;
    size_t nexp = 0;
    pmix_status_t rc = op == SPX_GRP_OP_CONSTRUCT || op == SPX_GRP_OP_INVITE
                           ? spx_client_group_expand(procs, nprocs, &expanded, &nexp)
                           : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) {
        free(r);
        return rc;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, op);
    spx_buf_push_str(&b, grp);
    if (expanded)
        spx_codec_push_proc_array(&b, expanded, nexp);
    else
        spx_codec_push_proc_array(&b, procs, procs ? nprocs : 0);
    spx_codec_push_info_array(&b, info, ninfo);
    free(expanded);
    rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                            : spx_client_request(SPX_MSG_GROUP, &b, group_reply, r);
    spx_buf_fini(&b);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[],
                                                 size_t nprocs, const pmix_info_t info[],
                                                 size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                                 void *cbdata)
{
    /* cbfunc may be NULL: the outcome then comes only through events */
    return group_send(SPX_GRP_OP_CONSTRUCT, grp, procs, nprocs, info, ninfo, cbfunc, NULL,
                      cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t info[],
                                                size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                                void *cbdata)
{
    /* cbfunc may be NULL (fire and forget) */
    return group_send(SPX_GRP_OP_DESTRUCT, grp, NULL, 0, info, ninfo, NULL, cbfunc, cbdata);
}

struct info_wait {
    spx_wait_t wait;
    pmix_info_t *results;       /* copy handed to the caller */
    size_t nresults;
};

static void info_wait_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct info_wait *w = cbdata;
    if (status == PMIX_SUCCESS && ninfo > 0 &&
        spx_info_array_dup(&w->results, info, ninfo) == PMIX_SUCCESS)
        w->nresults = ninfo;
    else if (status == PMIX_SUCCESS && ninfo > 0)
        status = PMIX_ERR_NOMEM;
    if (release_fn)
        release_fn(release_cbdata);
    spx_wait_signal(&w->wait, status);
}

static pmix_status_t info_op_block(const char *name, uint8_t op, const char grp[],
                                   const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_info_t **results,
                                   size_t *nresults);

static void op_wait_cb(pmix_status_t status, void *cbdata)
{
    spx_wait_signal(cbdata, status);
}

SPX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[],
                                              size_t nprocs, const pmix_info_t directives[],
                                              size_t ndirs, pmix_info_t **results,
                                              size_t *nresults)
{
    return info_op_block("PMIx_Group_construct", SPX_GRP_OP_CONSTRUCT, grp, procs, nprocs,
                         directives, ndirs, results, nresults);
}

/* The blocking form of an operation without results. */
static pmix_status_t op_block(const char *name, uint8_t op, const char grp[],
                              const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = spx_progress_guard(name);
    if (rc != PMIX_SUCCESS)
        return rc;
    spx_wait_t w;
    spx_wait_init(&w);
    rc = group_send(op, grp, NULL, 0, info, ninfo, NULL, op_wait_cb, &w);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&w);
    spx_wait_fini(&w);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t info[],
                                             size_t ninfo)
{
    return op_block("PMIx_Group_destruct", SPX_GRP_OP_DESTRUCT, grp, info, ninfo);
}

/* ---- invite / join / leave ---- */

SPX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[],
                                              size_t nprocs, const pmix_info_t info[],
                                              size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                              void *cbdata)
{
    if (!cbfunc)
        return PMIX_ERR_BAD_PARAM;
    return group_send(SPX_GRP_OP_INVITE, grp, procs, nprocs, info, ninfo, cbfunc, NULL, cbdata);
}

/* The leader as the request names it: none when NULL or without a namespace. */
static const pmix_proc_t *named_leader(const pmix_proc_t *leader)
{
    return leader && leader->nspace[0] ? leader : NULL;
}

SPX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t *leader,
                                            pmix_group_opt_t opt, const pmix_info_t info[],
                                            size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                            void *cbdata)
{
    /* cbfunc may be NULL: an invitee accepting from its PMIX_GROUP_INVITED
     * handler learns the outcome from PMIX_GROUP_CONSTRUCT_COMPLETE/_ABORT */
    if (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE)
        return PMIX_ERR_BAD_PARAM;
    const pmix_proc_t *l = named_leader(leader);
    return group_send(opt == PMIX_GROUP_ACCEPT ? SPX_GRP_OP_JOIN_ACCEPT : SPX_GRP_OP_JOIN_DECLINE,
                      grp, l, l ? 1 : 0, info, ninfo, cbfunc, NULL, cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t info[],
                                             size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    /* cbfunc may be NULL (fire and forget) */
    return group_send(SPX_GRP_OP_LEAVE, grp, NULL, 0, info, ninfo, NULL, cbfunc, cbdata);
}

/* The blocking form of an operation with results. */
static pmix_status_t info_op_block(const char *name, uint8_t op, const char grp[],
                                   const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_info_t **results,
                                   size_t *nresults)
{
    if (results)
        *results = NULL;
    if (nresults)
        *nresults = 0;
    pmix_status_t rc = spx_progress_guard(name);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (op == SPX_GRP_OP_CONSTRUCT && spx_client_initialized() && grp && grp[0] &&
        strnlen(grp, PMIX_MAX_NSLEN + 1) <= PMIX_MAX_NSLEN && procs && nprocs > 0 &&
        (info || ninfo == 0)) {
        /* the whole namespace: through shared memory when the server offers it */
        pmix_proc_t *expanded = NULL;
        size_t nexp = 0;
        if (spx_client_group_expand(procs, nprocs, &expanded, &nexp) == PMIX_SUCCESS) {
            uint8_t *outcome = NULL;
            size_t noutcome = 0;
            rc = expanded ? spx_client_group_construct_shm(grp, expanded, nexp, info, ninfo,
                                                           &outcome, &noutcome)
                          : spx_client_group_construct_shm(grp, procs, nprocs, info, ninfo,
                                                           &outcome, &noutcome);
            free(expanded);
            if (rc == PMIX_SUCCESS) /* outcome taken */
                return spx_client_group_take_outcome(outcome, noutcome, results, nresults);
            if (rc != SPX_GSHM_RETRY)
                return rc;
        }
    }
    struct info_wait w = {.results = NULL};
    spx_wait_init(&w.wait);
    rc = group_send(op, grp, procs, nprocs, info, ninfo, info_wait_cb, NULL, &w);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&w.wait);
    spx_wait_fini(&w.wait);
    if (rc == PMIX_SUCCESS && results && nresults) {
        *results = w.results;
        *nresults = w.nresults;
    } else {
        spx_info_array_free(w.results, w.nresults);
    }
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[],
                                           size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                           pmix_info_t **results, size_t *nresult)
{
    return info_op_block("PMIx_Group_invite", SPX_GRP_OP_INVITE, grp, procs, nprocs, info, ninfo,
                         results, nresult);
}

SPX_EXPORT pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t *leader,
                                         pmix_group_opt_t opt, const pmix_info_t info[],
                                         size_t ninfo, pmix_info_t **results, size_t *nresult)
{
    if (results)
        *results = NULL;
    if (nresult)
        *nresult = 0;
    if (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE)
        return PMIX_ERR_BAD_PARAM;
    const pmix_proc_t *l = named_leader(leader);
    return info_op_block("PMIx_Group_join",
                         opt == PMIX_GROUP_ACCEPT ? SPX_GRP_OP_JOIN_ACCEPT : SPX_GRP_OP_JOIN_DECLINE,
                         grp, l, l ? 1 : 0, info, ninfo, results, nresult);
}

SPX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t info[],
                                          size_t ninfo)
{
    return op_block("PMIx_Group_leave", SPX_GRP_OP_LEAVE, grp, info, ninfo);
}

/* ---- PMIx_Connect / PMIx_Disconnect: a group named after its members ---- */

static int proc_order(const void *x, const void *y)
{
    const pmix_proc_t *a = x, *b = y;
    int c = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* The group id every participant derives from the same set of processes
 * (in any order): "spx.connect." and a 64-bit FNV-1a hash of the sorted,
 * deduplicated set (group ids expanded to their members first). */
static pmix_status_t connect_id(const pmix_proc_t procs[], size_t nprocs, char id[64])
{
    if (!procs || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_proc_t *set = NULL;
    size_t n = 0;
    pmix_status_t rc = spx_client_group_expand(procs, nprocs, &set, &n);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!set) {
        if (!(set = malloc(nprocs * sizeof(*set))))
            return PMIX_ERR_NOMEM;
        memcpy(set, procs, nprocs * sizeof(*set));
        n = nprocs;
    }
    qsort(set, n, sizeof(*set), proc_order);
    uint64_t h = SPX_STRHASH_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i && proc_order(&set[i - 1], &set[i]) == 0)
            continue;
        char one[PMIX_MAX_NSLEN + 16];
        int len = snprintf(one, sizeof(one), "%.*s:%u;", PMIX_MAX_NSLEN, set[i].nspace,
                           (unsigned)set[i].rank);
        h = spx_strhash_add(h, one, (size_t)len);
    }
    free(set);
    snprintf(id, 64, "spx.connect.%016llx", (unsigned long long)h);
    return PMIX_SUCCESS;
}

struct connect_req {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void connect_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    struct connect_req *c = cbdata;
    if (release_fn)
        release_fn(release_cbdata);
    c->cbfunc(status, c->cbdata);
    free(c);
}

SPX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                         const pmix_info_t info[], size_t ninfo,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char id[64];
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!cbfunc) /* fire and forget, as OpenPMIx allows */
        return group_send(SPX_GRP_OP_CONSTRUCT, id, procs, nprocs, info, ninfo, NULL, NULL,
                          NULL);
    struct connect_req *c = calloc(1, sizeof(*c));
    if (!c)
        return PMIX_ERR_NOMEM;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    rc = group_send(SPX_GRP_OP_CONSTRUCT, id, procs, nprocs, info, ninfo, connect_done, NULL, c);
    if (rc != PMIX_SUCCESS)
        free(c);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                      const pmix_info_t info[], size_t ninfo)
{
    char id[64];
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    return info_op_block("PMIx_Connect", SPX_GRP_OP_CONSTRUCT, id, procs, nprocs, info, ninfo,
                         NULL, NULL);
}

SPX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char id[64]; /* cbfunc may be NULL (fire and forget) */
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    return group_send(SPX_GRP_OP_DESTRUCT, id, NULL, 0, info, ninfo, NULL, cbfunc, cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                         const pmix_info_t info[], size_t ninfo)
{
    char id[64];
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    return op_block("PMIx_Disconnect", SPX_GRP_OP_DESTRUCT, id, info, ninfo);
}

/* ---- what the handlers of group events decided ---- */

static void ignore_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    (void)status;
    (void)payload;
    (void)arg;
}

void spx_client_group_event_done(pmix_status_t status, const pmix_proc_t *source,
                                 const pmix_info_t *info, size_t ninfo, bool abort, bool lead)
{
    uint8_t op;
    if (status == PMIX_GROUP_INVITE_ACCEPTED || status == PMIX_GROUP_INVITE_DECLINED)
        op = abort ? SPX_GRP_OP_ABORT : SPX_GRP_OP_ANSWER_SEEN;
    else if (status == PMIX_GROUP_LEADER_FAILED)
        op = abort ? SPX_GRP_OP_ABORT : lead ? SPX_GRP_OP_LEAD : SPX_GRP_OP_NO_LEAD;
    else
        return;
    const pmix_info_t *id = spx_info_find(info, ninfo, PMIX_GROUP_ID);
    if (!id || id->value.type != PMIX_STRING || !id->value.data.string || spx_client.singleton)
        return;
    /* after a leader failure, the participants are the event's custom range;
     * a selection message names the failed leader (the source) first */
    const pmix_proc_t *procs = NULL;
    size_t nprocs = 0;
    const pmix_info_t *range = spx_info_find(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
    if (status == PMIX_GROUP_LEADER_FAILED && range && range->value.type == PMIX_DATA_ARRAY &&
        range->value.data.darray && range->value.data.darray->type == PMIX_PROC) {
        procs = range->value.data.darray->array;
        nprocs = range->value.data.darray->size;
    }
    pmix_proc_t *sel = NULL;
    if (op == SPX_GRP_OP_LEAD || op == SPX_GRP_OP_NO_LEAD) {
        if (!source || !(sel = malloc((nprocs + 1) * sizeof(*sel))))
            return;
        sel[0] = *source;
        if (nprocs)
            memcpy(sel + 1, procs, nprocs * sizeof(*sel));
        procs = sel;
        nprocs++;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, op);
    spx_buf_push_str(&b, id->value.data.string);
    spx_codec_push_proc_array(&b, procs, nprocs);
    free(sel);
    spx_codec_push_info_array(&b, NULL, 0);
    if (spx_buf_failed(&b) ||
        spx_client_request(SPX_MSG_GROUP, &b, ignore_reply, NULL) != PMIX_SUCCESS)
        spx_warn("group %s: could not tell the server what the handlers decided",
                 id->value.data.string);
    spx_buf_fini(&b);
}
