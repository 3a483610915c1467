/*
 * it_singleton: a client started without any launcher (PMIX_* variables
 * removed by the test script). PMIx_Init succeeds as rank 0 of a job of 1;
 * fences return at once (Fence_nb with PMIX_OPERATION_SUCCEEDED); Put/Get of
 * own data works; it has no process sets (PMIx_Query_info). Also nested
 * init/finalize counting.
 */
#include "itest.h"

static void it_never(pmix_status_t status, void *cbdata)
{
    *(int *)cbdata = 1;
}

int main(void)
{
    uint32_t size;
    pmix_proc_t me2;
    pmix_value_t v, *got = NULL;
    int called = 0;
    double t0;

    IT_CHECK(!PMIx_Initialized(), "initialized before PMIx_Init");
    size = it_init();
    IT_CHECK(it_me.rank == 0, "singleton rank is %u", it_me.rank);
    IT_CHECK(size == 1, "singleton job size is %u", size);

    t0 = it_now();
    it_fence();
    IT_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, it_never, &called), PMIX_OPERATION_SUCCEEDED,
          "PMIx_Fence_nb");
    IT_CHECK(it_now() - t0 < 1.0, "singleton fences took %.2f s", it_now() - t0);
    it_sleep_ms(100);
    IT_CHECK(!called, "Fence_nb returned OPERATION_SUCCEEDED but called back");

    memset(&v, 0, sizeof(v));
    v.type = PMIX_UINT32;
    v.data.uint32 = 4242;
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.single", &v), PMIX_SUCCESS, "PMIx_Put");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    IT_RC(PMIx_Get(&it_me, "it.single", NULL, 0, &got), PMIX_SUCCESS, "PMIx_Get");
    IT_CHECK(got->type == PMIX_UINT32 && got->data.uint32 == 4242, "wrong value read back");
    PMIX_VALUE_RELEASE(got);
    it_no_psets("PMIx_Query_info(psets) of a singleton");

    /* nested: Init again, Finalize once, still usable */
    IT_RC(PMIx_Init(&me2, NULL, 0), PMIX_SUCCESS, "nested PMIx_Init");
    IT_CHECK(PMIX_CHECK_PROCID(&me2, &it_me), "nested init gave another identity");
    it_finalize();
    IT_CHECK(PMIx_Initialized(), "not initialized after one of two finalizes");
    it_fence();
    it_finalize();
    IT_CHECK(!PMIx_Initialized(), "still initialized after the last finalize");
    printf("it_singleton: OK\n");
    return 0;
}
