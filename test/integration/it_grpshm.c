/*
 * it_grpshm.c: constructs over a whole namespace, the shape the server runs
 * through shared memory (proto/group_shm.h), and the cases where some or all
 * of the members must go through the socket instead (grpshm.sh runs it on 1
 * and 3 simulated nodes, with the shared-memory construct on and off).
 * Every rank puts an endpoint value and commits (no fence), then:
 *   1. "shm-wild": every rank constructs over {nspace, WILDCARD} with a
 *      context id and a PMIX_GROUP_LOCAL_CID group info; then "shm-list"
 *      over every rank listed (reverse order); each: membership, context id,
 *      every peer's endpoint with PMIX_IMMEDIATE (the construct brought it),
 *      every peer's PMIX_GROUP_LOCAL_CID read back by context id;
 *   2. "shm-mix": rank 0 uses PMIx_Group_construct_nb (the socket), the others
 *      the blocking call (shared memory): everybody gets the group;
 *   3. "shm-big": a group info of 4 KiB (larger than a request slot): the
 *      socket path, read back by a peer;
 *   4. two threads per rank construct "shm-ta" and "shm-tb" at once, even
 *      ranks starting with ta, odd ones with tb: both groups form;
 *   5. 50 constructs + destructs in a row ("shm-loop-i");
 * and checks through a collecting fence that all context ids are the same at
 * every member and all different. Prints "it_grpshm: N ranks: OK" from rank 0.
 */
#include "itest.h"

#include <pthread.h>

static uint32_t nprocs;

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* Checks a construct's results; returns its context id. */
static size_t check_results(const char *grp, pmix_info_t *res, size_t nres)
{
    const pmix_info_t *id = find(res, nres, PMIX_GROUP_ID);
    IT_CHECK(id && id->value.type == PMIX_STRING && strcmp(id->value.data.string, grp) == 0,
             "%s: no or wrong PMIX_GROUP_ID", grp);
    const pmix_info_t *mb = find(res, nres, PMIX_GROUP_MEMBERSHIP);
    IT_CHECK(mb && mb->value.type == PMIX_DATA_ARRAY && mb->value.data.darray->type == PMIX_PROC &&
                 mb->value.data.darray->size == nprocs,
             "%s: membership missing or of the wrong size", grp);
    const pmix_proc_t *m = mb->value.data.darray->array;
    for (size_t i = 0; i < nprocs; i++)
        IT_CHECK(PMIX_CHECK_NSPACE(m[i].nspace, it_me.nspace) && m[i].rank == i,
                 "%s: member %zu is wrong", grp, i);
    const pmix_info_t *c = find(res, nres, PMIX_GROUP_CONTEXT_ID);
    IT_CHECK(c && c->value.type == PMIX_SIZE && c->value.data.size != 0, "%s: no context id",
             grp);
    return c->value.data.size;
}

/* The directives of a construct: a context id and a group info (local cid,
 * and pad bytes of padding when pad > 0). dirs[2] / ginfo[2] are the caller's. */
static size_t load_dirs(pmix_info_t dirs[2], pmix_info_t ginfo[2], pmix_data_array_t *da,
                        size_t pad, char *padbuf)
{
    bool yes = true;
    size_t lcid = 7000 + it_me.rank;
    PMIX_INFO_LOAD(&ginfo[0], PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    size_t ng = 1;
    if (pad) {
        memset(padbuf, 'a' + (int)(it_me.rank % 26), pad - 1);
        padbuf[pad - 1] = '\0';
        PMIX_INFO_LOAD(&ginfo[1], "it.grpshm.pad", padbuf, PMIX_STRING);
        ng = 2;
    }
    *da = (pmix_data_array_t){.type = PMIX_INFO, .size = ng, .array = ginfo};
    PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_INFO, da, PMIX_DATA_ARRAY);
    return ng;
}

static void free_dirs(pmix_info_t dirs[2], pmix_info_t ginfo[2], size_t ng)
{
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    for (size_t i = 0; i < ng; i++)
        PMIX_INFO_DESTRUCT(&ginfo[i]);
}

