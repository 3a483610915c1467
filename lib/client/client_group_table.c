/* client_group_table.c - the groups of this process on the client side: the
 * table that keeps each construct's outcome (struct cgroup), and what the
 * rest of the client asks of it - a group id used as a namespace (Fence,
 * Get, the group requests), a Get by context id, the endpoint data a
 * construct brought. The requests that fill it are client_group.c's.
 *
 * This process keeps, until PMIx_Finalize:
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
#include "proto/group.h"
#include "proto/records.h"
#include "types/types.h"
#include "util/log.h"

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

/* ---- outcomes ---- */

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

void spx_client_group_ended(const char *id)
{
    pthread_mutex_lock(&spx_client.lock);
    struct cgroup *g = live_group(id);
    if (g)
        set_live(g, false); /* its info stays readable by context id */
    pthread_mutex_unlock(&spx_client.lock);
}
