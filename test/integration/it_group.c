/*
 * it_group.c: PMIx_Group_construct / PMIx_Group_destruct across the ranks of
 * a job (group.sh runs it on 1 and 3 simulated nodes).
 *
 * Every rank puts an endpoint value (GLOBAL scope) and commits, with no fence,
 * then:
 *   1. constructs "grp-all" over every rank (listed in reverse order) with
 *      PMIX_GROUP_ASSIGN_CONTEXT_ID and a PMIX_GROUP_INFO holding its
 *      PMIX_GROUP_LOCAL_CID (size_t 1000 + rank): the results carry the group
 *      id, the sorted membership and a context id; every peer's endpoint is
 *      readable with PMIX_IMMEDIATE (so the construct brought it: no fence ran);
 *      a peer's PMIX_GROUP_LOCAL_CID qualified by the context id comes back
 *      as put; the group id works as a namespace for PMIx_Get and PMIx_Fence;
 *   2. constructs two groups at the same time (even ranks, odd ranks) and
 *      checks, through a collecting fence, that the three context ids of the
 *      job are the same at every member and all different; a construct
 *      without PMIX_GROUP_ASSIGN_CONTEXT_ID returns none;
 *   3. destructs them: a second destruct, or one of a group this rank is not
 *      in, is PMIX_ERR_NOT_FOUND; the qualified Get still works afterwards
 *      (Open MPI reads it after destructing);
 *   PMIx_Connect (each rank listing the job in its own order) and
 *   PMIx_Disconnect, a second disconnect being PMIX_ERR_NOT_FOUND; an event
 *   whose PMIX_EVENT_CUSTOM_RANGE is (group id, WILDCARD) reaches the members;
 *   4. PMIX_GROUP_LOCAL_ONLY (alone: a group; with another node's rank:
 *      PMIX_ERR_BAD_PARAM); bad parameters: NULL or over-long group id, no members, a required
 *      directive unknown; PMIX_GROUP_OPTIONAL with a
 *      1 s PMIX_TIMEOUT while the last rank stays away: the others' group
 *      forms without it (and works in a fence); a construct
 *      this rank is not a member of; a construct whose last rank never comes
 *      fails with PMIX_ERR_TIMEOUT under PMIX_TIMEOUT, promptly.
 * Prints "it_group: N ranks: OK" from rank 0.
 */
#include "itest.h"

#include <inttypes.h>

static uint32_t nprocs;
#define IT_GRP_EVENT (PMIX_EXTERNAL_ERR_BASE - 31)
static volatile int grp_events;

static void grp_event_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                              pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                              size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                              void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    __atomic_add_fetch(&grp_events, 1, __ATOMIC_ACQ_REL);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* Constructs grp over procs; checks the results; returns the context id
 * (0 when none was asked for, and then checks there is none). */
static size_t construct(const char *grp, pmix_proc_t *procs, size_t n, bool want_cid,
                        int timeout)
{
    pmix_info_t dirs[3];
    size_t nd = 0;
    bool yes = true;
    size_t lcid = 1000 + it_me.rank;
    pmix_info_t ginfo;
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &ginfo};
    PMIX_INFO_LOAD(&ginfo, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    if (want_cid)
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    if (timeout > 0)
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    IT_RC(PMIx_Group_construct(grp, procs, n, dirs, nd, &res, &nres), PMIX_SUCCESS, grp);
    for (size_t i = 0; i < nd; i++)
        PMIX_INFO_DESTRUCT(&dirs[i]);
    const pmix_info_t *id = find(res, nres, PMIX_GROUP_ID);
    IT_CHECK(id && id->value.type == PMIX_STRING && strcmp(id->value.data.string, grp) == 0,
             "%s: no or wrong PMIX_GROUP_ID in the results", grp);
    const pmix_info_t *mb = find(res, nres, PMIX_GROUP_MEMBERSHIP);
    IT_CHECK(mb && mb->value.type == PMIX_DATA_ARRAY && mb->value.data.darray->type == PMIX_PROC &&
                 mb->value.data.darray->size == n,
             "%s: membership missing or of the wrong size", grp);
    const pmix_proc_t *m = mb->value.data.darray->array;
    for (size_t i = 0; i < n; i++) {
        IT_CHECK(PMIX_CHECK_NSPACE(m[i].nspace, it_me.nspace), "%s: member %zu nspace", grp, i);
        IT_CHECK(i == 0 || m[i].rank > m[i - 1].rank, "%s: membership not sorted", grp);
    }
    const pmix_info_t *c = find(res, nres, PMIX_GROUP_CONTEXT_ID);
    size_t cid = 0;
    if (want_cid) {
        IT_CHECK(c && c->value.type == PMIX_SIZE && c->value.data.size != 0,
                 "%s: no context id though one was asked for", grp);
        cid = c->value.data.size;
    } else {
        IT_CHECK(!c, "%s: a context id that nobody asked for", grp);
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&ginfo);
    return cid;
}

