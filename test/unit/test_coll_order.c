/* test_coll_order.c - orders the collective engine (lib/tree/coll.c) keeps
 * in its lists, seen from outside:
 *   - messages that came before the local start are replayed in arrival
 *     order, so the gathered data is the root's own, then the early UPs as
 *     they arrived (then later ones); a duplicate kept message is dropped;
 *   - completions decided inside start are handed out by run_deferred in the
 *     order they were decided (FIFO), each exactly once;
 *   - every collective still running or pending is ended by destroy;
 *   - nodes lost in any order (and twice) fail exactly the later starts
 *     whose node lists hold one of them (the engine keeps them sorted).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tree/coll.h"

static long fake_send(void *arg, uint32_t to, const spx_coll_msg_t *m)
{
    (void)arg, (void)to;
    return (long)m->len + 1;
}

static int defers;
static void fake_defer(void *arg)
{
    (void)arg;
    defers++;
}

static const spx_coll_io_t io = { .send = fake_send, .defer = fake_defer };

#define MAX_DONE 8
static struct {
    char tag;
    pmix_status_t status;
    char data[32];
} done_log[MAX_DONE];
static int ndone;

static void on_done(pmix_status_t status, const void *data, size_t len, void *arg)
{
    ck_assert_int_lt(ndone, MAX_DONE);
    done_log[ndone].tag = (char)(intptr_t)arg;
    done_log[ndone].status = status;
    ck_assert_uint_lt(len, sizeof(done_log[ndone].data));
    if (len)
        memcpy(done_log[ndone].data, data, len);
    done_log[ndone].data[len] = '\0';
    ndone++;
}

static void up(spx_coll_engine_t *e, uint32_t from, const char *set, const char *data)
{
    spx_coll_msg_t m = { .kind = SPX_COLL_UP, .set_id = set, .seq = 0, .data = data,
                         .len = strlen(data) };
    spx_coll_recv(e, from, &m);
}

/* Root 0 of nodes {0, 1, 2, 3} (width 3: 1, 2 and 3 are its children). */
static void gather_in_order(const uint32_t *order, const char *want)
{
    static const char *data[] = { "", "a", "b", "c" };
    static const uint32_t nodes[] = { 0, 1, 2, 3 };
    spx_coll_engine_t *e = spx_coll_engine_create(0, 4, 3, &io, NULL);
    ck_assert_ptr_nonnull(e);
    ndone = 0;
    up(e, order[0], "s", data[order[0]]); /* two early, */
    up(e, order[1], "s", data[order[1]]);
    up(e, order[0], "s", "dup");           /* a duplicate of the first: dropped */
    ck_assert_int_eq(spx_coll_query(e, "s", 0), SPX_COLL_PENDING);
    ck_assert_int_eq(spx_coll_start(e, "s", nodes, 4, 0, PMIX_SUCCESS, "R", 1, 0, on_done,
                                    (void *)(intptr_t)'s'),
                     0);
    ck_assert_int_eq(ndone, 0);
    up(e, order[2], "s", data[order[2]]); /* one after the start */
    ck_assert_int_eq(ndone, 1);
    ck_assert_int_eq(done_log[0].status, PMIX_SUCCESS);
    ck_assert_str_eq(done_log[0].data, want);
    spx_coll_counters_t cnt;
    spx_coll_get_counters(e, &cnt);
    ck_assert_uint_eq(cnt.dropped, 1);
    spx_coll_engine_destroy(e);
}

START_TEST(early_messages_replayed_in_arrival_order)
{
    const uint32_t o1[] = { 2, 1, 3 }, o2[] = { 1, 3, 2 }, o3[] = { 3, 2, 1 };
    gather_in_order(o1, "Rbac");
    gather_in_order(o2, "Racb");
    gather_in_order(o3, "Rcba");
}
END_TEST

START_TEST(deferred_completions_fifo)
{
    static const uint32_t self[] = { 0 }, pair[] = { 0, 1 };
    spx_coll_engine_t *e = spx_coll_engine_create(0, 2, 2, &io, NULL);
    ck_assert_ptr_nonnull(e);
    ndone = defers = 0;
    /* each completes inside its start: done waits for run_deferred */
    ck_assert_int_eq(spx_coll_start(e, "x", self, 1, 0, PMIX_SUCCESS, "1", 1, 0, on_done,
                                    (void *)(intptr_t)'x'), 0);
    ck_assert_int_eq(spx_coll_start(e, "y", self, 1, 0, PMIX_SUCCESS, "2", 1, 0, on_done,
                                    (void *)(intptr_t)'y'), 0);
    spx_coll_node_lost(e, 1);
    ck_assert_int_eq(spx_coll_start(e, "z", pair, 2, 0, PMIX_SUCCESS, "3", 1, 0, on_done,
                                    (void *)(intptr_t)'z'), 0);
    ck_assert_int_eq(spx_coll_start(e, "x", self, 1, 0, PMIX_SUCCESS, "4", 1, 0, on_done,
                                    (void *)(intptr_t)'X'), 0);
    ck_assert_int_eq(ndone, 0);
    ck_assert_int_eq(defers, 4);
    ck_assert_int_eq(spx_coll_query(e, "y", 0), SPX_COLL_DONE);
    ck_assert_uint_eq(spx_coll_active(e), 0);
    spx_coll_run_deferred(e);
    ck_assert_int_eq(ndone, 4);
    const char tags[] = "xyzX";
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(done_log[i].tag, tags[i]);
    ck_assert_str_eq(done_log[0].data, "1");
    ck_assert_str_eq(done_log[1].data, "2");
    ck_assert_int_eq(done_log[2].status, PMIX_ERR_UNREACH);
    ck_assert_str_eq(done_log[3].data, "4");
    spx_coll_run_deferred(e); /* nothing twice */
    ck_assert_int_eq(ndone, 4);
    spx_coll_engine_destroy(e);
}
END_TEST

