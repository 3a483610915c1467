/* test_server_delta.c - unit tests of the delta exchange of collecting fences
 * (server/delta.h), driven directly and through the fence engine.
 *
 * A real store plays the server's committed data; a second store plays a
 * remote server that applies every contribution, so each case checks both
 * what went on the wire (counts, bytes) and that nothing retrievable is lost
 * at the far end.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_common.h>

#include "codec/buf.h"
#include "proto/records.h"
#include "server/delta.h"
#include "server/fence.h"
#include "store/store.h"

#define NS "job"
#define S1 "job:*;"
#define S2 "job:0;job:1;"

static spx_store_t *ST;     /* this node's committed data */
static spx_store_t *REMOTE; /* what a remote server has received */
static spx_delta_t *D;

static pmix_proc_t P(pmix_rank_t r)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    snprintf(p.nspace, sizeof(p.nspace), "%s", NS);
    p.rank = r;
    return p;
}

static void put(pmix_rank_t r, const char *key, int v, pmix_scope_t scope)
{
    pmix_value_t val = {.type = PMIX_INT};
    val.data.integer = v;
    ck_assert_int_eq(spx_store_put(ST, NS, r, key, &val, scope), PMIX_SUCCESS);
}

static int remote_int(pmix_rank_t r, const char *key)
{
    const pmix_value_t *v = spx_store_peek(REMOTE, NS, r, key, NULL);
    return v ? v->data.integer : -1;
}

/* One contribution of rank r to set; applied to REMOTE; *res filled; returns bytes. */
static size_t contrib(pmix_rank_t r, const char *set, spx_delta_contrib_t *res)
{
    pmix_proc_t p = P(r);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_delta_contribute(D, ST, &p, set, SPX_SCOPES_REMOTE, &b, res);
    ck_assert(!spx_buf_failed(&b));
    size_t len = b.len;
    if (len) {
        void *copy = spx_buf_release(&b, &len);
        spx_buf_t in;
        spx_buf_init(&in);
        spx_buf_adopt(&in, copy, len);
        ck_assert_int_eq(spx_records_apply(&in, REMOTE, NULL, NULL), 0);
        spx_buf_fini(&in);
    }
    spx_buf_fini(&b);
    return len;
}

static void done(pmix_rank_t r, const char *set, const spx_delta_contrib_t *res)
{
    pmix_proc_t p = P(r);
    ck_assert_int_eq(spx_delta_commit(D, &p, set, res->upto), PMIX_SUCCESS);
}

static void setup(void)
{
    ST = spx_store_create();
    REMOTE = spx_store_create();
    D = spx_delta_create();
    ck_assert(ST && REMOTE && D);
}

static void teardown(void)
{
    spx_delta_destroy(D);
    spx_store_destroy(ST);
    spx_store_destroy(REMOTE);
}

START_TEST(first_full_then_nothing_then_one)
{
    spx_delta_contrib_t r;
    put(0, "a", 1, PMIX_GLOBAL);
    put(0, "b", 2, PMIX_REMOTE);
    put(0, "loc", 3, PMIX_LOCAL); /* stays on the node */
    ck_assert_uint_gt(contrib(0, S1, &r), 0);
    ck_assert_uint_eq(r.since, 0);
    ck_assert_uint_eq(r.nkeys, 2);
    ck_assert_uint_eq(r.ndels, 0);
    ck_assert_int_eq(remote_int(0, "a"), 1);
    ck_assert_int_eq(remote_int(0, "b"), 2);
    ck_assert_int_eq(remote_int(0, "loc"), -1);
    done(0, S1, &r);

    /* same set, no new commit: nothing on the wire at all */
    ck_assert_uint_eq(contrib(0, S1, &r), 0);
    ck_assert_uint_gt(r.since, 0);
    ck_assert_uint_eq(r.nkeys + r.ndels, 0);
    done(0, S1, &r);

    /* one changed key: only it */
    put(0, "b", 20, PMIX_REMOTE);
    contrib(0, S1, &r);
    ck_assert_uint_eq(r.nkeys, 1);
    ck_assert_int_eq(remote_int(0, "b"), 20);
    ck_assert_int_eq(remote_int(0, "a"), 1); /* earlier data stays retrievable */
    done(0, S1, &r);

    /* a local-only change sends nothing */
    put(0, "loc", 4, PMIX_LOCAL);
    contrib(0, S1, &r);
    ck_assert_uint_eq(r.nkeys + r.ndels, 0);
}
END_TEST

