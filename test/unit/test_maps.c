/* test_maps.c - compact node and process maps (types/maps.h): what the
 * compressors write for the layouts hosts make, that every node and rank
 * reads back as written out in full, lookups both ways, the older form, and
 * the texts refused. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "types/maps.h"
#include "types/types.h"

static char *nodes_text(const char *list)
{
    char *out = NULL;
    ck_assert_int_eq(spx_nodemap_compress(list, &out), PMIX_SUCCESS);
    return out;
}

static char *procs_text(const char *list)
{
    char *out = NULL;
    ck_assert_int_eq(spx_procmap_compress(list, &out), PMIX_SUCCESS);
    return out;
}

/* Every name of list (",") read back from text, and found by name. */
static void check_nodes(const char *text, const char *list)
{
    spx_nodemap_t m;
    ck_assert_int_eq(spx_nodemap_parse(text, &m), PMIX_SUCCESS);
    char *copy = strdup(list), *save = NULL;
    uint32_t i = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
        char *name = spx_nodemap_name(&m, i);
        ck_assert_msg(name && strcmp(name, tok) == 0, "%s: node %u is %s, not %s", text, i,
                      name ? name : "(none)", tok);
        free(name);
        uint32_t at = UINT32_MAX;
        ck_assert(spx_nodemap_find(&m, tok, &at));
        ck_assert_uint_eq(at, i);
    }
    ck_assert_uint_eq(m.nnodes, i);
    ck_assert_ptr_null(spx_nodemap_name(&m, i));
    free(copy);
    spx_nodemap_fini(&m);
}

/* Every node's list of list (";") read back, and every rank located. */
static void check_procs(const char *text, const char *list)
{
    spx_procmap_t m;
    ck_assert_int_eq(spx_procmap_parse(text, &m), PMIX_SUCCESS);
    const char *p = list;
    uint32_t node = 0;
    for (;;) {
        size_t len = strcspn(p, ";");
        char *want = strndup(p, len);
        char *got = spx_procmap_node_list(&m, node);
        ck_assert_msg(got && strcmp(got, want) == 0, "%s: node %u holds %s, not %s", text, node,
                      got ? got : "(none)", want);
        uint32_t pos = 0;
        for (char *save = NULL, *tok = strtok_r(want, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save), pos++) {
            uint32_t n = UINT32_MAX, at = UINT32_MAX;
            ck_assert_msg(spx_procmap_locate(&m, (pmix_rank_t)atoi(tok), &n, &at),
                          "%s: rank %s not found", text, tok);
            ck_assert_uint_eq(n, node);
            ck_assert_uint_eq(at, pos);
        }
        ck_assert_uint_eq(spx_procmap_node_size(&m, node), pos);
        free(want);
        free(got);
        node++;
        p += len;
        if (*p != ';')
            break;
        p++;
    }
    ck_assert_uint_eq(m.nnodes, node);
    spx_procmap_fini(&m);
}

START_TEST(test_nodes_grouped)
{
    char *t = nodes_text("vn1,vn2,vn3,vn4");
    ck_assert_str_eq(t, SPX_MAPS_PREFIX "vn[1-4]");
    check_nodes(t, "vn1,vn2,vn3,vn4");
    free(t);
    t = nodes_text("node009,node010,node011,login,x1.cl,x2.cl,x4.cl,n9,n10");
    ck_assert_str_eq(t, SPX_MAPS_PREFIX "node[009-011],login,x[1-2].cl,x4.cl,n[9-10]");
    check_nodes(t, "node009,node010,node011,login,x1.cl,x2.cl,x4.cl,n9,n10");
    free(t);
    /* a name that only looks like the next one is not taken into a group */
    t = nodes_text("n08,n9,n010");
    check_nodes(t, "n08,n9,n010");
    spx_nodemap_t m;
    ck_assert_int_eq(spx_nodemap_parse(t, &m), PMIX_SUCCESS);
    uint32_t at;
    ck_assert(!spx_nodemap_find(&m, "n8", &at));
    ck_assert(!spx_nodemap_find(&m, "n0010", &at));
    spx_nodemap_fini(&m);
    free(t);
}
END_TEST

/* 4096 simulated nodes named by address: the text stays short. */
START_TEST(test_nodes_large)
{
    size_t cap = 4096 * 16, off = 0;
    char *list = malloc(cap);
    for (unsigned k = 0; k < 4096; k++)
        off += (size_t)snprintf(list + off, cap - off, "%s127.0.%u.%u", k ? "," : "", k / 254,
                                k % 254 + 1);
    char *t = nodes_text(list);
    ck_assert_uint_lt(strlen(t), 17 * 30); /* one group per 254 nodes */
    check_nodes(t, list);
    free(t);
    free(list);
}
END_TEST

