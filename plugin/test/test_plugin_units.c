/*
 * test_plugin_units: the pure parts of mpi/spmix - the rank map carried
 * from srun to the slurmstepds (encode/decode round trips for block, cyclic
 * and arbitrary placements, and rejection of every malformed form) and the
 * abort report (round trip, wrong key, any flipped byte, bad lengths) and
 * the tree's width (SpmixTreeWidth over Slurm's TreeWidth, clamped).
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/abort_msg.h"
#include "plugin/apps.h"
#include "plugin/layout.h"
#include "plugin/tree_width.h"

/* Encodes tids, decodes the text and checks the same placement comes back. */
static void roundtrip(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids,
                      uint32_t ntasks, const char *want)
{
    struct spx_plg_map m;
    const char *why = NULL;
    char *s = spx_plg_map_encode(nnodes, tasks, tids);

    ck_assert_ptr_nonnull(s);
    if (want != NULL)
        ck_assert_str_eq(s, want);
    ck_assert_int_eq(spx_plg_map_decode(s, nnodes, ntasks, &m, &why), 0);
    for (uint32_t n = 0; n < nnodes; n++) {
        ck_assert_uint_eq(m.count[n], tasks[n]);
        for (uint32_t i = 0; i < tasks[n]; i++) {
            int found = 0;
            for (uint32_t k = 0; k < m.count[n]; k++)
                found += m.ranks[n][k] == tids[n][i];
            ck_assert_int_eq(found, 1);
        }
    }
    spx_plg_map_free(&m);
    free(s);
}

START_TEST(map_block_cyclic)
{
    uint32_t b0[] = { 0, 1 }, b1[] = { 2, 3 }, b2[] = { 4, 5 };
    uint32_t c0[] = { 0, 3 }, c1[] = { 1, 4 }, c2[] = { 2, 5 };
    uint32_t *block[] = { b0, b1, b2 }, *cyc[] = { c0, c1, c2 };
    uint16_t tasks[] = { 2, 2, 2 };

    roundtrip(3, tasks, block, 6, "0-1;2-3;4-5");
    roundtrip(3, tasks, cyc, 6, "0-3:3;1-4:3;2-5:3");
}
END_TEST

START_TEST(map_arbitrary)
{
    uint32_t a0[] = { 7, 0, 2, 4, 9 }, a1[] = { 1 }, a2[] = { 3, 5, 6, 8 };
    uint32_t *tids[] = { a0, a1, a2 };
    uint16_t tasks[] = { 5, 1, 4 };

    roundtrip(3, tasks, tids, 10, NULL);
}
END_TEST

START_TEST(map_rejects)
{
    static const struct { const char *s; uint32_t nnodes, ntasks; } bad[] = {
        { "0-1;2-3", 3, 6 },        /* too few nodes */
        { "0-1;2-3;4-5;6", 3, 7 },  /* too many nodes */
        { "0-1;1-3;4-5", 3, 6 },    /* rank 1 twice */
        { "0-1;2-3;4", 3, 6 },      /* rank 5 missing */
        { "0-1;2-3;4-6", 3, 6 },    /* rank 6 outside */
        { "0-1;;2-5", 3, 6 },       /* empty node */
        { "0-1;2-3;4-5x", 3, 6 },   /* junk */
        { "0-5:0", 1, 6 },          /* zero stride */
        { "5-0", 1, 6 },            /* reversed */
        { "99999999999", 1, 1 },    /* overflow */
        { "", 1, 1 },
        { "0", 0, 0 },
    };
    struct spx_plg_map m;
    const char *why;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        ck_assert_msg(spx_plg_map_decode(bad[i].s, bad[i].nnodes, bad[i].ntasks, &m, &why) == -1,
                      "accepted '%s'", bad[i].s);
        ck_assert_ptr_nonnull(why);
    }
    ck_assert_int_eq(spx_plg_map_decode(NULL, 1, 1, &m, &why), -1);
}
END_TEST

START_TEST(map_tpn)
{
    struct spx_plg_map m;
    const char *why;

    ck_assert_int_eq(spx_plg_map_from_tpn("2(x2),1", 3, 5, &m, &why), 0);
    ck_assert_uint_eq(m.count[0], 2);
    ck_assert_uint_eq(m.count[2], 1);
    ck_assert_uint_eq(m.ranks[1][0], 2);
    ck_assert_uint_eq(m.ranks[2][0], 4);
    spx_plg_map_free(&m);
    ck_assert_int_eq(spx_plg_map_from_tpn("2(x2)", 3, 4, &m, &why), -1);
    ck_assert_int_eq(spx_plg_map_from_tpn("2(x3)", 3, 5, &m, &why), -1);
    ck_assert_int_eq(spx_plg_map_from_tpn("2(x3", 3, 6, &m, &why), -1);
}
END_TEST

