/* test_server.c - unit tests of lib/server.
 *
 * Part 1 drives the fence engine (server/fence.h) directly with a fake ops
 * table: every arrival order of three local processes, WILDCARD and explicit
 * sets kept apart, NOT_A_MEMBER, collect disagreement, timeout (and a late
 * host answer) followed by a working fence, a lost participant, repeated
 * fences of one process, a host without fence_nb, destroy with waiters.
 *
 * Part 2 runs a real server in the test process (PMIx_server_init) and talks
 * to it over its unix socket with the codec: HELLO and job info, refused
 * handshakes, hostile bytes closing one connection while others keep
 * working, COMMIT/GET (scopes, held GET answered by a later commit,
 * OPTIONAL), a two-process fence, NOTIFY delivered as EVENT, JOBCTL cleanup
 * registration, and finalize removing the directory. Groups: hostile or
 * truncated GROUP frames, and a construct/destruct handed to a host's
 * `group` upcall (its context id and endpoint data reach every member).
 * QUERY of the process-set keys: answered by the library (none defined)
 * without a host query upcall and where the host's answer lacks them; a
 * host's own answer kept. The process tables, job status, namespace info,
 * spawn support and URI the server answers without a host (the program and
 * command line from /proc), and a client's PMIx_Abort in its state.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "codec/value.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "proto/msg.h"
#include "proto/group.h"
#include "proto/records.h"
#include "server/fence.h"
#include "server/server.h"
#include "store/jobparts.h"
#include "store/store.h"

/* ====================== part 1: the fence engine ====================== */

#define NS "A"

struct fake {
    pmix_proc_t local[4];
    size_t nlocal;
    bool lost_before;
    pmix_status_t host_rc;
    int host_calls;
    void *token;
    size_t ndata;
    uint32_t data_ranks[8];
    size_t ndata_ranks;
    bool host_collect;
    int delivered;
    int nreply;
    int reply_id[32];
    pmix_status_t reply_st[32];
    int armed, cancelled;
    uint64_t timer_id;
    int ncontributed;
    pmix_rank_t contributed[8];
    int nlocal_failed;
    pmix_status_t local_failed_st;
};

static struct fake F;
static spx_fence_engine_t *E;

static size_t f_local(const pmix_proc_t *set, size_t nset, pmix_proc_t **out,
                      pmix_status_t *gone, void *arg)
{
    (void)arg;
    *out = malloc(sizeof(F.local));
    size_t n = 0;
    for (size_t i = 0; i < F.nlocal; i++)
        if (spx_fence_proc_in_set(&F.local[i], set, nset))
            (*out)[n++] = F.local[i];
    *gone = F.lost_before ? PMIX_ERR_PROC_ABORTED : PMIX_SUCCESS;
    return n;
}

static uint64_t f_contribute(const pmix_proc_t *p, const char *key, spx_buf_t *out, void *arg)
{
    (void)arg;
    ck_assert_ptr_nonnull(key);
    spx_buf_push_u32(out, p->rank);
    return 100 + p->rank;
}

static void f_contributed(const pmix_proc_t *p, const char *key, uint64_t upto, void *arg)
{
    (void)arg;
    ck_assert_ptr_nonnull(key);
    ck_assert_uint_eq(upto, 100 + p->rank);
    ck_assert_int_lt(F.ncontributed, 8);
    F.contributed[F.ncontributed++] = p->rank;
}

static void f_local_failed(const pmix_proc_t *set, size_t nset, const char *key, bool collect,
                           pmix_status_t st, double timeout, void *arg)
{
    (void)arg, (void)set, (void)nset, (void)collect, (void)timeout;
    ck_assert_ptr_nonnull(key);
    F.nlocal_failed++;
    F.local_failed_st = st;
}

static pmix_status_t f_host(const pmix_proc_t *set, size_t nset, const char *key,
                            const pmix_info_t *info, size_t ninfo, char *data, size_t ndata,
                            void *token, void *arg)
{
    (void)arg, (void)set, (void)nset;
    ck_assert_ptr_nonnull(key);
    F.host_calls++;
    F.token = token;
    F.ndata = ndata;
    F.host_collect = false;
    for (size_t i = 0; i < ninfo; i++)
        if (strcmp(info[i].key, PMIX_COLLECT_DATA) == 0 && info[i].value.data.flag)
            F.host_collect = true;
    F.ndata_ranks = 0;
    for (size_t i = 0; i + 4 <= ndata && F.ndata_ranks < 8; i += 4) {
        uint32_t r;
        memcpy(&r, data + i, 4);
        F.data_ranks[F.ndata_ranks++] = r;
    }
    return F.host_rc;
}

static pmix_status_t f_deliver(const char *data, size_t ndata, void *arg)
{
    (void)arg, (void)data;
    ck_assert_uint_gt(ndata, 0);
    F.delivered++;
    return PMIX_SUCCESS;
}

static void f_reply(void *req, pmix_status_t st, void *arg)
{
    (void)arg;
    ck_assert_int_lt(F.nreply, 32);
    F.reply_id[F.nreply] = (int)(intptr_t)req;
    F.reply_st[F.nreply++] = st;
}

static void *f_arm(double s, uint64_t id, void *arg)
{
    (void)arg;
    ck_assert(s > 0);
    F.armed++;
    F.timer_id = id;
    return &F; /* any non-NULL handle */
}

static void f_cancel(void *h, void *arg)
{
    (void)arg;
    ck_assert_ptr_eq(h, &F);
    F.cancelled++;
}

static const spx_fence_ops_t fake_ops = {.local_members = f_local,
                                         .contribute = f_contribute,
                                         .contributed = f_contributed,
                                         .local_failed = f_local_failed,
                                         .host_fence = f_host,
                                         .deliver = f_deliver,
                                         .reply = f_reply,
                                         .timer_arm = f_arm,
                                         .timer_cancel = f_cancel};

static pmix_proc_t P(const char *ns, pmix_rank_t r)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    snprintf(p.nspace, sizeof(p.nspace), "%s", ns);
    p.rank = r;
    return p;
}

static void fence_setup(void)
{
    memset(&F, 0, sizeof(F));
    for (int i = 0; i < 3; i++)
        F.local[i] = P(NS, (pmix_rank_t)i);
    F.nlocal = 3;
    F.host_rc = PMIX_SUCCESS;
    E = spx_fence_engine_create(&fake_ops, NULL);
    ck_assert_ptr_nonnull(E);
}

static void fence_teardown(void)
{
    spx_fence_engine_destroy(E);
    E = NULL;
}

static const pmix_proc_t WILD[1] = {{NS, PMIX_RANK_WILDCARD}};

/* requester id = 100 * round + rank */
static void arrive(pmix_rank_t r, const pmix_proc_t *set, size_t n, bool collect, double to,
                   int id)
{
    pmix_proc_t me = P(NS, r);
    spx_fence_arrive(E, &me, set, n, collect, to, (void *)(intptr_t)id);
}

static void assert_all_replied(int from, int count, pmix_status_t st)
{
    ck_assert_int_eq(F.nreply, from + count);
    for (int i = from; i < from + count; i++)
        ck_assert_int_eq(F.reply_st[i], st);
}

static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

START_TEST(fence_every_order)
{
    const int *o = orders[_i];
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(F.host_calls, 0);
        ck_assert_int_eq(F.nreply, 0);
        arrive((pmix_rank_t)o[k], WILD, 1, true, 0, o[k]);
    }
    ck_assert_int_eq(F.host_calls, 1);
    ck_assert(F.host_collect);
    /* one contribution per local participant, in the expected-list order */
    ck_assert_uint_eq(F.ndata_ranks, 3);
    ck_assert_uint_eq(F.data_ranks[0] + F.data_ranks[1] + F.data_ranks[2], 3);
    ck_assert_int_eq(F.nreply, 0);
    ck_assert_uint_eq(spx_fence_count(E), 1);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, "xyz", 3);
    ck_assert_int_eq(F.delivered, 1);
    assert_all_replied(0, 3, PMIX_SUCCESS);
    int seen = 0;
    for (int i = 0; i < 3; i++)
        seen |= 1 << F.reply_id[i];
    ck_assert_int_eq(seen, 7);
    ck_assert_uint_eq(spx_fence_count(E), 0);
}
END_TEST

