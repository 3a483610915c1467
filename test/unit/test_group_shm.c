/* test_group_shm.c - unit tests of lib/proto/group_shm: request slots
 * (round trip, a request too large for a slot, hostile slot bytes: a length
 * past the slot, truncations, random bytes) and the outcome area (round
 * trip small and larger than the first read, another generation, a length
 * beyond the limit, a file cut short); and the outcome's group info, read
 * only when asked for (proto/group.h), also when its bytes are malformed. */
#include "config.h"

#include "proto/group.h"
#include "proto/group_shm.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "types/types.h"

static char dir[64];
static char path[128];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/spx-gshm-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/g.d", dir);
}

static void teardown(void)
{
    unlink(path);
    rmdir(dir);
}

START_TEST(request_round_trip_and_limits)
{
    uint8_t slot[SPX_GSHM_SLOT_BYTES];
    pmix_info_t info[2];
    bool yes = true;
    size_t lcid = 42;
    PMIX_INFO_LOAD(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    ck_assert(spx_gshm_req_encode(slot, "grp-a", true, info, 2));
    spx_gshm_req_t r;
    ck_assert_int_eq(spx_gshm_req_decode(slot, &r), 0);
    ck_assert_str_eq(r.id, "grp-a");
    ck_assert(r.wildcard);
    ck_assert_uint_eq(r.ninfo, 2);
    ck_assert(PMIX_CHECK_KEY(&r.info[1], PMIX_GROUP_LOCAL_CID));
    ck_assert_uint_eq(r.info[1].value.data.size, 42);
    spx_gshm_req_fini(&r);
    /* a value that does not fit a slot */
    char *big = malloc(SPX_GSHM_SLOT_BYTES);
    memset(big, 'x', SPX_GSHM_SLOT_BYTES - 1);
    big[SPX_GSHM_SLOT_BYTES - 1] = '\0';
    pmix_info_t bi;
    PMIX_INFO_LOAD(&bi, "big", big, PMIX_STRING);
    ck_assert(!spx_gshm_req_encode(slot, "grp-a", false, &bi, 1));
    PMIX_INFO_DESTRUCT(&bi);
    free(big);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}
END_TEST

START_TEST(hostile_slots_are_refused)
{
    uint8_t slot[SPX_GSHM_SLOT_BYTES];
    spx_gshm_req_t r;
    ck_assert(spx_gshm_req_encode(slot, "grp-b", false, NULL, 0));
    uint32_t n;
    memcpy(&n, slot, 4);
    /* a length past the slot */
    uint32_t huge = SPX_GSHM_SLOT_BYTES;
    uint8_t bad[SPX_GSHM_SLOT_BYTES];
    memcpy(bad, slot, sizeof(bad));
    memcpy(bad, &huge, 4);
    ck_assert_int_eq(spx_gshm_req_decode(bad, &r), -1);
    /* every truncation, and a byte too many */
    for (uint32_t len = 0; len < n; len++) {
        memcpy(bad, slot, sizeof(bad));
        memcpy(bad, &len, 4);
        ck_assert_int_eq(spx_gshm_req_decode(bad, &r), -1);
    }
    memcpy(bad, slot, sizeof(bad));
    uint32_t more = n + 1;
    memcpy(bad, &more, 4);
    ck_assert_int_eq(spx_gshm_req_decode(bad, &r), -1);
    /* a version or flag it does not know, an empty id */
    memcpy(bad, slot, sizeof(bad));
    bad[4] = 9;
    ck_assert_int_eq(spx_gshm_req_decode(bad, &r), -1);
    memcpy(bad, slot, sizeof(bad));
    bad[5] = 2;
    ck_assert_int_eq(spx_gshm_req_decode(bad, &r), -1);
    /* random bytes: refused or read, never past the slot (ASan/valgrind watch) */
    srand(7);
    for (int i = 0; i < 20000; i++) {
        for (size_t k = 0; k < sizeof(bad); k++)
            bad[k] = (uint8_t)rand();
        uint32_t len = (uint32_t)rand() % (SPX_GSHM_SLOT_BYTES + 8);
        memcpy(bad, &len, 4);
        if (i % 2) /* a valid prefix, then noise */
            memcpy(bad + 4, slot + 4, n < len ? n : len);
        if (spx_gshm_req_decode(bad, &r) == 0)
            spx_gshm_req_fini(&r);
    }
}
END_TEST

START_TEST(outcome_round_trip_and_checks)
{
    int fd = spx_gshm_data_create(path, 3, getuid(), getgid());
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(spx_gshm_data_create(path, 3, getuid(), getgid()), -1); /* exists */
    uint8_t *got = NULL;
    size_t n = 0;
    /* nothing written yet: generation 0 with no bytes reads as empty; 1 does not */
    ck_assert_int_eq(spx_gshm_outcome_read(fd, 3, 1, &got, &n), -1);
    const char small[] = "outcome bytes";
    ck_assert_int_eq(spx_gshm_outcome_write(fd, 3, 5, small, sizeof(small)), 0);
    ck_assert_int_eq(spx_gshm_outcome_read(fd, 3, 5, &got, &n), 0);
    ck_assert_uint_eq(n, sizeof(small));
    ck_assert_mem_eq(got, small, n);
    free(got);
    ck_assert_int_eq(spx_gshm_outcome_read(fd, 3, 4, &got, &n), -1); /* another generation */
    ck_assert_ptr_null(got);
    /* larger than the first read */
    size_t bn = 200000;
    uint8_t *big = malloc(bn);
    for (size_t i = 0; i < bn; i++)
        big[i] = (uint8_t)(i * 31);
    ck_assert_int_eq(spx_gshm_outcome_write(fd, 3, 6, big, bn), 0);
    ck_assert_int_eq(spx_gshm_outcome_read(fd, 3, 6, &got, &n), 0);
    ck_assert_uint_eq(n, bn);
    ck_assert_mem_eq(got, big, bn);
    free(got);
    /* a length beyond the limit (a hostile writer) */
    uint64_t huge = (uint64_t)SPX_GSHM_MAX_OUTCOME + 1;
    ck_assert_int_eq(pwrite(fd, &huge, 8, (off_t)SPX_GSHM_OUTCOME_OFFSET(3) + 8), 8);
    ck_assert_int_eq(spx_gshm_outcome_read(fd, 3, 6, &got, &n), -1);
    /* a length past the end of the file */
    uint64_t past = bn + 100;
    ck_assert_int_eq(pwrite(fd, &past, 8, (off_t)SPX_GSHM_OUTCOME_OFFSET(3) + 8), 8);
    ck_assert_int_eq(spx_gshm_outcome_read(fd, 3, 6, &got, &n), -1);
    ck_assert_int_eq(spx_gshm_outcome_write(fd, 3, 7, big, (size_t)SPX_GSHM_MAX_OUTCOME + 1),
                     -1);
    free(big);
    close(fd);
}
END_TEST

START_TEST(group_info_decoded_on_demand)
{
    spx_buf_t b;
    spx_buf_init(&b);
    for (pmix_rank_t r = 0; r < 3; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, "ns", 2 - r);
        size_t lcid = 500 + (2 - r);
        pmix_info_t gi;
        PMIX_INFO_LOAD(&gi, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
        spx_grp_push_member(&b, "grp-c", &p, SPX_GRP_F_WANT_CID, &gi, 1, "rec", 3);
        PMIX_INFO_DESTRUCT(&gi);
    }
    spx_grp_push_cid(&b, "grp-c", 9);
    ck_assert(!spx_buf_failed(&b));
    spx_grp_outcome_t o;
    ck_assert_int_eq(spx_grp_outcome_parse(b.data, b.len, &o), 0);
    ck_assert_uint_eq(o.n, 3);
    ck_assert(o.have_cid && o.cid == 9 && o.want_cid);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(o.m[i].proc.rank, i); /* sorted */
        ck_assert(!o.m[i].info_decoded && o.m[i].info == NULL && o.m[i].ninfo_bytes > 0);
        ck_assert_int_eq(spx_grp_member_info(&o.m[i]), 0);
        ck_assert_uint_eq(o.m[i].ninfo, 1);
        ck_assert(PMIX_CHECK_KEY(&o.m[i].info[0], PMIX_GROUP_LOCAL_CID));
        ck_assert_uint_eq(o.m[i].info[0].value.data.size, 500 + i);
        ck_assert_int_eq(spx_grp_member_info(&o.m[i]), 0); /* once */
    }
    spx_grp_outcome_fini(&o);
    /* a member whose info bytes are garbage: the outcome parses, its info does not */
    uint8_t *bad = malloc(b.len);
    memcpy(bad, b.data, b.len);
    ck_assert_int_eq(spx_grp_outcome_parse(bad, b.len, &o), 0);
    size_t off = (size_t)(o.m[1].info_bytes - bad);
    memset(bad + off, 0xff, o.m[1].ninfo_bytes);
    ck_assert_int_eq(spx_grp_member_info(&o.m[1]), -1);
    ck_assert(o.m[1].info == NULL && o.m[1].ninfo == 0);
    ck_assert_int_eq(spx_grp_member_info(&o.m[0]), 0);
    spx_grp_outcome_fini(&o);
    /* an info length past the end: refused at parse */
    ck_assert_int_ne(spx_grp_outcome_parse(bad, off - 2, &o), 0);
    free(bad);
    spx_buf_fini(&b);
}
END_TEST