START_TEST(abort_roundtrip)
{
    static const uint8_t key[32] = { 1, 2, 3 }, other[32] = { 1, 2, 4 };
    static const uint8_t nonce[SPX_PLG_ABORT_NONCE] = { 7 }, nonce2[SPX_PLG_ABORT_NONCE] = { 8 };
    struct spx_plg_abort_auth au = { .key = key, .keylen = sizeof(key) };
    struct spx_plg_abort_auth au_other = { .key = other, .keylen = sizeof(other) };
    struct spx_plg_abort a = { .jobid = 12, .stepid = 3, .rank = 5, .status = -7 }, b;
    uint8_t buf[SPX_PLG_ABORT_MAX_WIRE];
    char why[256];
    size_t len;

    strcpy(a.host, "vn2");
    strcpy(a.text, "it broke");
    len = spx_plg_abort_pack(&a, &au, nonce, buf, why, sizeof(why));
    ck_assert_uint_gt(len, 0);
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce, &b, why, sizeof(why)), 0);
    ck_assert_uint_eq(b.jobid, 12);
    ck_assert_uint_eq(b.stepid, 3);
    ck_assert_uint_eq(b.rank, 5);
    ck_assert_int_eq(b.status, -7);
    ck_assert_str_eq(b.host, "vn2");
    ck_assert_str_eq(b.text, "it broke");
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au_other, nonce, &b, why, sizeof(why)), -2);
    /* made for another connection's nonce: a replay is refused */
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce2, &b, why, sizeof(why)), -2);
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len - 1, &au, nonce, &b, why, sizeof(why)), -1);
    for (size_t i = 0; i < len; i++) {
        buf[i] ^= 0x40;
        ck_assert_int_ne(spx_plg_abort_unpack(buf, len, &au, nonce, &b, why, sizeof(why)), 0);
        buf[i] ^= 0x40;
    }
    memcpy(buf + 4, "\xff\xff\xff\xff", 4);
    ck_assert_int_eq(spx_plg_abort_body_len(buf), -1);
}
END_TEST

START_TEST(abort_long_text_cut)
{
    static const uint8_t key[16] = { 9 }, nonce[SPX_PLG_ABORT_NONCE] = { 1 };
    struct spx_plg_abort_auth au = { .key = key, .keylen = sizeof(key) };
    struct spx_plg_abort a = { .rank = 1 }, b;
    uint8_t buf[SPX_PLG_ABORT_MAX_WIRE];
    char why[256];
    size_t len;

    memset(a.text, 'x', SPX_PLG_ABORT_MAX_TEXT);
    a.text[SPX_PLG_ABORT_MAX_TEXT] = '\0';
    memset(a.host, 'h', SPX_PLG_ABORT_MAX_HOST);
    len = spx_plg_abort_pack(&a, &au, nonce, buf, why, sizeof(why));
    ck_assert_uint_le(len, SPX_PLG_ABORT_MAX_WIRE);
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce, &b, why, sizeof(why)), 0);
    ck_assert_uint_eq(strlen(b.text), SPX_PLG_ABORT_MAX_TEXT);
}
END_TEST

START_TEST(hex)
{
    uint8_t out[4];

    ck_assert_uint_eq(spx_plg_hex_decode("00ff10Ab", out, sizeof(out)), 4);
    ck_assert_uint_eq(out[1], 0xff);
    ck_assert_uint_eq(out[3], 0xab);
    ck_assert_uint_eq(spx_plg_hex_decode("00ff10Ab11", out, sizeof(out)), 0);
    ck_assert_uint_eq(spx_plg_hex_decode("0g", out, sizeof(out)), 0);
    ck_assert_uint_eq(spx_plg_hex_decode("012", out, sizeof(out)), 0);
}
END_TEST

