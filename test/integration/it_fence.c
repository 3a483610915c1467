/*
 * it_fence: fence variants on one node: NULL procs, WILDCARD, explicit lists
 * in different orders, a subset, a caller outside the participants
 * (PMIX_ERR_NOT_A_MEMBER), and Fence_nb callback status. Needs >= 3 ranks.
 */
#include "itest.h"

#ifndef PMIX_ERR_NOT_A_MEMBER   /* newer than OpenPMIx 4.2 headers */
#define PMIX_ERR_NOT_A_MEMBER (-66)
#endif

static int it_cb_done;
static pmix_status_t it_cb_status = -9999;

static void it_cb(pmix_status_t status, void *cbdata)
{
    it_cb_status = status;
    __atomic_store_n(&it_cb_done, 1, __ATOMIC_RELEASE);
}

static void it_fence_list(const pmix_proc_t *procs, size_t n, const char *what)
{
    IT_RC(PMIx_Fence(procs, n, NULL, 0), PMIX_SUCCESS, what);
}

int main(void)
{
    uint32_t size = it_init();
    pmix_proc_t *all, wild, pair[2];
    double t0;

    IT_CHECK(size >= 3, "needs at least 3 ranks");
    PMIX_PROC_CREATE(all, size);
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);

    it_fence_list(NULL, 0, "Fence(NULL)");
    it_fence_list(&wild, 1, "Fence(wildcard)");
    for (uint32_t r = 0; r < size; r++)
        PMIX_LOAD_PROCID(&all[r], it_me.nspace, r);
    it_fence_list(all, size, "Fence(ascending list)");
    for (uint32_t r = 0; r < size; r++)   /* each rank its own order */
        PMIX_LOAD_PROCID(&all[r], it_me.nspace, (r + it_me.rank) % size);
    it_fence_list(all, size, "Fence(rotated list)");
    for (uint32_t r = 0; r < size; r++)
        PMIX_LOAD_PROCID(&all[r], it_me.nspace, size - 1 - r);
    it_fence_list(all, size, "Fence(descending list)");

    /* a subset: ranks 0 and 1 only; the last rank is not a member */
    PMIX_LOAD_PROCID(&pair[0], it_me.nspace, it_me.rank == 0 ? 1 : 0);
    PMIX_LOAD_PROCID(&pair[1], it_me.nspace, it_me.rank == 0 ? 0 : 1);
    if (it_me.rank <= 1) {
        it_fence_list(pair, 2, "Fence(subset)");
    } else if (it_me.rank == size - 1) {
        t0 = it_now();
        IT_RC(PMIx_Fence(pair, 2, NULL, 0), PMIX_ERR_NOT_A_MEMBER, "Fence(not a member)");
        IT_CHECK(it_now() - t0 < 1.0, "non-member fence took %.2f s", it_now() - t0);
        IT_RC(PMIx_Fence_nb(pair, 2, NULL, 0, it_cb, NULL), PMIX_ERR_NOT_A_MEMBER,
              "Fence_nb(not a member)");
    }
    it_fence();

    /* non-blocking: the callback reports success exactly once */
    IT_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, it_cb, NULL), PMIX_SUCCESS, "PMIx_Fence_nb");
    IT_WAIT_FOR(it_cb_done, 20, "the Fence_nb callback");
    IT_CHECK(it_cb_status == PMIX_SUCCESS, "Fence_nb callback status %s",
             PMIx_Error_string(it_cb_status));

    /* several fences back to back */
    for (int i = 0; i < 20; i++)
        it_fence();
    PMIX_PROC_FREE(all, size);
    if (it_me.rank == 0)
        printf("it_fence: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
