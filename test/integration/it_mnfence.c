/*
 * it_mnfence: PMIx_Fence behaviours of its man page (PMIx_Fence(3))
 * on one or many simulated nodes (spmix-run --nodes M). One mode per run:
 *   sets     NULL procs, WILDCARD, list order, NULL procs with nprocs > 0,
 *            a non-member, a subset fence (nodes without participants send
 *            nothing), WILDCARD callers not matched with list callers,
 *            Fence_nb return values and callbacks, NULL cbfunc = blocking,
 *            PMIX_COLLECT_GENERATED_JOB_INFO and PMIX_ALL_CLONES_PARTICIPATE.
 *   timeout  PMIX_TIMEOUT fails every caller and the next fence works;
 *            participants disagreeing on PMIX_COLLECT_DATA all get BAD_PARAM
 *            (servers disagreeing when there are several nodes).
 *   data     the default fence moves no data and a remote key then comes by
 *            direct modex (also PMIX_TIMEOUT and PMIX_OPTIONAL on a remote
 *            key); a collecting fence makes everything retrievable locally;
 *            the counters: no key data when nothing changed, only the changed
 *            key, the full set again when the participant set changes; a
 *            PMIX_DEL_GLOBAL deletion reaches local peers at commit and
 *            remote peers with the next collecting fence.
 *   late     like timeout, with the missing rank alone on its node.
 * Rank 0 prints "it_mnfence MODE: N ranks on M nodes: OK".
 */
#include "itest.h"

#include <spmix.h>

#ifndef PMIX_ERR_NOT_A_MEMBER   /* newer than OpenPMIx 4.2 headers */
#define PMIX_ERR_NOT_A_MEMBER (-66)
#endif

static uint32_t size, nnodes, mynode, *node_of;

/* ---- helpers ---- */