/* apps.h: the run-length form and the --multi-prog parser */
START_TEST(apps_roundtrip)
{
    uint32_t in[6] = { 0, 0, 1, 1, 1, 0 }, *out, n;
    const char *why;
    char *s = spx_plg_apps_encode(in, 6);

    ck_assert_str_eq(s, "0*2,1*3,0*1");
    ck_assert_int_eq(spx_plg_apps_decode(s, 6, &out, &n, &why), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_mem_eq(out, in, sizeof(in));
    free(out);
    free(s);
    ck_assert_int_eq(spx_plg_apps_decode("0*2,1*3", 6, &out, &n, &why), -1);  /* short */
    ck_assert_int_eq(spx_plg_apps_decode("0*2,1*5", 6, &out, &n, &why), -1);  /* long */
    ck_assert_int_eq(spx_plg_apps_decode("0*3,2*3", 6, &out, &n, &why), -1);  /* app 1 unused */
    ck_assert_int_eq(spx_plg_apps_decode("0*0,1*6", 6, &out, &n, &why), -1);
    ck_assert_int_eq(spx_plg_apps_decode("0*6x", 6, &out, &n, &why), -1);
    ck_assert_int_eq(spx_plg_apps_decode("", 6, &out, &n, &why), -1);
}
END_TEST

START_TEST(apps_multiprog)
{
    uint32_t *a, n;
    const char *why;

    ck_assert_int_eq(spx_plg_apps_from_multiprog("# c\n0,3 a x\n\n  1 b \\\n 2 y\n* c\n", 5, &a, &n,
                                                 &why), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(a[0], 0);
    ck_assert_uint_eq(a[3], 0);
    ck_assert_uint_eq(a[1], 1);
    ck_assert_uint_eq(a[2], 2);   /* the continued line's "2 y" is no line of its own */
    ck_assert_uint_eq(a[4], 2);
    free(a);
    ck_assert_int_eq(spx_plg_apps_from_multiprog("0-1 a\n1 b\n", 2, &a, &n, &why), -1);
    ck_assert_int_eq(spx_plg_apps_from_multiprog("0 a\n", 2, &a, &n, &why), -1);
    ck_assert_int_eq(spx_plg_apps_from_multiprog("0-2 a\n", 2, &a, &n, &why), -1);
    ck_assert_int_eq(spx_plg_apps_from_multiprog("0-1\n", 2, &a, &n, &why), -1);
    ck_assert_int_eq(spx_plg_apps_from_multiprog("0,x a\n", 2, &a, &n, &why), -1);
}
END_TEST

START_TEST(apps_het_count)
{
    char *a1[] = { "srun", "-n2", "A", ":", "-n2", "B", ":", "C" };
    char *a2[] = { "srun", "--het-group=0,2-3", "A" };
    char *a3[] = { "srun", "--het-group", "0", "A", ":", "--het-group=1", "B" };
    char *a4[] = { "srun", "-n2", "A" };

    ck_assert_uint_eq(spx_plg_apps_het_count(8, a1), 3);
    ck_assert_uint_eq(spx_plg_apps_het_count(3, a2), 3);
    ck_assert_uint_eq(spx_plg_apps_het_count(7, a3), 2);
    ck_assert_uint_eq(spx_plg_apps_het_count(3, a4), 1);
}
END_TEST

/* SpmixTreeWidth over TreeWidth; TreeWidth clamped into 2..1024; unknown -> 16 */
static const struct {
    uint32_t mpiconf, slurm, want;
    enum spx_plg_width_from from;
} width_cases[] = {
    { 0, 50, 50, SPX_PLG_WIDTH_SLURM },          /* 22.05's default TreeWidth */
    { 0, 16, 16, SPX_PLG_WIDTH_SLURM },          /* 23.02 on */
    { 0, 2, 2, SPX_PLG_WIDTH_SLURM },
    { 0, 1, 2, SPX_PLG_WIDTH_SLURM_RAISED },
    { 0, 1024, 1024, SPX_PLG_WIDTH_SLURM },
    { 0, 1025, 1024, SPX_PLG_WIDTH_SLURM_CUT },
    { 0, 65533, 1024, SPX_PLG_WIDTH_SLURM_CUT },
    { 0, 0, 16, SPX_PLG_WIDTH_DEFAULT },
    { 0, 0xfffe, 16, SPX_PLG_WIDTH_DEFAULT },    /* NO_VAL16 */
    { 0, 0xffff, 16, SPX_PLG_WIDTH_DEFAULT },
    { 3, 50, 3, SPX_PLG_WIDTH_MPICONF },
    { 32, 1, 32, SPX_PLG_WIDTH_MPICONF },
    { 1024, 0, 1024, SPX_PLG_WIDTH_MPICONF },
};

START_TEST(tree_width)
{
    enum spx_plg_width_from from = SPX_PLG_WIDTH_DEFAULT;
    uint32_t w = spx_plg_width_choose(width_cases[_i].mpiconf, width_cases[_i].slurm, &from);

    ck_assert_uint_eq(w, width_cases[_i].want);
    ck_assert_int_eq(from, width_cases[_i].from);
    ck_assert_uint_eq(spx_plg_width_choose(width_cases[_i].mpiconf, width_cases[_i].slurm, NULL),
                      w);
    ck_assert_ptr_nonnull(spx_plg_width_from_str(from));
    ck_assert_str_ne(spx_plg_width_from_str(from), "?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, map_block_cyclic);
    tcase_add_test(tc, map_arbitrary);
    tcase_add_test(tc, map_rejects);
    tcase_add_test(tc, map_tpn);
    tcase_add_test(tc, abort_roundtrip);
    tcase_add_test(tc, abort_long_text_cut);
    tcase_add_test(tc, hex);
    tcase_add_test(tc, apps_roundtrip);
    tcase_add_test(tc, apps_multiprog);
    tcase_add_test(tc, apps_het_count);
    tcase_add_loop_test(tc, tree_width, 0, (int)(sizeof(width_cases) / sizeof(width_cases[0])));
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
