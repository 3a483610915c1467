/* test_pubsub_table.c - the server directory's table (lib/server/pubsub_table.c)
 * driven directly, on the progress thread as the directory engine drives it.
 *
 *   - publish, lookup, duplicates, keys nobody published;
 *   - the newest entry a requester can see answers (a PROC_LOCAL entry of
 *     the requester published before a SESSION one of another process);
 *   - lookups parked by PMIX_WAIT are answered oldest first once published,
 *     one waiting for two keys only when both are there;
 *   - FIRST_READ entries go when read, PROC entries when their publisher is
 *     gone, whose parked lookups fail; unpublish of some keys or of all;
 *   - fini answers what is still parked with PMIX_ERR_NOT_FOUND;
 *   - the table is progress-thread state: a call from another thread stops
 *     the process (assert), as a data race would otherwise corrupt it.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "progress/progress.h"
#include "server/pubsub_table.h"

#define NS "job"

static pmix_proc_t P(const char *ns, pmix_rank_t r)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, r);
    return p;
}

/* ---- running a step on the progress thread ---- */
struct step {
    void (*fn)(void *);
    void *arg;
    spx_wait_t done;
};

static void run_step(void *arg)
{
    struct step *s = arg;
    s->fn(s->arg);
    spx_wait_signal(&s->done, PMIX_SUCCESS);
}

static void on_loop(void (*fn)(void *), void *arg)
{
    struct step s = { .fn = fn, .arg = arg };
    spx_wait_init(&s.done);
    ck_assert_int_eq(spx_progress_shift(run_step, &s), 0);
    spx_wait_block(&s.done);
    spx_wait_fini(&s.done);
}

static void setup(void)
{
    ck_assert_int_eq(spx_progress_acquire(), 0);
}

static void teardown(void)
{
    spx_progress_release();
}

/* ---- what the callbacks saw, in order ---- */
#define MAX_ANS 16
static struct answer {
    int tag;
    pmix_status_t status;
    size_t n;
    int value[4];
    pmix_rank_t owner[4];
} ans[MAX_ANS];
static int nans;

static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    struct answer *a = &ans[nans++];
    ck_assert_int_lt(nans, MAX_ANS);
    a->tag = (int)(intptr_t)cbdata;
    a->status = status;
    a->n = ndata;
    for (size_t i = 0; i < ndata && i < 4; i++) {
        ck_assert_int_eq(data[i].value.type, PMIX_INT);
        a->value[i] = data[i].value.data.integer;
        a->owner[i] = data[i].proc.rank;
    }
}

static int op_calls;
static void op_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    ck_assert_int_eq(status, PMIX_SUCCESS);
    op_calls++;
}

/* ---- table calls, with their arguments packed for on_loop ---- */
struct call {
    pmix_proc_t proc;
    const char *keys[4];   /* NULL-terminated */
    int value;
    pmix_data_range_t range;
    pmix_persistence_t persist;
    bool wait;
    int tag;
    pmix_status_t rc;
};