static pmix_status_t fence_info(const pmix_proc_t *procs, size_t n, const char *key,
                                const void *val, pmix_data_type_t type)
{
    pmix_info_t info;
    pmix_status_t rc;

    if (key == NULL)
        return PMIx_Fence(procs, n, NULL, 0);
    PMIX_INFO_LOAD(&info, key, val, type);
    rc = PMIx_Fence(procs, n, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static void collect_fence(const pmix_proc_t *procs, size_t n, const char *what)
{
    bool yes = true;

    IT_RC(fence_info(procs, n, PMIX_COLLECT_DATA, &yes, PMIX_BOOL), PMIX_SUCCESS, what);
}

static uint32_t local_count(void)
{
    uint32_t c = 0;

    for (uint32_t r = 0; r < size; r++)
        c += node_of[r] == mynode;
    return c;
}

static void put_u32(const char *key, uint32_t v)
{
    pmix_value_t val = { .type = PMIX_UINT32, .data.uint32 = v };

    IT_RC(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS, key);
}

/* Get key of rank; want_rc PMIX_SUCCESS also checks the value. optional:
 * only what is already here (PMIX_OPTIONAL); timeout > 0: PMIX_TIMEOUT. */
static void get_u32(uint32_t rank, const char *key, pmix_status_t want_rc, uint32_t want,
                    bool optional, int timeout)
{
    pmix_proc_t p;
    pmix_info_t info[2];
    size_t ni = 0;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    bool yes = true;

    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    if (optional)
        PMIX_INFO_LOAD(&info[ni++], PMIX_OPTIONAL, &yes, PMIX_BOOL);
    if (timeout > 0)
        PMIX_INFO_LOAD(&info[ni++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Get(&p, key, ni ? info : NULL, ni, &v);
    if (rc != want_rc)
        it_fail(__FILE__, __LINE__, "Get(rank %u, %s%s) returned %s, expected %s", rank, key,
                optional ? ", optional" : "", PMIx_Error_string(rc), PMIx_Error_string(want_rc));
    if (rc == PMIX_SUCCESS) {
        IT_CHECK(v->type == PMIX_UINT32 && v->data.uint32 == want,
                 "Get(rank %u, %s): type %d value %u, expected %u", rank, key, v->type,
                 v->data.uint32, want);
        PMIX_VALUE_RELEASE(v);
    }
    for (size_t i = 0; i < ni; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

static int cb_calls;
static pmix_status_t cb_status = -9999;

static void op_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    cb_status = status;
    __atomic_add_fetch(&cb_calls, 1, __ATOMIC_RELEASE);
}

/* ---- sets ---- */

/* Only the nodes hosting participants of a subset fence work for it: a node
 * without participants sends as many messages between two barriers with the
 * subset fence in between as between two barriers alone. */
static void subset_involvement(void)
{
    pmix_proc_t pair[2];
    uint32_t last = size - 1;
    bool member = it_me.rank == 0 || it_me.rank == last;
    bool hosting = mynode == node_of[0] || mynode == node_of[last];
    uint64_t t1, t2, t3;

    PMIX_LOAD_PROCID(&pair[0], it_me.nspace, last);
    PMIX_LOAD_PROCID(&pair[1], it_me.nspace, 0);
    /* each window holds two barriers; every rank reads the counter before
     * anyone enters the next window */
    it_fence();
    it_sleep_ms(30);
    t1 = it_query_u64(SPMIX_QUERY_TREE_MSGS_SENT);
    it_fence();
    if (member)
        IT_RC(PMIx_Fence(pair, 2, NULL, 0), PMIX_SUCCESS, "Fence(subset: first and last rank)");
    it_fence();
    it_sleep_ms(30);
    t2 = it_query_u64(SPMIX_QUERY_TREE_MSGS_SENT);
    it_fence();
    it_fence();
    it_sleep_ms(30);
    t3 = it_query_u64(SPMIX_QUERY_TREE_MSGS_SENT);
    if (nnodes > 1 && !hosting)
        IT_CHECK(t2 - t1 == t3 - t2, "node %u hosts no participant of the subset fence but "
                 "sent %llu messages around it against %llu around a barrier alone", mynode,
                 (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t2));
    if (nnodes > 1 && hosting && node_of[0] != node_of[last])
        IT_CHECK(t2 - t1 > t3 - t2, "node %u hosts a participant of a two-node subset fence "
                 "but sent no message for it (%llu %llu %llu)", mynode, (unsigned long long)t1,
                 (unsigned long long)t2, (unsigned long long)t3);
}

static void mode_sets(void)
{
    pmix_proc_t *all, wild, self, pair[2];
    bool yes = true;
    pmix_status_t rc;
    double t0;
    int tmo = 1;

    IT_CHECK(size >= 3, "needs at least 3 ranks");
    PMIX_PROC_CREATE(all, size);
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&self, it_me.nspace, it_me.rank);

    /* NULL = own namespace = WILDCARD; order of a list is irrelevant */
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "Fence(NULL)");
    IT_RC(PMIx_Fence(&wild, 1, NULL, 0), PMIX_SUCCESS, "Fence(wildcard)");
    for (uint32_t r = 0; r < size; r++)
        PMIX_LOAD_PROCID(&all[r], it_me.nspace, r);
    IT_RC(PMIx_Fence(all, size, NULL, 0), PMIX_SUCCESS, "Fence(ascending list)");
    for (uint32_t r = 0; r < size; r++)   /* each rank its own order */
        PMIX_LOAD_PROCID(&all[r], it_me.nspace, (r + it_me.rank) % size);
    IT_RC(PMIx_Fence(all, size, NULL, 0), PMIX_SUCCESS, "Fence(rotated list)");

    /* bad arguments, non-members: refused at once, no callback */
    IT_RC(PMIx_Fence(NULL, 2, NULL, 0), PMIX_ERR_BAD_PARAM, "Fence(NULL procs, nprocs 2)");
    IT_RC(PMIx_Fence_nb(NULL, 2, NULL, 0, op_cb, NULL), PMIX_ERR_BAD_PARAM,
          "Fence_nb(NULL procs, nprocs 2)");
    PMIX_LOAD_PROCID(&pair[0], it_me.nspace, 0);
    PMIX_LOAD_PROCID(&pair[1], it_me.nspace, 1);
    if (it_me.rank <= 1) {
        IT_RC(PMIx_Fence(pair, 2, NULL, 0), PMIX_SUCCESS, "Fence(ranks 0 and 1)");
    } else {
        t0 = it_now();
        IT_RC(PMIx_Fence(pair, 2, NULL, 0), PMIX_ERR_NOT_A_MEMBER, "Fence(not a member)");
        IT_CHECK(it_now() - t0 < 1.0, "non-member fence took %.2f s", it_now() - t0);
        IT_RC(PMIx_Fence_nb(pair, 2, NULL, 0, op_cb, NULL), PMIX_ERR_NOT_A_MEMBER,
              "Fence_nb(not a member)");
    }
    subset_involvement();

    /* WILDCARD callers are not matched with callers listing every rank: rank
     * 0's list fence times out alone, then it joins the others' wildcard */
    for (uint32_t r = 0; r < size; r++)
        PMIX_LOAD_PROCID(&all[r], it_me.nspace, r);
    if (it_me.rank == 0) {
        t0 = it_now();
        IT_RC(fence_info(all, size, PMIX_TIMEOUT, &tmo, PMIX_INT), PMIX_ERR_TIMEOUT,
              "Fence(list of all, 1 s timeout) while the others use WILDCARD");
        IT_CHECK(it_now() - t0 < 4.0, "the 1 s fence timeout took %.2f s", it_now() - t0);
    }
    IT_RC(PMIx_Fence(&wild, 1, NULL, 0), PMIX_SUCCESS, "Fence(wildcard) after the list");

    /* Fence_nb: rank 0 comes late, so nobody else can complete at once */
    if (it_me.rank == 0) {
        it_sleep_ms(300);
        rc = PMIx_Fence_nb(NULL, 0, NULL, 0, op_cb, NULL);
        IT_CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "Fence_nb: %s",
                 PMIx_Error_string(rc));
    } else {
        rc = PMIx_Fence_nb(NULL, 0, NULL, 0, op_cb, NULL);
        IT_RC(rc, PMIX_SUCCESS, "Fence_nb (a participant is late)");
    }
    if (rc == PMIX_SUCCESS) {
        IT_WAIT_FOR(cb_calls, 20, "the Fence_nb callback");
        IT_CHECK(cb_status == PMIX_SUCCESS, "Fence_nb callback: %s", PMIx_Error_string(cb_status));
    }
    it_sleep_ms(100);
    IT_CHECK(cb_calls == (rc == PMIX_SUCCESS), "Fence_nb callback ran %d times", cb_calls);

    /* a fence of the caller alone */
    cb_calls = 0;
    rc = PMIx_Fence_nb(&self, 1, NULL, 0, op_cb, NULL);
    IT_CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "Fence_nb(self): %s",
             PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS)
        IT_WAIT_FOR(cb_calls, 10, "the Fence_nb(self) callback");
    it_sleep_ms(100);
    IT_CHECK(cb_calls == (rc == PMIX_SUCCESS), "Fence_nb(self) returned %s, callback ran %d "
             "times", PMIx_Error_string(rc), cb_calls);

    /* NULL cbfunc: blocking, the result is the fence's (rank 0 is 0.5 s late;
     * a rank that itself reaches the fence up to 0.3 s late on a loaded
     * machine still waits more than 0.2 s) */
    if (it_me.rank == 0)
        it_sleep_ms(500);
    t0 = it_now();
    IT_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL), PMIX_SUCCESS, "Fence_nb(NULL cbfunc)");
    IT_CHECK(it_me.rank == 0 || it_now() - t0 > 0.2,
             "Fence_nb(NULL cbfunc) returned after %.3f s, before the late rank came",
             it_now() - t0);

    /* optional directives are accepted */
    IT_RC(fence_info(NULL, 0, PMIX_COLLECT_GENERATED_JOB_INFO, &yes, PMIX_BOOL), PMIX_SUCCESS,
          "Fence(PMIX_COLLECT_GENERATED_JOB_INFO)");
    IT_RC(fence_info(NULL, 0, PMIX_ALL_CLONES_PARTICIPATE, &yes, PMIX_BOOL), PMIX_SUCCESS,
          "Fence(PMIX_ALL_CLONES_PARTICIPATE)");
    {
        pmix_info_t info[3];
        PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_GENERATED_JOB_INFO, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&info[2], PMIX_ALL_CLONES_PARTICIPATE, &yes, PMIX_BOOL);
        IT_RC(PMIx_Fence(NULL, 0, info, 3), PMIX_SUCCESS, "Fence(collect + both)");
        for (int i = 0; i < 3; i++)
            PMIX_INFO_DESTRUCT(&info[i]);
    }
    PMIX_PROC_FREE(all, size);
}