START_TEST(fence_barrier_has_no_data)
{
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, false, 0, r);
    ck_assert_int_eq(F.host_calls, 1);
    ck_assert(!F.host_collect);
    ck_assert_uint_eq(F.ndata, 0);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    ck_assert_int_eq(F.delivered, 0);
    assert_all_replied(0, 3, PMIX_SUCCESS);
}
END_TEST

START_TEST(fence_wildcard_vs_explicit)
{
    pmix_proc_t expl[3] = {P(NS, 2), P(NS, 0), P(NS, 1)}; /* order does not matter */
    arrive(0, WILD, 1, false, 0, 0);
    arrive(1, expl, 3, false, 0, 1);
    arrive(2, WILD, 1, false, 0, 2);
    ck_assert_uint_eq(spx_fence_count(E), 2);
    ck_assert_int_eq(F.host_calls, 0);
    arrive(0, expl, 3, false, 0, 10);
    arrive(2, expl, 3, false, 0, 12);
    ck_assert_int_eq(F.host_calls, 1); /* explicit set complete */
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    ck_assert_int_eq(F.nreply, 3);
    arrive(1, WILD, 1, false, 0, 11);
    ck_assert_int_eq(F.host_calls, 2);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    assert_all_replied(0, 6, PMIX_SUCCESS);
    ck_assert_uint_eq(spx_fence_count(E), 0);
}
END_TEST

START_TEST(fence_not_a_member)
{
    pmix_proc_t set[2] = {P(NS, 0), P(NS, 1)};
    arrive(2, set, 2, false, 0, 2);
    ck_assert_int_eq(F.nreply, 1);
    ck_assert_int_eq(F.reply_st[0], PMIX_ERR_NOT_A_MEMBER);
    ck_assert_uint_eq(spx_fence_count(E), 0);
    pmix_proc_t other = P("B", PMIX_RANK_WILDCARD);
    arrive(0, &other, 1, false, 0, 0);
    ck_assert_int_eq(F.reply_st[1], PMIX_ERR_NOT_A_MEMBER);
    /* a subset fence of members completes with only its local members */
    arrive(0, set, 2, false, 0, 0);
    arrive(1, set, 2, false, 0, 1);
    ck_assert_int_eq(F.host_calls, 1);
}
END_TEST

START_TEST(fence_collect_disagreement)
{
    arrive(0, WILD, 1, true, 0, 0);
    arrive(1, WILD, 1, false, 0, 1);
    ck_assert_int_eq(F.nreply, 0);
    arrive(2, WILD, 1, true, 0, 2);
    ck_assert_int_eq(F.host_calls, 0);
    assert_all_replied(0, 3, PMIX_ERR_BAD_PARAM);
    ck_assert_uint_eq(spx_fence_count(E), 0);
}
END_TEST

START_TEST(fence_timeout_then_next_works)
{
    arrive(0, WILD, 1, false, 5, 0);
    arrive(1, WILD, 1, false, 5, 1);
    ck_assert_int_eq(F.armed, 1);
    spx_fence_timeout(E, F.timer_id);
    assert_all_replied(0, 2, PMIX_ERR_TIMEOUT);
    ck_assert_uint_eq(spx_fence_count(E), 0);
    ck_assert_int_eq(F.cancelled, 0); /* a fired timer is not cancelled */
    spx_fence_timeout(E, F.timer_id); /* stale: ignored */
    ck_assert_int_eq(F.nreply, 2);

    /* timeout while the host holds it; its late answer is ignored */
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, true, 5, 10 + r);
    ck_assert_int_eq(F.host_calls, 1);
    void *late = F.token;
    spx_fence_timeout(E, F.timer_id);
    assert_all_replied(2, 3, PMIX_ERR_TIMEOUT);
    spx_fence_host_done(E, late, PMIX_SUCCESS, "abc", 3);
    ck_assert_int_eq(F.nreply, 5);
    ck_assert_int_eq(F.delivered, 0);

    /* the next fence on the same set works, and its timer is cancelled */
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, false, 5, 20 + r);
    ck_assert_int_eq(F.host_calls, 2);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    assert_all_replied(5, 3, PMIX_SUCCESS);
    ck_assert_int_eq(F.cancelled, 1);
}
END_TEST

START_TEST(fence_participant_lost)
{
    arrive(0, WILD, 1, false, 0, 0);
    arrive(2, WILD, 1, false, 0, 2);
    pmix_proc_t gone = P(NS, 1);
    pmix_proc_t stranger = P("B", 1);
    spx_fence_proc_lost(E, &stranger);
    ck_assert_int_eq(F.nreply, 0);
    spx_fence_proc_lost(E, &gone);
    assert_all_replied(0, 2, PMIX_ERR_PROC_ABORTED);
    ck_assert_uint_eq(spx_fence_count(E), 0);
    /* already gone when the fence starts: fails at once */
    F.lost_before = true;
    arrive(0, WILD, 1, false, 0, 0);
    assert_all_replied(2, 1, PMIX_ERR_PROC_ABORTED);
}
END_TEST

/* A participant that finalized stops being expected: the fence completes
 * without it (after it arrived, its arrival still counts). */
START_TEST(fence_participant_departed)
{
    arrive(0, WILD, 1, false, 0, 0);
    arrive(2, WILD, 1, false, 0, 2);
    pmix_proc_t left = P(NS, 1), stranger = P("B", 1);
    spx_fence_proc_departed(E, &stranger);
    ck_assert_int_eq(F.host_calls, 0);
    spx_fence_proc_departed(E, &left);
    ck_assert_int_eq(F.host_calls, 1);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    assert_all_replied(0, 2, PMIX_SUCCESS);
    ck_assert_uint_eq(spx_fence_count(E), 0);
    /* one that already arrived is still counted */
    arrive(0, WILD, 1, false, 0, 0);
    arrive(1, WILD, 1, false, 0, 1);
    spx_fence_proc_departed(E, &left);
    ck_assert_int_eq(F.host_calls, 1);
    arrive(2, WILD, 1, false, 0, 2);
    ck_assert_int_eq(F.host_calls, 2);
}
END_TEST

START_TEST(fence_repeated_by_one_proc)
{
    /* rank 0 enters fence #1 and #2 before the others enter #1 */
    arrive(0, WILD, 1, false, 0, 1);
    arrive(0, WILD, 1, false, 0, 2);
    ck_assert_uint_eq(spx_fence_count(E), 2);
    arrive(1, WILD, 1, false, 0, 3);
    arrive(2, WILD, 1, false, 0, 4);
    ck_assert_int_eq(F.host_calls, 1);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    ck_assert_int_eq(F.nreply, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_ne(F.reply_id[i], 2); /* fence #2 of rank 0 still waits */
    ck_assert_uint_eq(spx_fence_count(E), 1);
}
END_TEST

START_TEST(fence_host_without_fence)
{
    F.host_rc = PMIX_ERR_NOT_SUPPORTED;
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, true, 0, r);
    assert_all_replied(0, 3, PMIX_SUCCESS);
    F.host_rc = PMIX_ERR_UNREACH;
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, false, 0, r);
    assert_all_replied(3, 3, PMIX_ERR_UNREACH);
    ck_assert_uint_eq(spx_fence_count(E), 0);
}
END_TEST

START_TEST(fence_destroy_answers_waiters)
{
    arrive(0, WILD, 1, false, 3, 0);
    spx_fence_engine_destroy(E);
    E = spx_fence_engine_create(&fake_ops, NULL);
    assert_all_replied(0, 1, PMIX_ERR_NOT_AVAILABLE);
    ck_assert_int_eq(F.cancelled, 1);
}
END_TEST

START_TEST(fence_contributed_only_on_collecting_success)
{
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, true, 0, r);
    ck_assert_int_eq(F.ncontributed, 0); /* not before the answer */
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, "x", 1);
    ck_assert_int_eq(F.ncontributed, 3);
    /* a barrier moves nothing */
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, false, 0, r);
    spx_fence_host_done(E, F.token, PMIX_SUCCESS, NULL, 0);
    ck_assert_int_eq(F.ncontributed, 3);
    /* a failed collecting fence moves nothing either */
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, true, 0, r);
    spx_fence_host_done(E, F.token, PMIX_ERR_TIMEOUT, NULL, 0);
    ck_assert_int_eq(F.ncontributed, 3);
    assert_all_replied(6, 3, PMIX_ERR_TIMEOUT);
}
END_TEST

