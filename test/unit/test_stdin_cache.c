/*
 * test_stdin_cache: what the ranks' stdin keeps and drops (lib/host/
 * stdin_cache.c), on plain buffers: no fd, no thread, the time passed in.
 *   - back-pressure: a push larger than the cache goes in as the rank reads,
 *     in order, nothing dropped, and is released once its last byte is in;
 *   - PMIX_IOF_DROP_NEWEST drops what does not fit, only while the pipe is
 *     full; PMIX_IOF_DROP_OLDEST drops cached bytes to make room, and keeps
 *     the end of new bytes that alone fill the cache;
 *   - block buffering: whole blocks only, all once the time passed, the
 *     cache is full or EOF follows; the deadline of a held block;
 *   - an EOF push; a push to two targets released once by both, the first
 *     error winning; the end of a stdin releasing what waits there;
 *   - another source's bytes (room, put, when they may bypass the cache);
 *   - the push directives, those refused included.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "host/stdin_cache.h"

/* A push of the bytes of str (borrowed) to n targets. */
static struct spx_stdin_push mkpush(const char *str, enum spx_stdin_policy policy, size_t cache,
                                    uint32_t ntargets)
{
    return (struct spx_stdin_push){ .data = (const unsigned char *)str, .size = strlen(str),
                                    .policy = policy, .cache = cache, .left = ntargets };
}

/* The cached bytes as a string (at most 63). */
static const char *cached(const struct spx_stdin_cache *c)
{
    static char s[64];
    size_t n = c->len < sizeof(s) - 1 ? c->len : sizeof(s) - 1;

    memcpy(s, c->buf + c->off, n);
    s[n] = 0;
    return s;
}

/* Reads n bytes from the front, as a write to the pipe would. */
static void rank_reads(struct spx_stdin_cache *c, size_t n)
{
    ck_assert_uint_ge(spx_stdin_cache_ready(c, 0), n);
    spx_stdin_cache_consumed(c, n);
}

START_TEST(test_back_pressure)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push p = mkpush("0123456789abcdefghij", SPX_STDIN_BLOCK, 8, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    ck_assert_uint_eq(c.limit, SPX_HOST_STDIN_CACHE_DEFAULT);
    ck_assert_int_eq(spx_stdin_cache_enqueue(&c, &p), 0);
    ck_assert(spx_stdin_cache_admit(&c, true, 1.0, &done, &err));
    ck_assert_int_eq(err, 0);
    ck_assert_uint_eq(c.limit, 8);
    ck_assert_str_eq(cached(&c), "01234567");
    ck_assert_ptr_null(done.head);
    /* full, the pipe full too: nothing moves, nothing is dropped */
    ck_assert(!spx_stdin_cache_admit(&c, true, 1.0, &done, &err));
    ck_assert_uint_eq(spx_stdin_cache_room(&c), 0);
    rank_reads(&c, 5);
    ck_assert_str_eq(cached(&c), "567");
    ck_assert(spx_stdin_cache_admit(&c, false, 2.0, &done, &err));
    ck_assert_str_eq(cached(&c), "56789abc");
    rank_reads(&c, 8);
    ck_assert_uint_eq(c.off, 0);
    ck_assert(spx_stdin_cache_admit(&c, false, 3.0, &done, &err));
    ck_assert_str_eq(cached(&c), "defghij");
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &p);
    ck_assert_int_eq(p.status, PMIX_SUCCESS);
    ck_assert_ptr_null(spx_stdin_done_take(&done));
    ck_assert_ptr_null(c.head);
    ck_assert_uint_eq(c.dropped, 0);
    ck_assert(!c.eof_queued);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
}
END_TEST

START_TEST(test_drop_newest)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push a = mkpush("aaaaa", SPX_STDIN_BLOCK, 8, 1);
    struct spx_stdin_push b = mkpush("bbbbbbbbbb", SPX_STDIN_DROP_NEWEST, 0, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    spx_stdin_cache_enqueue(&c, &a);
    spx_stdin_cache_enqueue(&c, &b);
    /* the pipe still takes bytes: b waits for room like any push */
    ck_assert(spx_stdin_cache_admit(&c, false, 1.0, &done, &err));
    ck_assert_str_eq(cached(&c), "aaaaabbb");
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &a);
    ck_assert_ptr_null(done.head);
    ck_assert_uint_eq(c.dropped, 0);
    /* the pipe is full: what does not fit is dropped, b is done */
    ck_assert(spx_stdin_cache_admit(&c, true, 1.0, &done, &err));
    ck_assert_uint_eq(c.dropped, 7);
    ck_assert_str_eq(cached(&c), "aaaaabbb");
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &b);
    ck_assert_int_eq(b.status, PMIX_SUCCESS);
    ck_assert_ptr_null(c.head);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
    ck_assert_uint_eq(c.dropped, 0);
}
END_TEST

