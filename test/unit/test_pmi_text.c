/* test_pmi_text.c - the PMI-1 / PMI-2 text parser (proto/pmi_text.h) with
 * good and hostile input: framing of both forms (short, over-long, bad
 * headers), pairs (missing '=', empty or duplicate keys, too many, too
 * long, control bytes, ';;' escapes), escaping on output, and random bytes
 * that must never be read past their length.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/pmi_text.h"

static int parse1(const char *s, struct spx_pmi_cmd *c)
{
    static char buf[SPX_PMI_MAX_MSG + 16];
    size_t n = strlen(s);
    memcpy(buf, s, n);
    return spx_pmi_parse_v1(buf, n, c);
}

static int parse2(const char *s, struct spx_pmi_cmd *c)
{
    static char buf[SPX_PMI_MAX_MSG + 16];
    size_t n = strlen(s);
    memcpy(buf, s, n);
    return spx_pmi_parse_v2(buf, n, c);
}

START_TEST(v1_good)
{
    struct spx_pmi_cmd c;
    ck_assert_int_eq(parse1("cmd=put kvsname=k key=a value=x=y", &c), 0);
    ck_assert_uint_eq(c.n, 4);
    ck_assert_str_eq(spx_pmi_cmd_get(&c, "cmd"), "put");
    ck_assert_str_eq(spx_pmi_cmd_get(&c, "value"), "x=y");
    ck_assert_ptr_null(spx_pmi_cmd_get(&c, "nothere"));
    ck_assert_int_eq(parse1("  cmd=barrier_in   ", &c), 0);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_int_eq(parse1("cmd=get key=", &c), 0); /* an empty value is a value */
    ck_assert_str_eq(spx_pmi_cmd_get(&c, "key"), "");
}
END_TEST

static const char *const v1_bad[] = {
    "", "   ", "put", "cmd", "=x", "cmd=", "key=a cmd=put", "cmd=a =b", "cmd=a b",
    "cmd=a key=1 key=2", "cmd=a\001", "cmd=a k=\n",
};

START_TEST(v1_hostile)
{
    struct spx_pmi_cmd c;
    ck_assert_msg(parse1(v1_bad[_i], &c) != 0, "accepted \"%s\"", v1_bad[_i]);
}
END_TEST

START_TEST(limits)
{
    struct spx_pmi_cmd c;
    char *s = malloc(SPX_PMI_MAX_MSG + 16);
    /* too many pairs */
    size_t n = (size_t)sprintf(s, "cmd=x");
    for (int i = 0; i < SPX_PMI_MAX_PAIRS; i++)
        n += (size_t)sprintf(s + n, " k%d=v", i);
    ck_assert_int_ne(parse1(s, &c), 0);
    /* a key one byte too long, a value one byte too long, then at the limit */
    memset(s, 'k', SPX_PMI_MAX_KEY + 1);
    strcpy(s + SPX_PMI_MAX_KEY + 1, "=v cmd=x");
    ck_assert_int_ne(parse1(s, &c), 0);
    strcpy(s, "cmd=x v=");
    memset(s + 8, 'v', SPX_PMI_MAX_VAL + 1);
    s[8 + SPX_PMI_MAX_VAL + 1] = '\0';
    ck_assert_int_ne(parse1(s, &c), 0);
    s[8 + SPX_PMI_MAX_VAL] = '\0';
    ck_assert_int_eq(parse1(s, &c), 0);
    /* a message longer than the cap is refused by the parser too */
    char *big = malloc(SPX_PMI_MAX_MSG + 2);
    memset(big, 'a', SPX_PMI_MAX_MSG + 1);
    ck_assert_int_ne(spx_pmi_parse_v1(big, SPX_PMI_MAX_MSG + 1, &c), 0);
    free(big);
    free(s);
}
END_TEST