static void do_publish(void *arg)
{
    struct call *c = arg;
    pmix_info_t info[3];
    size_t n = 0;
    memset(info, 0, sizeof(info));
    PMIx_Info_load(&info[n++], c->keys[0], &c->value, PMIX_INT);
    if (c->range)
        PMIx_Info_load(&info[n++], PMIX_RANGE, &c->range, PMIX_DATA_RANGE);
    if (c->persist)
        PMIx_Info_load(&info[n++], PMIX_PERSISTENCE, &c->persist, PMIX_PERSIST);
    c->rc = spx_pubsub_publish(&c->proc, info, n, op_cb, NULL);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

static void do_lookup(void *arg)
{
    struct call *c = arg;
    pmix_info_t info[2];
    size_t n = 0;
    memset(info, 0, sizeof(info));
    bool yes = true;
    if (c->wait)
        PMIx_Info_load(&info[n++], PMIX_WAIT, &yes, PMIX_BOOL);
    if (c->range)
        PMIx_Info_load(&info[n++], PMIX_RANGE, &c->range, PMIX_DATA_RANGE);
    c->rc = spx_pubsub_lookup(&c->proc, (char **)c->keys, info, n, lookup_cb,
                              (void *)(intptr_t)c->tag);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

static void do_unpublish(void *arg)
{
    struct call *c = arg;
    c->rc = spx_pubsub_unpublish(&c->proc, c->keys[0] ? (char **)c->keys : NULL, NULL, 0,
                                 op_cb, NULL);
}

static void do_gone(void *arg)
{
    spx_pubsub_proc_gone(&((struct call *)arg)->proc);
}

static void do_fini(void *arg)
{
    (void)arg;
    spx_pubsub_fini();
}

static pmix_status_t publish(pmix_proc_t p, const char *key, int value, pmix_data_range_t range,
                             pmix_persistence_t persist)
{
    struct call c = { .proc = p, .keys = { key, NULL }, .value = value, .range = range,
                      .persist = persist };
    on_loop(do_publish, &c);
    return c.rc;
}

static pmix_status_t lookup(pmix_proc_t p, const char *k1, const char *k2, bool wait, int tag)
{
    struct call c = { .proc = p, .keys = { k1, k2, NULL }, .wait = wait, .tag = tag };
    on_loop(do_lookup, &c);
    return c.rc;
}

/* The answer with this tag (exactly one), or fails. */
static struct answer *answer_of(int tag)
{
    struct answer *found = NULL;
    for (int i = 0; i < nans; i++)
        if (ans[i].tag == tag) {
            ck_assert_ptr_null(found);
            found = &ans[i];
        }
    ck_assert_ptr_nonnull(found);
    return found;
}

START_TEST(publish_lookup_duplicate_missing)
{
    ck_assert_int_eq(publish(P(NS, 0), "svc", 7, 0, 0), PMIX_SUCCESS);
    ck_assert_int_eq(op_calls, 1);
    ck_assert_int_eq(publish(P(NS, 1), "svc", 8, 0, 0), PMIX_ERR_DUPLICATE_KEY);
    ck_assert_int_eq(op_calls, 1); /* an error does not call back */
    ck_assert_int_eq(lookup(P(NS, 2), "svc", NULL, false, 1), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 2), "nothing", NULL, false, 2), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 2), "svc", "nothing", false, 3), PMIX_SUCCESS);
    ck_assert_int_eq(nans, 3);
    ck_assert_int_eq(answer_of(1)->status, PMIX_SUCCESS);
    ck_assert_uint_eq(answer_of(1)->n, 1);
    ck_assert_int_eq(answer_of(1)->value[0], 7);
    ck_assert_uint_eq(answer_of(1)->owner[0], 0);
    ck_assert_int_eq(answer_of(2)->status, PMIX_ERR_NOT_FOUND);
    ck_assert_uint_eq(answer_of(3)->n, 1); /* what is there */
    /* bad arguments: no callback */
    struct call c = { .proc = P(NS, 2), .keys = { NULL }, .tag = 9 };
    on_loop(do_lookup, &c);
    ck_assert_int_eq(c.rc, PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(nans, 3);
}
END_TEST

START_TEST(newest_visible_entry_answers)
{
    /* rank 1's own PROC_LOCAL "k", then rank 2's SESSION "k" (no clash:
     * rank 2 cannot see rank 1's) */
    ck_assert_int_eq(publish(P(NS, 1), "k", 1, PMIX_RANGE_PROC_LOCAL, 0), PMIX_SUCCESS);
    ck_assert_int_eq(publish(P(NS, 2), "k", 2, PMIX_RANGE_SESSION, 0), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 1), "k", NULL, false, 1), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 3), "k", NULL, false, 2), PMIX_SUCCESS);
    ck_assert_int_eq(answer_of(1)->value[0], 2); /* the newest it can see */
    ck_assert_int_eq(answer_of(2)->value[0], 2);
    /* once rank 2's is gone, rank 1 sees its own again, rank 3 nothing */
    struct call c = { .proc = P(NS, 2), .keys = { NULL } };
    on_loop(do_unpublish, &c);
    ck_assert_int_eq(lookup(P(NS, 1), "k", NULL, false, 3), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 3), "k", NULL, false, 4), PMIX_SUCCESS);
    ck_assert_int_eq(answer_of(3)->value[0], 1);
    ck_assert_int_eq(answer_of(4)->status, PMIX_ERR_NOT_FOUND);
    /* another namespace's SESSION entry clashes with a SESSION publish... */
    ck_assert_int_eq(publish(P("other", 0), "s", 5, 0, 0), PMIX_SUCCESS);
    ck_assert_int_eq(publish(P(NS, 0), "s", 6, 0, 0), PMIX_ERR_DUPLICATE_KEY);
    /* ... a NAMESPACE one does not: it cannot see the other namespace's */
    ck_assert_int_eq(publish(P(NS, 0), "s", 6, PMIX_RANGE_NAMESPACE, 0), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 1), "s", NULL, false, 5), PMIX_SUCCESS);
    ck_assert_int_eq(answer_of(5)->value[0], 6);
}
END_TEST