START_TEST(test_drop_oldest)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push a = mkpush("abcdef", SPX_STDIN_BLOCK, 8, 1);
    struct spx_stdin_push b = mkpush("WXYZ", SPX_STDIN_DROP_OLDEST, 0, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    spx_stdin_cache_enqueue(&c, &a);
    spx_stdin_cache_enqueue(&c, &b);
    ck_assert(spx_stdin_cache_admit(&c, false, 1.0, &done, &err));
    ck_assert_str_eq(cached(&c), "abcdefWX");
    ck_assert_uint_eq(c.dropped, 0);
    /* the pipe full: the oldest bytes make room for the rest of b */
    ck_assert(spx_stdin_cache_admit(&c, true, 1.0, &done, &err));
    ck_assert_str_eq(cached(&c), "cdefWXYZ");
    ck_assert_uint_eq(c.dropped, 2);
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &a);
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &b);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
}
END_TEST

START_TEST(test_drop_oldest_keeps_the_end)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push a = mkpush("ab", SPX_STDIN_BLOCK, 4, 1);
    struct spx_stdin_push b = mkpush("0123456789", SPX_STDIN_DROP_OLDEST, 0, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    spx_stdin_cache_enqueue(&c, &a);
    ck_assert(spx_stdin_cache_admit(&c, true, 1.0, &done, &err));
    spx_stdin_cache_enqueue(&c, &b);
    /* b alone is over the cache: the cached bytes and b's start go */
    ck_assert(spx_stdin_cache_admit(&c, true, 1.0, &done, &err));
    ck_assert_str_eq(cached(&c), "6789");
    ck_assert_uint_eq(c.dropped, 2 + 6);
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &a);
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &b);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
}
END_TEST

START_TEST(test_blocks)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push p = mkpush("0123456789", SPX_STDIN_BLOCK, 100, 1);
    int err = 0;

    p.bsize = 4;
    p.btime = 2;
    spx_stdin_cache_init(&c);
    ck_assert_double_eq(spx_stdin_cache_deadline(&c), -1);
    spx_stdin_cache_enqueue(&c, &p);
    ck_assert(spx_stdin_cache_admit(&c, false, 100.0, &done, &err));
    ck_assert_uint_eq(c.bsize, 4);
    ck_assert_double_eq(c.held_at, 100.0);
    /* whole blocks, until the time is up */
    ck_assert_uint_eq(spx_stdin_cache_ready(&c, 100.5), 8);
    ck_assert_double_eq(spx_stdin_cache_deadline(&c), 102.0);
    ck_assert_uint_eq(spx_stdin_cache_ready(&c, 102.0), 10);
    spx_stdin_cache_consumed(&c, 8);
    ck_assert_uint_eq(spx_stdin_cache_ready(&c, 100.5), 0);
    /* the held bytes go once EOF follows */
    c.eof_queued = true;
    ck_assert_uint_eq(spx_stdin_cache_ready(&c, 100.5), 2);
    c.eof_queued = false;
    /* or once the cache is full */
    c.limit = 2;
    ck_assert_uint_eq(spx_stdin_cache_ready(&c, 100.5), 2);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
    /* an ended stdin keeps the sizes asked for last */
    ck_assert_uint_eq(c.bsize, 4);
    ck_assert_double_eq(spx_stdin_cache_deadline(&c), -1);
}
END_TEST

START_TEST(test_sizes_asked_last)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push a = mkpush("a", SPX_STDIN_BLOCK, 16, 1);
    struct spx_stdin_push b = mkpush("b", SPX_STDIN_BLOCK, 0, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    spx_stdin_cache_enqueue(&c, &a);
    spx_stdin_cache_enqueue(&c, &b);
    spx_stdin_cache_admit(&c, false, 1.0, &done, &err);
    ck_assert_uint_eq(c.limit, 16);   /* b gave none: a's stays */
    ck_assert_uint_eq(spx_stdin_cache_room(&c), 14);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
}
END_TEST