/* ---- timeout ---- */

static void mode_timeout(void)
{
    int tmo = 1;
    bool collect;
    double t0;

    IT_CHECK(size >= 2, "needs at least 2 ranks");
    /* rank 1 never joins: every other rank times out (the clock runs from
     * the first local participant's arrival, so only an upper bound) */
    if (it_me.rank != 1) {
        t0 = it_now();
        IT_RC(fence_info(NULL, 0, PMIX_TIMEOUT, &tmo, PMIX_INT), PMIX_ERR_TIMEOUT,
              "Fence(1 s timeout, rank 1 missing)");
        IT_CHECK(it_now() - t0 < 5.0, "the 1 s timeout took %.2f s", it_now() - t0);
    } else {
        it_sleep_ms(2000);
    }
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "the fence after a timeout");
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "the second fence after a timeout");

    /* disagreement on collecting data: the servers disagree when there are
     * several nodes (node 0 collects), else the ranks (rank 0 collects) */
    collect = nnodes > 1 ? mynode == 0 : it_me.rank == 0;
    t0 = it_now();
    IT_RC(fence_info(NULL, 0, PMIX_COLLECT_DATA, &collect, PMIX_BOOL), PMIX_ERR_BAD_PARAM,
          collect ? "Fence(collect) while others do not" : "Fence(no collect) while others do");
    IT_CHECK(it_now() - t0 < 5.0, "the disagreeing fence took %.2f s", it_now() - t0);
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "the fence after a disagreement");
    collect_fence(NULL, 0, "a collecting fence after a disagreement");
}

