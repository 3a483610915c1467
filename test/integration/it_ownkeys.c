/*
 * it_ownkeys: the caller's own keys asked in every way that names it.
 *  - PMIX_RANK is the caller's rank (PMIX_PROC_RANK) for a NULL proc, for
 *    {own namespace, PMIX_RANK_INVALID}, {"", PMIX_RANK_INVALID} and for
 *    itself, through PMIx_Get and PMIx_Get_nb (as OpenPMIx answers);
 *  - {own namespace, PMIX_RANK_INVALID} means the caller for its other keys
 *    too: the launcher's (PMIX_LOCAL_RANK, PMIX_NODEID, PMIX_HOSTNAME,
 *    PMIX_APPNUM, ...) equal what it reads of itself, and a key it put;
 *  - another namespace's PMIX_RANK_INVALID is nobody: PMIX_ERR_NOT_FOUND.
 * Run on 1 and 3 simulated nodes and as a singleton (ownkeys.sh). Prints
 * "it_ownkeys: N ranks: OK" from rank 0.
 */
#include "itest.h"

#define MINE "spmix.it.ownkey"

static void check_rank(const pmix_proc_t *p, const char *what)
{
    pmix_value_t *v = NULL;
    IT_RC(PMIx_Get(p, PMIX_RANK, NULL, 0, &v), PMIX_SUCCESS, what);
    IT_CHECK(v->type == PMIX_PROC_RANK && v->data.rank == it_me.rank,
             "%s: type %d, rank %u, expected %u", what, v->type, v->data.rank, it_me.rank);
    PMIX_VALUE_RELEASE(v);
}

struct nb_get {
    volatile int done;
    pmix_status_t rc;
    pmix_data_type_t type;
    pmix_rank_t rank;
};

static void nb_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    struct nb_get *g = cbdata;
    g->rc = status;
    if (status == PMIX_SUCCESS && kv) {
        g->type = kv->type;
        g->rank = kv->data.rank;
    }
    __atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
}

static void check_rank_nb(const pmix_proc_t *p, const char *what)
{
    struct nb_get g = {.done = 0};
    IT_RC(PMIx_Get_nb(p, PMIX_RANK, NULL, 0, nb_cb, &g), PMIX_SUCCESS, what);
    IT_WAIT_FOR(g.done, 10, what);
    IT_RC(g.rc, PMIX_SUCCESS, what);
    IT_CHECK(g.type == PMIX_PROC_RANK && g.rank == it_me.rank, "%s: type %d, rank %u", what,
             g.type, g.rank);
}

/* key of {ns, INVALID} is what the caller reads of itself (status and value). */
static void check_same(const pmix_proc_t *invalid, const char *key, int required)
{
    pmix_value_t *a = NULL, *b = NULL;
    pmix_status_t ra = PMIx_Get(invalid, key, NULL, 0, &a);
    pmix_status_t rb = PMIx_Get(&it_me, key, NULL, 0, &b);
    IT_CHECK(ra == rb, "%s: %s for rank INVALID, %s for me", key, PMIx_Error_string(ra),
             PMIx_Error_string(rb));
    IT_CHECK(!required || ra == PMIX_SUCCESS, "%s: %s", key, PMIx_Error_string(ra));
    IT_CHECK(ra != PMIX_SUCCESS || PMIx_Value_compare(a, b) == PMIX_EQUAL,
             "%s: rank INVALID and me differ", key);
    if (a)
        PMIX_VALUE_RELEASE(a);
    if (b)
        PMIX_VALUE_RELEASE(b);
}

int main(void)
{
    uint32_t size = it_init();
    pmix_proc_t invalid, unnamed, other;
    pmix_value_t val, *v = NULL;

    PMIX_LOAD_PROCID(&invalid, it_me.nspace, PMIX_RANK_INVALID);
    PMIX_LOAD_PROCID(&unnamed, "", PMIX_RANK_INVALID);
    check_rank(NULL, "PMIx_Get(NULL, PMIX_RANK)");
    check_rank(&invalid, "PMIx_Get({ns, INVALID}, PMIX_RANK)");
    check_rank(&unnamed, "PMIx_Get({\"\", INVALID}, PMIX_RANK)");
    check_rank(&it_me, "PMIx_Get(me, PMIX_RANK)");
    check_rank_nb(NULL, "PMIx_Get_nb(NULL, PMIX_RANK)");
    check_rank_nb(&invalid, "PMIx_Get_nb({ns, INVALID}, PMIX_RANK)");
    check_rank_nb(&it_me, "PMIx_Get_nb(me, PMIX_RANK)");

    /* the launcher's keys of this process, and one it put */
    check_same(&invalid, PMIX_LOCAL_RANK, 1);
    check_same(&invalid, PMIX_NODE_RANK, 1);
    check_same(&invalid, PMIX_NODEID, 1);
    check_same(&invalid, PMIX_HOSTNAME, 1);
    check_same(&invalid, PMIX_APPNUM, 1);
    check_same(&invalid, PMIX_GLOBAL_RANK, 0);
    check_same(&invalid, PMIX_APP_RANK, 0);
    val.type = PMIX_UINT32;
    val.data.uint32 = 1000 + it_me.rank;
    IT_RC(PMIx_Put(PMIX_GLOBAL, MINE, &val), PMIX_SUCCESS, "PMIx_Put");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    IT_RC(PMIx_Get(&invalid, MINE, NULL, 0, &v), PMIX_SUCCESS, "PMIx_Get({ns, INVALID}, own key)");
    IT_CHECK(v->type == PMIX_UINT32 && v->data.uint32 == 1000 + it_me.rank, "own key: %u",
             v->data.uint32);
    PMIX_VALUE_RELEASE(v);

    /* another namespace's rank INVALID is not the caller */
    PMIX_LOAD_PROCID(&other, "spmix.it.no-such-nspace", PMIX_RANK_INVALID);
    IT_RC(PMIx_Get(&other, PMIX_RANK, NULL, 0, &v), PMIX_ERR_NOT_FOUND,
          "PMIx_Get({other ns, INVALID}, PMIX_RANK)");

    it_fence();
    if (it_me.rank == 0)
        printf("it_ownkeys: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