START_TEST(test_eof)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push p = mkpush("hi", SPX_STDIN_BLOCK, 0, 1);
    int err = 0;

    p.eof = true;
    spx_stdin_cache_init(&c);
    spx_stdin_cache_enqueue(&c, &p);
    ck_assert(spx_stdin_cache_admit(&c, false, 1.0, &done, &err));
    ck_assert(c.eof_queued);
    ck_assert(!spx_stdin_cache_drained_to_eof(&c));
    rank_reads(&c, 2);
    ck_assert(spx_stdin_cache_drained_to_eof(&c));
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &p);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
    ck_assert(!c.eof_queued);
}
END_TEST

START_TEST(test_two_targets_first_error)
{
    struct spx_stdin_cache one, two;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push p = mkpush("abcdef", SPX_STDIN_BLOCK, 4, 2);
    struct spx_stdin_push q = mkpush("x", SPX_STDIN_BLOCK, 0, 1);
    int err = 0;

    spx_stdin_cache_init(&one);
    spx_stdin_cache_init(&two);
    spx_stdin_cache_enqueue(&one, &p);
    spx_stdin_cache_enqueue(&two, &p);
    spx_stdin_cache_enqueue(&two, &q);
    ck_assert(spx_stdin_cache_admit(&one, false, 1.0, &done, &err));
    ck_assert_str_eq(cached(&one), "abcd");   /* the rest waits at one */
    /* two ends: p and q, waiting there, are released with its error */
    spx_stdin_cache_end(&two, PMIX_ERR_UNREACH, &done);
    ck_assert_ptr_null(two.head);
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &q);
    ck_assert_int_eq(q.status, PMIX_ERR_UNREACH);
    ck_assert_ptr_null(done.head);   /* one still holds p */
    rank_reads(&one, 4);
    ck_assert(spx_stdin_cache_admit(&one, false, 2.0, &done, &err));
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &p);
    ck_assert_int_eq(p.status, PMIX_ERR_UNREACH);   /* the first error wins */
    ck_assert_ptr_null(spx_stdin_done_take(&done));
    spx_stdin_cache_end(&one, PMIX_SUCCESS, &done);
    ck_assert_ptr_null(done.head);
}
END_TEST

START_TEST(test_end_unread)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push p = mkpush("0123456789", SPX_STDIN_BLOCK, 4, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    spx_stdin_cache_enqueue(&c, &p);
    spx_stdin_cache_admit(&c, false, 1.0, &done, &err);
    ck_assert_uint_eq(c.len, 4);
    spx_stdin_cache_end(&c, PMIX_ERR_UNREACH, &done);
    ck_assert_uint_eq(c.len, 0);
    ck_assert_ptr_null(c.buf);
    ck_assert_ptr_null(c.head);
    ck_assert_ptr_null(c.tail);
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &p);
    ck_assert_int_eq(p.status, PMIX_ERR_UNREACH);
}
END_TEST

START_TEST(test_other_source)
{
    struct spx_stdin_cache c;
    struct spx_stdin_done_list done = { 0 };
    struct spx_stdin_push p = mkpush("pushed", SPX_STDIN_BLOCK, 8, 1);
    int err = 0;

    spx_stdin_cache_init(&c);
    c.limit = 8;
    ck_assert(spx_stdin_cache_bypassable(&c));
    ck_assert_uint_eq(spx_stdin_cache_room(&c), 8);
    ck_assert_int_eq(spx_stdin_cache_put(&c, (const unsigned char *)"src", 3, 5.0), 0);
    ck_assert_double_eq(c.held_at, 5.0);
    ck_assert(!spx_stdin_cache_bypassable(&c));   /* cached bytes go first */
    ck_assert_uint_eq(spx_stdin_cache_room(&c), 5);
    spx_stdin_cache_put(&c, (const unsigned char *)"+", 1, 6.0);
    ck_assert_double_eq(c.held_at, 5.0);   /* the oldest byte's time */
    rank_reads(&c, 4);
    ck_assert(spx_stdin_cache_bypassable(&c));
    spx_stdin_cache_enqueue(&c, &p);
    ck_assert(!spx_stdin_cache_bypassable(&c));   /* a push waits */
    spx_stdin_cache_admit(&c, false, 7.0, &done, &err);
    rank_reads(&c, 6);
    ck_assert(spx_stdin_cache_bypassable(&c));
    c.bsize = 2;
    ck_assert(!spx_stdin_cache_bypassable(&c));   /* block buffering */
    ck_assert_ptr_eq(spx_stdin_done_take(&done), &p);
    spx_stdin_cache_end(&c, PMIX_SUCCESS, &done);
}
END_TEST