START_TEST(fence_local_failure_told_to_others)
{
    /* collect disagreement */
    arrive(0, WILD, 1, true, 0, 0);
    arrive(1, WILD, 1, false, 0, 1);
    arrive(2, WILD, 1, true, 0, 2);
    ck_assert_int_eq(F.nlocal_failed, 1);
    ck_assert_int_eq(F.local_failed_st, PMIX_ERR_BAD_PARAM);
    /* timeout while gathering */
    arrive(0, WILD, 1, false, 4, 0);
    spx_fence_timeout(E, F.timer_id);
    ck_assert_int_eq(F.nlocal_failed, 2);
    ck_assert_int_eq(F.local_failed_st, PMIX_ERR_TIMEOUT);
    /* lost participant while gathering */
    arrive(0, WILD, 1, false, 0, 0);
    pmix_proc_t gone = P(NS, 2);
    spx_fence_proc_lost(E, &gone);
    ck_assert_int_eq(F.nlocal_failed, 3);
    ck_assert_int_eq(F.local_failed_st, PMIX_ERR_PROC_ABORTED);
    /* timeout once handed to the host: the host side fails on its own */
    for (int r = 0; r < 3; r++)
        arrive((pmix_rank_t)r, WILD, 1, false, 4, r);
    ck_assert_int_eq(F.host_calls, 1);
    spx_fence_timeout(E, F.timer_id);
    ck_assert_int_eq(F.nlocal_failed, 3);
    ck_assert_uint_eq(spx_fence_count(E), 0);
}
END_TEST

static bool pred_ns(const pmix_proc_t *set, size_t nset, void *arg)
{
    for (size_t i = 0; i < nset; i++)
        if (strcmp(set[i].nspace, arg) == 0)
            return true;
    return false;
}

START_TEST(fence_fail_if_any_state)
{
    pmix_proc_t sub[2] = {P(NS, 0), P(NS, 1)};
    arrive(0, sub, 2, true, 0, 0);
    arrive(1, sub, 2, true, 0, 1); /* handed to the host */
    ck_assert_int_eq(F.host_calls, 1);
    void *late = F.token;
    arrive(2, WILD, 1, false, 0, 2); /* still gathering */
    ck_assert_uint_eq(spx_fence_fail_if(E, pred_ns, (void *)"B", PMIX_ERR_UNREACH), 0);
    ck_assert_uint_eq(spx_fence_fail_if(E, pred_ns, (void *)NS, PMIX_ERR_UNREACH), 2);
    assert_all_replied(0, 3, PMIX_ERR_UNREACH);
    ck_assert_int_eq(F.nlocal_failed, 1); /* only the gathering one tells the others */
    spx_fence_host_done(E, late, PMIX_SUCCESS, "abc", 3);
    ck_assert_int_eq(F.delivered, 0);
    ck_assert_int_eq(F.ncontributed, 0);
    ck_assert_int_eq(F.nreply, 3);
    ck_assert_uint_eq(spx_fence_count(E), 0);
}
END_TEST

/* ====================== part 2: a real server over its socket ====================== */

static char tmpdir[64];
static char sock_path[512];
static int connected_calls;

static pmix_status_t host_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                                    void *cbdata)
{
    (void)proc, (void)obj;
    __atomic_add_fetch(&connected_calls, 1, __ATOMIC_SEQ_CST);
    cb(PMIX_SUCCESS, cbdata); /* inside the upcall: the library must shift it */
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {.client_connected = host_connected};

/* A host fence that answers from another thread with our contribution plus the
 * record of a process on a "remote" node. */
struct host_answer {
    pmix_modex_cbfunc_t cb;
    void *cbdata;
    spx_buf_t all;
};
static int host_fence_calls;
static size_t host_fence_local_entries;
static int host_released;

static void host_release(void *arg)
{
    struct host_answer *a = arg;
    spx_buf_fini(&a->all);
    free(a);
    __atomic_add_fetch(&host_released, 1, __ATOMIC_SEQ_CST);
}

static void *host_answer_thread(void *arg)
{
    struct host_answer *a = arg;
    a->cb(PMIX_SUCCESS, (char *)a->all.data, a->all.len, a->cbdata, host_release, a);
    return NULL;
}

static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    __atomic_add_fetch(&host_fence_calls, 1, __ATOMIC_SEQ_CST);
    /* what this node contributes: rank 0's GLOBAL key, not its LOCAL one */
    spx_store_t *s = spx_store_create();
    spx_buf_t in;
    spx_buf_init(&in);
    spx_buf_push_raw(&in, data, ndata);
    ck_assert_int_eq(spx_records_apply(&in, s, NULL, NULL), 0);
    spx_buf_fini(&in);
    host_fence_local_entries = spx_store_count(s, "testns", 0);
    ck_assert_ptr_nonnull(spx_store_peek(s, "testns", 0, "g", NULL));
    ck_assert_ptr_null(spx_store_peek(s, "testns", 0, "l", NULL));
    /* the remote node's contribution */
    pmix_value_t v = {.type = PMIX_UINT32};
    v.data.uint32 = 77;
    spx_store_put(s, "remote-ns", 5, "rkey", &v, PMIX_REMOTE);
    struct host_answer *a = calloc(1, sizeof(*a));
    a->cb = cbfunc;
    a->cbdata = cbdata;
    spx_buf_init(&a->all);
    spx_buf_push_raw(&a->all, data, ndata);
    spx_records_push_proc(&a->all, s, "remote-ns", 5, 0, SPX_SCOPES_REMOTE, false, NULL);
    spx_store_destroy(s);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, host_answer_thread, a), 0);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static void info_u32(pmix_info_t *i, const char *key, uint32_t v)
{
    PMIx_Info_load(i, key, &v, PMIX_UINT32);
}