/* The missing rank of a timed-out fence is alone on its node (run with
 * --nodes 4 -n 5): its next fence must work as it does when it shares a node
 * (mode timeout) or on one node. */
static void mode_late(void)
{
    int tmo = 1, tmo_next = 10;

    IT_CHECK(size >= 2, "needs at least 2 ranks");
    if (it_me.rank != size - 1)
        IT_RC(fence_info(NULL, 0, PMIX_TIMEOUT, &tmo, PMIX_INT), PMIX_ERR_TIMEOUT,
              "Fence(1 s timeout, last rank missing)");
    else
        it_sleep_ms(2000);
    IT_RC(fence_info(NULL, 0, PMIX_TIMEOUT, &tmo_next, PMIX_INT), PMIX_SUCCESS,
          "the fence after a timeout its rank missed");
}

/* ---- data ---- */

static void expect_counters(uint64_t keys, uint64_t dels, const char *what)
{
    uint64_t k = it_query_u64(SPMIX_QUERY_LAST_COLL_KEYS);
    uint64_t d = it_query_u64(SPMIX_QUERY_LAST_COLL_DELS);

    IT_CHECK(k == keys && d == dels, "%s: node %u contributed %llu keys and %llu deletions, "
             "expected %llu and %llu", what, mynode, (unsigned long long)k,
             (unsigned long long)d, (unsigned long long)keys, (unsigned long long)dels);
}

/* The same for a fence over the whole namespace: when the whole job is on one
 * node such a fence completes among the processes in shared memory
 * (proto/shm_barrier.h) without the server, which then has no last
 * collective to count - the data checks around it still apply. */
static void expect_counters_ns(uint64_t keys, uint64_t dels, const char *what)
{
    if (nnodes > 1)
        expect_counters(keys, dels, what);
}

/* A stretch between two barriers in which this node must send no tree
 * message (what the ranks ask for is already here). */
static uint64_t quiet_begin(void)
{
    it_fence();
    it_sleep_ms(30);
    return it_query_u64(SPMIX_QUERY_TREE_MSGS_SENT);
}

static void quiet_end(uint64_t t, const char *what)
{
    uint64_t now = it_query_u64(SPMIX_QUERY_TREE_MSGS_SENT);

    IT_CHECK(now == t, "%s: node %u sent %llu tree messages", what, mynode,
             (unsigned long long)(now - t));
    it_fence();
}