static size_t construct(const char *grp, pmix_proc_t *procs, size_t n, size_t pad)
{
    pmix_info_t dirs[2], ginfo[2];
    pmix_data_array_t da;
    char *padbuf = pad ? malloc(pad) : NULL;
    size_t ng = load_dirs(dirs, ginfo, &da, pad, padbuf);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    IT_RC(PMIx_Group_construct(grp, procs, n, dirs, 2, &res, &nres), PMIX_SUCCESS, grp);
    size_t cid = check_results(grp, res, nres);
    PMIX_INFO_FREE(res, nres);
    free_dirs(dirs, ginfo, ng);
    free(padbuf);
    return cid;
}

static void check_peers(const char *grp, size_t cid, bool padded)
{
    pmix_info_t imm, q[2];
    bool yes = true;
    PMIX_INFO_LOAD(&imm, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    for (uint32_t r = 0; r < nprocs; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, it_me.nspace, r);
        pmix_value_t *v = NULL;
        char want[64];
        snprintf(want, sizeof(want), "ep-%u", (unsigned)r);
        IT_RC(PMIx_Get(&p, "it.grpshm.ep", &imm, 1, &v), PMIX_SUCCESS, "endpoint (immediate)");
        IT_CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want) == 0,
                 "%s: endpoint of %u is wrong", grp, (unsigned)r);
        PMIX_VALUE_RELEASE(v);
        PMIX_INFO_LOAD(&q[0], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
        PMIX_INFO_SET_QUALIFIER(&q[0]);
        IT_RC(PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, q, 1, &v), PMIX_SUCCESS, "local cid");
        IT_CHECK(v->type == PMIX_SIZE && v->data.size == 7000 + r,
                 "%s: local cid of %u is wrong", grp, (unsigned)r);
        PMIX_VALUE_RELEASE(v);
        if (padded) {
            IT_RC(PMIx_Get(&p, "it.grpshm.pad", q, 1, &v), PMIX_SUCCESS, "pad");
            IT_CHECK(v->type == PMIX_STRING && strlen(v->data.string) == 4095 &&
                         v->data.string[0] == 'a' + (int)(r % 26),
                     "%s: group info of %u is wrong", grp, (unsigned)r);
            PMIX_VALUE_RELEASE(v);
        }
        PMIX_INFO_DESTRUCT(&q[0]);
    }
    PMIX_INFO_DESTRUCT(&imm);
}

struct nb_wait {
    volatile int done;
    pmix_status_t status;
    size_t cid;
};

static void nb_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                  pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct nb_wait *w = cbdata;
    w->status = status;
    if (status == PMIX_SUCCESS)
        w->cid = check_results("shm-mix", info, ninfo);
    if (release_fn)
        release_fn(release_cbdata);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

struct thr {
    const char *first;
    pmix_proc_t wild;
    size_t cid_first;
};

static void *thread_main(void *arg)
{
    struct thr *t = arg;
    t->cid_first = construct(t->first, &t->wild, 1, 0);
    return NULL;
}