static void server_setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/spx-test-server.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    pmix_info_t init[1];
    memset(init, 0, sizeof(init));
    PMIx_Info_load(&init[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    ck_assert_int_eq(PMIx_server_init(&module, init, 1), PMIX_SUCCESS);
    ck_assert(spx_server_active());
    PMIx_Value_destruct(&init[0].value);

    char host[256];
    gethostname(host, sizeof(host));
    pmix_info_t node[2], pdata[2], job[4];
    memset(node, 0, sizeof(node));
    memset(pdata, 0, sizeof(pdata));
    memset(job, 0, sizeof(job));
    PMIx_Info_load(&node[0], PMIX_HOSTNAME, host, PMIX_STRING);
    info_u32(&node[1], PMIX_NODE_SIZE, 2);
    pmix_rank_t r1 = 1;
    uint16_t lr = 1;
    PMIx_Info_load(&pdata[0], PMIX_RANK, &r1, PMIX_PROC_RANK);
    PMIx_Info_load(&pdata[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
    pmix_data_array_t da_node = {.type = PMIX_INFO, .size = 2, .array = node};
    pmix_data_array_t da_proc = {.type = PMIX_INFO, .size = 2, .array = pdata};
    info_u32(&job[0], PMIX_JOB_SIZE, 2);
    PMIx_Info_load(&job[1], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
    snprintf(job[2].key, sizeof(job[2].key), "%s", PMIX_NODE_INFO_ARRAY);
    job[2].value.type = PMIX_DATA_ARRAY;
    job[2].value.data.darray = &da_node;
    snprintf(job[3].key, sizeof(job[3].key), "%s", PMIX_PROC_DATA);
    job[3].value.type = PMIX_DATA_ARRAY;
    job[3].value.data.darray = &da_proc;
    pmix_nspace_t ns = "testns";
    ck_assert_int_eq(PMIx_server_register_nspace(ns, 2, job, 4, NULL, NULL), PMIX_SUCCESS);
    PMIx_Value_destruct(&job[1].value);
    PMIx_Value_destruct(&node[0].value);

    for (pmix_rank_t r = 0; r < 2; r++) {
        pmix_proc_t p = P("testns", r);
        ck_assert_int_eq(PMIx_server_register_client(&p, geteuid(), getegid(), NULL, NULL, NULL),
                         PMIX_SUCCESS);
    }
    pmix_proc_t p0 = P("testns", 0);
    char **env = NULL;
    ck_assert_int_eq(PMIx_server_setup_fork(&p0, &env), PMIX_SUCCESS);
    sock_path[0] = '\0';
    for (size_t i = 0; env && env[i]; i++) {
        const char *pre = SPX_ENV_SERVER_URI "=" SPX_URI_PREFIX;
        if (strncmp(env[i], pre, strlen(pre)) == 0)
            snprintf(sock_path, sizeof(sock_path), "%s", env[i] + strlen(pre));
        free(env[i]);
    }
    free(env);
    ck_assert_str_ne(sock_path, "");
}

static void server_setup_host_fence(void)
{
    module.fence_nb = host_fence;
    server_setup();
}

static void server_teardown(void)
{
    module.fence_nb = NULL;
    ck_assert_int_eq(PMIx_server_finalize(), PMIX_SUCCESS);
    ck_assert(!spx_server_active());
    struct stat st;
    ck_assert_int_ne(stat(sock_path, &st), 0); /* socket and private directory gone */
    rmdir(tmpdir);
}

static uint32_t next_seq = 1;

static uint32_t send_req(int fd, uint8_t type, spx_buf_t *b)
{
    uint32_t seq = next_seq++;
    ck_assert_int_eq(spx_frame_send_blocking(fd, type, 0, seq, b), 0);
    spx_buf_fini(b);
    return seq;
}

/* Receives the reply to seq (skipping pushed EVENT frames); payload positioned at start. */
static int recv_reply(int fd, uint8_t type, uint32_t seq, spx_buf_t *out)
{
    for (;;) {
        spx_frame_hdr_t h;
        if (spx_frame_recv_blocking(fd, &h, out, 5000) != 0)
            return -1;
        if (h.type == type && (h.flags & SPX_FRAME_F_REPLY) && h.seq == seq)
            return 0;
        spx_buf_fini(out);
    }
}

/* Connects and says HELLO; returns the fd and the status in *st (job info checked by caller
 * through *reply when non-NULL). */
static int hello(pmix_rank_t rank, pmix_status_t *st, spx_buf_t *reply)
{
    int fd = spx_unix_connect(sock_path);
    ck_assert_int_ge(fd, 0);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, SPX_PROTO_VERSION);
    spx_buf_push_u8(&b, SPX_PEER_CLIENT);
    spx_buf_push_str(&b, "testns");
    spx_buf_push_u32(&b, rank);
    spx_buf_push_u32(&b, (uint32_t)getpid());
    uint32_t seq = send_req(fd, SPX_MSG_HELLO, &b);
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(fd, SPX_MSG_HELLO, seq, &r), 0);
    *st = spx_buf_pull_i32(&r);
    if (reply)
        *reply = r;
    else
        spx_buf_fini(&r);
    return fd;
}

/* True when the server closed fd (EOF within the timeout). */
static bool closed_by_server(int fd)
{
    spx_frame_hdr_t h;
    spx_buf_t b;
    for (;;) {
        if (spx_frame_recv_blocking(fd, &h, &b, 5000) != 0)
            return errno != ETIMEDOUT;
        spx_buf_fini(&b); /* an error reply may come first */
    }
}

static const pmix_value_t *find_key(pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(info[i].key, key) == 0)
            return &info[i].value;
    return NULL;
}

/* The server's locality strings for a cpuset: PU 0 alone and all PUs. */
START_TEST(server_locality_string)
{
    pmix_cpuset_t one, all;
    char *l1 = NULL, *la = NULL;
    ck_assert_int_eq(PMIx_Parse_cpuset_string("hwloc:0", &one), PMIX_SUCCESS);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    char spec[64];
    snprintf(spec, sizeof(spec), "hwloc:0-%ld", n - 1);
    ck_assert_int_eq(PMIx_Parse_cpuset_string(spec, &all), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_server_generate_locality_string(&one, &l1), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_server_generate_locality_string(&all, &la), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(strstr(l1, "HT0:"));  /* the first PU only */
    ck_assert_ptr_nonnull(strstr(l1, "CR0:"));
    pmix_locality_t rel;
    ck_assert_int_eq(PMIx_Get_relative_locality(l1, la, &rel), PMIX_SUCCESS);
    ck_assert(rel & PMIX_LOCALITY_SHARE_HWTHREAD); /* PU 0 is in both */
    ck_assert(rel & PMIX_LOCALITY_SHARE_NODE);
    pmix_cpuset_t bad = {.source = "other", .bitmap = one.bitmap};
    char *x = NULL;
    ck_assert_int_eq(PMIx_server_generate_locality_string(&bad, &x), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(PMIx_server_generate_locality_string(NULL, &x), PMIX_ERR_BAD_PARAM);
    free(l1);
    free(la);
    PMIx_Cpuset_destruct(&one);
    PMIx_Cpuset_destruct(&all);
}
END_TEST

START_TEST(server_hello_job_info)
{
    pmix_status_t st;
    spx_buf_t r;
    /* rank 0 has no block of its own: the job level and the parts only, no
     * other process's block (its first Get of one asks the server) */
    int fd0 = hello(0, &st, &r);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 2);
    spx_buf_fini(&r);
    int fd = hello(1, &st, &r);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    uint32_t nblocks = spx_buf_pull_u32(&r);
    ck_assert_uint_eq(nblocks, 3);
    bool saw_wild = false, saw_r1 = false, saw_parts = false;
    for (uint32_t k = 0; k < nblocks; k++) {
        pmix_rank_t rank = spx_buf_pull_u32(&r);
        pmix_info_t *info = NULL;
        size_t n = 0;
        ck_assert_int_eq(spx_codec_pull_info_array(&r, &info, &n), 0);
        if (rank == PMIX_RANK_WILDCARD) {
            saw_wild = true;
            const pmix_value_t *v = find_key(info, n, PMIX_JOB_SIZE);
            ck_assert(v && v->type == PMIX_UINT32 && v->data.uint32 == 2);
            v = find_key(info, n, PMIX_NODE_SIZE); /* from this node's node info */
            ck_assert(v && v->data.uint32 == 2);
            v = find_key(info, n, PMIX_LOCAL_SIZE); /* filled from nlocalprocs */
            ck_assert(v && v->type == PMIX_UINT32 && v->data.uint32 == 2);
            ck_assert_ptr_nonnull(find_key(info, n, PMIX_LOCAL_PEERS));
        } else if (rank == SPX_RANK_JOBPARTS) { /* the node array, for qualified Gets */
            saw_parts = true;
            const pmix_value_t *v = find_key(info, n, "spx.node.0");
            ck_assert(v && v->type == PMIX_DATA_ARRAY && v->data.darray->size == 2);
        } else {
            ck_assert_uint_eq(rank, 1);
            saw_r1 = true;
            const pmix_value_t *v = find_key(info, n, PMIX_LOCAL_RANK);
            ck_assert(v && v->type == PMIX_UINT16 && v->data.uint16 == 1);
            ck_assert_ptr_null(find_key(info, n, PMIX_RANK));
        }
        for (size_t i = 0; i < n; i++)
            PMIx_Value_destruct(&info[i].value);
        free(info);
    }
    ck_assert(saw_wild && saw_r1 && saw_parts);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);
    ck_assert_int_ge(__atomic_load_n(&connected_calls, __ATOMIC_SEQ_CST), 1);

    /* a second HELLO for the same connected client is refused */
    int fd2 = hello(1, &st, NULL);
    ck_assert_int_ne(st, PMIX_SUCCESS);
    ck_assert(closed_by_server(fd2));
    close(fd2);
    /* an unregistered rank is refused and closed */
    int fd3 = hello(7, &st, NULL);
    ck_assert_int_eq(st, PMIX_ERR_NOT_FOUND);
    ck_assert(closed_by_server(fd3));
    close(fd3);
    close(fd);
    close(fd0);
}
END_TEST

static void send_raw(int fd, const void *p, size_t n)
{
    ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
}

START_TEST(server_hostile_bytes)
{
    pmix_status_t st;
    int good = hello(0, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);

    /* garbage instead of a frame header */
    int bad = spx_unix_connect(sock_path);
    send_raw(bad, "GARBAGE GARBAGE GARBAGE!", 24);
    ck_assert(closed_by_server(bad));
    close(bad);
    /* a request before HELLO */
    bad = spx_unix_connect(sock_path);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_u32(&b, 0);
    send_req(bad, SPX_MSG_FENCE, &b);
    ck_assert(closed_by_server(bad));
    close(bad);
    /* a truncated HELLO */
    bad = spx_unix_connect(sock_path);
    spx_buf_init(&b);
    spx_buf_push_u32(&b, SPX_PROTO_VERSION);
    spx_buf_push_u8(&b, SPX_PEER_CLIENT);
    spx_buf_push_u32(&b, 1000); /* string length with no bytes */
    send_req(bad, SPX_MSG_HELLO, &b);
    ck_assert(closed_by_server(bad));
    close(bad);
    /* after HELLO: trailing bytes in a FENCE, then an unknown type */
    bad = hello(1, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, NULL, 0);
    spx_codec_push_info_array(&b, NULL, 0);
    spx_buf_push_u8(&b, 0xEE);
    send_req(bad, SPX_MSG_FENCE, &b);
    ck_assert(closed_by_server(bad));
    close(bad);
    bad = hello(1, &st, NULL); /* the rank may connect again once the old one is gone */
    ck_assert_int_eq(st, PMIX_SUCCESS);
    spx_buf_init(&b);
    send_req(bad, 99, &b);
    ck_assert(closed_by_server(bad));
    close(bad);

    /* the first connection still works: an optional GET answers NOT_FOUND */
    spx_buf_init(&b);
    pmix_proc_t t = P("testns", 0);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, "nothing-here");
    pmix_info_t opt;
    memset(&opt, 0, sizeof(opt));
    bool yes = true;
    PMIx_Info_load(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    spx_codec_push_info_array(&b, &opt, 1);
    uint32_t seq = send_req(good, SPX_MSG_GET, &b);
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(good, SPX_MSG_GET, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);
    close(good);
}
END_TEST

/* COMMIT of one key for (testns, rank) with scope. */
static void commit(int fd, pmix_rank_t rank, const char *key, uint32_t val, pmix_scope_t scope)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v = {.type = PMIX_UINT32};
    v.data.uint32 = val;
    ck_assert_int_eq(spx_store_put(s, "testns", rank, key, &v, scope), PMIX_SUCCESS);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_records_push_proc(&b, s, "testns", rank, 0, SPX_SCOPES_COMMIT, true, NULL);
    spx_store_destroy(s);
    send_req(fd, SPX_MSG_COMMIT, &b);
}