START_TEST(destroy_ends_running_and_pending)
{
    static const uint32_t nodes[] = { 0, 1, 2 };
    spx_coll_engine_t *e = spx_coll_engine_create(0, 3, 2, &io, NULL);
    ck_assert_ptr_nonnull(e);
    ndone = 0;
    ck_assert_int_eq(spx_coll_start(e, "a", nodes, 3, 0, PMIX_SUCCESS, NULL, 0, 0, on_done,
                                    (void *)(intptr_t)'a'), 0);
    ck_assert_int_eq(spx_coll_start(e, "b", nodes, 3, 0, PMIX_SUCCESS, NULL, 0, 0, on_done,
                                    (void *)(intptr_t)'b'), 0);
    up(e, 1, "later", "p"); /* pending: never started here */
    ck_assert_uint_eq(spx_coll_active(e), 3);
    uint32_t seq = 9;
    spx_coll_state_t st = SPX_COLL_DONE;
    const char *some = spx_coll_some_active(e, &seq, &st);
    ck_assert_ptr_nonnull(some);
    ck_assert_uint_eq(seq, 0);
    ck_assert_int_eq(spx_coll_query(e, some, 0), (int)st);
    spx_coll_engine_destroy(e);
    ck_assert_int_eq(ndone, 2); /* the started ones, not the pending one */
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(done_log[i].status, PMIX_ERR_UNREACH);
    ck_assert_int_ne(done_log[0].tag, done_log[1].tag);
}
END_TEST

START_TEST(lost_nodes_fail_later_starts)
{
    static const uint32_t n02[] = { 0, 2 }, n04[] = { 0, 4 }, n01[] = { 0, 1 }, n03[] = { 0, 3 },
                          n0[] = { 0 }, n05[] = { 0, 5 }, all[] = { 0, 1, 2, 3, 4, 5, 6 };
    spx_coll_engine_t *e = spx_coll_engine_create(0, 7, 2, &io, NULL);
    ck_assert_ptr_nonnull(e);
    ndone = 0;
    spx_coll_node_lost(e, 5);
    spx_coll_node_lost(e, 1);
    spx_coll_node_lost(e, 3);
    spx_coll_node_lost(e, 5); /* again: nothing changes */
    spx_coll_node_left(e, 6);
    /* the first two run on (their nodes are alive): want is not used */
    struct { const uint32_t *nodes; size_t n; pmix_status_t want; } runs[] = {
        { n02, 2, PMIX_SUCCESS }, { n04, 2, PMIX_SUCCESS },
        { n01, 2, PMIX_ERR_UNREACH }, { n03, 2, PMIX_ERR_UNREACH },
        { n05, 2, PMIX_ERR_UNREACH }, { all, 7, PMIX_ERR_UNREACH },
        { n0, 1, PMIX_SUCCESS },
    };
    const size_t nruns = sizeof(runs) / sizeof(runs[0]);
    for (size_t i = 0; i < nruns; i++) {
        char set[8] = { 's', (char)('a' + i), 0 };
        ck_assert_int_eq(spx_coll_start(e, set, runs[i].nodes, runs[i].n, 0, PMIX_SUCCESS, NULL,
                                        0, 0, on_done, (void *)(intptr_t)('a' + i)),
                         0);
    }
    spx_coll_run_deferred(e);
    ck_assert_int_eq(ndone, 5); /* those that involve a lost node, and the one alone */
    for (int k = 0; k < ndone; k++) {
        size_t i = (size_t)(done_log[k].tag - 'a');
        ck_assert_uint_ge(i, 2);
        ck_assert_int_eq(done_log[k].status, runs[i].want);
    }
    ck_assert_uint_eq(spx_coll_active(e), 2);
    spx_coll_node_lost(e, 4); /* fails the running one over {0, 4} only */
    ck_assert_int_eq(ndone, 6);
    ck_assert_int_eq(done_log[5].tag, 'b');
    ck_assert_int_eq(done_log[5].status, PMIX_ERR_UNREACH);
    ck_assert_uint_eq(spx_coll_active(e), 1);
    spx_coll_engine_destroy(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_order");
    TCase *tc = tcase_create("lists");
    tcase_add_test(tc, early_messages_replayed_in_arrival_order);
    tcase_add_test(tc, deferred_completions_fifo);
    tcase_add_test(tc, destroy_ends_running_and_pending);
    tcase_add_test(tc, lost_nodes_fail_later_starts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
