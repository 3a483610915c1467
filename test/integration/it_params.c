/*
 * it_params: argument checking and init counting, under spmix-run.
 * Before init every call answers PMIX_ERR_INIT; bad parameters give
 * PMIX_ERR_BAD_PARAM; Init twice + Finalize once leaves the library usable.
 */
#include "itest.h"

static void it_opcb(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

static void it_valcb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void)status;
    (void)kv;
    (void)cbdata;
}

int main(void)
{
    pmix_value_t v, *got = NULL;
    pmix_proc_t wild, me2;
    uint32_t size;

    memset(&v, 0, sizeof(v));
    v.type = PMIX_INT;
    v.data.integer = 5;
    PMIX_LOAD_PROCID(&wild, "nobody", 0);

    /* before init */
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.k", &v), PMIX_ERR_INIT, "Put before init");
    IT_RC(PMIx_Commit(), PMIX_ERR_INIT, "Commit before init");
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_INIT, "Fence before init");
    IT_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, it_opcb, NULL), PMIX_ERR_INIT, "Fence_nb before init");
    IT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got), PMIX_ERR_INIT, "Get before init");

    size = it_init();
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);

    IT_RC(PMIx_Fence(NULL, 2, NULL, 0), PMIX_ERR_BAD_PARAM, "Fence(NULL procs, 2)");
    IT_RC(PMIx_Fence_nb(NULL, 2, NULL, 0, it_opcb, NULL), PMIX_ERR_BAD_PARAM,
          "Fence_nb(NULL procs, 2)");
    IT_RC(PMIx_Put(PMIX_GLOBAL, NULL, &v), PMIX_ERR_BAD_PARAM, "Put(NULL key)");
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.k", NULL), PMIX_ERR_BAD_PARAM, "Put(NULL value)");
    IT_RC(PMIx_Get(&wild, NULL, NULL, 0, &got), PMIX_ERR_BAD_PARAM, "Get(wildcard, NULL key)");
    IT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, NULL), PMIX_ERR_BAD_PARAM, "Get(NULL val)");
    IT_RC(PMIx_Get_nb(&wild, PMIX_JOB_SIZE, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
          "Get_nb(NULL cbfunc)");
    IT_RC(PMIx_Get_nb(&wild, NULL, NULL, 0, it_valcb, NULL), PMIX_ERR_BAD_PARAM,
          "Get_nb(wildcard, NULL key)");

    /* nested init */
    IT_RC(PMIx_Init(&me2, NULL, 0), PMIX_SUCCESS, "nested PMIx_Init");
    IT_CHECK(PMIX_CHECK_PROCID(&me2, &it_me), "nested init gave another identity");
    it_finalize();
    IT_CHECK(PMIx_Initialized(), "not initialized after one of two finalizes");
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.k", &v), PMIX_SUCCESS, "Put after nested finalize");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit after nested finalize");
    it_fence();
    if (it_me.rank == 0)
        printf("it_params: %u ranks: OK\n", size);
    it_finalize();
    IT_CHECK(!PMIx_Initialized(), "still initialized after the last finalize");
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_INIT, "Fence after finalize");
    return 0;
}