START_TEST(alternating_sets_are_full)
{
    spx_delta_contrib_t r;
    put(0, "a", 1, PMIX_GLOBAL);
    put(0, "b", 2, PMIX_GLOBAL);
    const char *seq[] = {S1, S2, S1, S2};
    for (int i = 0; i < 4; i++) {
        contrib(0, seq[i], &r);
        ck_assert_uint_eq(r.since, 0);
        ck_assert_uint_eq(r.nkeys, 2);
        done(0, seq[i], &r);
    }
    /* the same set twice in a row is a delta again */
    contrib(0, S2, &r);
    ck_assert_uint_eq(r.nkeys, 0);
}
END_TEST

START_TEST(boundary_moves_only_on_commit)
{
    spx_delta_contrib_t r, r2;
    put(0, "a", 1, PMIX_GLOBAL);
    contrib(0, S1, &r);
    done(0, S1, &r);
    put(0, "c", 3, PMIX_GLOBAL);
    /* a non-collecting fence contributes nothing and commits nothing; a failed
     * collecting one contributed but is not committed: "c" is still owed */
    contrib(0, S1, &r2);
    ck_assert_uint_eq(r2.nkeys, 1);
    contrib(0, S1, &r2);
    ck_assert_uint_eq(r2.nkeys, 1);
    done(0, S1, &r2);
    contrib(0, S1, &r2);
    ck_assert_uint_eq(r2.nkeys, 0);
}
END_TEST

START_TEST(deletion_is_one_entry)
{
    spx_delta_contrib_t r;
    put(0, "a", 1, PMIX_GLOBAL);
    put(0, "b", 2, PMIX_GLOBAL);
    contrib(0, S1, &r);
    done(0, S1, &r);
    ck_assert_int_eq(remote_int(0, "a"), 1);
    ck_assert_int_eq(spx_store_delete(ST, NS, 0, "a", PMIX_DEL_GLOBAL), PMIX_SUCCESS);
    contrib(0, S1, &r);
    ck_assert_uint_eq(r.nkeys, 0);
    ck_assert_uint_eq(r.ndels, 1);
    ck_assert_int_eq(remote_int(0, "a"), -1); /* removed at the far end */
    ck_assert_int_eq(remote_int(0, "b"), 2);
    done(0, S1, &r);
    /* a full contribution (new set) carries the tombstone too */
    contrib(0, S2, &r);
    ck_assert_uint_eq(r.nkeys, 1);
    ck_assert_uint_eq(r.ndels, 1);
    /* a local-only deletion does not travel */
    done(0, S2, &r);
    ck_assert_int_eq(spx_store_delete(ST, NS, 0, "b", PMIX_DEL_LOCAL), PMIX_SUCCESS);
    contrib(0, S2, &r);
    ck_assert_uint_eq(r.nkeys + r.ndels, 0);
}
END_TEST

START_TEST(never_participated_is_full)
{
    spx_delta_contrib_t r;
    put(0, "a", 1, PMIX_GLOBAL);
    put(1, "x", 7, PMIX_GLOBAL);
    put(1, "y", 8, PMIX_REMOTE);
    contrib(0, S1, &r);
    done(0, S1, &r);
    contrib(1, S1, &r); /* rank 1 never took part: full, though rank 0 did */
    ck_assert_uint_eq(r.since, 0);
    ck_assert_uint_eq(r.nkeys, 2);
    done(1, S1, &r);
    /* forgotten (went away and came back): full again */
    pmix_proc_t p1 = P(1);
    spx_delta_forget(D, &p1);
    contrib(1, S1, &r);
    ck_assert_uint_eq(r.nkeys, 2);
}
END_TEST

/* ---- the same rules through the fence engine ---- */

static spx_fence_engine_t *E;
static void *tok;
static size_t last_len;
static int nreplies;

static size_t e_local(const pmix_proc_t *set, size_t nset, pmix_proc_t **out,
                      pmix_status_t *gone, void *arg)
{
    (void)arg;
    *out = malloc(2 * sizeof(pmix_proc_t));
    size_t n = 0;
    for (pmix_rank_t r = 0; r < 2; r++) {
        pmix_proc_t p = P(r);
        if (spx_fence_proc_in_set(&p, set, nset))
            (*out)[n++] = p;
    }
    *gone = PMIX_SUCCESS;
    return n;
}

