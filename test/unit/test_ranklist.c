/* test_ranklist.c - rank lists read through hwloc bitmaps (util/ranklist.h):
 * the sets PMIx job info spells, the strings refused, the size cap, and the
 * position of a rank among the set in ascending order. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ranklist.h"

/* set as "a,b,c" (ascending), for comparing with the expected members */
static void members(hwloc_const_bitmap_t set, char *out, size_t len)
{
    size_t off = 0;
    unsigned r;
    out[0] = '\0';
    hwloc_bitmap_foreach_begin(r, set)
    {
        off += (size_t)snprintf(out + off, len - off, "%s%u", off ? "," : "", r);
    }
    hwloc_bitmap_foreach_end();
}

static void check_set(const char *list, const char *want)
{
    char got[256];
    hwloc_bitmap_t set = spx_ranklist_parse(list, 1000);
    ck_assert_msg(set != NULL, "\"%s\" refused", list);
    members(set, got, sizeof(got));
    ck_assert_msg(strcmp(got, want) == 0, "\"%s\" read as {%s}, want {%s}", list, got, want);
    hwloc_bitmap_free(set);
}

START_TEST(sets)
{
    check_set("0", "0");
    check_set("0,2-4", "0,2,3,4");
    check_set("7,1,3", "1,3,7");
    check_set("0-3,10,12-13", "0,1,2,3,10,12,13");
    check_set("5-5", "5");
    check_set("", "");
    check_set("100,200", "100,200");
}
END_TEST

START_TEST(refused)
{
    const char *bad[] = { "-1", "1-", "4-", "1--2", "1-,2", "a", "1,x", " 1", "1 ", "0x10",
                          "010", "1,-2", "-", "+1", "1;2" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(spx_ranklist_parse(bad[i], 1000) == NULL, "\"%s\" accepted", bad[i]);
    ck_assert_ptr_null(spx_ranklist_parse(NULL, 1000));
}
END_TEST

START_TEST(cap)
{
    ck_assert_ptr_null(spx_ranklist_parse("0-9", 9));
    ck_assert_ptr_null(spx_ranklist_parse("0,2,4-10", 8));
    hwloc_bitmap_t set = spx_ranklist_parse("0-9", 10);
    ck_assert_ptr_nonnull(set);
    ck_assert_int_eq(hwloc_bitmap_weight(set), 10);
    hwloc_bitmap_free(set);
    set = spx_ranklist_parse("0-65534", 65535);
    ck_assert_ptr_nonnull(set);
    ck_assert_int_eq(hwloc_bitmap_weight(set), 65535);
    hwloc_bitmap_free(set);
}
END_TEST

START_TEST(below)
{
    hwloc_bitmap_t set = spx_ranklist_parse("0,1,4-7,20", 100);
    ck_assert_ptr_nonnull(set);
    ck_assert_uint_eq(spx_ranklist_below(set, 0), 0);
    ck_assert_uint_eq(spx_ranklist_below(set, 1), 1);
    ck_assert_uint_eq(spx_ranklist_below(set, 4), 2);
    ck_assert_uint_eq(spx_ranklist_below(set, 7), 5);
    ck_assert_uint_eq(spx_ranklist_below(set, 20), 6);
    ck_assert_uint_eq(spx_ranklist_below(set, 10), 6); /* not a member: ranks below it */
    ck_assert_uint_eq(spx_ranklist_below(set, 1000), 7);
    hwloc_bitmap_free(set);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ranklist");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, sets);
    tcase_add_test(tc, refused);
    tcase_add_test(tc, cap);
    tcase_add_test(tc, below);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? 1 : 0;
}