START_TEST(test_procs_patterns)
{
    char *t = procs_text("0,1;2,3;4,5;6,7");
    ck_assert_str_eq(t, SPX_MAPS_PREFIX "0-1*4@2");
    check_procs(t, "0,1;2,3;4,5;6,7");
    free(t);
    t = procs_text("0,4;1,5;2,6;3,7"); /* round robin */
    ck_assert_str_eq(t, SPX_MAPS_PREFIX "0,4*4@1");
    check_procs(t, "0,4;1,5;2,6;3,7");
    free(t);
    t = procs_text("0,1,2;3,4;5,6;;7"); /* uneven, and a node without ranks */
    check_procs(t, "0,1,2;3,4;5,6;;7");
    free(t);
    t = procs_text("5");
    check_procs(t, "5");
    free(t);
}
END_TEST

START_TEST(test_procs_large)
{
    size_t cap = 1024 * 24, off = 0;
    char *list = malloc(cap);
    for (unsigned k = 0; k < 1024; k++)
        off += (size_t)snprintf(list + off, cap - off, "%s%u,%u", k ? ";" : "", 2 * k, 2 * k + 1);
    char *t = procs_text(list);
    ck_assert_str_eq(t, SPX_MAPS_PREFIX "0-1*1024@2");
    check_procs(t, list);
    spx_procmap_t m;
    ck_assert_int_eq(spx_procmap_parse(t, &m), PMIX_SUCCESS);
    ck_assert_uint_eq(m.top, 2048);
    ck_assert_uint_eq(m.nranks, 2048);
    uint32_t n, pos;
    ck_assert(!spx_procmap_locate(&m, 2048, &n, &pos));
    ck_assert_uint_eq(spx_procmap_node_first(&m, 1023), 2046);
    spx_procmap_fini(&m);
    free(t);
    free(list);
}
END_TEST

/* The older form, and what the generators and argv parsers make of both. */
START_TEST(test_older_form)
{
    check_nodes("spmix:a,b,c", "a,b,c");
    check_procs("spmix:0,2;1,3", "0,2;1,3");
    char *rx = NULL, **argv = NULL;
    ck_assert_int_eq(PMIx_generate_ppn("0,1;2,3;4,5", &rx), PMIX_SUCCESS);
    ck_assert_int_eq(spx_ppn_parse(rx, &argv), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_regex_count(argv), 3);
    ck_assert_str_eq(argv[2], "4,5");
    spx_regex_free(argv);
    free(rx);
    ck_assert_int_eq(PMIx_generate_regex("h1,h2,h3", &rx), PMIX_SUCCESS);
    ck_assert_int_eq(spx_regex_parse(rx, &argv), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_regex_count(argv), 3);
    ck_assert_str_eq(argv[1], "h2");
    spx_regex_free(argv);
    free(rx);
}
END_TEST

START_TEST(test_refused)
{
    static const char *const bad_nodes[] = {
        SPX_MAPS_PREFIX "n[3-1]", SPX_MAPS_PREFIX "n[1-]", SPX_MAPS_PREFIX "n[1-2",
        SPX_MAPS_PREFIX "n[1-2]x]", SPX_MAPS_PREFIX "n[1-99999999999]", "pmix[n[1-3]]",
        SPX_MAPS_PREFIX "n[0-16777216]",
    };
    static const char *const bad_procs[] = {
        SPX_MAPS_PREFIX "0-1*4", SPX_MAPS_PREFIX "0-1*0@2", SPX_MAPS_PREFIX "0-1*2@0",
        SPX_MAPS_PREFIX "0-1*4@2x", SPX_MAPS_PREFIX "4294967290*10@1", SPX_MAPS_PREFIX "a",
        SPX_MAPS_PREFIX "0*16777217@1",
    };
    for (size_t i = 0; i < sizeof(bad_nodes) / sizeof(bad_nodes[0]); i++) {
        spx_nodemap_t m;
        ck_assert_msg(spx_nodemap_parse(bad_nodes[i], &m) != PMIX_SUCCESS, "%s read",
                      bad_nodes[i]);
        spx_nodemap_fini(&m);
    }
    for (size_t i = 0; i < sizeof(bad_procs) / sizeof(bad_procs[0]); i++) {
        spx_procmap_t m;
        ck_assert_msg(spx_procmap_parse(bad_procs[i], &m) != PMIX_SUCCESS, "%s read",
                      bad_procs[i]);
        spx_procmap_fini(&m);
    }
    char *out = NULL;
    ck_assert_int_eq(spx_nodemap_compress("a[1],b", &out), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_procmap_compress("0*2@1", &out), PMIX_ERR_BAD_PARAM);
    /* the generator then writes the older form, which reads back unchanged */
    ck_assert_int_eq(PMIx_generate_regex("a*1,b", &out), PMIX_SUCCESS);
    ck_assert_str_eq(out, SPX_REGEX_PREFIX "a*1,b");
    free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("maps");
    TCase *tc = tcase_create("maps");
    tcase_add_test(tc, test_nodes_grouped);
    tcase_add_test(tc, test_nodes_large);
    tcase_add_test(tc, test_procs_patterns);
    tcase_add_test(tc, test_procs_large);
    tcase_add_test(tc, test_older_form);
    tcase_add_test(tc, test_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