static size_t e_keys;
static uint64_t e_contribute(const pmix_proc_t *p, const char *key, spx_buf_t *out, void *arg)
{
    (void)arg;
    spx_delta_contrib_t r;
    spx_delta_contribute(D, ST, p, key, SPX_SCOPES_REMOTE, out, &r);
    e_keys += r.nkeys + r.ndels;
    return r.upto;
}

static void e_contributed(const pmix_proc_t *p, const char *key, uint64_t upto, void *arg)
{
    (void)arg;
    spx_delta_commit(D, p, key, upto);
}

static pmix_status_t e_host(const pmix_proc_t *set, size_t nset, const char *key,
                            const pmix_info_t *info, size_t ninfo, char *data, size_t ndata,
                            void *token, void *arg)
{
    (void)set, (void)nset, (void)key, (void)info, (void)ninfo, (void)data, (void)arg;
    tok = token;
    last_len = ndata;
    return PMIX_SUCCESS;
}

static pmix_status_t e_deliver(const char *data, size_t ndata, void *arg)
{
    (void)data, (void)ndata, (void)arg;
    return PMIX_SUCCESS;
}

static void e_reply(void *req, pmix_status_t st, void *arg)
{
    (void)req, (void)arg;
    ck_assert_int_eq(st, PMIX_SUCCESS);
    nreplies++;
}

static void *e_arm(double s, uint64_t id, void *arg)
{
    (void)s, (void)id, (void)arg;
    return NULL;
}

static void e_cancel(void *h, void *arg)
{
    (void)h, (void)arg;
}

static const spx_fence_ops_t e_ops = {.local_members = e_local,
                                      .contribute = e_contribute,
                                      .contributed = e_contributed,
                                      .host_fence = e_host,
                                      .deliver = e_deliver,
                                      .reply = e_reply,
                                      .timer_arm = e_arm,
                                      .timer_cancel = e_cancel};

/* Both ranks fence over set (nset entries); returns the entries contributed. */
static size_t fence(const pmix_proc_t *set, size_t nset, bool collect)
{
    e_keys = 0;
    for (pmix_rank_t r = 0; r < 2; r++) {
        pmix_proc_t me = P(r);
        if (spx_fence_proc_in_set(&me, set, nset))
            spx_fence_arrive(E, &me, set, nset, collect, 0, NULL);
    }
    spx_fence_host_done(E, tok, PMIX_SUCCESS, NULL, 0);
    return e_keys;
}

START_TEST(through_engine)
{
    E = spx_fence_engine_create(&e_ops, NULL);
    pmix_proc_t wild = P(PMIX_RANK_WILDCARD), both[2] = {P(0), P(1)};
    put(0, "a", 1, PMIX_GLOBAL);
    put(1, "b", 2, PMIX_GLOBAL);
    ck_assert_uint_eq(fence(&wild, 1, true), 2);  /* first: full */
    ck_assert_uint_eq(fence(&wild, 1, true), 0);  /* nothing new */
    ck_assert_uint_eq(last_len, 0);
    put(0, "a", 5, PMIX_GLOBAL);
    ck_assert_uint_eq(fence(&wild, 1, false), 0); /* barrier: exchanges nothing */
    ck_assert_uint_eq(last_len, 0);
    ck_assert_uint_eq(fence(&wild, 1, true), 1);  /* ...and moved nothing */
    ck_assert_uint_eq(fence(both, 2, true), 2);   /* explicit listing: another set */
    ck_assert_uint_eq(fence(&wild, 1, true), 2);  /* and back: full again */
    ck_assert_int_eq(nreplies, 12);
    spx_fence_engine_destroy(E);
}
END_TEST

static Suite *delta_suite(void)
{
    Suite *s = suite_create("server_delta");
    TCase *tc = tcase_create("delta");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, first_full_then_nothing_then_one);
    tcase_add_test(tc, alternating_sets_are_full);
    tcase_add_test(tc, boundary_moves_only_on_commit);
    tcase_add_test(tc, deletion_is_one_entry);
    tcase_add_test(tc, never_participated_is_full);
    tcase_add_test(tc, through_engine);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(delta_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