START_TEST(framing)
{
    size_t blen = 99;
    ck_assert_int_eq(spx_pmi_frame_v1("cmd=a", 5, &blen), 0);
    ck_assert_int_eq(spx_pmi_frame_v1("cmd=a\ncmd=b\n", 12, &blen), 6);
    ck_assert_uint_eq(blen, 5);
    char *big = malloc(SPX_PMI_MAX_MSG + 2);
    memset(big, 'a', SPX_PMI_MAX_MSG + 2);
    ck_assert_int_eq(spx_pmi_frame_v1(big, SPX_PMI_MAX_MSG, &blen), 0);
    ck_assert_int_eq(spx_pmi_frame_v1(big, SPX_PMI_MAX_MSG + 1, &blen), -1);
    big[SPX_PMI_MAX_MSG] = '\n';
    ck_assert_int_eq(spx_pmi_frame_v1(big, SPX_PMI_MAX_MSG + 1, &blen), SPX_PMI_MAX_MSG + 1);
    free(big);
    ck_assert_int_eq(spx_pmi_frame_v2("12   ", 5, &blen), 0);
    ck_assert_int_eq(spx_pmi_frame_v2("9     cmd=a;", 12, &blen), 0);
    ck_assert_int_eq(spx_pmi_frame_v2("6     cmd=a;", 12, &blen), 12);
    ck_assert_uint_eq(blen, 6);
    ck_assert_int_eq(spx_pmi_frame_v2("     6cmd=a;", 12, &blen), 12);
    ck_assert_int_eq(spx_pmi_frame_v2("0     ", 6, &blen), -1);
    ck_assert_int_eq(spx_pmi_frame_v2("-6    cmd=a;", 12, &blen), -1);
    ck_assert_int_eq(spx_pmi_frame_v2("1 2   ", 6, &blen), -1);
    ck_assert_int_eq(spx_pmi_frame_v2("999999", 6, &blen), -1);
    ck_assert_int_eq(spx_pmi_frame_v2("4097  ", 6, &blen), -1);
    ck_assert_int_eq(spx_pmi_looks_v2("cmd=in", 6), 0);
    ck_assert_int_eq(spx_pmi_looks_v2("12", 2), -1);
    ck_assert_int_eq(spx_pmi_looks_v2("  42  ", 6), 1);
}
END_TEST

START_TEST(v2_pairs)
{
    struct spx_pmi_cmd c;
    ck_assert_int_eq(parse2("cmd=kvs-put;key=k;value=a;;b;;;", &c), 0);
    ck_assert_str_eq(spx_pmi_cmd_get(&c, "value"), "a;b;");
    ck_assert_int_eq(parse2("cmd=job-getid", &c), 0); /* the last ';' may be missing */
    ck_assert_int_eq(parse2("cmd=a;;", &c), 0);
    ck_assert_str_eq(spx_pmi_cmd_get(&c, "cmd"), "a;");
    ck_assert_int_ne(parse2(";", &c), 0);
    ck_assert_int_ne(parse2("cmd=a;;;x;", &c), 0);
    ck_assert_int_ne(parse2("cmd=a;k=1;k=2;", &c), 0);
    ck_assert_int_ne(parse2("key=a;cmd=b;", &c), 0);
    ck_assert_int_ne(parse2("cmd=a;\n=b;", &c), 0);
    char out[16];
    size_t pos = 0;
    ck_assert_int_eq(spx_pmi_append_v2(out, sizeof(out), &pos, "a;b"), 0);
    ck_assert_str_eq(out, "a;;b");
    ck_assert_int_eq(spx_pmi_append_v2(out, sizeof(out), &pos, ";;;;;;"), -1);
    ck_assert_uint_eq(pos, 4);
    ck_assert_int_eq(spx_pmi_v1_value_ok("a=b"), 1);
    ck_assert_int_eq(spx_pmi_v1_value_ok("a b"), 0);
}
END_TEST

/* Random bytes of random lengths, parsed in an exact-size heap block (ASan
 * sees any read past it) with one byte of room for the terminator. */
START_TEST(random_bytes)
{
    srand(12345);
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = (size_t)rand() % 300;
        char *m = malloc(n + 1);
        for (size_t i = 0; i < n; i++) {
            int r = rand() % 8;
            m[i] = r == 0 ? ';' : r == 1 ? '=' : r == 2 ? ' ' : (char)(rand() % 256);
        }
        struct spx_pmi_cmd c;
        size_t blen;
        (void)spx_pmi_frame_v1(m, n, &blen);
        (void)spx_pmi_frame_v2(m, n, &blen);
        char *copy = malloc(n + 1);
        memcpy(copy, m, n);
        if (spx_pmi_parse_v1(copy, n, &c) == 0)
            for (size_t i = 0; i < c.n; i++)
                ck_assert(strlen(c.p[i].key) > 0 && strlen(c.p[i].val) <= SPX_PMI_MAX_VAL);
        memcpy(copy, m, n);
        if (spx_pmi_parse_v2(copy, n, &c) == 0)
            ck_assert_str_ne(c.p[0].val, "");
        free(copy);
        free(m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pmi_text");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, v1_good);
    tcase_add_loop_test(tc, v1_hostile, 0, (int)(sizeof(v1_bad) / sizeof(v1_bad[0])));
    tcase_add_test(tc, limits);
    tcase_add_test(tc, framing);
    tcase_add_test(tc, v2_pairs);
    tcase_add_test(tc, random_bytes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