static void mode_data(void)
{
    uint32_t me = it_me.rank, peer = (me + 1) % size, nloc = local_count(), ngroup = 0;
    pmix_proc_t *group;
    uint64_t t;
    double t0;

    IT_CHECK(size >= 2, "needs at least 2 ranks");
    /* a peer on another node, a different one for each local rank (their
     * direct modex requests must not answer each other's) */
    if (nnodes > 1)
        peer = (me + nloc) % size;
    put_u32("d.a", 10 * me);
    put_u32("d.b", 10 * me + 1);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");

    /* the default fence moves no data; a remote key then comes by direct
     * modex (a message from this node) */
    it_fence();
    expect_counters_ns(0, 0, "a fence without PMIX_COLLECT_DATA");
    t = quiet_begin();
    get_u32(peer, "d.a", PMIX_SUCCESS, 10 * peer, false, 0);
    if (nnodes > 1)
        IT_CHECK(node_of[peer] != mynode && it_query_u64(SPMIX_QUERY_TREE_MSGS_SENT) > t,
                 "rank %u's key reached node %u without a direct modex request", peer, mynode);
    it_fence();
    t0 = it_now();
    get_u32(peer, "d.never", PMIX_ERR_TIMEOUT, 0, false, 1);
    IT_CHECK(it_now() - t0 > 0.8 && it_now() - t0 < 5.0, "Get with a 1 s timeout took %.2f s",
             it_now() - t0);
    t0 = it_now();
    get_u32(peer, "d.never", PMIX_ERR_NOT_FOUND, 0, true, 0);
    IT_CHECK(it_now() - t0 < 1.0, "optional Get of a missing key took %.2f s", it_now() - t0);
    it_fence();

    /* a collecting fence: everything is here afterwards (no message sent) */
    collect_fence(NULL, 0, "collecting fence #1");
    expect_counters_ns(2 * nloc, 0, "the first collecting fence");
    t = quiet_begin();
    for (uint32_t r = 0; r < size; r++) {
        get_u32(r, "d.a", PMIX_SUCCESS, 10 * r, false, 0);
        get_u32(r, "d.b", PMIX_SUCCESS, 10 * r + 1, false, 0);
    }
    quiet_end(t, "Gets of collected data");
    collect_fence(NULL, 0, "collecting fence #2");
    expect_counters_ns(0, 0, "a collecting fence with nothing new");

    /* one changed key travels alone */
    if (me == 0) {
        put_u32("d.a", 999);
        IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    }
    collect_fence(NULL, 0, "collecting fence #3");
    expect_counters_ns(mynode == node_of[0] ? 1 : 0, 0, "one key changed on rank 0");
    get_u32(0, "d.a", PMIX_SUCCESS, 999, true, 0);

    /* another participant set (the ranks of one half of the nodes, or all
     * ranks listed when there is one node): the full set again, both ways */
    PMIX_PROC_CREATE(group, size);
    for (uint32_t r = 0; r < size; r++)
        if (nnodes == 1 || (node_of[r] < nnodes / 2) == (mynode < nnodes / 2)) {
            PMIX_LOAD_PROCID(&group[ngroup], it_me.nspace, r);   /* a macro: no ++ inside */
            ngroup++;
        }
    collect_fence(group, ngroup, "collecting fence over half of the nodes");
    expect_counters(2 * nloc, 0, "a collecting fence over another set");
    collect_fence(NULL, 0, "collecting fence #4");
    expect_counters_ns(2 * nloc, 0, "back to the whole namespace");
    collect_fence(NULL, 0, "collecting fence #5");
    expect_counters_ns(0, 0, "the whole namespace again");
    PMIX_PROC_FREE(group, size);

    /* a deletion: local peers at commit, remote ones with the next collecting fence */
    if (me == 0) {
        IT_RC(PMIx_Put(PMIX_DEL_GLOBAL, "d.b", NULL), PMIX_SUCCESS, "PMIx_Put(PMIX_DEL_GLOBAL)");
        IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit (deletion)");
    }
    it_fence();
    if (mynode == node_of[0])
        get_u32(0, "d.b", PMIX_ERR_NOT_FOUND, 0, true, 0);
    collect_fence(NULL, 0, "collecting fence #6");
    expect_counters_ns(0, mynode == node_of[0] ? 1 : 0, "rank 0 deleted a key");
    /* every node held d.b of rank 0 since fence #1: not finding it now means
     * the fence removed it */
    get_u32(0, "d.b", PMIX_ERR_NOT_FOUND, 0, true, 0);
    t = quiet_begin();
    get_u32(0, "d.a", PMIX_SUCCESS, 999, false, 0);
    get_u32(size - 1, "d.b", PMIX_SUCCESS, 10 * (size - 1) + 1, false, 0);
    quiet_end(t, "Gets after the deletion");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    size = it_init();
    nnodes = it_num_nodes();
    node_of = calloc(size, sizeof(*node_of));
    IT_CHECK(node_of != NULL, "out of memory");
    for (uint32_t r = 0; r < size; r++)
        node_of[r] = it_nodeid(r);
    mynode = node_of[it_me.rank];
    it_fence();   /* start every mode together */
    if (strcmp(mode, "sets") == 0)
        mode_sets();
    else if (strcmp(mode, "timeout") == 0)
        mode_timeout();
    else if (strcmp(mode, "data") == 0)
        mode_data();
    else if (strcmp(mode, "late") == 0)
        mode_late();
    else
        it_fail(__FILE__, __LINE__, "usage: it_mnfence sets|timeout|data|late");
    it_fence();
    if (it_me.rank == 0)
        printf("it_mnfence %s: %u ranks on %u nodes: OK\n", mode, size, nnodes);
    free(node_of);
    it_finalize();
    return 0;
}