START_TEST(covers_the_whole_namespace_and_directives)
{
    pmix_proc_t p[5];
    bool wild;
    PMIX_LOAD_PROCID(&p[0], "ns", PMIX_RANK_WILDCARD);
    ck_assert(spx_gshm_covers("ns", 4, p, 1, &wild) && wild);
    ck_assert(!spx_gshm_covers("other", 4, p, 1, &wild));
    for (pmix_rank_t r = 0; r < 4; r++)
        PMIX_LOAD_PROCID(&p[r], "ns", 3 - r);
    ck_assert(spx_gshm_covers("ns", 4, p, 4, &wild) && !wild);
    PMIX_LOAD_PROCID(&p[4], "ns", 2); /* a repeat */
    ck_assert(spx_gshm_covers("ns", 4, p, 5, &wild));
    ck_assert(!spx_gshm_covers("ns", 5, p, 5, &wild)); /* rank 4 missing */
    PMIX_LOAD_PROCID(&p[4], "ns", 7); /* past the job */
    ck_assert(!spx_gshm_covers("ns", 4, p, 5, &wild));
    PMIX_LOAD_PROCID(&p[4], "nx", 1); /* another namespace */
    ck_assert(!spx_gshm_covers("ns", 4, p, 5, &wild));
    ck_assert(!spx_gshm_covers("ns", 4, p, 3, &wild));
    pmix_info_t d[2];
    bool yes = true;
    int t = 5;
    PMIX_INFO_LOAD(&d[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&d[1], PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
    ck_assert(spx_gshm_directives_ok(d, 2) && spx_gshm_directives_ok(NULL, 0));
    PMIX_INFO_DESTRUCT(&d[1]);
    PMIX_INFO_LOAD(&d[1], PMIX_TIMEOUT, &t, PMIX_INT);
    ck_assert(!spx_gshm_directives_ok(d, 2));
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIX_INFO_DESTRUCT(&d[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("group_shm");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, request_round_trip_and_limits);
    tcase_add_test(tc, hostile_slots_are_refused);
    tcase_add_test(tc, outcome_round_trip_and_checks);
    tcase_add_test(tc, group_info_decoded_on_demand);
    tcase_add_test(tc, covers_the_whole_namespace_and_directives);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