int main(void)
{
    nprocs = it_init();
    char ep[64];
    snprintf(ep, sizeof(ep), "ep-%u", (unsigned)it_me.rank);
    pmix_value_t val = {.type = PMIX_STRING};
    val.data.string = ep;
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.grpshm.ep", &val), PMIX_SUCCESS, "PMIx_Put");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");

    enum { NCID = 6 };
    size_t cids[NCID];
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    /* 1 */
    cids[0] = construct("shm-wild", &wild, 1, 0);
    check_peers("shm-wild", cids[0], false);
    pmix_proc_t *all = calloc(nprocs, sizeof(*all));
    for (uint32_t i = 0; i < nprocs; i++)
        PMIX_LOAD_PROCID(&all[i], it_me.nspace, nprocs - 1 - i);
    cids[1] = construct("shm-list", all, nprocs, 0);
    check_peers("shm-list", cids[1], false);
    /* 2 */
    if (it_me.rank == 0) {
        pmix_info_t dirs[2], ginfo[2];
        pmix_data_array_t da;
        size_t ng = load_dirs(dirs, ginfo, &da, 0, NULL);
        struct nb_wait w = {0};
        IT_RC(PMIx_Group_construct_nb("shm-mix", &wild, 1, dirs, 2, nb_cb, &w), PMIX_SUCCESS,
              "construct_nb");
        IT_WAIT_FOR(w.done, 30, "the non-blocking construct");
        IT_RC(w.status, PMIX_SUCCESS, "construct_nb's status");
        cids[2] = w.cid;
        free_dirs(dirs, ginfo, ng);
    } else {
        cids[2] = construct("shm-mix", &wild, 1, 0);
    }
    check_peers("shm-mix", cids[2], false);
    /* 3 */
    cids[3] = construct("shm-big", all, nprocs, 4096);
    check_peers("shm-big", cids[3], true);
    /* 4 */
    struct thr t1 = {.first = "shm-ta", .wild = wild}, t2 = {.first = "shm-tb", .wild = wild};
    if (it_me.rank % 2) {
        t1.first = "shm-tb";
        t2.first = "shm-ta";
    }
    pthread_t th1, th2;
    IT_CHECK(pthread_create(&th1, NULL, thread_main, &t1) == 0, "pthread_create");
    IT_CHECK(pthread_create(&th2, NULL, thread_main, &t2) == 0, "pthread_create");
    pthread_join(th1, NULL);
    pthread_join(th2, NULL);
    bool t1a = strcmp(t1.first, "shm-ta") == 0;
    cids[4] = t1a ? t1.cid_first : t2.cid_first;
    cids[5] = t1a ? t2.cid_first : t1.cid_first;
    /* 5 */
    for (int i = 0; i < 50; i++) {
        char id[32];
        snprintf(id, sizeof(id), "shm-loop-%d", i);
        size_t c = construct(id, i % 2 ? all : &wild, i % 2 ? nprocs : 1, 0);
        for (int k = 0; k < NCID; k++)
            IT_CHECK(c != cids[k], "%s: context id %zu given twice", id, c);
        IT_RC(PMIx_Group_destruct(id, NULL, 0), PMIX_SUCCESS, "destruct");
    }
    /* every member has the same ids, all different */
    for (int i = 0; i < NCID; i++)
        for (int k = 0; k < i; k++)
            IT_CHECK(cids[i] != cids[k], "context ids %d and %d are the same (%zu)", i, k, cids[i]);
    pmix_data_array_t cda = {.type = PMIX_SIZE, .size = NCID, .array = cids};
    pmix_value_t cv = {.type = PMIX_DATA_ARRAY};
    cv.data.darray = &cda;
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.grpshm.cids", &cv), PMIX_SUCCESS, "put cids");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "commit");
    pmix_info_t coll;
    bool yes = true;
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    IT_RC(PMIx_Fence(NULL, 0, &coll, 1), PMIX_SUCCESS, "fence");
    for (uint32_t r = 0; r < nprocs; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, it_me.nspace, r);
        pmix_value_t *v = NULL;
        IT_RC(PMIx_Get(&p, "it.grpshm.cids", NULL, 0, &v), PMIX_SUCCESS, "get cids");
        IT_CHECK(v->type == PMIX_DATA_ARRAY && v->data.darray->size == NCID &&
                     memcmp(v->data.darray->array, cids, sizeof(cids)) == 0,
                 "rank %u has other context ids", (unsigned)r);
        PMIX_VALUE_RELEASE(v);
    }
    for (int i = 0; i < 4; i++) {
        static const char *const ids[] = {"shm-wild", "shm-list", "shm-mix", "shm-big"};
        IT_RC(PMIx_Group_destruct(ids[i], NULL, 0), PMIX_SUCCESS, ids[i]);
    }
    IT_RC(PMIx_Group_destruct("shm-ta", NULL, 0), PMIX_SUCCESS, "destruct ta");
    IT_RC(PMIx_Group_destruct("shm-tb", NULL, 0), PMIX_SUCCESS, "destruct tb");
    free(all);
    if (it_me.rank == 0)
        printf("it_grpshm: %u ranks: OK\n", (unsigned)nprocs);
    it_finalize();
    return 0;
}