static void check_endpoint(const pmix_proc_t *p, bool immediate)
{
    char want[64];
    pmix_value_t *v = NULL;
    pmix_info_t imm;
    bool yes = true;
    PMIX_INFO_LOAD(&imm, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    snprintf(want, sizeof(want), "ep-%u", (unsigned)p->rank);
    IT_RC(PMIx_Get(p, "it.grp.ep", immediate ? &imm : NULL, immediate ? 1 : 0, &v), PMIX_SUCCESS,
          "PMIx_Get(endpoint)");
    IT_CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want) == 0,
             "endpoint of %u is wrong", (unsigned)p->rank);
    PMIX_VALUE_RELEASE(v);
}

static void check_local_cid(pmix_rank_t r, size_t cid)
{
    pmix_proc_t p;
    pmix_info_t q, tq[2];
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, it_me.nspace, r);
    /* as Open MPI 5 asks: a uint32 PMIX_TIMEOUT, then the qualifier */
    uint32_t to = 10;
    PMIX_INFO_LOAD(&tq[0], PMIX_TIMEOUT, &to, PMIX_UINT32);
    PMIX_INFO_LOAD(&tq[1], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&tq[1]);
    IT_RC(PMIx_Get(&p, "pmix.grp.lclid", tq, 2, &v), PMIX_SUCCESS,
          "PMIx_Get(pmix.grp.lclid) as Open MPI asks");
    IT_CHECK(v->type == PMIX_SIZE && v->data.size == 1000 + r, "lclid of %u", (unsigned)r);
    PMIX_VALUE_RELEASE(v);
    PMIX_INFO_LOAD(&q, PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q);
    IT_RC(PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, &q, 1, &v), PMIX_SUCCESS, "PMIx_Get(local cid)");
    IT_CHECK(v->type == PMIX_SIZE && v->data.size == 1000 + r,
             "local cid of %u: type %d value %zu", (unsigned)r, v->type, v->data.size);
    PMIX_VALUE_RELEASE(v);
    size_t other = cid + 7777;
    PMIX_INFO_LOAD(&q, PMIX_GROUP_CONTEXT_ID, &other, PMIX_SIZE);
    IT_RC(PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, &q, 1, &v), PMIX_ERR_NOT_FOUND,
          "PMIx_Get(local cid of an unknown context id)");
}

static void put_u64(const char *key, uint64_t x)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &x, PMIX_UINT64);
    IT_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS, "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&v);
}

static uint64_t get_u64(pmix_rank_t r, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, it_me.nspace, r);
    IT_RC(PMIx_Get(&p, key, NULL, 0, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == PMIX_UINT64, "%s has type %d", key, v->type);
    uint64_t x = v->data.uint64;
    PMIX_VALUE_RELEASE(v);
    return x;
}

