/*
 * it_fence: fence variants on one node: NULL procs, WILDCARD, explicit lists
 * in different orders, a subset, a caller outside the participants
 * (PMIX_ERR_NOT_A_MEMBER), and Fence_nb callback status. Needs >= 3 ranks.
 * Then the whole-namespace fence that goes through shared memory
 * (proto/shm_barrier.h): a late rank holds everyone back, also when one rank
 * uses PMIx_Fence_nb (the server arrives for it); blocking and non-blocking
 * callers mixed over many generations; and after Put + Commit + a collecting
 * fence every peer reads the value just committed (the fence waits for the
 * commits to reach the server).
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

    /* a late rank holds everyone back: blocking callers, then rank 0 through
     * Fence_nb while the others block */
    for (int round = 0; round < 2; round++) {
        bool nb = round == 1 && it_me.rank == 0;
        t0 = it_now();
        if (it_me.rank == size - 1)
            it_sleep_ms(300);
        if (nb) {
            it_cb_done = 0;
            IT_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, it_cb, NULL), PMIX_SUCCESS, "Fence_nb (late peer)");
            IT_WAIT_FOR(it_cb_done, 20, "the Fence_nb callback (late peer)");
            IT_CHECK(it_cb_status == PMIX_SUCCESS, "Fence_nb (late peer): %s",
                     PMIx_Error_string(it_cb_status));
        } else {
            it_fence();
        }
        /* t0 is each rank's own: the previous fence releases the ranks one
         * after the other (on 64 loaded simulated nodes up to ~0.1 s apart),
         * so a rank released late sees less of the 0.3 s; a fence that did
         * not wait would return in milliseconds */
        IT_CHECK(it_now() - t0 >= 0.15, "round %d: left the fence after %.3f s while the last "
                 "rank was 0.3 s late", round, it_now() - t0);
    }

    /* blocking and non-blocking callers mixed, generation after generation */
    for (uint32_t i = 0; i < 200; i++) {
        if (it_me.rank == i % size) {
            it_cb_done = 0;
            IT_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, it_cb, NULL), PMIX_SUCCESS, "Fence_nb (mixed)");
            IT_WAIT_FOR(it_cb_done, 20, "the Fence_nb callback (mixed)");
            IT_CHECK(it_cb_status == PMIX_SUCCESS, "Fence_nb (mixed) %u: %s", (unsigned)i,
                     PMIx_Error_string(it_cb_status));
        } else {
            it_fence();
        }
    }

    /* a commit right before a collecting fence is seen by every peer after it */
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    for (uint32_t i = 1; i <= 100; i++) {
        pmix_value_t v = {.type = PMIX_UINT32};
        v.data.uint32 = i * 1000 + it_me.rank;
        IT_RC(PMIx_Put(PMIX_GLOBAL, "it.gen", &v), PMIX_SUCCESS, "Put(it.gen)");
        IT_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit");
        IT_RC(PMIx_Fence(NULL, 0, &collect, 1), PMIX_SUCCESS, "Fence(collect) after Commit");
        pmix_proc_t peer;
        pmix_value_t *got = NULL;
        PMIX_LOAD_PROCID(&peer, it_me.nspace, (it_me.rank + 1 + i) % size);
        IT_RC(PMIx_Get(&peer, "it.gen", NULL, 0, &got), PMIX_SUCCESS, "Get(peer it.gen)");
        IT_CHECK(got->type == PMIX_UINT32 && got->data.uint32 == i * 1000 + peer.rank,
                 "round %u: rank %u's it.gen is %u, it committed %u before the fence",
                 (unsigned)i, (unsigned)peer.rank, (unsigned)got->data.uint32,
                 (unsigned)(i * 1000 + peer.rank));
        PMIX_VALUE_RELEASE(got);
        it_fence(); /* nobody commits round i + 1 before everyone has read round i */
    }
    PMIX_INFO_DESTRUCT(&collect);
    PMIX_PROC_FREE(all, size);
    if (it_me.rank == 0)
        printf("it_fence: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