START_TEST(parked_lookups_oldest_first)
{
    for (int r = 1; r <= 3; r++)
        ck_assert_int_eq(lookup(P(NS, (pmix_rank_t)r), "a", NULL, true, r), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 4), "a", "b", true, 4), PMIX_SUCCESS);
    ck_assert_int_eq(nans, 0);
    ck_assert_int_eq(publish(P(NS, 0), "a", 10, 0, 0), PMIX_SUCCESS);
    ck_assert_int_eq(nans, 3); /* the one that also waits for b is still parked */
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(ans[i].tag, i + 1);
        ck_assert_int_eq(ans[i].status, PMIX_SUCCESS);
        ck_assert_int_eq(ans[i].value[0], 10);
    }
    ck_assert_int_eq(publish(P(NS, 0), "b", 11, 0, 0), PMIX_SUCCESS);
    ck_assert_int_eq(nans, 4);
    ck_assert_int_eq(ans[3].tag, 4);
    ck_assert_uint_eq(ans[3].n, 2);
    ck_assert_int_eq(ans[3].value[0], 10);
    ck_assert_int_eq(ans[3].value[1], 11);
}
END_TEST

START_TEST(first_read_proc_persistence_and_gone)
{
    ck_assert_int_eq(publish(P(NS, 0), "once", 1, 0, PMIX_PERSIST_FIRST_READ), PMIX_SUCCESS);
    ck_assert_int_eq(publish(P(NS, 0), "mine", 2, 0, PMIX_PERSIST_PROC), PMIX_SUCCESS);
    ck_assert_int_eq(publish(P(NS, 0), "stays", 3, 0, 0), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 1), "once", NULL, false, 1), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 1), "once", NULL, false, 2), PMIX_SUCCESS);
    ck_assert_int_eq(answer_of(1)->value[0], 1);
    ck_assert_int_eq(answer_of(2)->status, PMIX_ERR_NOT_FOUND);
    /* rank 5 and rank 6 wait for what never comes; rank 5 goes away */
    ck_assert_int_eq(lookup(P(NS, 5), "never", NULL, true, 5), PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 6), "never", NULL, true, 6), PMIX_SUCCESS);
    struct call g = { .proc = P(NS, 5) };
    on_loop(do_gone, &g);
    ck_assert_int_eq(answer_of(5)->status, PMIX_ERR_NOT_FOUND);
    g.proc = P(NS, 0);
    on_loop(do_gone, &g);
    ck_assert_int_eq(lookup(P(NS, 1), "mine", "stays", false, 3), PMIX_SUCCESS);
    ck_assert_uint_eq(answer_of(3)->n, 1);
    ck_assert_int_eq(answer_of(3)->value[0], 3);
    /* unpublish one key of two */
    ck_assert_int_eq(publish(P(NS, 2), "x", 4, 0, 0), PMIX_SUCCESS);
    ck_assert_int_eq(publish(P(NS, 2), "y", 5, 0, 0), PMIX_SUCCESS);
    struct call u = { .proc = P(NS, 2), .keys = { "x", NULL } };
    on_loop(do_unpublish, &u);
    ck_assert_int_eq(u.rc, PMIX_SUCCESS);
    ck_assert_int_eq(lookup(P(NS, 1), "x", "y", false, 4), PMIX_SUCCESS);
    ck_assert_uint_eq(answer_of(4)->n, 1);
    ck_assert_int_eq(answer_of(4)->value[0], 5);
    /* fini: rank 6's lookup is answered, the table is empty after */
    int before = nans;
    on_loop(do_fini, NULL);
    ck_assert_int_eq(nans, before + 1);
    ck_assert_int_eq(answer_of(6)->status, PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(lookup(P(NS, 1), "stays", NULL, false, 7), PMIX_SUCCESS);
    ck_assert_int_eq(answer_of(7)->status, PMIX_ERR_NOT_FOUND);
}
END_TEST

/* Another thread than the progress thread: the table refuses to be touched. */
START_TEST(off_thread_call_stops)
{
    struct call c = { .proc = P(NS, 0), .keys = { "k", NULL }, .value = 1 };
    do_publish(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pubsub_table");
    TCase *tc = tcase_create("table");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, publish_lookup_duplicate_missing);
    tcase_add_test(tc, newest_visible_entry_answers);
    tcase_add_test(tc, parked_lookups_oldest_first);
    tcase_add_test(tc, first_read_proc_persistence_and_gone);
    tcase_add_test_raise_signal(tc, off_thread_call_stops, SIGABRT);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* the table lives for the process: each test needs its own */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