int main(void)
{
    nprocs = it_init();
    IT_CHECK(nprocs >= 2, "needs at least 2 ranks");
    char ep[64];
    snprintf(ep, sizeof(ep), "ep-%u", (unsigned)it_me.rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, ep, PMIX_STRING);
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.grp.ep", &v), PMIX_SUCCESS, "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&v);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");

    /* 1. everybody, listed backwards */
    pmix_proc_t *all = calloc(nprocs, sizeof(*all));
    for (uint32_t i = 0; i < nprocs; i++)
        PMIX_LOAD_PROCID(&all[i], it_me.nspace, nprocs - 1 - i);
    size_t cid_all = construct("grp-all", all, nprocs, true, 0);
    for (uint32_t r = 0; r < nprocs; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, it_me.nspace, r);
        check_endpoint(&p, true);
        check_local_cid(r, cid_all);
    }
    /* the group id as a namespace: member r of "grp-all" is rank r */
    pmix_proc_t gp;
    PMIX_LOAD_PROCID(&gp, "grp-all", nprocs - 1);
    pmix_value_t *gv = NULL;
    IT_RC(PMIx_Get(&gp, "it.grp.ep", NULL, 0, &gv), PMIX_SUCCESS, "PMIx_Get(group id, rank)");
    snprintf(ep, sizeof(ep), "ep-%u", (unsigned)(nprocs - 1));
    IT_CHECK(gv->type == PMIX_STRING && strcmp(gv->data.string, ep) == 0,
             "group rank %u is not job rank %u", nprocs - 1, nprocs - 1);
    PMIX_VALUE_RELEASE(gv);
    PMIX_LOAD_PROCID(&gp, "grp-all", nprocs);
    IT_RC(PMIx_Get(&gp, "it.grp.ep", NULL, 0, &gv), PMIX_ERR_BAD_PARAM,
          "PMIx_Get(group id, rank past the last member)");
    PMIX_LOAD_PROCID(&gp, "grp-all", PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Fence(&gp, 1, NULL, 0), PMIX_SUCCESS, "PMIx_Fence(group id)");
    /* an event whose custom range names the group reaches its members */
    pmix_status_t code = IT_GRP_EVENT;
    PMIx_Register_event_handler(&code, 1, NULL, 0, grp_event_handler, NULL, NULL);
    it_fence();
    if (it_me.rank == 0) {
        pmix_info_t range;
        PMIX_INFO_LOAD(&range, PMIX_EVENT_CUSTOM_RANGE, &gp, PMIX_PROC);
        IT_RC(PMIx_Notify_event(IT_GRP_EVENT, &it_me, PMIX_RANGE_CUSTOM, &range, 1, NULL, NULL),
              PMIX_SUCCESS, "PMIx_Notify_event(range: the group)");
        PMIX_INFO_DESTRUCT(&range);
    } else {
        IT_WAIT_FOR(grp_events, 5, "the event sent to the group");
    }
    it_fence();

    /* 2. two groups at once, then the three context ids compared */
    uint32_t half = 0;
    pmix_proc_t *mine = calloc(nprocs, sizeof(*mine));
    for (uint32_t r = it_me.rank % 2; r < nprocs; r += 2, half++)
        PMIX_LOAD_PROCID(&mine[half], it_me.nspace, r); /* a macro: no side effects in it */
    size_t cid_half = construct(it_me.rank % 2 ? "grp-odd" : "grp-even", mine, half, true, 0);
    put_u64("it.grp.cid.all", cid_all);
    put_u64("it.grp.cid.half", cid_half);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    pmix_info_t coll;
    bool yes = true;
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    IT_RC(PMIx_Fence(NULL, 0, &coll, 1), PMIX_SUCCESS, "PMIx_Fence(collect)");
    uint64_t even = get_u64(0, "it.grp.cid.half"), odd = get_u64(1, "it.grp.cid.half");
    for (uint32_t r = 0; r < nprocs; r++) {
        IT_CHECK(get_u64(r, "it.grp.cid.all") == cid_all, "rank %u has another id of grp-all", r);
        IT_CHECK(get_u64(r, "it.grp.cid.half") == (r % 2 ? odd : even),
                 "rank %u has another id of its half", r);
    }
    IT_CHECK(even != odd && even != cid_all && odd != cid_all,
             "context ids not unique: all %zu even %" PRIu64 " odd %" PRIu64, cid_all, even, odd);
    size_t none = construct("grp-nocid", all, nprocs, false, 0);
    IT_CHECK(none == 0, "no context id expected");

    /* 3. destruct */
    IT_RC(PMIx_Group_destruct("grp-all", NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
    IT_RC(PMIx_Group_destruct("grp-all", NULL, 0), PMIX_ERR_NOT_FOUND,
          "PMIx_Group_destruct of a destructed group");
    IT_RC(PMIx_Group_destruct(it_me.rank % 2 ? "grp-even" : "grp-odd", NULL, 0),
          PMIX_ERR_NOT_FOUND, "PMIx_Group_destruct of a group this rank is not in");
    IT_RC(PMIx_Group_destruct(it_me.rank % 2 ? "grp-odd" : "grp-even", NULL, 0), PMIX_SUCCESS,
          "PMIx_Group_destruct(half)");
    IT_RC(PMIx_Group_destruct("grp-nocid", NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct(nocid)");
    check_local_cid((it_me.rank + 1) % nprocs, cid_all);

    /* PMIx_Connect / PMIx_Disconnect: each rank lists the job its own way */
    pmix_proc_t *rot = calloc(nprocs, sizeof(*rot));
    for (uint32_t i = 0; i < nprocs; i++)
        PMIX_LOAD_PROCID(&rot[i], it_me.nspace, (it_me.rank + i) % nprocs);
    IT_RC(PMIx_Connect(rot, nprocs, NULL, 0), PMIX_SUCCESS, "PMIx_Connect");
    IT_RC(PMIx_Disconnect(all, nprocs, NULL, 0), PMIX_SUCCESS, "PMIx_Disconnect");
    IT_RC(PMIx_Disconnect(all, nprocs, NULL, 0), PMIX_ERR_NOT_FOUND,
          "PMIx_Disconnect of processes not connected");
    free(rot);

    /* 4. bad parameters, an absent member */
    char longid[PMIX_MAX_NSLEN + 8];
    memset(longid, 'g', sizeof(longid) - 1);
    longid[sizeof(longid) - 1] = '\0';
    IT_RC(PMIx_Group_construct(NULL, all, nprocs, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
          "construct(NULL id)");
    IT_RC(PMIx_Group_construct(longid, all, nprocs, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
          "construct(long id)");
    IT_RC(PMIx_Group_construct("grp-x", NULL, 0, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
          "construct(no members)");
    /* PMIX_GROUP_LOCAL_ONLY: with a member of another node a bad parameter,
     * with this rank alone a group */
    pmix_info_t lo;
    bool yes3 = true;
    PMIX_INFO_LOAD(&lo, PMIX_GROUP_LOCAL_ONLY, &yes3, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&lo);
    char lid[64];
    snprintf(lid, sizeof(lid), "grp-local-%u", (unsigned)it_me.rank);
    IT_RC(PMIx_Group_construct(lid, &it_me, 1, &lo, 1, NULL, NULL), PMIX_SUCCESS,
          "construct(PMIX_GROUP_LOCAL_ONLY, this rank alone)");
    IT_RC(PMIx_Group_destruct(lid, NULL, 0), PMIX_SUCCESS, "destruct(local group)");
    if (it_num_nodes() > 1) {
        pmix_proc_t far;
        PMIX_LOAD_PROCID(&far, it_me.nspace, 0);
        for (uint32_t r = 0; r < nprocs; r++)
            if (it_nodeid(r) != it_nodeid(it_me.rank))
                PMIX_LOAD_PROCID(&far, it_me.nspace, r);
        pmix_proc_t pair[2] = {it_me, far};
        IT_RC(PMIx_Group_construct("grp-far", pair, 2, &lo, 1, NULL, NULL), PMIX_ERR_BAD_PARAM,
              "construct(PMIX_GROUP_LOCAL_ONLY, a member on another node)");
    }
    PMIX_INFO_DESTRUCT(&lo);

    /* a directive not built yet, flagged required, is refused */
    pmix_info_t reqd;
    bool yes2 = true;
    PMIX_INFO_LOAD(&reqd, "spmix.test.unknown", &yes2, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&reqd);
    IT_RC(PMIx_Group_construct("grp-x", all, nprocs, &reqd, 1, NULL, NULL),
          PMIX_ERR_NOT_SUPPORTED, "construct(an unknown directive required)");
    PMIX_INFO_DESTRUCT(&reqd);
    /* PMIX_GROUP_OPTIONAL with PMIX_TIMEOUT: the last rank never comes and
     * the others' group forms without it */
    if (it_me.rank != nprocs - 1) {
        pmix_info_t opt[2];
        int one = 1;
        PMIX_INFO_LOAD(&opt[0], PMIX_GROUP_OPTIONAL, &yes2, PMIX_BOOL);
        PMIX_INFO_LOAD(&opt[1], PMIX_TIMEOUT, &one, PMIX_INT);
        pmix_info_t *ores = NULL;
        size_t nores = 0;
        double t1 = it_now();
        IT_RC(PMIx_Group_construct("grp-opt", all, nprocs, opt, 2, &ores, &nores), PMIX_SUCCESS,
              "construct(PMIX_GROUP_OPTIONAL) without the last rank");
        IT_CHECK(it_now() - t1 < 5, "the optional construct took %.1f s", it_now() - t1);
        const pmix_info_t *mb = find(ores, nores, PMIX_GROUP_MEMBERSHIP);
        IT_CHECK(mb && mb->value.data.darray->size == nprocs - 1,
                 "optional construct: %zu members, expected %u",
                 mb ? mb->value.data.darray->size : 0, nprocs - 1);
        PMIX_INFO_FREE(ores, nores);
        PMIX_INFO_DESTRUCT(&opt[0]);
        PMIX_INFO_DESTRUCT(&opt[1]);
        pmix_proc_t gw;
        PMIX_LOAD_PROCID(&gw, "grp-opt", PMIX_RANK_WILDCARD);
        IT_RC(PMIx_Fence(&gw, 1, NULL, 0), PMIX_SUCCESS, "PMIx_Fence over the optional group");
    }
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, it_me.nspace, (it_me.rank + 1) % nprocs);
    IT_RC(PMIx_Group_construct("grp-x", &other, 1, NULL, 0, NULL, NULL), PMIX_ERR_NOT_A_MEMBER,
          "construct(not a member)");
    if (it_me.rank != nprocs - 1) {
        double t0 = it_now();
        int to = 1;
        pmix_info_t tinfo;
        PMIX_INFO_LOAD(&tinfo, PMIX_TIMEOUT, &to, PMIX_INT);
        IT_RC(PMIx_Group_construct("grp-late", all, nprocs, &tinfo, 1, NULL, NULL),
              PMIX_ERR_TIMEOUT, "construct with a member that never comes");
        IT_CHECK(it_now() - t0 < 5, "the timeout took %.1f s", it_now() - t0);
    }
    it_fence();
    if (it_me.rank == 0)
        printf("it_group: %u ranks: OK\n", nprocs);
    free(all);
    free(mine);
    it_finalize();
    return 0;
}