START_TEST(test_directives)
{
    pmix_info_t d[4];
    struct spx_stdin_push p = { 0 };
    uint32_t u32 = 4096;
    size_t sz = 64;
    int secs = 3;
    bool yes = true;

    PMIx_Info_load(&d[0], PMIX_IOF_CACHE_SIZE, &u32, PMIX_UINT32);
    PMIx_Info_load(&d[1], PMIX_IOF_BUFFERING_SIZE, &sz, PMIX_SIZE);
    PMIx_Info_load(&d[2], PMIX_IOF_BUFFERING_TIME, &secs, PMIX_INT);
    PMIx_Info_load(&d[3], PMIX_IOF_DROP_OLDEST, &yes, PMIX_BOOL);
    ck_assert_int_eq(spx_stdin_push_directives(&p, d, 4), PMIX_SUCCESS);
    ck_assert_uint_eq(p.cache, 4096);
    ck_assert_uint_eq(p.bsize, 64);
    ck_assert_double_eq(p.btime, 3);
    ck_assert_int_eq(p.policy, SPX_STDIN_DROP_OLDEST);
    ck_assert(!p.eof);
    for (int i = 0; i < 4; i++)
        PMIX_INFO_DESTRUCT(&d[i]);

    /* no directive: back-pressure */
    p = (struct spx_stdin_push){ 0 };
    ck_assert_int_eq(spx_stdin_push_directives(&p, NULL, 0), PMIX_SUCCESS);
    ck_assert_int_eq(p.policy, SPX_STDIN_BLOCK);

    /* both drop policies */
    PMIx_Info_load(&d[0], PMIX_IOF_DROP_OLDEST, &yes, PMIX_BOOL);
    PMIx_Info_load(&d[1], PMIX_IOF_DROP_NEWEST, &yes, PMIX_BOOL);
    ck_assert_int_eq(spx_stdin_push_directives(&p, d, 2), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIX_INFO_DESTRUCT(&d[1]);

    /* a cache of 0 bytes, a size that is no number */
    u32 = 0;
    PMIx_Info_load(&d[0], PMIX_IOF_CACHE_SIZE, &u32, PMIX_UINT32);
    ck_assert_int_eq(spx_stdin_push_directives(&p, d, 1), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIx_Info_load(&d[0], PMIX_IOF_BUFFERING_SIZE, "64", PMIX_STRING);
    ck_assert_int_eq(spx_stdin_push_directives(&p, d, 1), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[0]);

    /* PMIX_IOF_COMPLETE ends the stdin after the bytes */
    p = (struct spx_stdin_push){ 0 };
    PMIx_Info_load(&d[0], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    ck_assert_int_eq(spx_stdin_push_directives(&p, d, 1), PMIX_SUCCESS);
    ck_assert(p.eof);
    PMIX_INFO_DESTRUCT(&d[0]);
}
END_TEST

static Suite *stdin_cache_suite(void)
{
    Suite *s = suite_create("stdin_cache");
    TCase *tc = tcase_create("stdin_cache");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_back_pressure);
    tcase_add_test(tc, test_drop_newest);
    tcase_add_test(tc, test_drop_oldest);
    tcase_add_test(tc, test_drop_oldest_keeps_the_end);
    tcase_add_test(tc, test_blocks);
    tcase_add_test(tc, test_sizes_asked_last);
    tcase_add_test(tc, test_eof);
    tcase_add_test(tc, test_two_targets_first_error);
    tcase_add_test(tc, test_end_unread);
    tcase_add_test(tc, test_other_source);
    tcase_add_test(tc, test_directives);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stdin_cache_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