static uint32_t get_req(int fd, pmix_rank_t rank, const char *key, long timeout)
{
    spx_buf_t b;
    spx_buf_init(&b);
    pmix_proc_t t = P("testns", rank);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, key);
    pmix_info_t to;
    memset(&to, 0, sizeof(to));
    int secs = (int)timeout;
    PMIx_Info_load(&to, PMIX_TIMEOUT, &secs, PMIX_INT);
    spx_codec_push_info_array(&b, &to, timeout > 0 ? 1 : 0);
    return send_req(fd, SPX_MSG_GET, &b);
}

/* Waits for the GET reply; returns the status and the uint32 value in *out. */
static pmix_status_t get_wait(int fd, uint32_t seq, uint32_t *out)
{
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(fd, SPX_MSG_GET, seq, &r), 0);
    pmix_status_t st = spx_buf_pull_i32(&r);
    if (st == PMIX_SUCCESS) {
        pmix_value_t v;
        ck_assert_int_eq(spx_codec_pull_value(&r, &v), 0);
        ck_assert_int_eq(v.type, PMIX_UINT32);
        *out = v.data.uint32;
    }
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);
    return st;
}

START_TEST(server_commit_get_fence)
{
    pmix_status_t st;
    int c0 = hello(0, &st, NULL), c1 = hello(1, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    uint32_t v = 0;
    /* a GET of a key not yet committed is held, then answered by the commit */
    uint32_t held = get_req(c1, 0, "late", 0);
    commit(c0, 0, "early", 11, PMIX_GLOBAL);
    commit(c0, 0, "hidden", 12, PMIX_REMOTE);
    ck_assert_int_eq(get_wait(c1, get_req(c1, 0, "early", 0), &v), PMIX_SUCCESS);
    ck_assert_uint_eq(v, 11);
    /* REMOTE-only data is not for local peers: with a timeout, it times out */
    ck_assert_int_eq(get_wait(c1, get_req(c1, 0, "hidden", 1), &v), PMIX_ERR_TIMEOUT);
    commit(c0, 0, "late", 13, PMIX_LOCAL);
    ck_assert_int_eq(get_wait(c1, held, &v), PMIX_SUCCESS);
    ck_assert_uint_eq(v, 13);
    /* job info through rank WILDCARD */
    ck_assert_int_eq(get_wait(c1, get_req(c1, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 0), &v),
                     PMIX_SUCCESS);
    ck_assert_uint_eq(v, 2);
    /* a commit naming another process closes the connection */
    int c2 = c1;
    commit(c2, 0, "forged", 1, PMIX_GLOBAL);
    ck_assert(closed_by_server(c2));
    close(c2);
    c1 = hello(1, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);

    /* a collecting fence of both (no host fence_nb: completes locally) */
    uint32_t seqs[2];
    int fds[2] = {c0, c1};
    for (int i = 0; i < 2; i++) {
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_proc_array(&b, NULL, 0);
        pmix_info_t col;
        memset(&col, 0, sizeof(col));
        bool yes = true;
        PMIx_Info_load(&col, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        spx_codec_push_info_array(&b, &col, 1);
        seqs[i] = send_req(fds[i], SPX_MSG_FENCE, &b);
    }
    for (int i = 0; i < 2; i++) {
        spx_buf_t r;
        ck_assert_int_eq(recv_reply(fds[i], SPX_MSG_FENCE, seqs[i], &r), 0);
        ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
        ck_assert_int_eq(spx_buf_finish(&r), 0);
        spx_buf_fini(&r);
    }
    /* a fence that rank 1 never joins: rank 0's connection loss aborts it for rank 1 */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, NULL, 0);
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t fseq = send_req(c1, SPX_MSG_FENCE, &b);
    usleep(50000);
    close(c0);
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(c1, SPX_MSG_FENCE, fseq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_ERR_PROC_ABORTED);
    spx_buf_fini(&r);
    close(c1);
}
END_TEST

START_TEST(server_notify_and_jobctl)
{
    pmix_status_t st;
    int c0 = hello(0, &st, NULL), c1 = hello(1, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, -4242);
    pmix_proc_t src = P("testns", 0);
    spx_codec_push_proc(&b, &src);
    spx_buf_push_u8(&b, PMIX_RANGE_NAMESPACE);
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t seq = send_req(c0, SPX_MSG_NOTIFY, &b);
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(c0, SPX_MSG_NOTIFY, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    spx_buf_fini(&r);
    spx_frame_hdr_t h;
    ck_assert_int_eq(spx_frame_recv_blocking(c1, &h, &r, 5000), 0);
    ck_assert_uint_eq(h.type, SPX_MSG_EVENT);
    ck_assert_uint_eq(h.seq, 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), -4242);
    spx_buf_fini(&r);

    /* the server process's own event reaches clients too */
    ck_assert_int_eq(spx_server_notify(-4343, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL),
                     PMIX_SUCCESS);
    ck_assert_int_eq(spx_frame_recv_blocking(c1, &h, &r, 5000), 0);
    ck_assert_uint_eq(h.type, SPX_MSG_EVENT);
    ck_assert_int_eq(spx_buf_pull_i32(&r), -4343);
    spx_buf_fini(&r);

    /* cleanup registration without a host job_control: accepted */
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/cleanme", tmpdir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    pmix_info_t ci[2];
    memset(ci, 0, sizeof(ci));
    bool yes = true;
    PMIx_Info_load(&ci[0], PMIX_REGISTER_CLEANUP_DIR, dir, PMIX_STRING);
    PMIx_Info_load(&ci[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, NULL, 0);
    spx_codec_push_info_array(&b, ci, 2);
    PMIx_Value_destruct(&ci[0].value);
    seq = send_req(c0, SPX_MSG_JOBCTL, &b);
    ck_assert_int_eq(recv_reply(c0, SPX_MSG_JOBCTL, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    spx_buf_fini(&r);
    /* anything else without the upcall: not supported */
    pmix_info_t kill;
    memset(&kill, 0, sizeof(kill));
    PMIx_Info_load(&kill, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, NULL, 0);
    spx_codec_push_info_array(&b, &kill, 1);
    seq = send_req(c0, SPX_MSG_JOBCTL, &b);
    ck_assert_int_eq(recv_reply(c0, SPX_MSG_JOBCTL, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_ERR_NOT_SUPPORTED);
    spx_buf_fini(&r);
    /* FINALIZE without client_finalized: success */
    spx_buf_init(&b);
    seq = send_req(c0, SPX_MSG_FINALIZE, &b);
    ck_assert_int_eq(recv_reply(c0, SPX_MSG_FINALIZE, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    spx_buf_fini(&r);
    close(c0);
    close(c1);
    /* deregistering the namespace removes the registered directory */
    pmix_nspace_t ns = "testns";
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    struct stat sb;
    ck_assert_int_ne(stat(dir, &sb), 0);
}
END_TEST

START_TEST(server_fence_through_host)
{
    pmix_status_t st;
    int c0 = hello(0, &st, NULL), c1 = hello(1, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    commit(c0, 0, "g", 1, PMIX_GLOBAL);
    commit(c0, 0, "l", 2, PMIX_LOCAL);
    uint32_t seqs[2];
    int fds[2] = {c0, c1};
    for (int i = 0; i < 2; i++) {
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_proc_array(&b, NULL, 0);
        pmix_info_t col;
        memset(&col, 0, sizeof(col));
        PMIx_Info_load(&col, PMIX_COLLECT_DATA, NULL, PMIX_BOOL); /* NULL means true */
        spx_codec_push_info_array(&b, &col, 1);
        seqs[i] = send_req(fds[i], SPX_MSG_FENCE, &b);
    }
    for (int i = 0; i < 2; i++) {
        spx_buf_t r;
        ck_assert_int_eq(recv_reply(fds[i], SPX_MSG_FENCE, seqs[i], &r), 0);
        ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
        spx_buf_fini(&r);
    }
    ck_assert_int_eq(__atomic_load_n(&host_fence_calls, __ATOMIC_SEQ_CST), 1);
    ck_assert_uint_eq(host_fence_local_entries, 1);
    /* the host's release runs on the progress thread right after the replies went out */
    for (int i = 0; i < 500 && __atomic_load_n(&host_released, __ATOMIC_SEQ_CST) == 0; i++)
        usleep(2000);
    ck_assert_int_eq(__atomic_load_n(&host_released, __ATOMIC_SEQ_CST), 1);
    /* the remote process's data is now served, REMOTE scope included */
    spx_buf_t b;
    spx_buf_init(&b);
    pmix_proc_t t = P("remote-ns", 5);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, "rkey");
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t seq = send_req(c1, SPX_MSG_GET, &b), v = 0;
    ck_assert_int_eq(get_wait(c1, seq, &v), PMIX_SUCCESS);
    ck_assert_uint_eq(v, 77);
    /* a missing key of a remote process: not found at once (no direct modex yet) */
    spx_buf_init(&b);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, "none");
    spx_codec_push_info_array(&b, NULL, 0);
    seq = send_req(c1, SPX_MSG_GET, &b);
    ck_assert_int_eq(get_wait(c1, seq, &v), PMIX_ERR_NOT_FOUND);
    /* a GET held on a local process fails when that process finalizes */
    uint32_t held = get_req(c1, 0, "never", 0);
    spx_buf_init(&b);
    seq = send_req(c0, SPX_MSG_FINALIZE, &b);
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(c0, SPX_MSG_FINALIZE, seq, &r), 0);
    spx_buf_fini(&r);
    ck_assert_int_eq(get_wait(c1, held, &v), PMIX_ERR_NOT_FOUND);
    close(c0);
    close(c1);
}
END_TEST

/* ---- groups (lib/server/group*.c) ---- */

static int group_calls;
static pmix_group_operation_t group_last_op;
static size_t group_last_nprocs;
static bool group_last_had_endpt, group_last_want_cid;

/* The host's group upcall: answers at once, echoing the endpoint data and
 * assigning context id 4242. */
static pmix_status_t host_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                                size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)grp;
    (void)procs;
    group_calls++;
    group_last_op = op;
    group_last_nprocs = nprocs;
    const pmix_value_t *e = find_key((pmix_info_t *)directives, ndirs, PMIX_GROUP_ENDPT_DATA);
    group_last_had_endpt = e && e->type == PMIX_BYTE_OBJECT && e->data.bo.size > 0;
    group_last_want_cid = find_key((pmix_info_t *)directives, ndirs,
                                   PMIX_GROUP_ASSIGN_CONTEXT_ID) != NULL;
    pmix_info_t res[2];
    memset(res, 0, sizeof(res));
    size_t n = 0;
    size_t cid = 4242;
    if (op == PMIX_GROUP_CONSTRUCT) {
        PMIx_Info_load(&res[n++], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
        if (e)
            PMIx_Info_load(&res[n++], PMIX_GROUP_ENDPT_DATA, &e->data.bo, PMIX_BYTE_OBJECT);
    }
    cbfunc(PMIX_SUCCESS, res, n, cbdata, NULL, NULL); /* copied before it returns */
    for (size_t i = 0; i < n; i++)
        PMIx_Value_destruct(&res[i].value);
    return PMIX_SUCCESS;
}

static void server_setup_host_group(void)
{
    module.group = host_group;
    group_calls = 0;
    server_setup();
}

static void server_teardown_host_group(void)
{
    module.group = NULL;
    server_teardown();
}

static uint32_t group_req(int fd, uint8_t op, const char *id, const pmix_proc_t *procs, size_t n,
                          const pmix_info_t *info, size_t ninfo)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, op);
    spx_buf_push_str(&b, id);
    spx_codec_push_proc_array(&b, procs, n);
    spx_codec_push_info_array(&b, info, ninfo);
    return send_req(fd, SPX_MSG_GROUP, &b);
}

/* The status of a GROUP reply; its outcome bytes into *out (malloc'd) when given. */
static pmix_status_t group_wait(int fd, uint32_t seq, uint8_t **out, size_t *nout)
{
    spx_buf_t r;
    ck_assert_int_eq(recv_reply(fd, SPX_MSG_GROUP, seq, &r), 0);
    pmix_status_t st = spx_buf_pull_i32(&r);
    if (out) {
        *out = spx_buf_remaining(&r) ? spx_buf_pull_bytes(&r, nout) : NULL;
    }
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);
    return st;
}

START_TEST(server_group_through_host)
{
    pmix_status_t st;
    int c0 = hello(0, &st, NULL), c1 = hello(1, &st, NULL);
    pmix_proc_t both[2] = {P("testns", 1), P("testns", 0)};
    pmix_info_t want;
    memset(&want, 0, sizeof(want));
    bool yes = true;
    PMIx_Info_load(&want, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    uint32_t s0 = group_req(c0, SPX_GRP_OP_CONSTRUCT, "hg", both, 2, &want, 1);
    uint32_t s1 = group_req(c1, SPX_GRP_OP_CONSTRUCT, "hg", both, 2, &want, 1);
    uint8_t *o0 = NULL, *o1 = NULL;
    size_t n0 = 0, n1 = 0;
    ck_assert_int_eq(group_wait(c0, s0, &o0, &n0), PMIX_SUCCESS);
    ck_assert_int_eq(group_wait(c1, s1, &o1, &n1), PMIX_SUCCESS);
    /* the host was asked once, with both members, their items and the wish for an id */
    ck_assert_int_eq(group_calls, 1);
    ck_assert_int_eq(group_last_op, PMIX_GROUP_CONSTRUCT);
    ck_assert_uint_eq(group_last_nprocs, 2);
    ck_assert(group_last_had_endpt);
    ck_assert(group_last_want_cid);
    /* every member got the outcome: both members, the host's context id */
    spx_grp_outcome_t o;
    ck_assert_int_eq(spx_grp_outcome_parse(o0, n0, &o), 0);
    ck_assert_uint_eq(o.n, 2);
    ck_assert(o.have_cid && o.cid == 4242);
    spx_grp_outcome_fini(&o);
    ck_assert(n0 == n1 && memcmp(o0, o1, n0) == 0);
    free(o0);
    free(o1);
    /* destruct goes to the host too */
    s0 = group_req(c0, SPX_GRP_OP_DESTRUCT, "hg", NULL, 0, NULL, 0);
    s1 = group_req(c1, SPX_GRP_OP_DESTRUCT, "hg", NULL, 0, NULL, 0);
    ck_assert_int_eq(group_wait(c0, s0, NULL, NULL), PMIX_SUCCESS);
    ck_assert_int_eq(group_wait(c1, s1, NULL, NULL), PMIX_SUCCESS);
    ck_assert_int_eq(group_calls, 2);
    ck_assert_int_eq(group_last_op, PMIX_GROUP_DESTRUCT);
    /* and a group that no longer exists is not found */
    s0 = group_req(c0, SPX_GRP_OP_DESTRUCT, "hg", NULL, 0, NULL, 0);
    ck_assert_int_eq(group_wait(c0, s0, NULL, NULL), PMIX_ERR_NOT_FOUND);
    PMIx_Value_destruct(&want.value);
    close(c0);
    close(c1);
}
END_TEST

/* Hostile or truncated GROUP frames: a malformed one closes that connection,
 * bad values are answered with an error, the server keeps serving. */
START_TEST(server_group_hostile)
{
    pmix_status_t st;
    int c0 = hello(0, &st, NULL);
    /* an unknown operation and an over-long group id: errors, the connection stays */
    pmix_proc_t me = P("testns", 0);
    uint32_t seq = group_req(c0, 99, "g", &me, 1, NULL, 0);
    ck_assert_int_eq(group_wait(c0, seq, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
    char longid[PMIX_MAX_NSLEN + 20];
    memset(longid, 'x', sizeof(longid) - 1);
    longid[sizeof(longid) - 1] = '\0';
    seq = group_req(c0, SPX_GRP_OP_CONSTRUCT, longid, &me, 1, NULL, 0);
    ck_assert_int_eq(group_wait(c0, seq, NULL, NULL), PMIX_ERR_BAD_PARAM);
    /* a construct with no members, one naming another job, a join naming two leaders */
    seq = group_req(c0, SPX_GRP_OP_CONSTRUCT, "g", NULL, 0, NULL, 0);
    ck_assert_int_eq(group_wait(c0, seq, NULL, NULL), PMIX_ERR_BAD_PARAM);
    pmix_proc_t other = P("otherjob", 0);
    seq = group_req(c0, SPX_GRP_OP_CONSTRUCT, "g", &other, 1, NULL, 0);
    ck_assert_int_eq(group_wait(c0, seq, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
    pmix_proc_t two[2] = {P("testns", 1), P("testns", 1)};
    seq = group_req(c0, SPX_GRP_OP_JOIN_ACCEPT, "g", two, 2, NULL, 0);
    ck_assert_int_eq(group_wait(c0, seq, NULL, NULL), PMIX_ERR_BAD_PARAM);
    /* a GROUP info entry that is not an info array */
    pmix_info_t bad;
    memset(&bad, 0, sizeof(bad));
    PMIx_Info_load(&bad, PMIX_GROUP_INFO, "not an array", PMIX_STRING);
    seq = group_req(c0, SPX_GRP_OP_CONSTRUCT, "g", &me, 1, &bad, 1);
    ck_assert_int_eq(group_wait(c0, seq, NULL, NULL), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&bad.value);
    /* truncated: the op byte alone closes the connection */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_GRP_OP_CONSTRUCT);
    send_req(c0, SPX_MSG_GROUP, &b);
    ck_assert(closed_by_server(c0));
    close(c0);
    /* the server still works: a one-member group on a new connection */
    int c1 = hello(1, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    pmix_proc_t p1 = P("testns", 1);
    seq = group_req(c1, SPX_GRP_OP_CONSTRUCT, "solo", &p1, 1, NULL, 0);
    uint8_t *out = NULL;
    size_t nout = 0;
    ck_assert_int_eq(group_wait(c1, seq, &out, &nout), PMIX_SUCCESS);
    spx_grp_outcome_t o;
    ck_assert_int_eq(spx_grp_outcome_parse(out, nout, &o), 0);
    ck_assert_uint_eq(o.n, 1);
    ck_assert(!o.want_cid);
    spx_grp_outcome_fini(&o);
    free(out);
    close(c1);
}
END_TEST

/* ---- QUERY of the process-set keys ---- */

/* A host query upcall that knows the job size and, when host_psets >= 0,
 * that many process sets. */
static long host_psets = -1;

static void host_query_release(void *arg)
{
    pmix_info_t *info = arg;
    PMIX_INFO_FREE(info, 2);
}

static pmix_status_t host_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct;
    pmix_info_t *info;
    size_t n = 0;
    PMIX_INFO_CREATE(info, 2);
    for (size_t i = 0; i < nqueries; i++)
        for (size_t k = 0; queries[i].keys[k] && n < 2; k++) {
            const char *key = queries[i].keys[k];
            if (strcmp(key, PMIX_JOB_SIZE) == 0) {
                info_u32(&info[n++], key, 2);
            } else if (strcmp(key, PMIX_QUERY_NUM_PSETS) == 0 && host_psets >= 0) {
                size_t np = (size_t)host_psets;
                PMIx_Info_load(&info[n++], key, &np, PMIX_SIZE);
            }
        }
    cbfunc(n ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_ERR_NOT_FOUND, n ? info : NULL, n, cbdata,
           host_query_release, info);
    return PMIX_SUCCESS;
}

static void server_setup_host_query(void)
{
    module.query = host_query;
    server_setup();
}

static void server_teardown_host_query(void)
{
    module.query = NULL;
    host_psets = -1;
    server_teardown();
}

/* One QUERY of keys[0..nkeys) (one query, no qualifiers); the status, and the
 * answers in *info (caller frees with PMIX_INFO_FREE(*info, *n)). */
static pmix_status_t query_keys(int fd, const char *const *keys, uint32_t nkeys,
                                pmix_info_t **info, size_t *n)
{
    spx_buf_t b, r;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_u32(&b, nkeys);
    for (uint32_t k = 0; k < nkeys; k++)
        spx_buf_push_str(&b, keys[k]);
    spx_codec_push_info_array(&b, NULL, 0);
    ck_assert_int_eq(recv_reply(fd, SPX_MSG_QUERY, send_req(fd, SPX_MSG_QUERY, &b), &r), 0);
    pmix_status_t st = spx_buf_pull_i32(&r);
    *info = NULL;
    *n = 0;
    ck_assert_int_eq(spx_codec_pull_info_array(&r, info, n), 0);
    spx_buf_fini(&r);
    return st;
}

/* No process set is defined: 0 of them (size_t), and the empty list of names. */
static void check_no_psets(pmix_info_t *info, size_t n)
{
    const pmix_value_t *v = find_key(info, n, PMIX_QUERY_NUM_PSETS);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->type, PMIX_SIZE);
    ck_assert_uint_eq(v->data.size, 0);
    v = find_key(info, n, PMIX_QUERY_PSET_NAMES);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->type, PMIX_STRING);
    ck_assert_str_eq(v->data.string, "");
}

static const char *const pset_keys[] = {PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES,
                                        PMIX_JOB_SIZE, "spmix.no-such-key"};

/* Without a host query upcall (the Slurm plugin's case). */
START_TEST(server_query_psets)
{
    pmix_status_t st;
    pmix_info_t *info;
    size_t n;
    int fd = hello(0, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    ck_assert_int_eq(query_keys(fd, pset_keys, 2, &info, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 2);
    check_no_psets(info, n);
    PMIX_INFO_FREE(info, n);
    ck_assert_int_eq(query_keys(fd, pset_keys, 4, &info, &n), PMIX_ERR_PARTIAL_SUCCESS);
    ck_assert_uint_eq(n, 3);
    check_no_psets(info, n);
    ck_assert_ptr_nonnull(find_key(info, n, PMIX_JOB_SIZE));
    PMIX_INFO_FREE(info, n);
    close(fd);
}
END_TEST

/* A host that answers other keys: the library adds the process-set keys;
 * one that answers them keeps its answer. */
START_TEST(server_query_psets_host)
{
    pmix_status_t st;
    pmix_info_t *info;
    size_t n;
    int fd = hello(0, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    ck_assert_int_eq(query_keys(fd, pset_keys, 2, &info, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 2);
    check_no_psets(info, n);
    PMIX_INFO_FREE(info, n);
    ck_assert_int_eq(query_keys(fd, pset_keys, 3, &info, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 3);
    check_no_psets(info, n);
    ck_assert_ptr_nonnull(find_key(info, n, PMIX_JOB_SIZE));
    PMIX_INFO_FREE(info, n);
    ck_assert_int_eq(query_keys(fd, pset_keys, 4, &info, &n), PMIX_ERR_PARTIAL_SUCCESS);
    ck_assert_uint_eq(n, 3);
    PMIX_INFO_FREE(info, n);
    host_psets = 7;
    ck_assert_int_eq(query_keys(fd, pset_keys, 2, &info, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 2);
    const pmix_value_t *v = find_key(info, n, PMIX_QUERY_NUM_PSETS);
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(v->data.size, 7);
    ck_assert_ptr_nonnull(find_key(info, n, PMIX_QUERY_PSET_NAMES));
    PMIX_INFO_FREE(info, n);
    close(fd);
}
END_TEST

/* /proc/self/cmdline: argv[0], or all of it joined by spaces. */
static char *self_cmdline(bool whole)
{
    char buf[4097];
    FILE *f = fopen("/proc/self/cmdline", "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    for (size_t i = 0; whole && i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    return strdup(buf);
}

/* The process table and the other queries the server answers itself, as
 * under Slurm (no host query, no PMIX_APP_ARGV: the program from /proc):
 * rank 0 connected (this process), rank 1 registered only; after rank 0's
 * PMIx_Abort its state and the job's status say so. */
START_TEST(server_query_tables)
{
    static const char *const keys[] = {PMIX_QUERY_PROC_TABLE,     PMIX_QUERY_LOCAL_PROC_TABLE,
                                       PMIX_QUERY_JOB_STATUS,     PMIX_QUERY_SPAWN_SUPPORT,
                                       PMIX_QUERY_NAMESPACE_INFO, PMIX_SERVER_URI};
    pmix_status_t st;
    pmix_info_t *info;
    size_t n;
    char host[256], *exe = self_cmdline(false), *cmd = self_cmdline(true);
    gethostname(host, sizeof(host));
    int fd = hello(0, &st, NULL);
    ck_assert_int_eq(st, PMIX_SUCCESS);
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(query_keys(fd, keys, 6, &info, &n), PMIX_SUCCESS);
        ck_assert_uint_eq(n, 6);
        for (int k = 0; k < 2; k++) {
            const pmix_value_t *v = find_key(info, n, keys[k]);
            ck_assert_ptr_nonnull(v);
            ck_assert_int_eq(v->type, PMIX_DATA_ARRAY);
            ck_assert_int_eq(v->data.darray->type, PMIX_PROC_INFO);
            ck_assert_uint_eq(v->data.darray->size, 2);
            const pmix_proc_info_t *pi = v->data.darray->array;
            for (pmix_rank_t r = 0; r < 2; r++) {
                ck_assert_str_eq(pi[r].proc.nspace, "testns");
                ck_assert_uint_eq(pi[r].proc.rank, r);
                ck_assert_str_eq(pi[r].hostname, host);
            }
            ck_assert_int_eq(pi[0].pid, getpid());
            ck_assert_str_eq(pi[0].executable_name, exe);
            ck_assert_int_eq(pi[0].state, round ? PMIX_PROC_STATE_CALLED_ABORT
                                                : PMIX_PROC_STATE_CONNECTED);
            ck_assert_int_eq(pi[1].pid, 0);
            ck_assert_ptr_null(pi[1].executable_name);
            ck_assert_int_eq(pi[1].state, PMIX_PROC_STATE_LAUNCH_UNDERWAY);
        }
        const pmix_value_t *v = find_key(info, n, PMIX_QUERY_JOB_STATUS);
        ck_assert_int_eq(v->type, PMIX_STATUS);
        ck_assert_int_eq(v->data.status, round ? PMIX_ERR_JOB_ABORTED : PMIX_SUCCESS);
        v = find_key(info, n, PMIX_QUERY_SPAWN_SUPPORT);
        ck_assert_int_eq(v->type, PMIX_STRING);
        ck_assert_str_eq(v->data.string, "");
        v = find_key(info, n, PMIX_SERVER_URI);
        ck_assert_int_eq(v->type, PMIX_STRING);
        ck_assert_str_eq(v->data.string + strlen(SPX_URI_PREFIX), sock_path);
        v = find_key(info, n, PMIX_QUERY_NAMESPACE_INFO);
        ck_assert_int_eq(v->type, PMIX_DATA_ARRAY);
        ck_assert_uint_eq(v->data.darray->size, 1);
        pmix_info_t *job = v->data.darray->array;
        ck_assert_str_eq(job[0].key, PMIX_JOB_INFO_ARRAY);
        pmix_info_t *ji = job[0].value.data.darray->array;
        size_t nji = job[0].value.data.darray->size;
        ck_assert_str_eq(find_key(ji, nji, PMIX_NSPACE)->data.string, "testns");
        ck_assert_str_eq(find_key(ji, nji, PMIX_CMD_LINE)->data.string, cmd);
        ck_assert_uint_eq(find_key(ji, nji, PMIX_JOB_SIZE)->data.uint32, 2);
        ck_assert_uint_eq(nji, 5); /* and one PMIX_PROC_INFO_ARRAY per rank */
        PMIX_INFO_FREE(info, n);
        if (round == 0) { /* PMIx_Abort: no host abort upcall here, still called */
            spx_buf_t b, r;
            spx_buf_init(&b);
            spx_buf_push_i32(&b, 3);
            spx_buf_push_str(&b, "bye");
            spx_codec_push_proc_array(&b, NULL, 0);
            ck_assert_int_eq(recv_reply(fd, SPX_MSG_ABORT, send_req(fd, SPX_MSG_ABORT, &b), &r),
                             0);
            spx_buf_fini(&r);
        }
    }
    free(exe);
    free(cmd);
    close(fd);
}
END_TEST

static Suite *server_suite(void)
{
    Suite *s = suite_create("server");
    TCase *tc = tcase_create("fence engine");
    tcase_add_checked_fixture(tc, fence_setup, fence_teardown);
    tcase_add_loop_test(tc, fence_every_order, 0, 6);
    tcase_add_test(tc, fence_barrier_has_no_data);
    tcase_add_test(tc, fence_wildcard_vs_explicit);
    tcase_add_test(tc, fence_not_a_member);
    tcase_add_test(tc, fence_collect_disagreement);
    tcase_add_test(tc, fence_timeout_then_next_works);
    tcase_add_test(tc, fence_participant_lost);
    tcase_add_test(tc, fence_participant_departed);
    tcase_add_test(tc, fence_repeated_by_one_proc);
    tcase_add_test(tc, fence_host_without_fence);
    tcase_add_test(tc, fence_destroy_answers_waiters);
    tcase_add_test(tc, fence_contributed_only_on_collecting_success);
    tcase_add_test(tc, fence_local_failure_told_to_others);
    tcase_add_test(tc, fence_fail_if_any_state);
    suite_add_tcase(s, tc);

    tc = tcase_create("server over its socket");
    tcase_add_checked_fixture(tc, server_setup, server_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, server_hello_job_info);
    tcase_add_test(tc, server_locality_string);
    tcase_add_test(tc, server_hostile_bytes);
    tcase_add_test(tc, server_commit_get_fence);
    tcase_add_test(tc, server_notify_and_jobctl);
    tcase_add_test(tc, server_group_hostile);
    tcase_add_test(tc, server_query_psets);
    tcase_add_test(tc, server_query_tables);
    suite_add_tcase(s, tc);

    tc = tcase_create("server with a host query");
    tcase_add_checked_fixture(tc, server_setup_host_query, server_teardown_host_query);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, server_query_psets_host);
    suite_add_tcase(s, tc);

    tc = tcase_create("server with a host group upcall");
    tcase_add_checked_fixture(tc, server_setup_host_group, server_teardown_host_group);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, server_group_through_host);
    suite_add_tcase(s, tc);

    tc = tcase_create("server with a host fence");
    tcase_add_checked_fixture(tc, server_setup_host_fence, server_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, server_fence_through_host);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(server_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
